"""What every command shares (issue 11): ``--version``, the global options before or after the
command's name, help for every positional, and every missing variable named in one run.

The real console script runs in a subprocess against the emulators on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ops_support import BOILING_URL, SUPPORTED_CLAIM, Web, base_env, run_cli

from pytest_citations.distribution import __version__
from pytest_citations.pipeline.settings import LIMITS


def test_version_prints_the_version_of_the_package(tmp_path: Path) -> None:
    run = run_cli("--version", env=base_env(tmp_path))

    assert run.returncode == 0
    assert run.stdout == f"pytest-citations {__version__}\n"


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_limit_is_taken_before_or_after_the_command(web: Web, where: str) -> None:
    web.judge.fail_next(429, count=10, retry_after=0)
    verify = ["verify", SUPPORTED_CLAIM, BOILING_URL]
    limit = ["--retries", "0"]

    run = run_cli(*(limit + verify if where == "before" else verify + limit), env=web.env)

    assert run.returncode == 1, run.stderr  # the judge's 429: the citation is not checked
    assert web.judge.call_count == 1  # no retry: the environment's default (3) was overridden
    run.assert_no_secret()


def test_after_the_command_wins_over_before(web: Web) -> None:
    web.judge.fail_next(429, count=10, retry_after=0)

    run = run_cli(
        "--retries", "3", "verify", SUPPORTED_CLAIM, BOILING_URL, "--retries", "1", env=web.env
    )

    assert run.returncode == 1, run.stderr
    assert web.judge.call_count == 2  # the first attempt and the one retry asked last


def test_the_judge_is_chosen_after_the_command(web: Web) -> None:
    # anthropic after the command: its key is the one missing, named before any request.
    env = web.without("ANTHROPIC_API_KEY")

    run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, "--judge", "anthropic", env=env)

    assert run.returncode == 2
    assert "ANTHROPIC_API_KEY" in run.stderr
    assert "OPENAI_API_KEY" not in run.stderr
    assert web.crawlbase.crawl_count == 0
    run.assert_no_secret()


def test_the_model_after_the_command_reaches_the_judge(web: Web) -> None:
    run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, "--model", "gpt-4.1-nano", env=web.env)

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["overall"] == "supported"
    assert [call.model for call in web.judge.calls] == ["gpt-4.1-nano"]


def test_the_judge_votes_before_the_command_ask_the_judge_that_often(web: Web) -> None:
    web.judge.rule(SUPPORTED_CLAIM, labels=["supported", "contradicted", "supported"])

    run = run_cli("--judge-votes", "3", "verify", SUPPORTED_CLAIM, BOILING_URL, env=web.env)

    assert run.returncode == 0, run.stderr
    [citation] = json.loads(run.stdout)["citations"]
    assert citation["votes"] == ["supported", "contradicted", "supported"]
    assert (citation["label"], citation["agreed"]) == ("supported", False)
    assert web.judge.call_count == 3


def test_judge_votes_below_one_is_a_usage_error(web: Web) -> None:
    run = run_cli("verify", SUPPORTED_CLAIM, BOILING_URL, "--judge-votes", "0", env=web.env)

    assert run.returncode == 2
    assert "judge_votes must be at least 1" in run.stderr
    assert web.judge.call_count == 0


@pytest.mark.parametrize("command", ["verify", "batch"])
def test_every_missing_variable_is_named_in_one_run(web: Web, tmp_path: Path, command: str) -> None:
    source = tmp_path / "outputs.jsonl"
    source.write_text(
        json.dumps({"id": "a", "claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}) + "\n",
        encoding="utf-8",
    )
    args = [SUPPORTED_CLAIM, BOILING_URL] if command == "verify" else [str(source)]

    run = run_cli(command, *args, env=web.without("CRAWLBASE_TOKEN", "OPENAI_API_KEY"))

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN and OPENAI_API_KEY are not set" in run.stderr
    assert run.stdout == ""
    assert web.crawlbase.crawl_count == 0
    assert web.judge.call_count == 0
    run.assert_no_secret()


def test_every_global_option_is_in_the_help_of_every_command(tmp_path: Path) -> None:
    flags = ["--judge", "--model", "--judge-votes", *(f"--{limit.name}" for limit in LIMITS)]
    for command in ("verify", "batch", "stored-page", "import", "schema", "serve"):
        run = run_cli(command, "--help", env=base_env(tmp_path))
        assert run.returncode == 0
        for flag in flags:
            assert flag in run.stdout, f"{command} --help lacks {flag}"


def _positionals(help_text: str) -> list[str]:
    """The lines of the "positional arguments:" section of an argparse help."""
    section = help_text.split("positional arguments:", 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("command", "names"),
    [
        ("verify", ["claim", "URL"]),
        ("batch", ["outputs.jsonl"]),
        ("stored-page", ["rid"]),
        ("import", ["answers.jsonl"]),
    ],
)
def test_every_positional_has_help(tmp_path: Path, command: str, names: list[str]) -> None:
    run = run_cli(command, "--help", env=base_env(tmp_path))

    lines = _positionals(run.stdout)
    for name in names:
        [line] = [line for line in lines if line.split()[0] == name]
        described = " ".join(line.split()[1:])
        following = lines[lines.index(line) + 1 :][:1]
        indent = len(line) - len(line.lstrip())
        if not described and following and following[0].startswith(" " * (indent + 4)):
            described = following[0].strip()  # a long name puts its help on the next line
        assert re.search(r"[a-z]{3,}", described), f"{command} {name} has no help"


def test_a_missing_ca_bundle_is_named_before_any_request(web: Web, tmp_path: Path) -> None:
    # SSL_CERT_FILE naming no file: the command said only "[Errno 2] No such file or
    # directory", naming neither the variable nor the file.
    missing = tmp_path / "missing-ca.pem"

    run = run_cli(
        "verify", SUPPORTED_CLAIM, BOILING_URL, env={**web.env, "SSL_CERT_FILE": str(missing)}
    )

    assert run.returncode == 2, run.stderr
    assert f"SSL_CERT_FILE names {missing}" in run.stderr
    assert "Traceback" not in run.stderr
    assert web.crawlbase.crawl_count == 0
    assert web.judge.call_count == 0
