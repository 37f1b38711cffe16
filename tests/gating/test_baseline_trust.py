"""A baseline the plugin cannot use is one usage error naming the file (issue 17): brackets
nested thousands deep (an INTERNALERROR before), or an entry of the wrong type at any level
the loader reads (an AttributeError, KeyError or TypeError traceback before), exactly like
a baseline that is not JSON. Nothing runs against it, with or without xdist."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import BOILING_URL, SUPPORTED_CLAIM, Citations, single_claim_case

from pytest_citations.errors import CitationsError
from pytest_citations.gating.base_report import load_base
from pytest_citations.gating.baseline import Baseline
from pytest_citations.gating.criteria import Decision
from pytest_citations.gating.messages import side_by_side
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.result import BaselineChange, ClaimResult, ClaimStatus, Location
from pytest_citations.labels import Label
from pytest_citations.verdicts import CitationVerdict

BASELINE = "baseline.json"
NODE = "cases/water.yaml::water::claim-1"


def good_entry() -> dict[str, Any]:
    return {
        "claim": SUPPORTED_CLAIM,
        "label": "supported",
        "citations": [{"url": BOILING_URL, "label": "supported", "reason": None}],
    }


def spoiled(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """A valid baseline with the value at ``path`` (inside the claim's entry) replaced."""
    entry: Any = good_entry()
    if not path:
        entry = value
    else:
        holder = entry
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    return {"version": 1, "claims": {NODE: entry}}


#: (where the wrong value goes, the value, what the error says about the entry).
WRONG = [
    ((), "supported", "is a string, not an object"),
    (("label",), ["supported"], "has a list as its 'label', not a string"),
    (("claim",), 3, "has a number as its 'claim', not a string"),
    (("citations",), "https://example.org", "has a string as its 'citations', not a list"),
    (("citations", 0), BOILING_URL, "has a string as citation 1, not an object"),
    (("citations", 0, "url"), 7, "has a number as the 'url' of citation 1, not a string"),
    (("citations", 0, "label"), {"x": 1}, "has an object as the 'label' of citation 1"),
    (("citations", 0, "reason"), 404, "has a number as the 'reason' of citation 1"),
]


@pytest.fixture
def project(citations: Citations) -> Citations:
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=2)
    return citations


def usage_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    return result.stderr.str()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_baseline_nested_thousands_deep_is_a_usage_error_naming_it(
    project: Citations, workers: tuple[str, ...]
) -> None:
    path = project.write(BASELINE, "[" * 5000 + "]" * 5000 + "\n")

    result = project.run("cases/", "--citations-baseline", BASELINE, *workers, gate="default")

    assert (
        f"citations: cannot read the baseline {path}: it is nested too deeply to be a baseline"
    ) in usage_error(result)


@pytest.mark.parametrize(("where", "value", "problem"), WRONG)
def test_a_baseline_entry_of_the_wrong_type_is_a_usage_error_naming_file_and_entry(
    project: Citations, where: tuple[str | int, ...], value: Any, problem: str
) -> None:
    path = project.write(BASELINE, json.dumps(spoiled(where, value)))

    result = project.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline",
                         gate="default")

    stderr = usage_error(result)
    assert f"citations: {path} is not a valid pytest-citations baseline: the entry {NODE!r} " in (
        stderr
    )
    assert problem in stderr
    assert json.loads(path.read_text(encoding="utf-8")) == spoiled(where, value)  # untouched


def test_a_valid_baseline_still_loads_and_an_entry_without_reason_or_claim_is_fine(
    tmp_path: Path,
) -> None:
    entry = good_entry()
    del entry["claim"], entry["citations"][0]["reason"]
    entry["citations"].append({"label": "unreachable"})  # no URL: a hand-made entry
    path = tmp_path / BASELINE
    path.write_text(json.dumps({"version": 1, "claims": {NODE: entry}}), encoding="utf-8")

    assert Baseline.load(path).entries == {NODE: entry}
    regression = BaselineChange.of(Label.NOT_FOUND, entry)
    now = CitationVerdict(BOILING_URL, Label.NOT_FOUND)
    claim = ClaimResult(Location("cases/water.yaml", "water", "claim-1"), SUPPORTED_CLAIM,
                        ClaimStatus.CHECKED, Label.NOT_FOUND, Decision.FAIL, (now,))  # fmt: skip
    assert side_by_side(regression, claim).splitlines() == [
        "label: supported -> not_found",
        f"  {BOILING_URL}: supported -> not_found",
    ]


# -- a base whose numbers are no counts (issue 24) ---------------------------------------------

#: A base report (``--citations-compare``) as the plugin writes one, cut to what is read.
BASE_CASE = {
    "file": "cases/water.yaml",
    "id": "water",
    "question": None,
    "counts": {"supported": 1, "citations": 1, "reachable": 1},
    "claims": [{"nodeid": NODE, "claim": SUPPORTED_CLAIM, "label": "supported", "line": 4}],
}
#: JSON texts that Python's json reads as numbers but no count is: the infinities and NaN it
#: accepts, an int of 400 digits (a float division by it overflows), one past Python's 4300
#: digits (a ValueError of its own), a negative count, counts that cannot all be true.
HOSTILE_COUNTS = {
    "infinity": '{"supported": Infinity, "citations": 1, "reachable": 1}',
    "nan": '{"supported": NaN, "citations": 1, "reachable": 1}',
    "digits-400": '{"supported": 1, "citations": 1' + "0" * 400 + ', "reachable": 1}',
    "digits-5000": '{"supported": 1, "citations": 1' + "0" * 5000 + ', "reachable": 1}',
    "negative": '{"supported": -3, "citations": 1, "reachable": 1}',
    "more-supported-than-cited": '{"supported": 5, "citations": 1, "reachable": 1}',
    "a-string": '{"supported": "1", "citations": 1, "reachable": 1}',
    "a-fraction": '{"supported": 0.5, "citations": 1, "reachable": 1}',
}


def base_with_counts(counts: str) -> str:
    """A base report whose one case has ``counts`` (JSON text, spliced in as it is)."""
    case = json.dumps({**BASE_CASE, "counts": "COUNTS"}).replace('"COUNTS"', counts)
    return '{"run": {}, "cases": [' + case + "]}"


@pytest.mark.parametrize("counts", HOSTILE_COUNTS.values(), ids=HOSTILE_COUNTS.keys())
def test_a_base_whose_counts_are_no_counts_is_an_error_naming_it(
    tmp_path: Path, counts: str
) -> None:
    """Infinity was an OverflowError traceback, 10**400 passed (and overflowed a division
    later), a negative count passed as a precision below 0: each is an error naming the base
    and its case, at once."""
    path = tmp_path / "base.json"
    path.write_text(base_with_counts(counts), encoding="utf-8")

    started = time.monotonic()
    with pytest.raises(CitationsError, match=r"base\.json"):
        load_base(path)
    assert time.monotonic() - started < 2


def test_a_base_claim_line_that_is_no_number_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    case = json.dumps({**BASE_CASE, "claims": [{**BASE_CASE["claims"][0], "line": "LINE"}]})
    path.write_text('{"run": {}, "cases": [' + case.replace('"LINE"', "-Infinity") + "]}", "utf-8")

    with pytest.raises(CitationsError, match=r"base\.json"):
        load_base(path)


def test_a_base_with_true_counts_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(base_with_counts('{"supported": 1, "citations": 3, "reachable": 2}'), "utf-8")

    [case] = load_base(path)
    assert case.precision == Precision(1, 3, 2)


def test_the_plugin_names_a_base_with_infinite_counts_as_a_usage_error(project: Citations) -> None:
    project.write("base.json", base_with_counts(HOSTILE_COUNTS["infinity"]))

    result = project.run("cases/", "--citations-compare", "base.json",
                         "--citations-max-precision-drop", "0.1", gate="default")  # fmt: skip

    assert "base.json" in usage_error(result)
