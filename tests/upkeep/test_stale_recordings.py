"""What ``cassettes prune`` finds stale (issue 27): the recordings no replay of the current
case files uses, told without a model and without the network from the case files and the
cassettes. Cassettes are recorded by the plugin against the emulators (the gate named:
contradicted claims fail), then the case files change as a team changes them (a claim
reworded or removed, a URL dropped, a case file deleted); the engine
(:func:`~pytest_citations.upkeep.prune.prune_cassettes`) runs in this process, offline and
with no token."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import yaml
from plugin_helpers import (
    BOILING_URL,
    CONTRADICTED_CLAIM,
    NOT_FOUND_CLAIM,
    REFUNDS_CLAIM,
    REFUNDS_URL,
    RETURNS_URL,
    SOFTWARE_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

from pytest_citations.pipeline.settings import Settings
from pytest_citations.upkeep.prune import Pruned, prune_cassettes

WATER = "cassettes/cases/water.yaml"
GATE = "--citations-fail-on=contradicted"
#: No page of the example site says anything of it: each citation is not_found, and the
#: claim's pages are judged together too (004, C2).
GIFT_CLAIM = "Gift cards can be exchanged for cash at any store."


def case(case_id: str, *claims: tuple[str, list[str]], retrieved: list[str] = ()) -> str:
    """A case file: every URL numbered once, each claim citing its URLs."""
    urls = list(dict.fromkeys(url for _, cited in claims for url in cited))
    lines = [f"id: {case_id}", "citations:", *(f"  {n}: {u}" for n, u in enumerate(urls, 1))]
    if retrieved:
        lines += ["retrieved:", *(f"  - {url}" for url in retrieved)]
    lines.append("claims:")
    for text, cited in claims:
        markers = ", ".join(str(urls.index(url) + 1) for url in cited)
        lines += [f"  - text: {text}", f"    cites: [{markers}]"]
    return "\n".join(lines) + "\n"


def prune(citations: Citations, *paths: str, write: bool = False) -> dict[str, Pruned]:
    """Prune (list, or with ``write`` take out) in this process, offline: by cassette."""
    root = citations.path
    found = asyncio.run(
        prune_cassettes(
            [root / path for path in paths or ("cassettes",)],
            Settings(),
            root / "cassettes",
            root,
            write=write,
        )
    )
    return {pruned.shown: pruned for pruned in found}


def judge_bodies(cassette: Path) -> list[str]:
    """The body of each judge call a cassette holds, in order."""
    document = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    calls = [i for i in document["interactions"] if i["request"]["method"] == "POST"]
    return [call["request"]["body"] for call in calls]


def listed(pruned: Pruned) -> list[str]:
    """What each stale line says, without its size."""
    return [found.stale.what for found in pruned.found]


def recorded(citations: Citations, *args: str, mode: str = "once") -> None:
    """Record ``cases/`` against the emulators (the gate: contradicted claims fail)."""
    result, _ = citations.record("cases/", GATE, *args, mode=mode, gate="args")
    assert result.ret in (0, 1), result.stdout.str()


def test_a_reworded_claims_judge_call_and_choice_are_stale_and_nothing_else(
    citations: Citations,
) -> None:
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (CONTRADICTED_CLAIM, [BOILING_URL])),
    )
    recorded(citations)
    reworded = "On mountains water boils at 40 °C."
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (reworded, [BOILING_URL])),
    )
    recorded(citations, mode="new_episodes")  # the reworded claim recorded beside the old

    water = prune(citations)[WATER]

    assert listed(water) == [
        f"judge call for {CONTRADICTED_CLAIM!r}",
        f"choice {CONTRADICTED_CLAIM!r} against {BOILING_URL}",
    ]
    assert [found.stale.count for found in water.found] == [1, 1]
    assert all(found.size > 100 for found in water.found)
    assert water.unsure == []
    assert water.problem == ""
    assert water.recordings == 2
    assert water.size == sum(found.size for found in water.found)


def test_a_removed_claims_recordings_are_stale_its_page_still_cited_is_kept(
    citations: Citations,
) -> None:
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (CONTRADICTED_CLAIM, [BOILING_URL])),
    )
    recorded(citations)
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))

    water = prune(citations)[WATER]

    assert listed(water) == [
        f"judge call for {CONTRADICTED_CLAIM!r}",
        f"choice {CONTRADICTED_CLAIM!r} against {BOILING_URL}",
    ]


def test_a_dropped_url_takes_its_fetch_call_choice_and_the_joint_call_with_it(
    citations: Citations,
) -> None:
    # No page settles the claim alone: each is judged, then both together (004, C2).
    citations.write(
        "cases/shop.yaml", case("shop", (NOT_FOUND_CLAIM, [RETURNS_URL, REFUNDS_URL]))
    )
    recorded(citations)
    cassette = citations.cassette("cases/shop.yaml").read_text(encoding="utf-8")
    assert "several cited sources" in cassette  # the joint call was recorded
    citations.write("cases/shop.yaml", case("shop", (NOT_FOUND_CLAIM, [RETURNS_URL])))

    shop = prune(citations)["cassettes/cases/shop.yaml"]

    assert listed(shop) == [
        f"fetch {REFUNDS_URL}",
        f"judge call for {NOT_FOUND_CLAIM!r} against {REFUNDS_URL}",
        f"joint judge call for {NOT_FOUND_CLAIM!r}",
        f"choice {NOT_FOUND_CLAIM!r} against {REFUNDS_URL}",
    ]
    assert shop.unsure == []


def test_the_joint_call_of_the_pages_still_cited_is_kept(citations: Citations) -> None:
    citations.write("cases/gift.yaml", case("gift", (GIFT_CLAIM, [RETURNS_URL, REFUNDS_URL])))
    recorded(citations)
    citations.write(
        "cases/gift.yaml", case("gift", (GIFT_CLAIM, [RETURNS_URL, REFUNDS_URL, BOILING_URL]))
    )
    recorded(citations, mode="new_episodes")  # a third page, and the three judged together
    citations.write("cases/gift.yaml", case("gift", (GIFT_CLAIM, [RETURNS_URL, REFUNDS_URL])))

    gift = prune(citations, write=True)["cassettes/cases/gift.yaml"]

    assert listed(gift) == [
        f"fetch {BOILING_URL}",
        f"judge call for {GIFT_CLAIM!r} against {BOILING_URL}",
        f"joint judge call for {GIFT_CLAIM!r}",
        f"choice {GIFT_CLAIM!r} against {BOILING_URL}",
    ]
    text = citations.cassette("cases/gift.yaml").read_text(encoding="utf-8")
    assert text.count("several cited sources") == 1  # the two pages' joint call stays
    assert BOILING_URL not in text


def test_votes_go_together_and_stay_together(citations: Citations) -> None:
    citations.write(
        "cases/shop.yaml", case("shop", (REFUNDS_CLAIM, [REFUNDS_URL, RETURNS_URL]))
    )
    recorded(citations, "--citations-judge-votes=3")
    citations.write("cases/shop.yaml", case("shop", (REFUNDS_CLAIM, [REFUNDS_URL])))

    cassette = citations.cassette("cases/shop.yaml")
    recorded_calls = judge_bodies(cassette)
    assert len(recorded_calls) == 6  # three votes a page

    shop = prune(citations, write=True)["cassettes/cases/shop.yaml"]

    calls = [found for found in shop.found if "judge call" in found.stale.what]
    assert [found.stale.what for found in calls] == [
        f"judge call for {REFUNDS_CLAIM!r} against {RETURNS_URL}, 3 votes"
    ]
    assert len(calls[0].stale.interactions) == 3
    kept = judge_bodies(cassette)
    assert len(kept) == 3  # the refunds page's three votes, all kept
    assert kept == [body for body in recorded_calls if body in kept]
    assert len(set(kept)) == 1  # one body, asked three times
    assert len(set(recorded_calls) - set(kept)) == 1  # the other page's, all three gone
    citations.run("cases/", GATE, "--citations-judge-votes=3",
                  gate="args").assert_outcomes(passed=2)


def test_retrieved_sources_are_needed_until_the_case_stops_listing_them(
    citations: Citations,
) -> None:
    # The claim's citation does not settle it, so the page the answer retrieved is judged
    # too (004, C3): its fetch, judge call and choice belong to the case.
    citations.write(
        "cases/soft.yaml",
        case("soft", (NOT_FOUND_CLAIM, [REFUNDS_URL]), retrieved=[SOFTWARE_URL]),
    )
    recorded(citations)
    assert SOFTWARE_URL in citations.cassette("cases/soft.yaml").read_text(encoding="utf-8")

    assert listed(prune(citations)["cassettes/cases/soft.yaml"]) == []

    citations.write("cases/soft.yaml", case("soft", (NOT_FOUND_CLAIM, [REFUNDS_URL])))
    assert listed(prune(citations)["cassettes/cases/soft.yaml"]) == [
        f"fetch {SOFTWARE_URL}",
        f"judge call for {NOT_FOUND_CLAIM!r} against {SOFTWARE_URL}",
        f"choice {NOT_FOUND_CLAIM!r} against {SOFTWARE_URL}",
    ]


def test_a_deleted_case_files_cassette_is_stale_whole_a_tests_is_kept(
    citations: Citations,
) -> None:
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))
    citations.write("cases/shop.yaml", single_claim_case("shop", REFUNDS_CLAIM, REFUNDS_URL))
    recorded(citations)
    shop = citations.cassette("cases/shop.yaml")
    # A test's cassettes, in the fixture's layout and in its older one.
    citations.write("tests/test_app.py", "def test_answer(citation_verifier):\n    pass\n")
    for test in ("tests/test_app/test_answer.yaml", "test_app/test_answer.yaml"):
        (citations.path / "cassettes" / test).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shop, citations.path / "cassettes" / test)
    (citations.path / "cases/shop.yaml").unlink()

    found = prune(citations)

    gone = found["cassettes/cases/shop.yaml"]
    assert gone.whole == "no case file cases/shop.yaml records into it"
    assert gone.recordings == 3  # a fetch, a judge call, a choice
    assert gone.size == shop.stat().st_size
    assert found["cassettes/tests/test_app/test_answer.yaml"].kept.startswith(
        "it may be a test's cassette, of tests/test_app.py"
    )
    assert found["cassettes/test_app/test_answer.yaml"].kept.startswith(
        "it may be a test's cassette"
    )
    assert listed(found[WATER]) == []

    prune(citations, write=True)

    assert not shop.exists()
    assert (citations.path / "cassettes/tests/test_app/test_answer.yaml").exists()
    assert (citations.path / "cassettes/test_app/test_answer.yaml").exists()


def test_a_cassette_without_choices_keeps_the_calls_it_cannot_tell(citations: Citations) -> None:
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (CONTRADICTED_CLAIM, [BOILING_URL])),
    )
    recorded(citations)
    path = citations.cassette("cases/water.yaml")
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    del document["retrieval"]  # recorded before choices were kept
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))

    water = prune(citations)[WATER]

    # The removed claim's call names its claim; the other's passages cannot be told apart.
    assert listed(water) == [f"judge call for {CONTRADICTED_CLAIM!r}"]
    assert water.unsure == ["1 judge call in a cassette without retrieval choices (not upgraded)"]


def test_a_pruned_cassette_records_what_is_new_and_replays(citations: Citations) -> None:
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (CONTRADICTED_CLAIM, [BOILING_URL])),
    )
    recorded(citations)
    reworded = "On mountains water boils at 40 °C."
    citations.write(
        "cases/water.yaml",
        case("water", (SUPPORTED_CLAIM, [BOILING_URL]), (reworded, [BOILING_URL])),
    )
    assert prune(citations, write=True)[WATER].written

    # The gate's recording run over the pruned cassette: only the new claim is sent.
    result, web = citations.record("cases/", GATE, mode="new_episodes", gate="args")
    result.assert_outcomes(passed=2, failed=1)  # the reworded claim is contradicted too
    assert (web.judge.call_count, web.crawlbase.crawl_count) == (1, 0)
    replayed = citations.run("cases/", GATE, gate="args")
    replayed.assert_outcomes(passed=2, failed=1)
    assert not [line for line in replayed.outlines if "stale recording" in line]
    assert listed(prune(citations)[WATER]) == []
