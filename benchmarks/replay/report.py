"""The replay benchmark's figures beside their targets: one printed line per figure, "with
recorded choices" beside "legacy (retrieval section stripped)", and whether the figure (with
recorded choices, the replay as it is now) meets its target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIB = 2**20
#: The targets (issue "Figures to reach"); memory and sizes in MiB.
COLD_SUITE_S = 3.0
COLD_EXAMPLES_S = 2.0
WARM_WITHIN = 0.10
PEAK_RSS_MIB = 150.0
PEAK_RSS_LARGEST_MIB = 300.0
FLAT_WITHIN = 0.10
INSTALL_MIB = 120.0
INSTALL_S = 30.0
MODES = ("choices", "legacy")
Summary = dict[str, Any]


@dataclass
class Line:
    """One printed line: a figure, its two columns, its target and the verdict."""

    figure: str
    choices: str
    legacy: str = ""
    target: str = ""
    meets: bool | None = None  # None: no target

    def render(self) -> str:
        verdict = "" if self.meets is None else ("meets" if self.meets else "misses")
        return f"{self.figure:<42}{self.choices:>22} {self.legacy:>22}   {self.target:<22}{verdict}"


HEADER = Line("", "with recorded choices", "legacy (stripped)", "target").render() + "verdict"


def _cells(block: dict[str, Any], kind: str, show: Any) -> tuple[str, str]:
    """The figure ``show`` of the ``kind`` runs in each mode ("skipped" where not run)."""
    cells = []
    for mode in MODES:
        summary = (block.get(mode) or {}).get(kind)
        cells.append("skipped" if summary is None else str(show(summary)))
    return cells[0], cells[1]


def _gap(block: dict[str, Any], mode: str) -> float | None:
    runs = block.get(mode)
    if not runs:
        return None
    gap: float = (runs["warm"]["wall_s"] - runs["cold"]["wall_s"]) / runs["cold"]["wall_s"]
    return gap


def _rss(summary: Summary) -> str:
    return f"{summary['maxrss_mib']:.0f} MiB"


def _heavy(summary: Summary) -> str:
    return ", ".join(summary["heavy"]) or "none"


def project_lines(name: str, block: dict[str, Any], cold_limit: float) -> list[Line]:
    """The lines of one replayed project (the examples or the suite)."""
    now = block["choices"]
    gaps = [_gap(block, mode) for mode in MODES]
    rss = max(now["cold"]["maxrss_mib"], now["warm"]["maxrss_mib"])
    digests = {d for mode in block.values() for runs in mode.values() for d in runs["outcomes"]}
    alike = "every run alike" if len(digests) == 1 else "RESULTS DIFFER"
    return [
        Line(f"{name}: cold replay, wall", *_cells(block, "cold", lambda s: f"{s['wall_s']:.2f} s"),
             f"<= {cold_limit:.0f} s", now["cold"]["wall_s"] <= cold_limit),
        Line(f"{name}: cold replay, CPU", *_cells(block, "cold", lambda s: f"{s['cpu_s']:.2f} s")),
        Line(f"{name}: cold replay, pytest's session",
             *_cells(block, "cold", lambda s: f"{s['pytest_s']:.2f} s")),
        Line(f"{name}: warm replay, wall",
             *_cells(block, "warm", lambda s: f"{s['wall_s']:.2f} s")),
        Line(f"{name}: warm replay, CPU", *_cells(block, "warm", lambda s: f"{s['cpu_s']:.2f} s")),
        Line(f"{name}: warm against cold, wall",
             *("skipped" if gap is None else f"{gap:+.0%}" for gap in gaps),
             f"within {WARM_WITHIN:.0%}", abs(gaps[0] or 0.0) <= WARM_WITHIN),
        Line(f"{name}: peak RSS, cold", *_cells(block, "cold", _rss), f"<= {PEAK_RSS_MIB:.0f} MiB",
             now["cold"]["maxrss_mib"] <= PEAK_RSS_MIB),
        Line(f"{name}: peak RSS, warm", *_cells(block, "warm", _rss), f"<= {PEAK_RSS_MIB:.0f} MiB",
             rss <= PEAK_RSS_MIB),
        Line(f"{name}: model modules imported", *_cells(block, "cold", _heavy), "none",
             not (now["cold"]["heavy"] or now["warm"]["heavy"])),
        Line(f"{name}: items and their results", f"{now['cold']['items']} items", alike),
    ]  # fmt: skip


def scale_lines(scales: dict[str, dict[str, Any]]) -> list[Line]:
    """Per-claim time and peak RSS at each scale: the time flat against the smallest scale,
    the memory at the largest bounded."""
    ordered = sorted(scales, key=int)
    base, largest = ordered[0], ordered[-1]
    lines: list[Line] = []
    for size in ordered:
        block = scales[size]
        claims = block["choices"]["cold"]["claims"]
        for kind in ("cold", "warm"):
            first = scales[base]["choices"][kind]["per_claim_ms"]
            flat = block["choices"][kind]["per_claim_ms"] <= (1 + FLAT_WITHIN) * first
            judged = size != base
            lines.append(
                Line(f"{size}x ({claims} claims): per claim, {kind}",
                     *_cells(block, kind, lambda s: f"{s['per_claim_ms']:.2f} ms"),
                     f"<= {1 + FLAT_WITHIN:.1f} x at {base}x" if judged else "",
                     flat if judged else None)
            )  # fmt: skip
            lines.append(
                Line(f"{size}x: per claim, {kind}, CPU",
                     *_cells(block, kind, lambda s: f"{s['per_claim_cpu_ms']:.2f} ms"))
            )  # fmt: skip
        rss = max(block["choices"][kind]["maxrss_mib"] for kind in ("cold", "warm"))
        legacy = block.get("legacy")
        lines.append(
            Line(f"{size}x: peak RSS, cold and warm", f"{rss:.0f} MiB",
                 "skipped" if not legacy else
                 f"{max(legacy[k]['maxrss_mib'] for k in ('cold', 'warm')):.0f} MiB",
                 f"<= {PEAK_RSS_LARGEST_MIB:.0f} MiB" if size == largest else "",
                 rss <= PEAK_RSS_LARGEST_MIB if size == largest else None)
        )  # fmt: skip
    return lines


def install_lines(install: dict[str, Any] | None) -> list[Line]:
    """The core install's time and size, and its biggest distributions."""
    if install is None:
        return [
            Line("core install: time", "skipped"),
            Line("core install: site-packages", "skipped"),
        ]
    size = install["core_bytes"] / MIB
    biggest = list(install["distributions"].items())[:6]
    return [
        Line("core install: time", f"{install['seconds']:.1f} s", "", f"< {INSTALL_S:.0f} s",
             install["seconds"] < INSTALL_S),
        Line("core install: site-packages", f"{size:.1f} MiB", "", f"<= {INSTALL_MIB:.0f} MiB",
             size <= INSTALL_MIB),
        Line("  biggest: " + ", ".join(f"{name} {value / MIB:.1f}" for name, value in biggest)
             + " MiB", ""),
    ]  # fmt: skip


def core_lines(core: dict[str, Any] | None) -> list[Line]:
    """Replays in the core install, which has no model package at all."""
    if core is None:
        return []
    first = core["first"]
    lines = [
        Line("core, examples: first replay, wall", f"{first['wall_s']:.2f} s", "",
             "compiles the package")
    ]  # fmt: skip
    for name in ("examples", "suite"):
        for kind in ("cold", "warm"):
            run = core[name][kind]
            lines.append(
                Line(f"core, {name}: {kind} replay, wall", f"{run['wall_s']:.2f} s", "",
                     f"CPU {run['cpu_s']:.2f} s, {_rss(run)}, models: {_heavy(run)}")
            )  # fmt: skip
    return lines


def all_lines(figures: dict[str, Any]) -> list[Line]:
    lines = project_lines("examples", figures["examples"], COLD_EXAMPLES_S)
    lines += project_lines("suite", figures["suite"], COLD_SUITE_S)
    lines += scale_lines(figures["scale"])
    lines += install_lines(figures.get("install"))
    lines += core_lines(figures.get("core"))
    return lines


def render(figures: dict[str, Any], heading: list[str]) -> list[str]:
    """The printed report: the heading, the column titles, one line per figure."""
    return [
        *heading,
        HEADER,
        *(line.render() for line in all_lines(figures)),
        "wall: the pytest process from start to exit; each figure the median of the runs",
    ]


def verdicts(figures: dict[str, Any]) -> dict[str, bool]:
    """Each figure that has a target, and whether it meets it."""
    return {line.figure: bool(line.meets) for line in all_lines(figures) if line.meets is not None}
