"""Request limits are settable (issue 8): ``--citations-timeout``, ``--citations-connect-timeout``,
``--citations-deadline``, ``--citations-retries`` and ``--citations-max-page-chars`` (and the
budgets, ``--citations-max-judge-calls``, ``--citations-max-judge-tokens`` and
``--citations-max-credits``), their ini keys of the same names and their environment
variables, with command line > environment > ini > default; and the same as global options
of the ``pytest-citations`` command.

The header shows what was set; the judge emulator counts the attempts that ``retries``
allows and hangs to show that the ``deadline`` ends a request."""

from __future__ import annotations

import math
import time

import pytest
from ops_support import Web as OpsWeb
from ops_support import run_cli
from plugin_helpers import (
    BOILING_URL,
    SUPPORTED_CLAIM,
    Citations,
    single_claim_case,
)

from pytest_citations.errors import ConfigurationError
from pytest_citations.pipeline.settings import LIMITS as SETTINGS_LIMITS
from pytest_citations.pipeline.settings import Limit, Settings

#: (flag, ini key, environment variable, header field, three valid values)
LIMITS = [
    ("--citations-timeout", "citations_timeout", "CITATIONS_TIMEOUT", "timeout", "7", "8", "9"),
    (
        "--citations-connect-timeout",
        "citations_connect_timeout",
        "CITATIONS_CONNECT_TIMEOUT",
        "connect_timeout",
        "1.5",
        "2.5",
        "3.5",
    ),
    (
        "--citations-deadline",
        "citations_deadline",
        "CITATIONS_DEADLINE",
        "deadline",
        "40",
        "50",
        "60",
    ),
    ("--citations-retries", "citations_retries", "CITATIONS_RETRIES", "retries", "0", "1", "2"),
    (
        "--citations-max-page-chars",
        "citations_max_page_chars",
        "CITATIONS_MAX_PAGE_CHARS",
        "max_page_chars",
        "2000",
        "3000",
        "4000",
    ),
    # The budgets (what a run may spend live) come from the same table.
    ("--citations-max-judge-calls", "citations_max_judge_calls", "CITATIONS_MAX_JUDGE_CALLS",
     "max_judge_calls", "0", "3", "20"),
    ("--citations-max-judge-tokens", "citations_max_judge_tokens", "CITATIONS_MAX_JUDGE_TOKENS",
     "max_judge_tokens", "100", "2000", "50000"),
    ("--citations-max-credits", "citations_max_credits", "CITATIONS_MAX_CREDITS", "max_credits",
     "1.5", "10", "100"),
]  # fmt: skip
IDS = [limit[3] for limit in LIMITS]


def header(citations: Citations, *args: str) -> str:
    """The ``citations:`` header line of a collect-only run."""
    result = citations.run("--collect-only", "cases/", *args, gate="default")
    lines = [line for line in result.outlines if line.startswith("citations: ")]
    assert len(lines) == 1, result.stdout.str() + result.stderr.str()
    return lines[0]


@pytest.fixture
def project(citations: Citations) -> Citations:
    """One case file with one claim."""
    citations.write("cases/one.yaml", single_claim_case("one", SUPPORTED_CLAIM, BOILING_URL))
    return citations


@pytest.mark.parametrize(("flag", "ini", "env", "field", "low", "mid", "high"), LIMITS, ids=IDS)
def test_command_line_wins_over_environment_over_ini(
    project: Citations, flag: str, ini: str, env: str, field: str, low: str, mid: str, high: str
) -> None:
    assert f" {field}=" not in header(project)  # the engine's default, not shown

    project.pytester.makeini(f"[pytest]\n{ini} = {low}\n")
    assert f" {field}={float(low):g}" in header(project)

    project.monkeypatch.setenv(env, mid)
    assert f" {field}={float(mid):g}" in header(project)

    assert f" {field}={float(high):g}" in header(project, flag, high)


@pytest.mark.parametrize(
    ("args", "ini", "env", "message"),
    [
        (("--citations-timeout", "soon"), "", {}, "--citations-timeout must be a number*"),
        (("--citations-retries", "1.5"), "", {}, "--citations-retries must be a whole number*"),
        ((), "citations_deadline = 0\n", {}, "--citations-deadline must be more than 0*"),
        ((), "", {"CITATIONS_RETRIES": "-1"}, "--citations-retries must be at least 0*"),
        (
            ("--citations-max-page-chars", "10"),
            "",
            {},
            "--citations-max-page-chars must be at least 1000*",
        ),
    ],
    ids=["not-a-number", "not-whole", "zero-deadline-in-ini", "negative-env", "tiny-page"],
)
def test_a_bad_limit_is_a_usage_error(
    project: Citations, args: tuple[str, ...], ini: str, env: dict[str, str], message: str
) -> None:
    if ini:
        project.pytester.makeini(f"[pytest]\n{ini}")
    for name, value in env.items():
        project.monkeypatch.setenv(name, value)

    result = project.run("cases/", *args, gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


@pytest.mark.parametrize(
    ("ini", "env", "option", "attempts"),
    [("4", None, None, 5), ("4", "2", None, 3), ("4", "2", "0", 1)],
    ids=["ini", "env-over-ini", "option-over-env"],
)
def test_retries_reach_the_engine(
    project: Citations, ini: str, env: str | None, option: str | None, attempts: int
) -> None:
    project.pytester.makeini(f"[pytest]\ncitations_retries = {ini}\n")
    if env is not None:
        project.monkeypatch.setenv("CITATIONS_RETRIES", env)
    args = ("--citations-retries", option) if option is not None else ()
    with project.web() as web:
        # Throttled with Retry-After: 0, so retrying costs no waiting.
        web.judge.fail_next(429, count=10, retry_after=0)
        project.run("cases/", "--citations-record=once", *args, gate="default")

    assert web.judge.call_count == attempts
    assert web.crawlbase.crawl_count == 1


def test_the_deadline_ends_a_request_that_never_answers(project: Citations) -> None:
    with project.web() as web:
        web.judge.hang_next(5)  # each would hold its request for 30 s
        started = time.monotonic()
        result = project.run(
            "cases/", "--citations-record=once", "--citations-deadline", "1", "-rE", gate="default"
        )
        elapsed = time.monotonic() - started

    assert elapsed < 15
    assert "judge_error" in result.stdout.str()


# -- the pytest-citations command -----------------------------------------------------------


def test_the_command_takes_the_same_limits(web: OpsWeb) -> None:
    web.judge.fail_next(429, count=10, retry_after=0)

    run = run_cli(
        "--retries",
        "1",
        "--timeout",
        "5",
        "--connect-timeout",
        "2",
        "--deadline",
        "30",
        "--max-page-chars",
        "5000",
        "verify",
        SUPPORTED_CLAIM,
        BOILING_URL,
        env=web.env,
    )

    # The judge kept answering 429: the citation could not be checked, which is exit 1.
    assert run.returncode == 1, run.stderr
    assert "1 citation(s) could not be checked" in run.stderr
    assert web.judge.call_count == 2  # the first attempt and one retry
    run.assert_no_secret()


def test_the_command_line_wins_over_the_environment(web: OpsWeb) -> None:
    web.judge.fail_next(429, count=10, retry_after=0)

    run = run_cli(
        "--retries",
        "0",
        "verify",
        SUPPORTED_CLAIM,
        BOILING_URL,
        env={**web.env, "CITATIONS_RETRIES": "3"},
    )

    assert run.returncode == 1, run.stderr  # the judge's 429: not checked
    assert web.judge.call_count == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--retries", "-1"), "retries must be 0 or more"),
        (("--deadline", "0"), "deadline must be more than 0 seconds"),
        (("--timeout", "soon"), "argument --timeout: invalid float value: 'soon'"),
    ],
)
def test_the_command_refuses_a_bad_limit(web: OpsWeb, args: tuple[str, ...], message: str) -> None:
    run = run_cli(*args, "verify", SUPPORTED_CLAIM, BOILING_URL, env=web.env)

    assert run.returncode == 2
    assert message in run.stderr
    assert web.judge.call_count == web.crawlbase.crawl_count == 0


# -- numbers that are no limit (issue 24) -------------------------------------------------------

#: Texts that parse as floats but mean no limit: not a number, the infinities, and a number
#: too large for a float (which reads as infinity).
NOT_A_LIMIT = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400"]


@pytest.mark.parametrize("limit", SETTINGS_LIMITS, ids=[limit.name for limit in SETTINGS_LIMITS])
@pytest.mark.parametrize("raw", NOT_A_LIMIT)
def test_every_limit_refuses_what_is_no_number(limit: Limit, raw: str) -> None:
    """One parser for the flag, the ini key and the variable: a budget of ``nan`` credits
    passes every comparison and would turn the budget off; ``inf`` says "no limit", which
    is what leaving the option out says."""
    with pytest.raises(ConfigurationError, match=f"^--x must be .*got '{raw}'"):
        limit.parse(raw, "--x")


@pytest.mark.parametrize("limit", SETTINGS_LIMITS, ids=[limit.name for limit in SETTINGS_LIMITS])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_settings_refuse_what_is_no_number_whoever_builds_them(limit: Limit, value: float) -> None:
    """The command's global options reach the settings as floats parsed by argparse: the
    settings themselves refuse a limit that is no number."""
    with pytest.raises(ConfigurationError, match=f"{limit.field} must be a finite number"):
        Settings.from_env({}, **{limit.field: value})


def test_a_timeout_longer_than_a_day_is_refused() -> None:
    """A wait of 1e300 seconds is a hang, and a socket refuses it with a traceback."""
    for name in ("timeout", "connect-timeout", "deadline"):
        [limit] = [limit for limit in SETTINGS_LIMITS if limit.name == name]
        assert limit.parse("86400", name) == 86400
        with pytest.raises(ConfigurationError, match=f"{name} must be at most 86400"):
            limit.parse("1e300", name)


@pytest.mark.parametrize(
    ("args", "ini", "env", "message"),
    [
        (("--citations-max-credits", "nan"), "", {}, "--citations-max-credits must be a number*"),
        ((), "", {"CITATIONS_MAX_CREDITS": "nan"}, "--citations-max-credits must be a number*"),
        ((), "citations_max_credits = nan\n", {}, "--citations-max-credits must be a number*"),
        (("--citations-max-credits", "inf"), "", {}, "--citations-max-credits must be a number*"),
        (("--citations-max-credits=-1",), "", {}, "--citations-max-credits must be at least 0*"),
        (("--citations-max-judge-calls", "inf"), "", {},
         "--citations-max-judge-calls must be a whole number*"),
        ((), "citations_max_judge_tokens = 1e400\n", {},
         "--citations-max-judge-tokens must be a whole number*"),
        (("--citations-timeout", "1e300"), "", {}, "--citations-timeout must be at most 86400*"),
    ],
    ids=["nan-flag", "nan-env", "nan-ini", "inf-flag", "negative-flag", "inf-calls",
         "huge-tokens-ini", "huge-timeout"],
)  # fmt: skip
def test_a_budget_that_is_no_number_is_a_usage_error(
    project: Citations, args: tuple[str, ...], ini: str, env: dict[str, str], message: str
) -> None:
    """``--citations-max-credits nan`` turned the credit budget off (nan passes every
    comparison), and ``inf`` of calls was a traceback: each is a usage error naming it."""
    if ini:
        project.pytester.makeini(f"[pytest]\n{ini}")
    for name, value in env.items():
        project.monkeypatch.setenv(name, value)

    result = project.run("cases/", *args, gate="default")

    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--max-credits", "nan"), "max_credits must be a finite number"),
        (("--timeout", "inf"), "read_timeout must be a finite number"),
        (("--max-judge-calls", "1e400"), "argument --max-judge-calls: invalid int value"),
    ],
)
def test_the_command_refuses_a_limit_that_is_no_number(
    web: OpsWeb, args: tuple[str, ...], message: str
) -> None:
    run = run_cli(*args, "verify", SUPPORTED_CLAIM, BOILING_URL, env=web.env)

    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert web.judge.call_count == web.crawlbase.crawl_count == 0
