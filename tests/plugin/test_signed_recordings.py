"""Signed recordings, end to end (issue 24): a recording run with ``CITATIONS_SIGNING_KEY``
signs every cassette it writes; a replay with ``citations_trusted_keys`` passes it as it was
recorded, and refuses it, naming the file, once a judge reply in it was edited (without the
keys, that edit turns a failing claim into a pass: what this protects against); ``pytest-
citations cassettes sign`` makes a reviewed edit acceptable again. Recordings against the
emulators of ``pytest_citations.sandbox``; the gate of every run is named (``contradicted``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from canaries import (
    CANARIES,
    files_with_leaks,
    files_with_signing_key,
    leaks,
    signing_key_leaks,
    signing_key_pem,
)
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from light_env import light_pytest
from ops_support import base_env, copy_examples, run_cli
from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    SUPPORTED_CLAIM,
    Citations,
    claims_by_nodeid,
    load_report,
    single_claim_case,
)
from test_readme import DOCS, code_blocks, readme_section

from pytest_citations.recording.signing import SIGNING_KEY_VARIABLE, Signer

GATE = "--citations-fail-on=contradicted"
#: The recorded reply of the contradicted claim's judge call, as the cassette quotes it.
CONTRADICTED = '\\"contradicted\\"'
SUPPORTED = '\\"supported\\"'
CLAIM_2 = "cases/boiling.yaml::boiling-point::claim-2"


def pem(seed: bytes) -> str:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


KEY = signing_key_pem()
SIGNER = Signer.from_text(KEY)
STRANGER_KEY = pem(bytes(range(7, 39)))
#: A page of the Crawlbase emulator that drift finds changed.
RETURNS_URL = "https://shop.example.com/policies/hardware-returns"
RETURNS_CLAIM = "Consumers can return hardware within 30 days."
RETURNS_PAGE = (
    "# Returns policy for hardware\n\n"
    "Consumers can return hardware within 30 days of delivery.\n\n"
    "Items must come back with all accessories and the original packaging.\n"
)


def trust(citations: Citations, *signers: Signer) -> None:
    """``citations_trusted_keys`` in the project's ini file."""
    lines = "\n".join(f"    {signer.public_line()}" for signer in signers or (SIGNER,))
    citations.write("pytest.ini", f"[pytest]\ncitations_trusted_keys =\n{lines}\n")


def record(citations: Citations, key: str | None = KEY) -> pytest.RunResult:
    """Record the boiling case (``once``), with ``key`` in the environment; the key is
    gone again afterwards, as on a machine that only replays."""
    citations.write("cases/boiling.yaml", BOILING_CASE)
    if key is not None:
        citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, key)
    result, _ = citations.record("cases/", GATE, gate="args")
    citations.monkeypatch.delenv(SIGNING_KEY_VARIABLE, raising=False)
    return result


def labels(citations: Citations, result: pytest.RunResult) -> dict[str, str]:
    report = load_report(citations.path / "report.json")
    return {nodeid: claim["label"] for nodeid, claim in claims_by_nodeid(report).items()}


def replay(citations: Citations) -> pytest.RunResult:
    return citations.run("cases/", GATE, "--citations-report=report.json", "-v", gate="args")


def edit_the_judge_reply(citations: Citations) -> None:
    cassette = citations.cassette("cases/boiling.yaml")
    text = cassette.read_text(encoding="utf-8")
    assert text.count(CONTRADICTED) == 1, "one judge reply says contradicted"
    cassette.write_text(text.replace(CONTRADICTED, SUPPORTED), encoding="utf-8")


def sign(citations: Citations, *paths: str, key: str | None = KEY) -> tuple[int, str, str]:
    """``pytest-citations cassettes sign PATHS`` in the project, with ``key`` set."""
    env = base_env(citations.path)
    if key is not None:
        env[SIGNING_KEY_VARIABLE] = key
    done = run_cli("cassettes", "sign", *paths, env=env, cwd=citations.path)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_a_signed_recording_replays_as_it_was_recorded(citations: Citations) -> None:
    trust(citations)
    recorded = record(citations)
    recorded.assert_outcomes(passed=2, failed=1)
    assert "PytestWarning" not in recorded.stdout.str()
    cassette = citations.cassette("cases/boiling.yaml").read_text(encoding="utf-8")
    assert f"\nsignature:\n  key: {SIGNER.fingerprint}\n  value: " in cassette
    assert cassette.endswith("version: 1\n")

    replayed = replay(citations)

    replayed.assert_outcomes(passed=2, failed=1)
    assert labels(citations, replayed)[CLAIM_2] == "contradicted"
    assert replayed.ret == 1


def test_a_judge_reply_edited_after_the_recording_is_refused_naming_the_file(
    citations: Citations,
) -> None:
    record(citations).assert_outcomes(passed=2, failed=1)
    edit_the_judge_reply(citations)

    # What is at stake: without trusted keys the edit turns the failing claim into a pass.
    edited = replay(citations)
    edited.assert_outcomes(passed=3)
    assert edited.ret == 0

    trust(citations)
    refused = replay(citations)

    assert refused.ret == 1
    refused.assert_outcomes(failed=3)  # every item of the file, none with a label
    refused.stdout.fnmatch_lines(
        [
            "*cassette cassettes/cases/boiling.yaml is refused: it was edited after it was "
            "recorded: its signature does not match its content.*",
            "*Release decision: incomplete*",
        ]
    )
    report = load_report(citations.path / "report.json")
    assert report["run"]["decision"] == "incomplete"
    assert claims_by_nodeid(report) == {}  # no label of the file's claims is reported
    [why] = report["summary"]["not_verified"].values()
    assert why.startswith("cassette cassettes/cases/boiling.yaml is refused: it was edited")


def test_a_reviewed_edit_signed_with_the_command_is_accepted(citations: Citations) -> None:
    trust(citations)
    record(citations)
    edit_the_judge_reply(citations)
    assert replay(citations).ret == 1

    code, out, err = sign(citations, "cassettes/")

    assert code == 0, out + err
    assert out == f"cassettes/cases/boiling.yaml: signed ({SIGNER.fingerprint})\n"
    accepted = replay(citations)
    accepted.assert_outcomes(passed=3)
    assert labels(citations, accepted)[CLAIM_2] == "supported"
    assert accepted.ret == 0


def test_a_recording_without_the_key_under_trusted_keys_warns_and_is_refused(
    citations: Citations,
) -> None:
    trust(citations)

    recorded = record(citations, key=None)

    recorded.assert_outcomes(passed=2, failed=1)
    recorded.stdout.fnmatch_lines(
        [
            "*PytestWarning: citations: the cassettes written now are refused by the trusted "
            f"keys (citations_trusted_keys): {SIGNING_KEY_VARIABLE} is not set.*"
        ]
    )
    refused = replay(citations)
    refused.stdout.fnmatch_lines(
        ["*cassette cassettes/cases/boiling.yaml is refused: it is not signed.*"]
    )
    assert refused.ret == 1


def test_a_cassette_signed_by_a_key_that_is_not_trusted_is_refused_naming_it(
    citations: Citations,
) -> None:
    trust(citations)
    record(citations, key=STRANGER_KEY)
    stranger = Signer.from_text(STRANGER_KEY)

    refused = replay(citations)

    refused.stdout.fnmatch_lines(
        [
            f"*cassette cassettes/cases/boiling.yaml is refused: it is signed by the key "
            f"{stranger.fingerprint}, which is not among the trusted keys "
            "(citations_trusted_keys).*"
        ]
    )
    trust(citations, SIGNER, stranger)
    replay(citations).assert_outcomes(passed=2, failed=1)


def test_an_unusable_key_stops_a_recording_before_anything_is_sent(citations: Citations) -> None:
    value = KEY.replace("MC4CAQAw", "MC4CAQAx")  # a PEM block that holds no key
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, value)
    with citations.web() as web:
        result = citations.run("--citations-record=once", "cases/", GATE, gate="args")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*citations: {SIGNING_KEY_VARIABLE} holds no Ed25519 *"])
    assert web.requests == 0
    assert not citations.cassette("cases/boiling.yaml").exists()
    output = result.stdout.str() + result.stderr.str()
    assert all(line not in output for line in value.splitlines() if not line.startswith("-"))


def test_replay_only_runs_need_no_key_and_take_none_from_a_bad_one(citations: Citations) -> None:
    record(citations)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, "not a key")  # never read: nothing written
    replay(citations).assert_outcomes(passed=2, failed=1)


def test_no_signing_key_reaches_any_file_or_output(citations: Citations) -> None:
    """The canary: a signed recording run with every output turned on, a replay that
    refuses an edit, a ``sign`` run that fails on a damaged file and one with a broken key
    leave no form of the key anywhere (nor any token)."""
    trust(citations)
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY)
    with citations.web(tokens=CANARIES):
        recorded = citations.run_subprocess(
            "cases/", GATE, "--citations-record=once", "--citations-report=out/report.json",
            "--citations-audit=out/audit.sqlite", "--junitxml=out/junit.xml",
            "--citations-html=out/report.html", "--log-level=DEBUG", "-o", "log_cli=true",
            "-o", "log_cli_level=DEBUG", "-rA", "-v", "-l", "--tb=long", gate="args",
        )  # fmt: skip
    recorded.assert_outcomes(passed=2, failed=1)
    edit_the_judge_reply(citations)
    refused = citations.run_subprocess("cases/", GATE, "-rA", "-l", "--tb=long", gate="args")
    assert refused.ret == 1
    citations.write("cassettes/cases/damaged.yaml", "interactions: [\n")
    damaged = sign(citations, "cassettes/")
    broken = sign(citations, "cassettes/", key=KEY.replace("MC4CAQAw", "MC4CAQAx"))

    assert signing_key_leaks(KEY)  # the search finds the key where it is
    assert damaged[0] == 1
    assert "damaged.yaml: not signed: " in damaged[1]
    assert broken[0] == 2
    outputs = [recorded.stdout.str(), recorded.stderr.str(), refused.stdout.str()]
    outputs += [*damaged[1:], *broken[1:]]
    assert [signing_key_leaks(text) for text in outputs] == [[]] * len(outputs)
    assert [leaks(text) for text in outputs] == [[]] * len(outputs)
    assert files_with_signing_key(citations.path) == {}
    assert files_with_leaks(citations.path) == {}
    assert SIGNER.fingerprint in Path(citations.cassette("cases/boiling.yaml")).read_text("utf-8")


def test_drift_update_signs_what_it_rewrites_and_keeps_the_rest_as_signed(
    citations: Citations,
) -> None:
    trust(citations)
    citations.write("cases/policy.yaml", single_claim_case("policy", RETURNS_CLAIM, RETURNS_URL))
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY)
    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        citations.run("--citations-record=once", "cases/", GATE, gate="args").assert_outcomes(
            passed=4, failed=1
        )
    boiling = citations.cassette("cases/boiling.yaml").read_bytes()
    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE.replace("30 days", "14 days"))
        updated = citations.run("cases/", GATE, "--citations-drift", "--citations-drift-update",
                                gate="args")
    citations.monkeypatch.delenv(SIGNING_KEY_VARIABLE)

    updated.stdout.fnmatch_lines(["*updated cassettes/cases/policy.yaml*"])
    assert citations.cassette("cases/boiling.yaml").read_bytes() == boiling
    policy = citations.cassette("cases/policy.yaml").read_text("utf-8")
    assert f"signature:\n  key: {SIGNER.fingerprint}" in policy
    # Offline, with the trusted key: the new recording replays, and says contradicted.
    replayed = citations.run("cases/", GATE, "-v", gate="args")
    replayed.assert_outcomes(passed=3, failed=2)
    replayed.stdout.fnmatch_lines(["*cases/policy.yaml::policy::claim-1 FAILED*"])


def test_the_security_page_shows_the_refusal_a_replay_prints(citations: Citations) -> None:
    page = readme_section("Security and failure behaviour", DOCS / "security.md")
    [shown] = [
        block.lines
        for block in code_blocks(page)
        if block.language == "" and "is refused" in block.text
    ]
    citations.write("cases/boiling-point.yaml", BOILING_CASE)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY)
    citations.record("cases/", GATE, gate="args")
    citations.monkeypatch.delenv(SIGNING_KEY_VARIABLE)
    cassette = citations.cassette("cases/boiling-point.yaml")
    cassette.write_text(cassette.read_text("utf-8").replace(CONTRADICTED, SUPPORTED), "utf-8")
    trust(citations)

    refused = citations.run("cases/", GATE, gate="args")

    assert shown == [shown[0]]
    assert shown[0] in refused.outlines


def test_the_core_install_verifies_signatures_without_any_model(
    light: Path, tmp_path: Path
) -> None:
    """The gate replays with the core install (no model, no torch): it checks signatures all
    the same, the shipped examples giving the decision they give unsigned."""
    copy_examples(tmp_path)
    env = {**base_env(tmp_path), SIGNING_KEY_VARIABLE: KEY}
    assert run_cli("cassettes", "sign", "cassettes/", env=env, cwd=tmp_path).returncode == 0
    (tmp_path / "pytest.ini").write_text(
        f"[pytest]\ncitations_trusted_keys =\n    {SIGNER.public_line()}\n", "utf-8"
    )

    replayed = light_pytest(light, tmp_path, "cases/", GATE)

    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert "refused" not in replayed.stdout
    assert "Release decision: fail" in replayed.stdout
    cassette = tmp_path / "cassettes" / "cases" / "boiling-point.yaml"
    cassette.write_text(cassette.read_text("utf-8").replace(CONTRADICTED, SUPPORTED), "utf-8")
    refused = light_pytest(light, tmp_path, "cases/boiling-point.yaml", GATE)
    assert "cassette cassettes/cases/boiling-point.yaml is refused: it was edited" in (
        refused.stdout
    )
    assert refused.returncode == 1


FIXTURE_TEST = f"""\
from pytest_citations import Label


def test_boiling(citation_verifier):
    verdict = citation_verifier.verify({SUPPORTED_CLAIM!r}, [{BOILING_URL!r}])
    assert verdict.label is Label.SUPPORTED
"""


def test_a_tests_cassette_is_signed_and_refused_once_edited(citations: Citations) -> None:
    """The ``citation_verifier`` fixture's cassettes go the same way as case files'."""
    trust(citations)
    citations.pytester.makepyfile(test_answers=FIXTURE_TEST)
    citations.monkeypatch.setenv(SIGNING_KEY_VARIABLE, KEY)
    with citations.web():
        citations.run_tests("--citations-record=once").assert_outcomes(passed=1)
    citations.monkeypatch.delenv(SIGNING_KEY_VARIABLE)
    [cassette] = (citations.path / "cassettes").rglob("*.yaml")
    assert f"signature:\n  key: {SIGNER.fingerprint}" in cassette.read_text("utf-8")
    citations.run_tests().assert_outcomes(passed=1)

    text = cassette.read_text("utf-8")
    assert text.count(SUPPORTED) == 1
    cassette.write_text(text.replace(SUPPORTED, CONTRADICTED), "utf-8")
    refused = citations.run_tests()

    assert refused.ret != 0
    refused.stdout.fnmatch_lines(["*is refused: it was edited after it was recorded*"])
