"""A JUnit XML file made from the run's records, for a run that pytest did not make in one
piece: ``pytest-citations merge`` writes it from shard reports. One ``<testcase>`` per claim
and per case's precision item, named as pytest's own ``--junitxml`` names them
(``classname="cases.returns.yaml.returns-policy" name="claim-2"``), with the same flat
properties (:mod:`.junit`), the case file and the claim's line; a failing claim or case is a
``<failure>``, one that could not be checked an ``<error>``, an item that did not run
``<skipped>``, a case file that could not be verified an ``<error>`` of its own. Times are
not known from records: each is 0."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..atomic import write_atomically
from ..gating.criteria import Decision
from ..gating.decisions import RunDecision
from ..gating.run_report import RunReport
from ..sanitize import strip_controls
from .info import RunInfo
from .junit import case_properties, claim_properties


def _names(nodeid: str) -> tuple[str, str]:
    """(classname, name) of a node id, as pytest's junitxml makes them."""
    parts = nodeid.split("::")
    parts[0] = parts[0].replace("/", ".")
    return ".".join(parts[:-1]), parts[-1]


def _testcase(suite: ET.Element, nodeid: str, file: str, line: int | None = None) -> ET.Element:
    classname, name = _names(nodeid)
    attributes = {"classname": classname, "name": name, "file": file, "time": "0.000"}
    if line is not None:
        attributes["line"] = str(line)
    return ET.SubElement(suite, "testcase", attributes)


def _properties(case: ET.Element, properties: list[tuple[str, object]]) -> None:
    found = ET.SubElement(case, "properties")
    for name, value in properties:
        ET.SubElement(found, "property", {"name": name, "value": strip_controls(str(value))})


def _outcome(case: ET.Element, decision: Decision, reasons: tuple[str, ...]) -> str | None:
    """A ``<failure>`` or ``<error>`` under ``case`` for a decision other than pass; which
    one it was (None for a pass)."""
    if decision is Decision.PASS:
        return None
    tag = "failure" if decision is Decision.FAIL else "error"
    said = "\n".join(strip_controls(reason) for reason in reasons)
    first = said.splitlines()[0] if said else f"{decision.value}"
    ET.SubElement(case, tag, {"message": first}).text = said
    return tag


def _count(counts: dict[str, int], found: str | None) -> None:
    counts["tests"] += 1
    if found is not None:
        counts[found] += 1


def render(report: RunReport, name: str = "pytest-citations") -> str:
    """The JUnit XML document of ``report``."""
    suites = ET.Element("testsuites", {"name": "pytest tests"})
    suite = ET.SubElement(suites, "testsuite", {"name": name})
    counts = {"failure": 0, "error": 0, "skipped": 0, "tests": 0}
    for case in report.cases:
        for claim in case.claims:
            element = _testcase(suite, claim.nodeid, claim.file, claim.line)
            _properties(element, claim_properties(claim))
            found = _outcome(element, claim.decision, (*claim.failures, *claim.unchecked))
            _count(counts, found)
        if case.outcome is not None:
            outcome = case.outcome
            element = _testcase(suite, f"{case.key}::precision", case.file)
            _properties(element, case_properties(outcome))
            found = _outcome(element, outcome.item, (*outcome.failures, *outcome.incomplete))
            _count(counts, found)
    for nodeid in report.skipped_items:
        element = _testcase(suite, nodeid, nodeid.split("::", 1)[0])
        ET.SubElement(element, "skipped", {"message": "the case item did not run"})
        _count(counts, "skipped")
    for file, why in sorted(report.file_errors.items()):
        element = _testcase(suite, f"{file}::", file)
        ET.SubElement(element, "error", {"message": strip_controls(f"not verified: {why}")})
        _count(counts, "error")
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", "0.000")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def write(path: Path, report: RunReport, decision: RunDecision, info: RunInfo) -> None:
    """Write the JUnit XML of ``report`` to ``path``, atomically."""
    write_atomically(path, render(report))


__all__ = ["render", "write"]
