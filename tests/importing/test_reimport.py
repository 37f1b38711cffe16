"""Importing the next export into reviewed case files: every claim whose sentence did not
change keeps its review (``general: true``, a split or rewritten claim, ``expect:``,
``notes:``, a deletion), a changed sentence shows up with its old and new text and gets the
new claim without the old edits, a sentence gone from the answer is reported removed, and a
file the merge leaves as it is keeps every byte."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_citations.cases import load_cases
from pytest_citations.importing import ImportResult, import_answers

BOILING = "https://example.org/physics/boiling"
SALT = "https://example.org/physics/salt"
QUESTION = "At what temperature does water boil?"
SENTENCES = [
    "Water boils at 100 °C at sea level [1].",
    "That is why pasta cooks faster at the coast.",
    "Salt raises the boiling point slightly [2].",
    "Pressure cookers reach 120 °C [2].",
]


def record(sentences: list[str], citations: list[str], **more: Any) -> dict[str, Any]:
    return {"id": "boiling", "question": QUESTION, "answer": " ".join(sentences),
            "citations": citations, **more}  # fmt: skip


class Flow:
    """One folder of case files and the exports imported into it, run after run."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.out = tmp_path / "cases"
        self.case_file = self.out / "boiling.yaml"
        self.runs = 0

    def run(self, *records: dict[str, Any], **options: Any) -> ImportResult:
        self.runs += 1
        source = self.tmp_path / f"export-{self.runs}.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return import_answers([source], self.out, **options)

    def first(self) -> ImportResult:
        return self.run(record(SENTENCES, [BOILING, SALT]))

    def review(self, old: str, new: str) -> None:
        text = self.case_file.read_text(encoding="utf-8")
        assert old in text, text
        self.case_file.write_text(text.replace(old, new, 1), encoding="utf-8")

    def claims(self) -> list[dict[str, Any]]:
        claims: list[dict[str, Any]] = yaml.safe_load(self.case_file.read_text("utf-8"))["claims"]
        return claims

    def claim(self, text: str) -> dict[str, Any]:
        [found] = [claim for claim in self.claims() if claim["text"] == text]
        return found


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    flow = Flow(tmp_path)
    assert [f.status for f in flow.first().files] == ["created"]
    return flow


def changed(sentence: int, new: str) -> list[str]:
    """The answer's sentences with one replaced."""
    return [new if number == sentence else text for number, text in enumerate(SENTENCES)]


def test_general_true_is_kept_while_its_sentence_is_unchanged(flow: Flow) -> None:
    flow.review("    general: false\n", "    general: true\n")
    result = flow.run(
        record(changed(3, "Pressure cookers reach about 120 °C [2]."), [BOILING, SALT])
    )

    [updated] = result.files
    assert (updated.status, updated.kept_edits) == ("updated", 1)
    assert flow.claim("That is why pasta cooks faster at the coast.")["general"] is True
    assert f"Updated {flow.case_file} (1 kept edit, 1 changed, 0 removed)" in result.lines()
    assert result.records[0].uncited == 0  # decided in review: nothing left to review
    assert not any("cites no source" in line for line in result.lines())
    assert load_cases(flow.case_file)[0].claims[1].general


def test_a_split_claim_is_kept_and_says_which_sentence_it_came_from(flow: Flow) -> None:
    flow.review(
        "  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n",
        "  - text: Water boils at 100 °C.\n    cites: [1]\n"
        "  - text: That holds at sea level.\n    cites: [1]\n",
    )
    flow.run(record(changed(3, "Pressure cookers reach about 120 °C [2]."), [BOILING, SALT]))

    assert [(c["text"], c.get("from")) for c in flow.claims()[:3]] == [
        ("Water boils at 100 °C.", "Water boils at 100 °C at sea level."),
        ("That holds at sea level.", "Water boils at 100 °C at sea level."),
        ("That is why pasta cooks faster at the coast.", None),
    ]
    assert load_cases(flow.case_file)  # from: is a key case files accept

    # Once the sentence itself changes, its split claims go and the new claim comes in.
    result = flow.run(
        record(changed(0, "Water boils at 99.97 °C at sea level [1]."), [BOILING, SALT])
    )
    assert [c["text"] for c in flow.claims()[:2]] == [
        "Water boils at 99.97 °C at sea level.",
        "That is why pasta cooks faster at the coast.",
    ]
    assert result.files[0].changed[0].old == "Water boils at 100 °C at sea level."


def test_expect_and_notes_are_kept_while_their_sentences_are_unchanged(flow: Flow) -> None:
    flow.review(
        "  - text: Salt raises the boiling point slightly.\n    cites: [2]\n",
        "  - text: Salt raises the boiling point slightly.\n    cites: [2]\n"
        "    expect: supported\n",
    )
    flow.review(
        "  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n",
        "  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n"
        "    notes: the page gives 99.97 °C; close enough\n",
    )
    flow.run(record(changed(1, "Pasta therefore cooks faster at the coast."), [BOILING, SALT]))

    assert flow.claim("Salt raises the boiling point slightly.")["expect"] == "supported"
    assert flow.claim("Water boils at 100 °C at sea level.")["notes"] == (
        "the page gives 99.97 °C; close enough"
    )
    assert load_cases(flow.case_file)[0].claims[2].expect == "supported"


def test_a_changed_sentence_is_shown_old_and_new_and_loses_the_old_edits(flow: Flow) -> None:
    flow.review(
        "  - text: Pressure cookers reach 120 °C.\n    cites: [2]\n",
        "  - text: Pressure cookers reach 120 °C.\n    cites: [2]\n    expect: supported\n",
    )
    result = flow.run(
        record(changed(3, "Pressure cookers reach about 120 °C [2]."), [BOILING, SALT])
    )

    [updated] = result.files
    assert [(c.case_id, c.old, c.new) for c in updated.changes] == [
        ("boiling", "Pressure cookers reach 120 °C.", "Pressure cookers reach about 120 °C.")
    ]
    lines = result.lines()
    at = lines.index(f"Updated {flow.case_file} (0 kept edits, 1 changed, 0 removed)")
    assert lines[at + 1 : at + 3] == [
        "  changed (boiling): Pressure cookers reach 120 °C.",
        "                 to: Pressure cookers reach about 120 °C.",
    ]
    assert flow.claims()[-1] == {"text": "Pressure cookers reach about 120 °C.", "cites": [2]}


def test_a_sentence_gone_from_the_answer_is_reported_removed(flow: Flow) -> None:
    flow.review("    general: false\n", "    general: true\n")
    result = flow.run(record([*SENTENCES[:2], SENTENCES[3]], [BOILING, SALT]))

    [updated] = result.files
    assert [(c.old, c.new) for c in updated.changes] == [
        ("Salt raises the boiling point slightly.", None)
    ]
    lines = result.lines()
    at = lines.index(f"Updated {flow.case_file} (1 kept edit, 0 changed, 1 removed)")
    assert lines[at + 1] == "  removed (boiling): Salt raises the boiling point slightly."
    assert [c["text"] for c in flow.claims()] == [
        "Water boils at 100 °C at sea level.",
        "That is why pasta cooks faster at the coast.",
        "Pressure cookers reach 120 °C.",
    ]


def test_a_reviewed_file_the_import_leaves_as_it_is_keeps_every_byte(flow: Flow) -> None:
    flow.review(
        "id: boiling\n",
        "# Reviewed by Ana on 3 March: the pasta sentence is general.\nid: boiling\n",
    )
    flow.review("    general: false\n", "    general: true   # general phrasing\n")
    flow.review("    cites: [2]\n", "    cites: [ 2 ]\n    expect: 'supported'\n")
    reviewed = flow.case_file.read_bytes()
    mode = stat.S_IMODE(flow.case_file.stat().st_mode)

    # The same answers in the next export, a link tagged for analytics this time.
    result = flow.run(record(SENTENCES, [f"{BOILING}?utm_source=openai", SALT]))

    assert [(f.status, f.kept_edits) for f in result.files] == [("unchanged", 2)]
    assert flow.case_file.read_bytes() == reviewed
    assert stat.S_IMODE(flow.case_file.stat().st_mode) == mode
    assert f"Unchanged {flow.case_file} (2 kept edits)" in result.lines()


def test_a_rewritten_claim_is_linked_once_and_then_left_alone(flow: Flow) -> None:
    flow.review(
        "  - text: Salt raises the boiling point slightly.\n",
        "  - text: Salt raises the boiling point of water slightly, by about 0.5 °C.\n",
    )
    first = flow.run(record(SENTENCES, [BOILING, SALT]))
    assert [(f.status, f.kept_edits) for f in first.files] == [("updated", 1)]
    assert flow.claims()[2] == {
        "text": "Salt raises the boiling point of water slightly, by about 0.5 °C.",
        "from": "Salt raises the boiling point slightly.",
        "cites": [2],
    }
    settled = flow.case_file.read_bytes()

    second = flow.run(record(SENTENCES, [BOILING, SALT]))
    assert [f.status for f in second.files] == ["unchanged"]
    assert flow.case_file.read_bytes() == settled


def test_a_claim_deleted_in_review_stays_deleted(flow: Flow) -> None:
    flow.review(
        "  - text: That is why pasta cooks faster at the coast.\n    cites: []\n"
        "    general: false\n"
        "    notes: cites no source; add one, or set general to true if it needs none\n",
        "",
    )
    reviewed = flow.case_file.read_bytes()

    result = flow.run(record(SENTENCES, [BOILING, SALT]))

    assert [(f.status, f.kept_edits) for f in result.files] == [("unchanged", 1)]
    assert flow.case_file.read_bytes() == reviewed


def test_kept_claims_cite_the_same_pages_when_the_answer_numbers_them_anew(flow: Flow) -> None:
    flow.review(
        "  - text: Pressure cookers reach 120 °C.\n",
        "  - text: Pressure cookers reach 120 °C at most.\n",
    )
    renumbered = [
        "Water boils at 100 °C at sea level [2].",
        SENTENCES[1],
        "Salt raises the boiling point slightly [1].",
        "Pressure cookers reach 120 °C [1].",
    ]
    flow.run(record(renumbered, [SALT, BOILING]))

    [case] = load_cases(flow.case_file)
    assert [(c.text, c.urls) for c in case.claims] == [
        ("Water boils at 100 °C at sea level.", (BOILING,)),
        ("That is why pasta cooks faster at the coast.", ()),
        ("Salt raises the boiling point slightly.", (SALT,)),
        ("Pressure cookers reach 120 °C at most.", (SALT,)),
    ]


def test_what_only_a_reviewer_writes_on_a_case_stays(flow: Flow) -> None:
    flow.review(
        "notes: imported from the generic format\n",
        "min_precision: 0.5\ntopic: physics\ncriteria:\n  numbers_traceable: true\n"
        "tags: [smoke]\nnotes: checked against the textbook\n",
    )
    answer = record(changed(3, "Pressure cookers reach 121 °C [2]."), [BOILING, SALT])
    wrapped = {"id": answer.pop("id"), "tags": ["nightly"], "response": answer}
    result = flow.run(wrapped)

    [updated] = result.files
    assert updated.kept_edits == 5
    [case] = load_cases(flow.case_file)
    assert (case.min_precision, case.criteria, case.tags) == (
        0.5,
        {"numbers_traceable": True},
        ("smoke", "nightly"),
    )
    assert {c.topic for c in case.claims} == {"physics"}
    document = yaml.safe_load(flow.case_file.read_text(encoding="utf-8"))
    assert document["notes"] == "checked against the textbook"


def test_a_grouped_file_reports_a_case_no_longer_among_the_answers(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    other = {"id": "salt", "answer": "Salt dissolves in water [1].", "citations": [SALT]}
    flow.run(record(SENTENCES, [BOILING, SALT]), other, group="input")
    grouped = flow.out / "export-1.yaml"
    export = flow.tmp_path / "export-1.jsonl"
    export.write_text(json.dumps(record(SENTENCES, [BOILING, SALT])) + "\n", encoding="utf-8")

    result = import_answers([export], flow.out, group="input")

    [updated] = result.files
    assert (updated.status, updated.removed_cases) == ("updated", ("salt",))
    assert "  removed case salt: it is no longer among the answers" in result.lines()
    assert [case.id for case in load_cases(grouped)] == ["boiling"]


def test_a_file_that_cannot_take_the_import_is_kept_as_it_is(flow: Flow) -> None:
    flow.review("claims:\n", "claims:\n  - text: [unclosed\n")
    broken = flow.case_file.read_bytes()

    result = flow.run(record(SENTENCES, [BOILING, SALT]))

    [kept] = result.files
    assert kept.status == "kept"
    assert result.unmerged == (kept,)
    assert flow.case_file.read_bytes() == broken
    [line] = [line for line in result.lines() if line.startswith("Kept ")]
    assert line.startswith(f"Kept {flow.case_file}: this import cannot be merged into it (")
    assert "invalid YAML" in line
    assert line.endswith("fix it, or import with overwrite to replace it")
    replaced = flow.run(record(SENTENCES, [BOILING, SALT]), overwrite=True)
    assert [f.status for f in replaced.files] == ["replaced"]
    assert not [p for p in flow.out.iterdir() if p.name.endswith(".tmp")]


def test_a_hand_written_case_file_of_the_same_name_is_not_merged(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.out.mkdir()
    flow.case_file.write_text(
        "id: boiling\nclaims:\n  - text: Water boils at 100 °C.\n    cites: [" + BOILING + "]\n",
        encoding="utf-8",
    )
    result = flow.run(record(SENTENCES, [BOILING, SALT]))
    assert [f.status for f in result.files] == ["kept"]
    assert "has no answer, so import did not write it" in (result.files[0].reason or "")


def test_a_file_imported_with_tracking_parameters_keeps_its_claims_on_the_clean_url(
    flow: Flow,
) -> None:
    """A file written while the cited URLs still carried ``utm_source``: its reviewed claims
    move to the same page without it, not to a citation of their own."""
    flow.review("  1: https://example.org/physics/boiling\n", f"  1: {BOILING}?utm_source=openai\n")
    flow.review("    cites: [1]\n", "    cites: [1]\n    expect: supported\n")

    flow.run(record(SENTENCES, [f"{BOILING}?utm_source=openai", SALT]))

    assert flow.claims()[0] == {
        "text": "Water boils at 100 °C at sea level.",
        "cites": [1],
        "expect": "supported",
    }
    assert load_cases(flow.case_file)[0].citations["1"] == BOILING


POOL = [
    "Water boils at 100 °C at sea level [1].",
    "That is why pasta cooks faster at the coast.",
    "Salt raises the boiling point slightly [2].",
    "Pressure cookers reach 120 °C [2].",
    "Ice melts at 0 °C [1].",
    "Steam carries more heat than water [1][2].",
    "Water boils at 100 °C at sea level [1].",  # the same sentence twice in one answer
]
_EDITS = st.sampled_from(["general", "expect", "notes", "rewrite", "split", "delete", "own"])


def _reviewed(claims: list[dict[str, Any]], edits: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """The claims after a reviewer's edits (each at a claim's position, in turn)."""
    claims = json.loads(json.dumps(claims))  # a copy with nothing shared (no YAML aliases)
    for position, edit in edits:
        if len(claims) < 2:
            break
        at = position % len(claims)
        claim = claims[at]
        if edit == "general":
            claim["general"] = True
        elif edit in ("expect", "notes"):
            claim[edit] = "supported" if edit == "expect" else "seen"
        elif edit == "rewrite":
            claim["text"] = claim["text"].rstrip(".") + ", as measured."
        elif edit == "split":
            half = json.loads(json.dumps({**claim, "text": "Both " + claim["text"].lower()}))
            claims.insert(at + 1, half)
        elif edit == "delete":
            del claims[at]
        else:
            claims.insert(at, {"text": "A claim of the reviewer's own.", "cites": []})
    return claims


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(first=[POOL[0], POOL[1]], second=[POOL[0]], edits=[(0, "delete")])
@example(first=[POOL[0], POOL[0], POOL[1]], second=[POOL[0]], edits=[(0, "rewrite")])
@example(first=[POOL[0], POOL[0]], second=[POOL[0]] * 3, edits=[(0, "rewrite")])
@example(
    first=[POOL[2], POOL[4], POOL[0], POOL[0], POOL[0], POOL[2]],
    second=[POOL[4], POOL[0], POOL[4], POOL[0], POOL[0], POOL[5]],
    edits=[(3, "split"), (8, "delete")],
)
@given(
    first=st.lists(st.sampled_from(POOL), min_size=1, max_size=6),
    second=st.lists(st.sampled_from(POOL), min_size=1, max_size=6),
    edits=st.lists(st.tuples(st.integers(0, 10), _EDITS), max_size=5),
)
def test_any_review_merges_into_a_file_that_loads_and_then_stays(
    tmp_path_factory: pytest.TempPathFactory,
    first: list[str],
    second: list[str],
    edits: list[tuple[int, str]],
) -> None:
    flow = Flow(tmp_path_factory.mktemp("merge"))
    flow.run(record(first, [BOILING, SALT]))
    document = yaml.safe_load(flow.case_file.read_text(encoding="utf-8"))
    document["claims"] = _reviewed(document["claims"], edits)
    flow.case_file.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    load_cases(flow.case_file)  # the review itself is a valid case file

    merged = flow.run(record(second, [BOILING, SALT]))
    assert [f.status for f in merged.files] != ["kept"], merged.lines()
    load_cases(flow.case_file)
    settled = flow.case_file.read_bytes()
    again = flow.run(record(second, [BOILING, SALT]))
    assert [f.status for f in again.files] == ["unchanged"], again.lines()
    assert flow.case_file.read_bytes() == settled


ICE = "Ice melts at 0 °C [1]."


def test_of_a_sentence_the_answer_holds_twice_the_copy_deleted_in_review_stays_deleted(
    tmp_path: Path,
) -> None:
    flow = Flow(tmp_path)
    flow.run(record([ICE, SENTENCES[0], ICE], [BOILING, SALT]))
    flow.review("  - text: Ice melts at 0 °C.\n    cites: [1]\n", "")  # the first copy
    assert [c["text"] for c in flow.claims()] == [
        "Water boils at 100 °C at sea level.",
        "Ice melts at 0 °C.",
    ]

    result = flow.run(record([ICE, SENTENCES[0], ICE, SENTENCES[2]], [BOILING, SALT]))
    assert [c["text"] for c in flow.claims()] == [
        "Water boils at 100 °C at sea level.",
        "Ice melts at 0 °C.",
        "Salt raises the boiling point slightly.",
    ]
    assert (result.files[0].status, result.files[0].kept_edits) == ("updated", 1)
    again = flow.run(record([ICE, SENTENCES[0], ICE, SENTENCES[2]], [BOILING, SALT]))
    assert [f.status for f in again.files] == ["unchanged"]


def test_of_a_sentence_the_answer_holds_twice_the_rewritten_copy_keeps_its_rewrite(
    tmp_path: Path,
) -> None:
    flow = Flow(tmp_path)
    flow.run(record([SENTENCES[0], SENTENCES[0], SENTENCES[1]], [BOILING, SALT]))
    flow.review(
        "  - text: Water boils at 100 °C at sea level.\n", "  - text: Water boils at 100 °C.\n"
    )

    flow.run(record([SENTENCES[0], SENTENCES[0], SENTENCES[2]], [BOILING, SALT]))
    assert [(c["text"], c.get("from")) for c in flow.claims()] == [
        ("Water boils at 100 °C.", "Water boils at 100 °C at sea level."),
        ("Water boils at 100 °C at sea level.", None),
        ("Salt raises the boiling point slightly.", None),
    ]
    again = flow.run(record([SENTENCES[0], SENTENCES[0], SENTENCES[2]], [BOILING, SALT]))
    assert [f.status for f in again.files] == ["unchanged"]


def test_a_claim_of_the_reviewers_own_is_written_once_beside_a_new_sentence(flow: Flow) -> None:
    flow.review("claims:\n", "claims:\n  - text: Altitude matters.\n    cites: []\n")

    flow.run(record(changed(3, "Pressure cookers reach about 120 °C [2]."), [BOILING, SALT]))
    assert [c["text"] for c in flow.claims()].count("Altitude matters.") == 1
    assert flow.claims()[0]["text"] == "Altitude matters."


def test_a_case_whose_every_sentence_left_was_deleted_in_review_takes_the_new_claims(
    tmp_path: Path,
) -> None:
    flow = Flow(tmp_path)
    flow.run(record(SENTENCES[:2], [BOILING, SALT]))
    flow.review("  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n", "")

    result = flow.run(record(SENTENCES[:1], [BOILING, SALT]))
    assert result.files[0].status == "updated", result.lines()
    assert [c["text"] for c in flow.claims()] == ["Water boils at 100 °C at sea level."]
    assert [c.old for c in result.files[0].removed] == [SENTENCES[1]]


def test_a_page_the_next_answer_cites_is_no_longer_listed_as_retrieved(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.run(record(SENTENCES[:2], [BOILING, SALT]))
    assert yaml.safe_load(flow.case_file.read_text("utf-8"))["retrieved"] == {2: SALT}

    result = flow.run(record(SENTENCES[:3], [BOILING, SALT]))
    document = yaml.safe_load(flow.case_file.read_text("utf-8"))
    assert "retrieved" not in document
    assert document["citations"] == {1: BOILING, 2: SALT}
    assert (result.files[0].status, result.files[0].kept_edits) == ("updated", 0)


# -- a claim is what the answer says: its text as read, and the pages it cites (issue 24) -------

OTHER = "https://example.org/physics/pressure"


def test_a_sentence_that_now_cites_another_page_is_changed_shown_old_and_new(flow: Flow) -> None:
    """A reviewer's ``expect:`` on claim 1; the next export says the same sentence, citing
    another page: the merge kept the old URL as a literal and reported 0 changed, so the
    gate went on checking a page the answer no longer cites."""
    flow.review(
        "  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n",
        "  - text: Water boils at 100 °C at sea level.\n    cites: [1]\n    expect: supported\n",
    )

    result = flow.run(record(SENTENCES, [OTHER, SALT]))

    [updated] = result.files
    assert [(c.old, c.new, c.old_cites, c.new_cites) for c in updated.changes] == [
        ("Water boils at 100 °C at sea level.", "Water boils at 100 °C at sea level.",
         (BOILING,), (OTHER,)),
    ]  # fmt: skip
    lines = result.lines()
    at = lines.index(f"Updated {flow.case_file} (0 kept edits, 1 changed, 0 removed)")
    assert lines[at + 1 : at + 3] == [
        f"  changed (boiling): Water boils at 100 °C at sea level. (cites {BOILING})",
        f"                 to: Water boils at 100 °C at sea level. (cites {OTHER})",
    ]
    assert flow.claims()[0] == {"text": "Water boils at 100 °C at sea level.", "cites": [1]}
    [case] = load_cases(flow.case_file)
    assert case.claims[0].urls == (OTHER,)
    assert case.claims[0].expect is None  # to be labelled again, against the page it cites


def test_a_page_cited_with_tracking_parameters_is_the_same_page(flow: Flow) -> None:
    flow.review("    cites: [1]\n", "    cites: [1]\n    expect: supported\n")

    result = flow.run(record(SENTENCES, [f"{BOILING}?utm_source=openai&gclid=x", SALT]))

    assert [(f.status, f.changes) for f in result.files] == [("unchanged", ())]


def test_a_figure_that_reads_otherwise_is_a_changed_sentence(tmp_path: Path) -> None:
    """"10² days" and "102 days" were one claim (compatibility forms folded): a reviewer's
    label of one stayed on the other. Texts are compared as a reviewer reads them."""
    flow = Flow(tmp_path)
    flow.run(record(["Spores survive 10² days in dry air [1]."], [BOILING]))
    flow.review("    cites: [1]\n", "    cites: [1]\n    expect: supported\n")

    result = flow.run(record(["Spores survive 102 days in dry air [1]."], [BOILING]))

    assert [(c.old, c.new) for c in result.files[0].changes] == [
        ("Spores survive 10² days in dry air.", "Spores survive 102 days in dry air.")
    ]
    assert flow.claims() == [{"text": "Spores survive 102 days in dry air.", "cites": [1]}]


def test_a_sentence_spaced_otherwise_is_the_same_sentence(flow: Flow) -> None:
    flow.review("    cites: [1]\n", "    cites: [1]\n    expect: supported\n")

    spaced = ["Water  boils at\u00a0100 °C at sea level [1].", *SENTENCES[1:]]
    result = flow.run(record(spaced, [BOILING, SALT]))

    assert [(f.kept_edits, f.changes) for f in result.files] == [(1, ())]
    assert flow.claim("Water boils at 100 °C at sea level.")["expect"] == "supported"
