"""What ``--junitxml`` shows of a claim and a case: flat, readable properties a CI page
shows as they are, and, once pytest wrote the file, each case item's ``file``, ``line`` and
own ``time``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass

from ..gating.records import CaseOutcome, ClaimRecord


def claim_properties(record: ClaimRecord) -> list[tuple[str, object]]:
    """``claim``, ``label``, then ``citation.1.url``, ``citation.1.label``, ``.reason``,
    ``.quote``, ``.confidence`` per citation. The passages the judge saw stay in the JSON
    report."""
    properties: list[tuple[str, object]] = [("claim", record.claim), ("label", record.label)]
    for number, citation in enumerate(record.citations, start=1):
        properties += [
            (f"citation.{number}.url", citation.url),
            (f"citation.{number}.label", citation.label.value),
            (f"citation.{number}.reason", citation.reason or ""),
            (f"citation.{number}.quote", " ".join((citation.evidence_quote or "").split())),
            (f"citation.{number}.confidence", f"{citation.confidence:.2f}"),
        ]
    return properties


def case_properties(outcome: CaseOutcome) -> list[tuple[str, object]]:
    """``precision`` (supported/total citations) and ``decision``."""
    precision = outcome.precision
    return [
        ("precision", f"{precision.supported}/{precision.total}"),
        ("decision", outcome.decision.value),
    ]


@dataclass(frozen=True)
class JunitSite:
    """Where a case item is and how long it took, for its ``<testcase>``."""

    #: The case file, as the item's node id names it (relative to the rootdir).
    file: str
    #: 1-based (pytest's own ``line`` under ``junit_family=xunit1`` is 0-based); 0: none.
    line: int
    #: The item's own time (a claim's share of its file's verification time); None keeps
    #: the time pytest measured.
    seconds: float | None = None


def junit_names(nodeid: str, prefix: str | None = None) -> tuple[str, str]:
    """The ``classname`` and ``name`` pytest's junitxml gives a node id's ``<testcase>``:
    the path's ``/`` become ``.`` and ``.py`` is dropped, the collectors join the
    classname, the last part is the name, and ``--junit-prefix`` goes first."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    classnames = ([prefix] if prefix else []) + names[:-1]
    return ".".join(classnames), names[-1]


def with_sites(xml: bytes, sites: Mapping[str, JunitSite], prefix: str | None = None) -> str:
    """The JUnit XML ``xml`` (pytest's ``--junitxml``) with ``file`` and ``line`` on the
    ``<testcase>`` of every node id in ``sites``, and its own ``time`` where it has one;
    everything else as it was. pytest leaves ``file`` and ``line`` out under its default
    ``xunit2`` family: CI pages (GitLab, test-report actions) read them to link a failure
    to its line."""
    root = ET.fromstring(xml)
    wanted = {junit_names(nodeid, prefix): site for nodeid, site in sites.items()}
    for testcase in root.iter("testcase"):
        site = wanted.get((testcase.get("classname", ""), testcase.get("name", "")))
        if site is None:
            continue
        testcase.set("file", site.file)
        if site.line > 0:
            testcase.set("line", str(site.line))
        if site.seconds is not None:
            testcase.set("time", f"{site.seconds:.3f}")
    return XML_DECLARATION + ET.tostring(root, encoding="unicode")


#: The first line pytest writes (and ElementTree, given a string, would not).
XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>'
