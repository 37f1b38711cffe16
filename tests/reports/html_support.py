"""What the HTML report's tests share (issues 5 and 11), imported by name (a ``conftest``
of one folder is not importable beside another's when several folders run): the replay's
record, the baseline it is compared with, and the document read as text. The fixture that
makes the replay is in this folder's ``conftest.py``: the shipped examples and the calibration
set, replayed offline once by ``pytest --citations`` in a subprocess against a baseline that
differs from them in three claims, with ``--citations-calibrate``; and the page rendered
again from the run's JSON report read back and decided as a merge decides it (with the
calibration and the baseline's stored precision).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ops_support import REPO

from pytest_citations.gating.baseline import Baseline
from pytest_citations.gating.build import build_run
from pytest_citations.gating.redecision import decide_again
from pytest_citations.gating.run_result import BaselineFacts, RunResult
from pytest_citations.reports import RunInfo
from pytest_citations.reports.json_reader import read_report

#: Claims whose stored label the test baseline changes, and how.
REGRESSED = "cases/boiling-point.yaml::boiling-point::claim-2"  # contradicted, stored supported
IMPROVED = "cases/returns-policy.yaml::returns-policy::claim-1"  # partial, stored not_found
NEW = "cases/fetch-rules.yaml::fetch-rules::claim-3"  # not in the baseline


@dataclass
class Replay:
    """The replayed run: its output, the reports it wrote, and the page written again with
    the calibration and the baseline."""

    returncode: int
    output: str
    html_path: Path
    report: dict[str, Any]
    baseline: dict[str, Any]
    measured_path: Path

    @property
    def text(self) -> str:
        return self.html_path.read_text(encoding="utf-8")

    @property
    def measured(self) -> str:
        return self.measured_path.read_text(encoding="utf-8")

    @property
    def claims(self) -> list[dict[str, Any]]:
        return [claim for case in self.report["cases"] for claim in case["claims"]]


def copy_calibration_set(project: Path) -> None:
    """The shipped calibration cases (claims with ``expect:`` labels) and their cassettes."""
    for source, target in (
        (REPO / "cases" / "calibration", project / "cases" / "calibration"),
        (REPO / "cassettes" / "cases" / "calibration", project / "cassettes/cases/calibration"),
    ):
        target.mkdir(parents=True, exist_ok=True)
        for path in source.glob("*.yaml"):
            shutil.copyfile(path, target / path.name)


def shift_baseline(path: Path) -> dict[str, Any]:
    """Make the stored baseline differ from the run: one regression, one improvement, one
    claim missing (new)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    claims = data["claims"]
    for nodeid, label in ((REGRESSED, "supported"), (IMPROVED, "not_found")):
        claims[nodeid]["label"] = label
        claims[nodeid]["citations"][0]["label"] = label
    del claims[NEW]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return data


def result_of(report: Path, baseline: Path) -> tuple[RunResult, RunInfo]:
    """A JSON report read back and decided again as ``pytest-citations merge`` decides it,
    with the precision the baseline stored."""
    read = read_report(report)
    assert decide_again(read.cases, read.found, read.gates) == ()
    stored = BaselineFacts(baseline.name, Baseline.load(baseline).stored_precision())
    return build_run(read.found, read.gates, baseline=stored), read.info


# -- the document as text ---------------------------------------------------------------------

#: HTML elements without an end tag.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: list[str] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()


class Outline(HTMLParser):
    """Every element with its attributes and text; text of blockquotes and marks; claims in
    order; the rows of the overview's case table."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []
        self.style = ""
        self.script = ""
        self.claims: list[tuple[int, str, bool]] = []  # (section index, label, failed)
        self.sections: list[str] = []  # each case section's decision ("pass"/"fail"/"")
        self.blockquotes: list[tuple[str, list[str]]] = []  # (full text, marked texts)
        self._quote: list[str] | None = None
        self._marks: list[str] = []
        self._in_mark = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        if tag not in VOID:
            self.open.append(element)
        classes = element.classes
        if tag == "section" and "case" in classes:
            self.sections.append("")
        if tag == "div" and "decision" in classes and self.sections:
            self.sections[-1] = "fail" if "fail" in classes else "pass"
        if tag == "article" and "claim" in classes:
            label = element.attrs.get("data-label") or ""
            self.claims.append((len(self.sections) - 1, label, "failed" in classes))
        if tag == "blockquote":
            self._quote, self._marks = [], []
        if tag == "mark" and self._quote is not None:  # the answer's marks are no quote's
            self._in_mark = True
            self._marks.append("")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if any(element.tag == tag for element in self.open):
            while self.open.pop().tag != tag:
                pass
        if tag == "blockquote" and self._quote is not None:
            self.blockquotes.append(("".join(self._quote), self._marks))
            self._quote = None
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.text.append(data)
        current = self.open[-1].tag if self.open else ""
        if current == "style":
            self.style += data
        elif current == "script":
            self.script += data
        if self._quote is not None:
            self._quote.append(data)
            if self._in_mark:
                self._marks[-1] += data

    def find(self, tag: str, cls: str | None = None, **attrs: str) -> list[Element]:
        """Elements by tag, class and attribute values."""
        return [
            e
            for e in self.elements
            if e.tag == tag
            and (cls is None or cls in e.classes)
            and all(e.attrs.get(name.replace("_", "-")) == v for name, v in attrs.items())
        ]


def outline(text: str) -> Outline:
    parser = Outline()
    parser.feed(text)
    parser.close()
    return parser


def squeeze(text: str) -> str:
    return " ".join(text.split())


def text_of(element: Element) -> str:
    """An element's text, its descendants' text included, one space between pieces."""
    return squeeze(" ".join(element.text))
