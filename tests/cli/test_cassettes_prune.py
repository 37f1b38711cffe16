"""``pytest-citations cassettes prune PATH…`` (issue 27): the recordings no case file needs any
more, listed by cassette with their size (exit 1 when there are some, a check for CI), and
with ``--write`` taken out atomically, every recording still needed kept byte for byte, so
that a replay of the same case files gives the same JSON report and ``cassettes check``
passes. The real console script on copies of the shipped examples, changed as a team changes
them; nothing is sent."""

from __future__ import annotations

import json
import re
import resource
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from canaries import signing_key_leaks, signing_key_pem
from light_env import light_cli
from ops_support import COMMAND, SECRETS, Run, base_env, copy_examples, run_cli, run_pytest

from pytest_citations.recording.entries import entry_spans
from pytest_citations.recording.files import read_cassette
from pytest_citations.recording.signing import SIGNING_KEY_VARIABLE, Signer, TrustedKeys

BOILING = "cassettes/cases/boiling-point.yaml"
RETURNS = "cassettes/cases/returns-policy.yaml"
FETCH_RULES = "cassettes/cases/fetch-rules.yaml"
MOUNTAINS = "On mountains water boils at 50 °C."
REFUNDS = "Refunds go to the original payment method."
REFUNDS_URL = "https://shop.example.com/policies/refunds"
BOILING_URL = "https://example.org/physics/boiling"
SIZE = r"\(\d+(?:\.\d)? (?:B|KB)\)"


def prune(project: Path, *args: str, **env: str) -> Run:
    """The command with every canary token set (it needs none): none may reach its output,
    nor the signing key's value."""
    environment = {**base_env(project), **SECRETS, **env}
    run = run_cli("cassettes", "prune", *args, env=environment, cwd=project)
    run.assert_no_secret()
    assert signing_key_leaks(run.stdout + run.stderr) == []
    return run


@pytest.fixture
def changed(tmp_path: Path) -> Path:
    """The shipped examples after a change: a claim reworded (boiling-point), a claim
    removed (returns-policy, the only one citing the refunds page), a case file deleted
    (fetch-rules)."""
    copy_examples(tmp_path)
    boiling = tmp_path / "cases/boiling-point.yaml"
    text = boiling.read_text(encoding="utf-8")
    boiling.write_text(text.replace(MOUNTAINS, "On mountains water boils at 40 °C."), "utf-8")
    returns = tmp_path / "cases/returns-policy.yaml"
    text = returns.read_text(encoding="utf-8")
    removed = f"  - text: {REFUNDS}\n    cites: [2]\n"
    assert removed in text
    returns.write_text(text.replace(removed, ""), "utf-8")
    (tmp_path / "cases/fetch-rules.yaml").unlink()
    return tmp_path


def replay_report(project: Path, python: Path) -> dict[str, Any]:
    """A replay of the case files, offline, by an interpreter without the embedding models
    (a choice missing from the recording is an unchecked citation, never one made again):
    its JSON report less what differs on every run (start, run id) and the digest of the
    cassette folder (pruning changes it)."""
    run = run_pytest(
        project, "cases/", "--citations-report", "out.json", "--citations-fail-on=contradicted",
        env=base_env(project, lexical=False), lexical=False, python=python,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stdout + run.stderr
    report: dict[str, Any] = json.loads((project / "out.json").read_text(encoding="utf-8"))
    del report["run"]["started"], report["run"]["run_id"]
    report["run"].get("identity", {}).pop("cassettes", None)
    return report


def entries(path: Path) -> list[str]:
    """The text of each interaction and choice of a cassette."""
    text = path.read_text(encoding="utf-8")
    spans = entry_spans(text)
    return [text[a:b] for a, b in (*spans.interactions, *spans.choices)]


def test_prune_lists_what_is_stale_with_sizes_and_exits_1(changed: Path) -> None:
    run = prune(changed, "cassettes/")

    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    expected = [
        rf"{BOILING}: 2 stale recordings {SIZE}:",
        rf"  judge call for '{re.escape(MOUNTAINS)}' {SIZE}",
        rf"  choice '{re.escape(MOUNTAINS)}' against {BOILING_URL} {SIZE}",
        rf"{FETCH_RULES}: stale whole \(6 recordings, \d+\.\d KB\): no case file "
        r"cases/fetch-rules.yaml records into it",
        rf"{RETURNS}: 3 stale recordings {SIZE}:",
        rf"  fetch {REFUNDS_URL} {SIZE}",
        rf"  judge call for '{re.escape(REFUNDS)}' {SIZE}",
        rf"  choice '{re.escape(REFUNDS)}' against {REFUNDS_URL} {SIZE}",
        r"cassettes prune: 11 stale recordings in 3 of 3 cassettes \(\d+\.\d KB\); --write "
        r"removes them",
    ]
    assert len(lines) == len(expected), run.stdout
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)
    # The sizes are the recordings' own bytes in the file.
    pieces = [piece for piece in entries(changed / BOILING) if MOUNTAINS in piece]
    call, choice = (len(piece.encode("utf-8")) for piece in pieces)
    assert pieces[0].startswith("- request:")
    assert lines[1].endswith(f"({call / 1024:.1f} KB)")
    assert lines[2].endswith(f"({choice} B)" if choice < 1024 else f"({choice / 1024:.1f} KB)")


def test_write_takes_them_out_keeps_the_rest_byte_for_byte_and_the_replay_is_the_same(
    changed: Path, light: Path
) -> None:
    before = replay_report(changed, light)
    kept = {name: entries(changed / name) for name in (BOILING, RETURNS)}
    written = prune(changed, "cassettes/", "--write")

    assert written.returncode == 0, written.stdout + written.stderr
    assert written.stdout.splitlines()[0].startswith(f"{BOILING}: removed 2 stale recordings (")
    assert f"{FETCH_RULES}: deleted (6 recordings," in written.stdout
    assert written.stdout.splitlines()[-1].startswith(
        "cassettes prune: removed 11 stale recordings from 3 of 3 cassettes ("
    )
    assert not (changed / FETCH_RULES).exists()
    # Every entry left is one that was there, byte for byte, in its order.
    assert entries(changed / BOILING) == [p for p in kept[BOILING] if MOUNTAINS not in p]
    assert entries(changed / RETURNS) == [
        piece for piece in kept[RETURNS] if REFUNDS not in piece and REFUNDS_URL not in piece
    ]
    assert replay_report(changed, light) == before
    check = run_cli("cassettes", "check", "cassettes/", env=base_env(changed), cwd=changed)
    assert check.returncode == 0, check.stdout
    again = prune(changed, "cassettes/")
    assert again.returncode == 0
    assert again.stdout.splitlines()[-1] == "cassettes prune: 2 cassettes, nothing stale"
    assert list(changed.glob("cassettes/**/.*.tmp")) == []


def test_nothing_stale_exits_0_and_says_so(tmp_path: Path) -> None:
    copy_examples(tmp_path)

    run = prune(tmp_path, "cassettes/")

    assert run.returncode == 0
    assert run.stdout.splitlines() == [
        f"{BOILING}: nothing stale",
        f"{FETCH_RULES}: nothing stale",
        f"{RETURNS}: nothing stale",
        "cassettes prune: 3 cassettes, nothing stale",
    ]


def test_it_needs_no_model(changed: Path, light: Path) -> None:
    run = light_cli(light, changed, "cassettes", "prune", "cassettes/")

    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1].startswith("cassettes prune: 11 stale recordings")


def _file_size_limit(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_write_that_fails_leaves_the_cassette_as_it_was_and_exits_1(changed: Path) -> None:
    (changed / "cases/fetch-rules.yaml").write_text(
        (Path(__file__).resolve().parents[2] / "cases/fetch-rules.yaml").read_text("utf-8"),
        "utf-8",
    )
    original = {name: (changed / name).read_bytes() for name in (BOILING, RETURNS)}
    done = subprocess.run(
        [*COMMAND, "cassettes", "prune", "cassettes/", "--write"],
        env=base_env(changed), cwd=changed, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: _file_size_limit(2048), check=False,
    )  # fmt: skip

    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{BOILING}: not pruned: cannot write " in done.stdout
    assert "File too large (the previous file was left as it was)" in done.stdout
    assert done.stdout.splitlines()[-1].endswith("; 2 cassettes not pruned")
    for name, raw in original.items():
        assert (changed / name).read_bytes() == raw
    assert list(changed.glob("cassettes/**/.*.tmp")) == []


def test_under_trusted_keys_the_write_is_signed_with_the_key_or_warned_about(
    changed: Path,
) -> None:
    key = signing_key_pem()
    signer = Signer.from_text(key)
    (changed / "pytest.ini").write_text(
        f"[pytest]\ncitations_trusted_keys =\n    {signer.public_line()}\n", "utf-8"
    )
    signed = prune(changed, "cassettes/", **{SIGNING_KEY_VARIABLE: key})  # listing only
    assert signed.returncode == 1
    assert "not pruned: it is not signed" in signed.stdout  # the shipped files are not signed
    run_cli("cassettes", "sign", "cassettes/", env={**base_env(changed), SIGNING_KEY_VARIABLE: key},
            cwd=changed)  # fmt: skip
    unsigned = shutil.copytree(changed, changed.parent / "unsigned")

    written = prune(changed, "cassettes/", "--write", **{SIGNING_KEY_VARIABLE: key})

    assert written.returncode == 0, written.stdout + written.stderr
    assert "warning" not in written.stderr
    trusted = TrustedKeys.parse([signer.public_line()])
    read_cassette((changed / BOILING).read_bytes(), trusted.check)  # accepted as it is
    refused = prune(unsigned, "cassettes/", "--write")
    assert refused.returncode == 0
    assert refused.stderr.startswith(
        "pytest-citations: warning: the cassettes written now are refused by the trusted keys"
    )
    assert "CITATIONS_SIGNING_KEY is not set" in refused.stderr
    assert "signature" not in (unsigned / BOILING).read_text(encoding="utf-8")


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    run = prune(tmp_path, "nowhere/")

    assert run.returncode == 2
    assert run.stderr == "pytest-citations: no cassette or folder at nowhere\n"


def test_the_help_documents_the_exit_status(tmp_path: Path) -> None:
    run = run_cli("cassettes", "prune", "--help", env=base_env(tmp_path), cwd=tmp_path)

    text = " ".join(run.stdout.split())
    assert "Prune exits 1 when something is stale (without --write)" in text
    assert "--write" in text


def test_a_case_file_that_cannot_be_read_keeps_its_cassette_and_fails(changed: Path) -> None:
    (changed / "cases/boiling-point.yaml").write_text("claims: [\n", "utf-8")

    run = prune(changed, BOILING)

    assert run.returncode == 1
    assert run.stdout.splitlines()[0].startswith(
        f"{BOILING}: not pruned: its case file cannot be read"
    )
    assert yaml.safe_load((changed / BOILING).read_text("utf-8"))["retrieval"]


def test_a_url_from_a_cassette_is_listed_without_control_sequences(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    path = tmp_path / BOILING
    text = path.read_text(encoding="utf-8")
    old_report = "url=https://example.org/old-report&"
    assert text.count(old_report) == 1
    forged = "url=https://example.org/%1b%5B31mred%0A::error::forged&"
    path.write_text(text.replace(old_report, forged), encoding="utf-8")

    run = prune(tmp_path, BOILING)

    assert run.returncode == 1
    assert "\x1b" not in run.stdout
    assert not [line for line in run.stdout.splitlines() if line.startswith("::")]
    assert "  fetch https://example.org/red\\n::error::forged (" in run.stdout
