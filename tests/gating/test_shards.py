"""How a run is shared out among shards (``--citations-shard K/N``) and when a set of shard
reports makes one run again: whole files per shard, from their paths only; balanced (shard
sizes differ by one file at most) and stable (a new file moves few others); a missing,
repeated, foreign or misplaced shard is named."""

from __future__ import annotations

import pytest

from pytest_citations.errors import ConfigurationError
from pytest_citations.gating.shards import (
    Shard,
    ShardPlan,
    ShardReport,
    assign,
    digest,
    holding_problems,
    identity_problems,
    shard_problems,
)

FILES = [
    f"cases/{topic}/case-{n:02}.yaml" for topic in ("hr", "shop", "physics") for n in range(20)
]


@pytest.mark.parametrize(("raw", "shard"), [("1/3", Shard(1, 3)), (" 3 / 3 ", Shard(3, 3))])
def test_a_shard_is_k_of_n(raw: str, shard: Shard) -> None:
    assert Shard.parse(raw) == shard
    assert str(shard) == f"{shard.index}/{shard.count}"


@pytest.mark.parametrize("raw", ["0/3", "4/3", "x", "2/0", "1", "1/3/5", "-1/3", ""])
def test_anything_but_k_of_n_with_k_from_1_to_n_is_refused(raw: str) -> None:
    with pytest.raises(ConfigurationError, match="--citations-shard"):
        Shard.parse(raw)


@pytest.mark.parametrize("raw", ["1/" + "9" * 5000, "9" * 5000 + "/3", "1/1001", "1/10**9"])
def test_a_count_past_a_thousand_shards_or_python_s_digits_is_refused_at_once(raw: str) -> None:
    """Issue 24: 4300 digits and more were a ValueError of Python's own (a traceback), and
    a count of a billion would rank a billion shards for every file."""
    with pytest.raises(ConfigurationError, match="--citations-shard"):
        Shard.parse(raw)
    assert Shard.parse("1000/1000") == Shard(1000, 1000)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 60, 61])
def test_every_file_goes_to_one_shard_and_the_shards_differ_by_one_file_at_most(
    count: int,
) -> None:
    shards = assign(FILES, count)

    assert sorted(shards) == sorted(FILES)
    sizes = [list(shards.values()).count(k) for k in range(1, count + 1)]
    assert max(sizes) - min(sizes) <= 1
    assert sum(sizes) == len(FILES)


def test_the_plan_depends_on_the_paths_only_not_on_their_order() -> None:
    assert assign(FILES, 4) == assign(list(reversed(FILES)), 4) == assign(FILES + FILES[:3], 4)


def test_a_new_file_moves_few_others_where_dealing_sorted_paths_moves_most() -> None:
    before = assign(FILES, 4)
    for new in ("cases/hr/case-07b.yaml", "cases/a-first.yaml", "cases/shop/zz.yaml"):
        after = assign([*FILES, new], 4)
        moved = [path for path in FILES if before[path] != after[path]]
        assert len(moved) <= 3, moved
    # What round-robin over sorted paths would do with the first of them: every file after
    # it moves to the next shard.
    dealt = {path: n % 4 for n, path in enumerate(sorted(FILES))}
    grown = {path: n % 4 for n, path in enumerate(sorted([*FILES, "cases/hr/case-07b.yaml"]))}
    assert sum(dealt[path] != grown[path] for path in FILES) > 10


def test_each_shard_owns_its_files_and_exactly_one_owns_a_file_the_run_lacks() -> None:
    plans = [ShardPlan.of(Shard(k, 3), FILES) for k in (1, 2, 3)]

    assert sorted(path for plan in plans for path in plan.files) == sorted(FILES)
    for path in [*FILES, "cases/deleted.yaml", "cases/gone/too.yaml"]:
        assert sum(plan.owns(path) for plan in plans) == 1, path


def test_a_plan_records_its_files_and_the_identity_of_the_run() -> None:
    plan = ShardPlan.of(Shard(2, 3), FILES)

    recorded = plan.to_dict()

    assert (recorded["index"], recorded["count"]) == (2, 3)
    assert recorded["files"] == plan.files
    assert recorded["run_files"] == len(FILES)
    assert recorded["run_digest"] == digest(FILES) != digest(FILES[1:])
    assert recorded["case_files"] == []  # not known before collection
    # ... and once the run collected them: Python test files hold no case.
    known = plan.with_case_files(FILES[1:]).to_dict()["case_files"]
    assert known == [path for path in plan.files if path != FILES[0]]


def test_a_shard_holds_a_case_of_every_case_file_it_ran() -> None:
    """Issue 24: a failing case dropped from a shard's report, its file left among the
    files it ran, passed the merge."""
    plan = ShardPlan.of(Shard(1, 3), FILES).with_case_files(FILES)
    report = ShardReport.from_dict("shard-1.json", plan.to_dict())
    dropped, *kept = plan.files

    assert holding_problems(report, set(plan.files)) == []
    assert holding_problems(report, set(kept)) == [
        f"shard-1.json ran {dropped} but holds no case of it, nor why it has none"
    ]
    stray = next(path for path in FILES if path not in plan.files)
    assert holding_problems(report, {*plan.files, stray}) == [
        f"shard-1.json holds {stray}, which is not one of the files it ran"
    ]


def test_reports_of_runs_made_otherwise_are_named_by_the_keys_that_differ() -> None:
    """Issue 24: the keys, never their values (two dicts of 600 characters each before)."""
    first = {"judge": "openai", "fail_on": ["contradicted"], "case_files": "sha256:1" * 8}
    other = {**first, "fail_on": ["partial"], "case_files": "sha256:2" * 8, "new": 1}

    assert identity_problems([("a.json", first), ("b.json", first)]) == []
    assert identity_problems([("a.json", first), ("b.json", other)]) == [
        "b.json and a.json are not shards of one run: they differ in case_files, fail_on, new"
    ]


def reports(count: int, files: list[str] = FILES) -> list[ShardReport]:
    plans = [ShardPlan.of(Shard(k, count), files) for k in range(1, count + 1)]
    return [ShardReport.from_dict(f"shard-{p.shard.index}.json", p.to_dict()) for p in plans]


def test_the_shards_of_one_run_have_no_problem() -> None:
    assert shard_problems(reports(3)) == []
    assert shard_problems(list(reversed(reports(3)))) == []


def test_a_missing_shard_is_named() -> None:
    first, _, third = reports(3)

    assert shard_problems([first, third]) == ["shard 2/3 is missing: no report given holds it"]


def test_a_shard_given_twice_is_named_with_both_files() -> None:
    first, second, third = reports(3)
    again = ShardReport.from_dict("copy/shard-2.json", {**vars_of(second)})

    assert shard_problems([first, second, again, third]) == [
        "copy/shard-2.json is shard 2/3 again (so is shard-2.json)"
    ]


def test_shards_of_different_counts_are_named() -> None:
    first, _ = reports(2)
    _, second, third = reports(3)

    [problem] = shard_problems([first, second, third])

    assert problem.startswith("the reports are shards of different counts")
    assert "shard-1.json is 1/2" in problem
    assert "shard-2.json is 2/3" in problem


def test_a_shard_of_another_set_of_files_is_named() -> None:
    first, second, _ = reports(3)
    _, _, other = reports(3, FILES[:-1])

    assert shard_problems([first, second, other]) == [
        "shard-3.json shares out another set of files than shard-1.json (59 files against "
        "60: not the same run)"
    ]


def test_a_report_holding_files_of_another_shard_is_named() -> None:
    first, second, third = reports(3)
    swapped = vars_of(first)
    swapped["files"] = [*second.files[:1], *first.files[1:]]
    mixed = vars_of(second)
    mixed["files"] = [*first.files[:1], *second.files[1:]]

    problems = shard_problems(
        [ShardReport.from_dict("a.json", swapped), ShardReport.from_dict("b.json", mixed), third]
    )

    assert problems == [
        f"a.json holds files of another shard ({second.files[0]})",
        f"b.json holds files of another shard ({first.files[0]})",
    ]


def test_a_shard_that_left_files_out_is_told() -> None:
    first, second, third = reports(3)
    short = vars_of(third)
    short["files"] = list(third.files[1:])

    [problem] = shard_problems([first, second, ShardReport.from_dict("c.json", short)])

    assert problem == "the shards hold 59 files, not the 60 the run shared out"


def test_a_record_of_the_wrong_shape_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"x\.json: its run\.shard"):
        ShardReport.from_dict("x.json", {"index": "one", "count": 3})


def vars_of(report: ShardReport) -> dict[str, object]:
    """A shard report's ``run.shard`` again."""
    return {
        "index": report.shard.index,
        "count": report.shard.count,
        "files": list(report.files),
        "run_files": report.run_files,
        "run_digest": report.run_digest,
        "case_files": list(report.case_files),
    }
