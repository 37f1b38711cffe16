"""The header line that reproduces a run, and the options it shows: judge provider and model
(``--citations-judge``/``--citations-model``, their environment variables and ini keys, with
command line > environment > ini), concurrency, cassette folder and record mode."""

from __future__ import annotations

import pytest
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    SUPPORTED_CLAIM,
    Citations,
    crawled_urls,
    interactions,
    single_claim_case,
)


@pytest.fixture
def project(citations: Citations) -> Citations:
    """One case file."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    return citations


def header(citations: Citations, *args: str) -> str:
    """The ``citations:`` header line of a collect-only run."""
    result = citations.run("--collect-only", "cases/", *args, gate="default")
    lines = [line for line in result.outlines if line.startswith("citations: ")]
    assert len(lines) == 1, result.stdout.str()
    return lines[0]


def test_default_header(project: Citations) -> None:
    result = project.run("--collect-only", "cases/", gate="default")

    cassettes = project.path.resolve() / "cassettes"
    result.stdout.fnmatch_lines(
        [
            f"citations: record=none judge=openai model=gpt-4o-mini cassettes={cassettes}/ "
            "embedder=lexical concurrency=4 "
            "fail_on=contradicted,partial,not_found,misattributed,unreachable"
        ]
    )


@pytest.mark.parametrize(
    ("ini", "env", "option", "expected"),
    [
        (None, None, None, "judge=openai model=gpt-4o-mini"),
        ("anthropic", None, None, "judge=anthropic model=claude-haiku-4-5"),
        ("anthropic", "ollama", None, "judge=ollama model=llama3.1"),
        ("ollama", "ollama", "anthropic", "judge=anthropic model=claude-haiku-4-5"),
        (None, "anthropic", "openai", "judge=openai model=gpt-4o-mini"),
    ],
)
def test_judge_precedence_command_line_env_ini(
    project: Citations, ini: str | None, env: str | None, option: str | None, expected: str
) -> None:
    if ini:
        project.pytester.makeini(f"[pytest]\ncitations_judge = {ini}\n")
    if env:
        project.monkeypatch.setenv("JUDGE_PROVIDER", env)
    args = ("--citations-judge", option) if option else ()

    assert f" {expected} " in header(project, *args)


@pytest.mark.parametrize(
    ("ini", "env", "option", "expected"),
    [
        ("gpt-ini", None, None, "model=gpt-ini"),
        ("gpt-ini", "gpt-env", None, "model=gpt-env"),
        ("gpt-ini", "gpt-env", "gpt-option", "model=gpt-option"),
    ],
)
def test_model_precedence_command_line_env_ini(
    project: Citations, ini: str | None, env: str | None, option: str | None, expected: str
) -> None:
    project.pytester.makeini(f"[pytest]\ncitations_model = {ini}\n")
    if env:
        project.monkeypatch.setenv("JUDGE_MODEL", env)
    args = ("--citations-model", option) if option else ()

    assert f" judge=openai {expected} " in header(project, *args)


def test_provider_model_variable_shows_in_the_header(project: Citations) -> None:
    project.monkeypatch.setenv("OPENAI_MODEL", "gpt-from-openai-model")

    assert " model=gpt-from-openai-model " in header(project)


def test_concurrency_cassette_dir_and_record_mode_in_the_header(project: Citations) -> None:
    project.pytester.makeini("[pytest]\ncitations_cassette_dir = recordings\n")
    (project.path / "recordings").mkdir()  # the folder a replay reads
    project.monkeypatch.setenv("BATCH_CONCURRENCY", "3")
    from_env = header(project)
    with project.web():
        from_option = header(project, "--citations-concurrency=2", "--citations-record=once")

    assert " concurrency=3 " in from_env
    assert f" cassettes={project.path.resolve() / 'recordings'}/ " in from_env
    assert from_option.startswith("citations: record=once ")
    assert " concurrency=2 " in from_option


def test_judge_and_model_reach_the_recorded_requests(project: Citations) -> None:
    with project.web() as web:
        result = project.run(
            "cases/",
            "--citations-record=once",
            "--citations-judge=anthropic",
            "--citations-model=claude-test-model", gate="default",
        )

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["citations: record=once judge=anthropic model=claude-test-model*"])
    assert web.judge.count("anthropic") == web.judge.call_count > 0
    assert {call.model for call in web.judge.calls} == {"claude-test-model"}
    cassette = project.cassette("cases/boiling.yaml")
    judged = [i for i in interactions(cassette) if i["request"]["method"] == "POST"]
    assert judged
    assert all(i["request"]["uri"].endswith("/v1/messages") for i in judged)


def test_judge_provider_from_the_environment_is_used(project: Citations) -> None:
    project.monkeypatch.setenv("JUDGE_PROVIDER", "ollama")
    with project.web() as web:
        result = project.run("cases/", "--citations-record=once", gate="default")

    result.assert_outcomes(passed=2, failed=1)
    assert web.judge.count("ollama") == web.judge.call_count > 0
    assert {call.model for call in web.judge.calls} == {"llama3.1"}
    assert crawled_urls(project.cassette("cases/boiling.yaml"))


@pytest.mark.parametrize("where", ["env", "ini"])
def test_a_judge_named_in_capitals_is_the_judge_the_command_takes(
    project: Citations, where: str
) -> None:
    # pytest-citations verify reads JUDGE_PROVIDER=Ollama as ollama (JudgeConfig.chosen); the
    # plugin read the option table's raw value and failed every claim with "unknown judge
    # provider 'Ollama'". One name, whichever reads it.
    if where == "env":
        project.monkeypatch.setenv("JUDGE_PROVIDER", "Ollama")
    else:
        project.pytester.makeini("[pytest]\ncitations_judge = Ollama\n")

    assert " judge=ollama model=llama3.1 " in header(project)


def test_provider_model_variable_reaches_the_judge(project: Citations) -> None:
    project.monkeypatch.setenv("OPENAI_MODEL", "gpt-from-openai-model")
    with project.web() as web:
        result = project.run("cases/", "--citations-record=once", gate="default")

    result.assert_outcomes(passed=2, failed=1)
    assert {call.model for call in web.judge.calls} == {"gpt-from-openai-model"}
    result.stdout.fnmatch_lines(["*judge=openai model=gpt-from-openai-model*"])


def test_chosen_provider_never_gets_another_providers_model(project: Citations) -> None:
    project.monkeypatch.setenv("JUDGE_PROVIDER", "anthropic")
    project.monkeypatch.setenv("ANTHROPIC_MODEL", "claude-from-env")
    with project.web() as web:
        result = project.run("cases/", "--citations-record=once", "--citations-judge=openai",
                             gate="default")

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*judge=openai model=gpt-4o-mini*"])
    assert {(call.provider, call.model) for call in web.judge.calls} == {("openai", "gpt-4o-mini")}


def test_unknown_judge_fails_every_claim_with_a_clear_message(project: Citations) -> None:
    project.write("cases/one.yaml", single_claim_case("one", SUPPORTED_CLAIM, BOILING_URL))

    result = project.run("cases/one.yaml", "--citations-judge", "nosuchjudge", gate="default")

    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["unknown judge provider 'nosuchjudge'; choose one of anthropic, ollama, openai"]
    )
    assert "Traceback" not in result.stdout.str()


def test_embedder_from_ini_and_environment(project: Citations) -> None:
    project.pytester.makeini("[pytest]\ncitations_embedding_model = lexical\n")
    args = ("--citations", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")

    with project.web():
        recorded = project.pytester.runpytest(*args, "cases/", "--citations-record=once")
    project.monkeypatch.setenv("CITATIONS_EMBEDDING_MODEL", "from-env-model")
    from_env = project.pytester.runpytest(*args, "--collect-only", "cases/")

    recorded.stdout.fnmatch_lines(["citations: * embedder=lexical *"])
    recorded.assert_outcomes(passed=2, failed=1)
    from_env.stdout.fnmatch_lines(["citations: * embedder=from-env-model *"])
