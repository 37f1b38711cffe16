"""A baseline the plugin cannot use is one usage error naming the file (issue 17): brackets
nested thousands deep (an INTERNALERROR before), or an entry of the wrong type at any level
the loader reads (an AttributeError, KeyError or TypeError traceback before), exactly like
a baseline that is not JSON. Nothing runs against it, with or without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import BOILING_URL, SUPPORTED_CLAIM, Citations, single_claim_case

from pytest_citations.gating.baseline import Baseline, Change, side_by_side

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
    citations.record("cases/")[0].assert_outcomes(passed=2)
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

    result = project.run("cases/", "--citations-baseline", BASELINE, *workers)

    assert (
        f"citations: cannot read the baseline {path}: it is nested too deeply to be a baseline"
    ) in usage_error(result)


@pytest.mark.parametrize(("where", "value", "problem"), WRONG)
def test_a_baseline_entry_of_the_wrong_type_is_a_usage_error_naming_file_and_entry(
    project: Citations, where: tuple[str | int, ...], value: Any, problem: str
) -> None:
    path = project.write(BASELINE, json.dumps(spoiled(where, value)))

    result = project.run("cases/", "--citations-baseline", BASELINE, "--citations-update-baseline")

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
    regression = Change("regression", entry, {**good_entry(), "label": "not_found"})
    assert side_by_side(regression).splitlines()[0] == "label: supported -> not_found"
