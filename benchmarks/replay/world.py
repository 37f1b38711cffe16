"""The projects the replay benchmark replays: the plugin benchmark's world (``copies`` worlds of
60 pages and 200 claims, each from its own seed, so that no page, URL or claim is shared),
recorded once through ``pytest --citations`` against the local emulators, and the shipped
examples as shipped; each also in its legacy form, the same cassettes with their
``retrieval:`` section cut out, which a replay answers by running the model again."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from pytest_citations.pipeline.settings import environment_variables

from ..engine.emulators import Emulators
from ..engine.scenario import Scenario, build_scenario
from ..plugin.__main__ import live_environment, world_cases

ROOT = Path(__file__).resolve().parents[2]
#: Variables of the caller's environment that could steer a run elsewhere (tokens, base URLs,
#: the judge or the embedder, limits): dropped from every run the benchmark starts.
STEERING = environment_variables()
#: Where a replay's requests would go if a recording lacked one: nothing listens there.
DEAD = {"CRAWLBASE_API_URL": "http://127.0.0.1:9/", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
MODES = ("choices", "legacy")
_TOP_LEVEL_KEY = re.compile(r"^[A-Za-z_]")


def clean_environment() -> dict[str, str]:
    """This process's environment without anything that steers a run."""
    return {name: value for name, value in os.environ.items() if name not in STEERING}


def worlds(copies: int, claims: int, urls: int, seed: int) -> list[Scenario]:
    """``copies`` worlds from seeds ``seed``, ``seed + 1``, …; refuses copies that share a URL
    or a claim (the scaled suite must grow the work, not the cache hits)."""
    built = [build_scenario(claims, urls, seed + copy) for copy in range(copies)]
    seen_urls: set[str] = set()
    seen_claims: set[str] = set()
    for scenario in built:
        own_urls = set(scenario.pages)
        own_claims = {request.claim for request in scenario.requests}
        if own_urls & seen_urls or own_claims & seen_claims:
            raise SystemExit(f"the world of seed {scenario.seed} shares pages or claims")
        seen_urls |= own_urls
        seen_claims |= own_claims
    return built


def write_cases(scenario: Scenario, copy: int, files: int, project: Path) -> None:
    """One world as ``files`` case files under ``project/cases/c<copy>/``."""
    folder = project / "cases" / f"c{copy:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    for number, text in world_cases(scenario, files, f"c{copy:02d}-", f"{copy}."):
        (folder / f"world_{number:02d}.yaml").write_text(text, encoding="utf-8")


def new_project(folder: Path) -> Path:
    """An empty project whose ini file keeps any surrounding configuration out."""
    folder.mkdir(parents=True)
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return folder


def embedder_arguments(embedder: str | None) -> list[str]:
    """The embedder option of every run: none for the default (a replay recalls the recorded
    choice), the name otherwise (recorded and replayed alike)."""
    return [] if embedder is None else [f"--citations-embedder={embedder}"]


def record(library: Path, scenarios: Sequence[Scenario], embedder: str | None) -> float:
    """Records every world at once into ``library/cassettes``, as a user records: ``pytest
    --citations --citations-record=all`` in a subprocess, against fresh emulators that answer
    at once. Returns the recording's wall time. The judge is shown the top passages (0 evidence
    words), as it was before choices were kept: a cassette without its ``retrieval:`` section
    is replayed by that ranking, so the legacy form replays the same judge calls."""
    pages = {url: page for scenario in scenarios for url, page in scenario.fake_pages.items()}
    command = [
        sys.executable, "-m", "pytest", "--citations", "cases/", "-q", "-p", "no:cacheprovider",
        "--citations-record=all", "--citations-concurrency=16", "--citations-judge=openai",
        "--citations-evidence-words=0", *embedder_arguments(embedder),
    ]  # fmt: skip
    with Emulators(pages, 0.0, "process") as emulators:
        env = clean_environment() | live_environment(emulators)
        done = subprocess.run(command, cwd=library, env=env, capture_output=True, text=True)
    wall = _wall(done.stdout)
    summary = done.stdout.strip().splitlines()[-1:] or [""]
    if done.returncode not in (0, 1) or "error" in summary[0]:
        raise SystemExit(f"recording failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall


def _wall(stdout: str) -> float:
    found = re.findall(r" in (\d+(?:\.\d+)?)s", stdout)
    return float(found[-1]) if found else float("nan")


def strip_retrieval(text: str) -> str:
    """A cassette's text without its top-level ``retrieval:`` section; every other line is
    kept byte for byte (the section ends at the next top-level key)."""
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.startswith("retrieval:"):
            inside = True
            continue
        if inside and _TOP_LEVEL_KEY.match(line):
            inside = False
        if not inside:
            kept.append(line)
    return "".join(kept)


def _checked_strip(source: Path, target: Path) -> None:
    text = source.read_text(encoding="utf-8")
    stripped = strip_retrieval(text)
    before = yaml.load(text, Loader=yaml.CSafeLoader)
    after = yaml.load(stripped, Loader=yaml.CSafeLoader)
    if "retrieval" in after or after != {k: v for k, v in before.items() if k != "retrieval"}:
        raise SystemExit(f"cutting the retrieval section of {source} changed the cassette")
    target.write_text(stripped, encoding="utf-8")


def copy_cassettes(source: Path, target: Path, mode: str) -> int:
    """The cassettes under ``source`` into ``target``, as recorded (``choices``) or without
    their retrieval section (``legacy``). Returns how many held a section."""
    held = 0
    for path in sorted(source.rglob("*.yaml")):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if "\nretrieval:" in path.read_text(encoding="utf-8"):
            held += 1
        if mode == "legacy":
            _checked_strip(path, destination)
        else:
            shutil.copyfile(path, destination)
    return held


def scale_project(library: Path, copies: int, mode: str, folder: Path) -> Path:
    """The first ``copies`` recorded worlds as one project, in ``mode``."""
    project = new_project(folder)
    for copy in range(copies):
        name = f"c{copy:02d}"
        shutil.copytree(library / "cases" / name, project / "cases" / name)
        copy_cassettes(
            library / "cassettes" / "cases" / name, project / "cassettes" / "cases" / name, mode
        )
    return project


def examples_project(mode: str, folder: Path) -> Path:
    """The shipped examples (``cases/`` and ``cassettes/`` of the repository), in ``mode``."""
    project = new_project(folder)
    shutil.copytree(ROOT / "cases", project / "cases")
    if copy_cassettes(ROOT / "cassettes", project / "cassettes", mode) == 0:
        raise SystemExit("the shipped cassettes hold no retrieval section")
    return project
