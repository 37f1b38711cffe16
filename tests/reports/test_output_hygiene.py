"""Output hygiene (issue 8): a cited page is hostile input. Terminal control sequences (ANSI
CSI, OSC-8 hyperlinks, other C0/C1 controls) in its text never reach the terminal, the JSON,
HTML, CSV or JUnit reports; and no CSV cell starts with a character a spreadsheet runs as a
formula. One engine-side module, :mod:`pytest_citations.sanitize`, does it for every output."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from plugin_helpers import (
    PDF_URL,
    Citations,
)

from pytest_citations.gating.criteria import Decision
from pytest_citations.gating.result import ClaimResult, ClaimStatus, Location
from pytest_citations.labels import Label
from pytest_citations.reports import csv_report
from pytest_citations.sanitize import clean, csv_cell, strip_controls
from pytest_citations.verdicts import CitationVerdict

HOSTILE_URL = "https://example.org/physics/hostile"
#: A sentence with a colour change, an OSC-8 hyperlink to another site, a bell, a cursor
#: move, an 8-bit CSI (0x9B) and a C1 control: what a reader sees must not be what the page
#: says, and none of it may act on a terminal.
HOSTILE_SENTENCE = (
    "On mountains water boils at \x1b[32m90 \u00b0C\x1b[0m, "
    "\x1b]8;;https://evil.example/\x1b\\see the table\x1b]8;;\x1b\\ for details"
    "\x07\x1b[2K\x9b1A\x85 below."
)
SHOWN = "On mountains water boils at 90 \u00b0C, see the table for details below."
FILLER = (
    "Boiling is the rapid vaporisation of a liquid, which occurs when a liquid is heated "
    "to its boiling point, the temperature at which the vapour pressure of the liquid is "
    "equal to the pressure exerted on the liquid by the surrounding atmosphere."
)
PAGE = f"# Boiling at altitude\n\n{FILLER}\n\n{FILLER}\n\n{HOSTILE_SENTENCE}\n"
CLAIM = "On mountains water boils at 50 \u00b0C."
CONTROL_BYTES = ("\x1b", "\x9b", "\x07", "\x85", "\x9d")


def assert_clean(text: str, where: str) -> None:
    """No control sequence survives, and no escaped form of one (JUnit's ``#x1B``)."""
    for control in CONTROL_BYTES:
        assert control not in text, f"{control!r} in {where}"
    assert "#x1B" not in text
    assert "#x1b" not in text
    assert "\\u001b" not in text.lower()
    assert "evil.example" not in text, f"the hidden hyperlink target is in {where}"


@pytest.fixture
def hostile(citations: Citations) -> tuple[Citations, pytest.RunResult]:
    """A case whose cited page quotes a hostile sentence, recorded against the emulators."""
    citations.write(
        "cases/hostile.yaml",
        f"id: hostile\ncitations: [{HOSTILE_URL}]\nclaims:\n  - text: {CLAIM}\n    cites: [1]\n",
    )
    with citations.web() as web:
        web.crawlbase.add(HOSTILE_URL, markdown=PAGE)
        web.judge.rule(CLAIM, "contradicted", quote=HOSTILE_SENTENCE)
        result = citations.run(
            "cases/",
            "--citations-record=once",
            "--citations-report=out/report.json",
            "--citations-html=out/report.html",
            "--citations-csv=out/report.csv",
            "--junitxml=out/junit.xml",
            "-rA", gate="default",
        )
    return citations, result


def test_the_terminal_never_sees_a_control_sequence(
    hostile: tuple[Citations, pytest.RunResult],
) -> None:
    _, result = hostile

    result.assert_outcomes(failed=1, passed=1)
    output = result.stdout.str() + result.stderr.str()
    assert_clean(output, "the terminal output")
    # The quote is still shown, as the text a reader of the page sees.
    result.stdout.fnmatch_lines([f'      quote: "{SHOWN}"'])


def test_no_report_carries_a_control_sequence(
    hostile: tuple[Citations, pytest.RunResult],
) -> None:
    citations, _ = hostile
    out = citations.path / "out"

    for name in ("report.json", "report.html", "report.csv", "junit.xml"):
        assert_clean((out / name).read_text(encoding="utf-8"), name)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    citation = report["cases"][0]["claims"][0]["citations"][0]
    assert citation["evidence_quote"] == SHOWN
    assert SHOWN in (out / "report.html").read_text(encoding="utf-8")
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert "On mountains water boils at 90" in junit


def test_csv_cells_never_start_a_formula(citations: Citations) -> None:
    claims = ["=HYPERLINK(a)", "+1 is one", "-2 is minus two", "@SUM(A1)", "Plain text"]
    citations.write(
        "cases/formulas.yaml",
        f"id: formulas\ncitations: [{PDF_URL}]\nclaims:\n"
        + "".join(f'  - {{text: "{claim}", cites: [1]}}\n' for claim in claims),
    )

    result = citations.run("cases/", "--citations-csv=report.csv", gate="contradicted")

    result.assert_outcomes(passed=6)
    rows = list(csv.DictReader(io.StringIO((citations.path / "report.csv").read_text("utf-8"))))
    assert [row["claim"] for row in rows] == [
        "'=HYPERLINK(a)",
        "'+1 is one",
        "'-2 is minus two",
        "'@SUM(A1)",
        "Plain text",
    ]


# -- the sanitiser itself -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07", "link"),
        ("title\x1b]0;owned\x07", "title"),
        ("a\x9b2Jb\x9d8;;x\x9cc", "abc"),
        ("bell\x07 back\x08space\x7f", "bell backspace"),
        ("reset\x1bc done", "reset done"),
        ("keep\ttab\nand newline", "keep\ttab\nand newline"),
        ("carriage\rreturn\x00", "carriagereturn"),
        ("Stra\u00dfe \u4e2d\u6587 \u00fc", "Stra\u00dfe \u4e2d\u6587 \u00fc"),
    ],
)
def test_strip_controls(raw: str, shown: str) -> None:
    assert strip_controls(raw) == shown


@pytest.mark.parametrize(
    ("raw", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=x", "'=x"),
        ("\x1b[1m=x", "'=x"),
        ("fine", "fine"),
        (3, 3),
        (0.5, 0.5),
    ],
)
def test_csv_cell(raw: object, cell: object) -> None:
    assert csv_cell(raw) == cell


def test_csv_text_escapes_every_column() -> None:
    citation = CitationVerdict(
        url="https://example.org/",
        label=Label.SUPPORTED,
        evidence_quote='=HYPERLINK("https://evil.example/","see")',
        final_url="=final\x1b[0m",
        original_status=200,
        rid="@rid",
    )
    claim = ClaimResult(
        Location("f", "=case", "claim-1", 1, 1), "-claim", ClaimStatus.CHECKED, Label.SUPPORTED,
        Decision.PASS, (citation,),
    )  # fmt: skip
    text = csv_report.text(csv_report.rows([claim], lambda found: ("=case", "+n")))
    (row,) = csv.DictReader(io.StringIO(text))
    assert (row["case"], row["claim"], row["final_url"], row["rid"]) == (
        "'=case",
        "'-claim",
        "'=final",
        "'@rid",
    )
    assert row["original_status"] == "200"
    # The columns issue 11 added are escaped too: claim id, quote.
    assert (row["claim_id"], row["evidence_quote"]) == (
        "'+n",
        '\'=HYPERLINK("https://evil.example/","see")',
    )
    assert (row["claim_label"], row["decision"]) == ("supported", "pass")
    for name, cell in row.items():
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), name


def test_clean_walks_nested_records() -> None:
    record = {"a\x1b[0m": ["\x1b[1mx", {"b": "\x85y"}], "n": 1, "none": None}

    assert clean(record) == {"a": ["x", {"b": "y"}], "n": 1, "none": None}


def test_the_sanitiser_does_not_import_pytest() -> None:
    source = Path(strip_controls.__code__.co_filename).read_text(encoding="utf-8")

    assert "import pytest" not in source
    assert "_pytest" not in source
