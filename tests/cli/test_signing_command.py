"""``pytest-citations cassettes keygen|sign`` and the trusted keys of the commands that read
cassettes (issue 24): ``keygen`` writes a private key only to a new file of its owner's and
prints the public line; ``sign`` changes nothing but the signature entry, exits 2 without a
usable key and 1 for a cassette it could not sign; ``drift``, ``cassettes check`` and
``cassettes upgrade`` refuse, naming it, a cassette the project's ``citations_trusted_keys``
(or ``--trusted-keys FILE``) did not sign. The real console script on copies of the shipped
examples; no emulator is needed where nothing would be sent."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from canaries import signing_key_leaks, signing_key_pem
from light_env import strip_choices
from ops_support import SECRETS, Run, base_env, copy_examples, run_cli

from pytest_citations.recording.files import read_cassette
from pytest_citations.recording.signing import SIGNING_KEY_VARIABLE, Signer, TrustedKeys

KEY = signing_key_pem()
SIGNER = Signer.from_text(KEY)
BOILING = "cassettes/cases/boiling-point.yaml"
RETURNS = "cassettes/cases/returns-policy.yaml"
#: The recorded reply of boiling-point's contradicted claim, as the cassette quotes it.
CONTRADICTED_REPLY = '\\"label\\":\n        \\"contradicted\\"'


def cli(project: Path, *args: str, key: str | None = KEY, **extra: str) -> Run:
    env = {**base_env(project, lexical=False), **extra}
    if key is not None:
        env[SIGNING_KEY_VARIABLE] = key
    run = run_cli(*args, env=env, cwd=project)
    run.assert_no_secret()
    assert signing_key_leaks(run.stdout + run.stderr) == []
    return run


def trust(project: Path, *signers: Signer) -> None:
    lines = "".join(f"    {signer.public_line()}\n" for signer in signers or (SIGNER,))
    (project / "pytest.ini").write_text(f"[pytest]\ncitations_trusted_keys =\n{lines}", "utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The shipped examples, their cassettes signed."""
    copy_examples(tmp_path)
    assert cli(tmp_path, "cassettes", "sign", "cassettes/").returncode == 0
    return tmp_path


def tamper(path: Path) -> None:
    text = path.read_text("utf-8")
    assert text.count(CONTRADICTED_REPLY) == 1
    path.write_text(text.replace(CONTRADICTED_REPLY, CONTRADICTED_REPLY.replace("contra", "")))


# -- keygen ---------------------------------------------------------------------------------------


def test_keygen_writes_the_private_key_to_a_new_file_of_its_own_and_prints_the_public_key(
    tmp_path: Path,
) -> None:
    run = cli(tmp_path, "cassettes", "keygen", "signing.pem", key=None)

    assert run.returncode == 0, run.stderr
    written = tmp_path / "signing.pem"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    signer = Signer.from_text(written.read_text("ascii"))
    assert run.stdout == signer.public_line() + "\n"
    assert set(TrustedKeys.parse([run.stdout]).keys) == {signer.fingerprint}
    body = written.read_text("ascii").splitlines()[1]
    assert body not in run.stdout + run.stderr
    assert f"gh secret set {SIGNING_KEY_VARIABLE} < signing.pem" in run.stderr

    again = cli(tmp_path, "cassettes", "keygen", "signing.pem", key=None)

    assert again.returncode == 2
    assert "signing.pem exists" in again.stderr
    assert Signer.from_text(written.read_text("ascii")).fingerprint == signer.fingerprint


# -- sign ---------------------------------------------------------------------------------------


def test_sign_changes_only_the_signature_entry_and_then_has_nothing_to_do(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    before = (tmp_path / BOILING).read_text("utf-8")

    run = cli(tmp_path, "cassettes", "sign", BOILING)

    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{BOILING}: signed ({SIGNER.fingerprint})\n"
    after = (tmp_path / BOILING).read_text("utf-8")
    block = after[after.index("signature:\n") : after.index("version: 1\n")]
    assert after.replace(block, "") == before
    read_cassette(after.encode(), TrustedKeys.parse([SIGNER.public_line()]).check)
    stamp = os.stat(tmp_path / BOILING).st_mtime_ns

    again = cli(tmp_path, "cassettes", "sign", BOILING)

    assert again.stdout == f"{BOILING}: already signed ({SIGNER.fingerprint})\n"
    assert os.stat(tmp_path / BOILING).st_mtime_ns == stamp


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (None, f"{SIGNING_KEY_VARIABLE} is not set"),
        ("secret-looking-but-no-key-7c1e93", f"{SIGNING_KEY_VARIABLE} holds no Ed25519"),
    ],
    ids=["unset", "unusable"],
)
def test_sign_without_a_usable_key_is_a_usage_error(
    tmp_path: Path, key: str | None, said: str
) -> None:
    copy_examples(tmp_path)
    before = (tmp_path / BOILING).read_bytes()

    run = cli(tmp_path, "cassettes", "sign", "cassettes/", key=key)

    assert run.returncode == 2
    assert said in run.stderr
    assert "secret-looking" not in run.stderr
    assert (tmp_path / BOILING).read_bytes() == before


def test_sign_signs_what_it_can_and_exits_1_naming_what_it_could_not(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    damaged = tmp_path / "cassettes" / "cases" / "damaged.yaml"
    damaged.write_text("interactions: [\n", "utf-8")

    run = cli(tmp_path, "cassettes", "sign", "cassettes/")

    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert len(lines) == 4
    assert lines[1].startswith("cassettes/cases/damaged.yaml: not signed: it is not valid YAML")
    assert [line for line in lines if ": signed (" in line] == [lines[0], *lines[2:]]
    assert damaged.read_text("utf-8") == "interactions: [\n"


def test_sign_warns_when_the_key_is_not_among_the_projects_trusted_keys(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    trust(tmp_path, Signer.from_text(bytes(range(3, 35)).hex()))

    run = cli(tmp_path, "cassettes", "sign", BOILING)

    assert run.returncode == 0
    assert (
        f"{SIGNING_KEY_VARIABLE} holds the key {SIGNER.fingerprint}, which is not among "
        "citations_trusted_keys in pytest.ini: a replay there refuses what it signs"
    ) in run.stderr


def test_sign_of_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    run = cli(tmp_path, "cassettes", "sign", "nowhere/")
    assert run.returncode == 2
    assert "no cassette or folder at nowhere" in run.stderr


# -- the commands that read cassettes ----------------------------------------------------------


def test_drift_refuses_an_edited_cassette_before_anything_is_sent(
    project: Path, refused_url: str
) -> None:
    trust(project)
    tamper(project / BOILING)

    # Nothing listens where the services would be: a request sent would fail otherwise.
    peers = {"CRAWLBASE_API_URL": refused_url, "OPENAI_BASE_URL": refused_url}
    run = cli(project, "drift", "cases/", **SECRETS, **peers, CITATIONS_EMBEDDING_MODEL="lexical")

    assert run.returncode == 2, run.stdout + run.stderr
    assert (
        f"cassette {BOILING} is refused: it was edited after it was recorded: its signature "
        "does not match its content"
    ) in run.stderr
    assert "drift decision" not in run.stdout


def test_trusted_keys_from_a_file_replace_the_projects(project: Path) -> None:
    stranger = Signer.from_text(bytes(range(3, 35)).hex())
    trust(project)
    (project / "keys.txt").write_text(f"# only this one\n{stranger.public_line()}\n", "utf-8")

    run = cli(project, "cassettes", "check", BOILING, "--trusted-keys", "keys.txt")

    assert run.returncode == 1
    assert run.stdout.splitlines()[0] == (
        f"{BOILING}: not checked: it is signed by the key {SIGNER.fingerprint}, which is not "
        "among the trusted keys (keys.txt)"
    )


def test_cassettes_check_names_an_edited_cassette_as_not_checked(project: Path) -> None:
    trust(project)
    tamper(project / BOILING)

    run = cli(project, "cassettes", "check", BOILING)

    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        f"{BOILING}: not checked: it was edited after it was recorded: its signature does "
        "not match its content",
        "cassettes check: 1 problem in 1 cassette",
    ]


def test_upgrade_signs_what_it_writes_and_never_signs_over_an_edit(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    for name in (BOILING, RETURNS):
        strip_choices(tmp_path / name)
    assert cli(tmp_path, "cassettes", "sign", BOILING, RETURNS).returncode == 0
    trust(tmp_path)
    tamper(tmp_path / BOILING)
    edited = (tmp_path / BOILING).read_bytes()

    run = cli(tmp_path, "cassettes", "upgrade", BOILING, RETURNS)

    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(
        f"{BOILING}: not upgraded: cassette {BOILING} is refused: it was edited after it "
        "was recorded"
    )
    assert lines[1] == f"{RETURNS}: added 5 retrieval choices"
    assert (tmp_path / BOILING).read_bytes() == edited
    upgraded = (tmp_path / RETURNS).read_bytes()
    read_cassette(upgraded, TrustedKeys.parse([SIGNER.public_line()]).check)


def test_upgrade_names_a_cassette_it_cannot_sign_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    copy_examples(tmp_path)
    strip_choices(tmp_path / RETURNS)
    text = (tmp_path / RETURNS).read_text("utf-8").replace("version: 1\n", "1: x\nversion: 1\n")
    (tmp_path / RETURNS).write_text(text, "utf-8")

    run = cli(tmp_path, "cassettes", "upgrade", RETURNS)

    assert run.returncode == 1, run.stderr
    assert run.stdout.splitlines() == [
        f"{RETURNS}: not upgraded: it cannot be signed: it has a key that is not text (1)"
    ]
    assert (tmp_path / RETURNS).read_text("utf-8") == text


def test_upgrade_stops_on_an_unusable_key_and_warns_when_it_would_write_unsigned(
    tmp_path: Path,
) -> None:
    copy_examples(tmp_path)
    strip_choices(tmp_path / RETURNS)
    before = (tmp_path / RETURNS).read_bytes()

    broken = cli(tmp_path, "cassettes", "upgrade", RETURNS, key="not-a-key-0c3a9f51")

    assert broken.returncode == 2
    assert f"{SIGNING_KEY_VARIABLE} holds no Ed25519 private key" in broken.stderr
    assert "not-a-key" not in broken.stderr
    assert (tmp_path / RETURNS).read_bytes() == before
    trust(tmp_path)

    unsigned = cli(tmp_path, "cassettes", "upgrade", RETURNS, key=None)

    assert unsigned.returncode == 1  # the trusted keys refuse the unsigned file it reads
    assert (
        "warning: the cassettes written now are refused by the trusted keys "
        f"(citations_trusted_keys in pytest.ini): {SIGNING_KEY_VARIABLE} is not set"
    ) in unsigned.stderr


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_sign_never_writes_through_a_link(tmp_path: Path, linked: str) -> None:
    """The red team's finding (issue 24): a cassette that is a link, or lies in a linked
    folder, was signed in place, rewriting the file outside ``cassettes/`` it points to."""
    copy_examples(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.yaml").write_bytes((tmp_path / BOILING).read_bytes())
    before = (outside / "x.yaml").read_bytes()
    if linked == "file":
        (tmp_path / "cassettes" / "cases" / "x.yaml").symlink_to(outside / "x.yaml")
        named = given = "cassettes/cases/x.yaml"
    else:
        (tmp_path / "cassettes" / "elsewhere").symlink_to(outside, target_is_directory=True)
        named, given = "cassettes/elsewhere", "cassettes/elsewhere/x.yaml"

    run = cli(tmp_path, "cassettes", "sign", given)

    assert run.returncode == 1
    assert f"not signed: {named} is a link" in run.stdout
    assert (outside / "x.yaml").read_bytes() == before
