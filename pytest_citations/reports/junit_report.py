"""What JUnit XML shows of the run. Flat, readable properties a CI page shows as they are
(:func:`claim_properties`, :func:`case_properties`): the plugin puts them on each case
item's report, and pytest's ``--junitxml`` writes them. A claim that could not be checked
has no label: its ``status`` says so, and a citation not checked shows ``unchecked``.

And the whole file, made from the run's result, for a run that pytest did not make in one
piece (:func:`render`): ``pytest-citations merge`` writes it from shard reports. One
``<testcase>`` per claim and per case's precision item, named as pytest's own
``--junitxml`` names them (``classname="cases.returns.yaml.returns-policy"
name="claim-2"``), with the same properties, the case file and the claim's line; a failing
claim or case is a ``<failure>``, one that could not be checked an ``<error>``, an item that
did not run ``<skipped>``, a case file that could not be verified an ``<error>`` of its own.
Times are not known from shard reports: each is 0."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..gating.criteria import Decision
from ..gating.result import CaseResult, ClaimResult, Location
from ..gating.run_result import RunResult
from ..sanitize import strip_controls
from .info import RunInfo


def claim_properties(claim: ClaimResult) -> list[tuple[str, object]]:
    """``claim``, ``label`` (or ``status: unchecked``), then ``citation.1.url``,
    ``citation.1.label``, ``.reason``, ``.quote``, ``.confidence`` per citation. The
    passages the judge saw stay in the JSON report."""
    properties: list[tuple[str, object]] = [("claim", claim.text)]
    if claim.label is not None:
        properties.append(("label", claim.label.value))
    else:
        properties.append(("status", claim.status.value))
    for number, citation in enumerate(claim.citations, start=1):
        properties += [
            (f"citation.{number}.url", citation.url),
            (f"citation.{number}.label", claim.shown_label(citation)),
            (f"citation.{number}.reason", citation.reason or ""),
            (f"citation.{number}.quote", " ".join((citation.evidence_quote or "").split())),
            (f"citation.{number}.confidence", f"{citation.confidence:.2f}"),
        ]
    return properties


def case_properties(case: CaseResult) -> list[tuple[str, object]]:
    """``precision`` (supported/checked citations, and the unchecked when there are) and
    ``decision``."""
    precision = case.precision
    shown = f"{precision.supported}/{precision.total}"
    if precision.unchecked:
        shown += f" ({precision.total} of {precision.total + precision.unchecked} checked)"
    return [("precision", shown), ("decision", str(case.decision or "not decided"))]


def _testcase(suite: ET.Element, classname: str, name: str, file: str, line: int) -> ET.Element:
    attributes = {"classname": classname, "name": name, "file": file, "time": "0.000"}
    if line:
        attributes["line"] = str(line)
    return ET.SubElement(suite, "testcase", attributes)


def _item(suite: ET.Element, where: Location) -> ET.Element:
    """An item's ``<testcase>``: its file's path with ``.`` for ``/``, then its case, as
    pytest's junitxml names a node (``cases.x.yaml.case``, ``claim-2``)."""
    classname = f"{where.file.replace('/', '.')}.{where.case}"
    return _testcase(suite, classname, where.name, where.file, where.line)


def _properties(case: ET.Element, properties: list[tuple[str, object]]) -> None:
    found = ET.SubElement(case, "properties")
    for name, value in properties:
        ET.SubElement(found, "property", {"name": name, "value": strip_controls(str(value))})


def _outcome(case: ET.Element, decision: Decision | None, reasons: list[str]) -> str | None:
    """A ``<failure>`` or ``<error>`` under ``case`` for a decision other than pass; which
    one it was (None for a pass)."""
    if decision is None or decision is Decision.PASS:
        return None
    tag = "failure" if decision is Decision.FAIL else "error"
    said = "\n".join(strip_controls(reason) for reason in reasons)
    first = said.splitlines()[0] if said else f"{decision.value}"
    ET.SubElement(case, tag, {"message": first}).text = said
    return tag


def render(result: RunResult, info: RunInfo | None = None, name: str = "pytest-citations") -> str:
    """The JUnit XML document of the run."""
    suites = ET.Element("testsuites", {"name": "pytest tests"})
    suite = ET.SubElement(suites, "testsuite", {"name": name})
    counts = {"failure": 0, "error": 0, "skipped": 0, "tests": 0}

    def count(found: str | None) -> None:
        counts["tests"] += 1
        if found is not None:
            counts[found] += 1

    for case in result.cases:
        for claim in case.claims:
            element = _item(suite, claim.where)
            _properties(element, claim_properties(claim))
            reasons = [str(f) for f in claim.failures] + [str(u) for u in claim.unchecked]
            count(_outcome(element, claim.decision, reasons))
        if case.decision is not None:
            element = _item(suite, case.info.item)
            _properties(element, case_properties(case))
            reasons = [str(f) for f in case.failures] + list(case.incomplete)
            count(_outcome(element, case.item, reasons))
    for item in result.skipped:
        element = _item(suite, item)
        ET.SubElement(element, "skipped", {"message": "the case item did not run"})
        count("skipped")
    for error in result.file_errors:
        element = _testcase(suite, error.file.replace("/", "."), "", error.file, 0)
        ET.SubElement(
            element, "error", {"message": strip_controls(f"not verified: {error.reason}")}
        )
        count("error")
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", "0.000")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


__all__ = ["case_properties", "claim_properties", "render"]
