"""``pytest-citations serve`` with its protections (issue 17, "The service"): the token from
the environment, the allow-lists and timeouts from options, and no start beyond loopback
without a token. Each ``serve`` runs in a process of its own; its whole output is searched
for the token.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx
import pytest
from ops_support import BOILING_URL, COMMAND, SUPPORTED_CLAIM, Web, free_port, run_cli
from raw_sockets import SLACK, TIMEOUT, connections, head, wait_closed
from running import Service, assert_no_secret, serve_command

from pytest_citations.cli.common import EXIT_USAGE
from pytest_citations.service import BODY_TIMEOUT, HEADER_TIMEOUT, MAX_CONNECTIONS

CLAIM = {"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}
TOKEN = "svc-cli-canary-token-6b0e2d94a1"
WRONG = "svc-cli-wrong-canary-1c7f3a58e9"


def refused_start(arguments: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``serve ARGUMENTS``, which must stop at once: a server that started fails the test
    (by its timeout) instead of listening."""
    return subprocess.run(
        [*COMMAND, "serve", "--port", str(free_port()), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "citations.example"])
def test_listening_beyond_loopback_needs_the_token(web: Web, counters: Web, host: str) -> None:
    done = refused_start(["--host", host], web.env)

    assert done.returncode == EXIT_USAGE, done.stderr
    assert "CITATIONS_SERVICE_TOKEN" in done.stderr
    assert "not a loopback address" in done.stderr
    assert "Traceback" not in done.stderr
    assert_no_secret(done.stdout + done.stderr)


@pytest.mark.parametrize(
    "value", ["short", "with a space in the middle of it", "nön-ascii-token-0123456789"]
)
def test_a_weak_token_stops_serve_without_showing_it(web: Web, value: str) -> None:
    done = refused_start([], {**web.env, "CITATIONS_SERVICE_TOKEN": value})

    assert done.returncode == EXIT_USAGE, done.stderr
    assert "CITATIONS_SERVICE_TOKEN must be at least 16 characters" in done.stderr
    assert value not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--body-timeout", "0"], "--body-timeout must be more than 0"),
        (["--header-timeout", "soon"], "--header-timeout must be a number of seconds"),
        (["--max-connections", "0"], "--max-connections must be at least 1"),
        (["--allow-host", "http://x.example/"], "allowed host 'http://x.example/'"),
        (["--allow-origin", "x.example"], "allowed origin 'x.example'"),
        # Issue 24: numbers that are no limit, and a port no socket takes (a traceback).
        (["--body-timeout", "nan"], "--body-timeout must be a number of seconds"),
        (["--header-timeout", "inf"], "--header-timeout must be a number of seconds"),
        (["--port", "70000"], "--port must be a port number from 0 to 65535, got '70000'"),
        (["--port", "-1"], "--port must be a port number from 0 to 65535, got '-1'"),
    ],
    ids=["body-timeout", "header-timeout", "max-connections", "allow-host", "allow-origin",
         "nan-body-timeout", "inf-header-timeout", "port-too-high", "port-negative"],
)
def test_a_wrong_option_value_is_a_usage_error(web: Web, arguments: list[str], said: str) -> None:
    done = refused_start(arguments, web.env)

    assert done.returncode == EXIT_USAGE, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_with_a_token_answers_only_with_it_and_never_shows_it(
    web: Web, counters: Web, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    env = {**web.env, "CITATIONS_SERVICE_TOKEN": TOKEN}
    arguments = ["--allow-host", "citations.internal", "--allow-origin", "https://app.example"]
    right = {"authorization": f"Bearer {TOKEN}"}
    with serve_command(arguments, env, log) as (base, health):
        wrong = httpx.post(base + "/verify", json=CLAIM, headers={"authorization": WRONG})
        verified = httpx.post(base + "/verify", json=CLAIM, headers=right, timeout=60)
        proxied = httpx.get(
            base + "/health",
            headers={**right, "host": "citations.internal", "origin": "https://app.example"},
        )
        foreign = httpx.get(base + "/health", headers={**right, "origin": "https://b.example"})

    assert health.status_code == 401
    assert health.headers["www-authenticate"] == "Bearer"
    assert wrong.status_code == 401
    assert verified.status_code == 200, verified.text
    assert verified.json()["overall"] == "supported"
    assert proxied.status_code == 200, proxied.text
    assert foreign.status_code == 403
    said = log.read_text(encoding="utf-8", errors="replace")
    assert "needs Authorization: Bearer <CITATIONS_SERVICE_TOKEN>" in said
    for text in (said, health.text, wrong.text, verified.text, str(wrong.headers)):
        assert TOKEN not in text
        assert WRONG not in text
        assert_no_secret(text)
    assert "Traceback" not in said
    assert counters.judge.call_count == 1


def test_the_help_states_the_protections_and_their_defaults(web: Web) -> None:
    done = run_cli("serve", "--help", env=web.env)
    text = re.sub(r"\s+", " ", done.stdout)

    assert done.returncode == 0
    for named in (
        "CITATIONS_SERVICE_TOKEN",
        "--allow-host",
        "--allow-origin",
        "421",
        "403",
        "401",
        "CITATIONS_SERVICE_ALLOW_HOSTS",
        "CITATIONS_SERVICE_ALLOW_ORIGINS",
    ):
        assert named in text, named  # fmt: skip
    for option, default in (
        ("--body-timeout", BODY_TIMEOUT),
        ("--header-timeout", HEADER_TIMEOUT),
        ("--max-connections", MAX_CONNECTIONS),
    ):
        help_text = text.split(option, 2)[2]  # the option's own help, after the usage line
        assert f"(default {default:g})" in help_text.split("--", 1)[0], option


def test_serve_cuts_off_a_stalled_body_after_its_option(web: Web, tmp_path: Path) -> None:
    arguments = ["--body-timeout", "1", "--header-timeout", "1"]
    with (
        serve_command(arguments, web.env, tmp_path / "serve.log") as (base, health),
        httpx.Client(timeout=10) as client,
    ):
        service = Service(base, client)
        with connections(service, 30) as opened:
            for connection in opened:
                connection.sock.sendall(head(service, "POST", "/verify", 1000) + b"{")

            took = wait_closed(opened, TIMEOUT + SLACK + 5)

        answer = client.get(base + "/health")

    assert health.status_code == 200
    assert all(connection.closed for connection in opened)
    assert all(c.received.startswith(b"HTTP/1.1 408 ") for c in opened)
    assert took < TIMEOUT + SLACK
    assert answer.status_code == 200
