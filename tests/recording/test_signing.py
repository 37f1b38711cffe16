"""Signed recordings (issue 24), as units: the canonical content a signature covers (any
layout of the same YAML keeps it, any edit of what a replay reads breaks it), the keys in
each accepted format, the signature written into a cassette's text without another byte
changing, and what a replay with trusted keys refuses. A private key's value never shows up
in a message. The whole flow (recording, replay, ``cassettes sign``) is in
``tests/plugin/test_signed_recordings.py`` and ``tests/cli/test_signing_command.py``."""

from __future__ import annotations

import base64
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from vcr.request import Request as VcrRequest

import pytest_citations
from pytest_citations.errors import ConfigurationError
from pytest_citations.pipeline.settings import Settings
from pytest_citations.recording.files import (
    cassette_document,
    dump_cassette,
    read_cassette,
    sealed,
    write_cassette,
)
from pytest_citations.recording.sealing import UnsealableText, seal, with_signature
from pytest_citations.recording.signing import (
    SIGNING_KEY_VARIABLE,
    SignatureRefused,
    Signer,
    SigningKeyError,
    TrustedKeys,
    canonical,
    generate_key,
    refused_writes,
    signer_from_environment,
)

REPO = Path(__file__).resolve().parents[2]
BOILING = REPO / "cassettes" / "cases" / "boiling-point.yaml"
#: A fixed key, so that a failure names the same fingerprint every time.
SEED = bytes(range(1, 33))
OTHER_SEED = bytes(range(101, 133))
#: The recorded judge reply of the contradicted claim, as the cassette's YAML quotes it.
CONTRADICTED_REPLY = '\\"label\\":\n        \\"contradicted\\"'
SUPPORTED_REPLY = '\\"label\\":\n        \\"supported\\"'


def signer_of(seed: bytes = SEED) -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(seed))


def trust_of(*signers: Signer) -> TrustedKeys:
    return TrustedKeys.parse([signer.public_line() for signer in signers])


def signed_boiling(signer: Signer | None = None) -> str:
    """The shipped boiling-point cassette, signed."""
    text = BOILING.read_text(encoding="utf-8")
    return seal(text, yaml.safe_load, {SIGNING_KEY_VARIABLE: pem_of(signer or signer_of())})


def pem_of(signer: Signer) -> str:
    """A signer's private key as the PKCS 8 PEM ``keygen`` writes."""
    return signer._key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def check(text: str, trust: TrustedKeys) -> None:
    """Read a cassette's text as a replay with ``trust`` does."""
    read_cassette(text.encode("utf-8"), trust.check)


# -- what is signed ---------------------------------------------------------------------------


def test_a_signed_cassette_verifies_and_keeps_every_other_byte() -> None:
    original = BOILING.read_text(encoding="utf-8")
    text = signed_boiling()

    check(text, trust_of(signer_of()))
    block = text[text.index("\nsignature:\n") + 1 : text.index("\nversion: 1")]
    assert text.replace(block + "\n", "") == original
    assert text.endswith("version: 1\n")  # still last: a file cut short has lost it
    assert block.splitlines()[1] == f"  key: {signer_of().fingerprint}"


def test_another_layout_of_the_same_yaml_keeps_the_signature() -> None:
    """What a replay reads is signed, not its text: flow style, other quoting, keys in
    another order and comments keep it."""
    text = signed_boiling()
    document = yaml.safe_load(text)
    redumped = yaml.safe_dump(
        dict(reversed(list(document.items()))), default_flow_style=True, width=60
    )

    assert redumped != text
    check("# reviewed layout\n" + redumped, trust_of(signer_of()))


def test_a_judge_reply_edited_after_the_recording_is_refused() -> None:
    text = signed_boiling()
    assert text.count(CONTRADICTED_REPLY) == 1
    edited = text.replace(CONTRADICTED_REPLY, SUPPORTED_REPLY)

    with pytest.raises(SignatureRefused) as refused:
        check(edited, trust_of(signer_of()))

    assert refused.value.problem == (
        "it was edited after it was recorded: its signature does not match its content"
    )


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda d: d["interactions"][0]["response"]["status"].update(code=201), "a status"),
        (lambda d: d["interactions"].pop(), "an interaction dropped"),
        (lambda d: d["retrieval"][0]["shown"][0].update(score=9.9), "a recorded choice"),
        (lambda d: d.update(extra="x"), "a key added"),
        (lambda d: d.update(version=2), "the version"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_any_edit_of_what_a_replay_reads_breaks_the_signature(edit: Any, why: str) -> None:
    document = yaml.safe_load(signed_boiling())
    edit(document)

    with pytest.raises(SignatureRefused, match="edited after it was recorded"):
        trust_of(signer_of()).check(document)


def test_text_and_bytes_never_share_a_canonical_form() -> None:
    """Bytes are written as ``{"!binary": …}``; a mapping that says so itself is escaped, so
    that neither can pass for the other."""
    as_bytes = {"body": b"\xff\x00"}
    as_mapping = {"body": {"!binary": base64.b64encode(b"\xff\x00").decode()}}
    assert canonical(as_bytes) != canonical(as_mapping)
    assert canonical({"a": 1}) != canonical({"a": 1.0}) != canonical({"a": True})
    assert canonical({"a": "1"}) != canonical({"a": 1})


def test_a_document_no_signature_can_cover_is_refused_not_signed() -> None:
    with pytest.raises(SignatureRefused, match="key that is not text"):
        canonical({1: "a"})
    with pytest.raises(SignatureRefused, match="kind no cassette holds"):
        canonical({"a": {1, 2}})


# -- what a replay with trusted keys refuses -----------------------------------------------------


def test_a_cassette_without_a_signature_is_refused_only_with_trusted_keys() -> None:
    text = BOILING.read_text(encoding="utf-8")

    read_cassette(text.encode("utf-8"))  # off by default: read as it is
    with pytest.raises(SignatureRefused, match=r"^it is not signed$"):
        check(text, trust_of(signer_of()))


def test_a_cassette_signed_by_a_key_that_is_not_trusted_is_refused_naming_it() -> None:
    stranger = signer_of(OTHER_SEED)
    text = signed_boiling(stranger)

    with pytest.raises(SignatureRefused) as refused:
        check(text, trust_of(signer_of()))

    assert stranger.fingerprint in refused.value.problem
    assert "not among the trusted keys (citations_trusted_keys)" in refused.value.problem
    check(text, trust_of(signer_of(), stranger))  # any one of the trusted keys will do


def test_a_signature_made_by_another_key_under_a_trusted_name_is_refused() -> None:
    trusted = signer_of()
    forged = signed_boiling(signer_of(OTHER_SEED)).replace(
        signer_of(OTHER_SEED).fingerprint, trusted.fingerprint
    )
    with pytest.raises(SignatureRefused, match="edited after it was recorded"):
        check(forged, trust_of(trusted))


@pytest.mark.parametrize(
    "block",
    ["signature: yes\n", "signature:\n  key: 3\n  value: x\n", "signature: [a, b]\n"],
)
def test_a_signature_that_is_not_one_is_refused(block: str) -> None:
    text = BOILING.read_text(encoding="utf-8").replace("version: 1\n", block + "version: 1\n")
    with pytest.raises(SignatureRefused, match="signature is not a mapping"):
        check(text, trust_of(signer_of()))


def test_a_name_in_the_signature_is_never_shown_as_it_is() -> None:
    """The file's ``key`` is the file's text: a message shows a fingerprint or nothing."""
    name = "SHA256:<a href=x>" + "x" * 5000
    text = signed_boiling().replace(signer_of().fingerprint, f"'{name}'")
    with pytest.raises(SignatureRefused) as refused:
        check(text, trust_of(signer_of()))
    assert "<a href" not in refused.value.problem
    assert "a key that is not named by its fingerprint" in refused.value.problem


# -- writing ------------------------------------------------------------------------------------


def test_every_write_signs_when_the_key_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    interactions, section = read_cassette(BOILING.read_bytes())
    monkeypatch.setenv(SIGNING_KEY_VARIABLE, pem_of(signer_of()))
    write_cassette(tmp_path / "a.yaml", interactions, section)
    check((tmp_path / "a.yaml").read_text("utf-8"), trust_of(signer_of()))

    # Without the key, a write takes away a signature its new content no longer matches.
    monkeypatch.delenv(SIGNING_KEY_VARIABLE)
    signed = (tmp_path / "a.yaml").read_text("utf-8")
    assert "\nsignature:\n" in signed
    assert sealed(signed) == BOILING.read_text("utf-8")


def test_signing_again_replaces_the_signature_in_place() -> None:
    once = signed_boiling()
    again = seal(once, yaml.safe_load, {SIGNING_KEY_VARIABLE: pem_of(signer_of(OTHER_SEED))})
    assert again.count("\nsignature:\n") == 1
    check(again, trust_of(signer_of(OTHER_SEED)))
    assert with_signature(again, None) == with_signature(once, None)


def test_a_top_level_flow_mapping_is_not_sealed() -> None:
    with pytest.raises(UnsealableText, match="flow mapping"):
        with_signature("{interactions: [], version: 1}\n", {"key": "k", "value": "v"})


def test_an_indented_top_level_gets_its_signature_at_the_same_indentation() -> None:
    text = "  interactions: []\n  version: 1\n"
    signed = with_signature(text, {"key": "k", "value": "v"})
    assert signed == "  interactions: []\n  signature:\n    key: k\n    value: v\n  version: 1\n"
    assert yaml.safe_load(signed)["signature"] == {"key": "k", "value": "v"}


# Recorded bodies are whatever the web sent: any text (line breaks of every kind, trailing
# blanks, control characters, every script) and bytes that are not UTF-8.
_BODIES = st.one_of(st.text(max_size=200), st.binary(max_size=60))


@settings(max_examples=60, deadline=None)
@given(bodies=st.lists(_BODIES, min_size=1, max_size=4), uri=st.text(max_size=40))
def test_whatever_a_recording_holds_its_signed_file_verifies(
    bodies: list[str | bytes], uri: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("signed") / "c.yaml"
    interactions = [
        (
            VcrRequest("POST", f"https://example.org/{index}?q={uri}", body, {}),
            {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": body}},
        )
        for index, body in enumerate(bodies)
    ]
    env = {SIGNING_KEY_VARIABLE: pem_of(signer_of())}
    text = seal(dump_cassette(cassette_document(interactions)) or "", yaml.safe_load, env)
    path.write_text(text, encoding="utf-8")
    check(path.read_text("utf-8"), trust_of(signer_of()))
    played, _ = read_cassette(path.read_bytes())
    assert [response["body"]["string"] for _, response in played] == [
        body if isinstance(body, bytes) else body.encode("utf-8") for body in bodies
    ]


# -- keys ---------------------------------------------------------------------------------------


def _private_forms(key: Ed25519PrivateKey) -> dict[str, str]:
    seed = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return {
        "pkcs8": key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode(),
        "openssh": key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        ).decode(),
        "base64": base64.b64encode(seed).decode(),
        "hex": seed.hex(),
    }


def test_every_private_key_format_is_the_same_signer() -> None:
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    for form, text in _private_forms(key).items():
        signer = signer_from_environment({SIGNING_KEY_VARIABLE: f"\n{text}\n"})
        assert signer is not None, form
        assert signer.fingerprint == signer_of().fingerprint, form


def test_every_public_key_format_is_the_same_key() -> None:
    signer = signer_of()
    raw = signer.public
    lines = [
        signer.public_line(),
        signer.public_line("").strip(),
        base64.b64encode(raw).decode(),
        raw.hex(),
    ]
    for line in lines:
        assert set(TrustedKeys.parse([line]).keys) == {signer.fingerprint}, line
    parsed = TrustedKeys.parse(["# the recordings workflow", "", *lines[:1]])
    assert set(parsed.keys) == {signer.fingerprint}


def test_the_fingerprint_is_the_one_ssh_keygen_shows() -> None:
    # What `ssh-keygen -lf` prints for this public key.
    line = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF5XPBQS6+kl0+ehVguX7lqb44nMQVdIuhFGKpKCj9DL x"
    assert list(TrustedKeys.parse([line]).keys) == [
        "SHA256:mhLtINsqhhSrRPQcAZNrpboC1Zyzc7UrXIVVf44fZds"
    ]


@pytest.mark.parametrize(
    "line",
    [
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ other",
        "ssh-ed25519 not-base64",
        "c2hvcnQ=",
        "two words",
    ],
)
def test_a_line_that_is_no_public_key_is_an_error_naming_its_line(line: str) -> None:
    with pytest.raises(ConfigurationError) as error:
        TrustedKeys.parse(["# keys", line], "citations_trusted_keys")
    assert str(error.value).startswith("citations_trusted_keys, line 2: not an Ed25519 public key")


def test_a_private_key_pasted_among_the_public_keys_is_never_quoted() -> None:
    pem = pem_of(signer_of())
    with pytest.raises(ConfigurationError) as error:
        TrustedKeys.parse(pem.splitlines())
    for line in pem.splitlines():
        assert line not in str(error.value)


@pytest.mark.parametrize(
    "value",
    [
        "not a key at all, but a secret-ish value 4f1c",
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIC0rAAAAsecret\n"
        "-----END PRIVATE KEY-----",
        base64.b64encode(b"\x01" * 31).decode(),
    ],
    ids=["text", "broken-pem", "31-bytes"],
)
def test_an_unusable_signing_key_is_an_error_that_never_quotes_it(value: str) -> None:
    with pytest.raises(SigningKeyError) as error:
        signer_from_environment({SIGNING_KEY_VARIABLE: value})
    message = str(error.value)
    assert SIGNING_KEY_VARIABLE in message
    for part in value.split():
        assert len(part) < 8 or part.startswith("-----") or part not in message, part
    # Nothing of the parser's own error, which could quote the value, comes along.
    assert error.value.__cause__ is None
    assert error.value.__context__ is None or error.value.__suppress_context__


def test_a_key_of_another_kind_is_refused() -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )
    with pytest.raises(SigningKeyError, match="another kind"):
        signer_from_environment({SIGNING_KEY_VARIABLE: pem})


def test_a_signer_shows_only_its_fingerprint_and_cannot_be_pickled() -> None:
    pem, signer = generate_key()
    assert repr(signer) == f"Signer({signer.fingerprint})"
    assert pem.decode() not in repr(signer)
    with pytest.raises(TypeError):
        pickle.dumps(signer)


def test_the_redactor_hides_the_key_whole_and_line_by_line() -> None:
    pem = pem_of(signer_of())
    body = pem.splitlines()[1]
    redactor = Settings.from_env({SIGNING_KEY_VARIABLE: pem}).redactor()
    assert redactor(f"a {pem.strip()} b") == "a <CITATIONS_SIGNING_KEY> b"
    assert body not in redactor(f"line {body}")
    # It is never a secret a request may carry: the transport puts only these into requests.
    assert SIGNING_KEY_VARIABLE not in Settings.from_env({SIGNING_KEY_VARIABLE: pem}).secrets


def test_writes_refused_by_the_trusted_keys_are_named_before_they_happen() -> None:
    trusted = trust_of(signer_of())
    assert refused_writes(None, {}) is None
    assert refused_writes(trusted, {SIGNING_KEY_VARIABLE: pem_of(signer_of())}) is None
    unset = refused_writes(trusted, {})
    assert unset is not None
    assert f"{SIGNING_KEY_VARIABLE} is not set" in unset
    other = refused_writes(trusted, {SIGNING_KEY_VARIABLE: pem_of(signer_of(OTHER_SEED))})
    assert other is not None
    assert signer_of(OTHER_SEED).fingerprint in other


def test_a_replay_without_trusted_keys_never_loads_the_signing_machinery(tmp_path: Path) -> None:
    # The recording package's replay path reaches signing only through a trusted key's check
    # or a write; it loaded signing and sealing at import (files imported sealing) before.
    cassette = tmp_path / "c.yaml"
    cassette.write_text("interactions: []\nretrieval: []\nversion: 1\n", encoding="utf-8")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pytest_citations.recording import CassetteLibrary, RecordMode, build_vcr\n"
        "from pytest_citations.sanitize import Redactor\n"
        "library = CassetteLibrary(build_vcr(Redactor()), RecordMode.NONE, str)\n"
        f"library.open(Path({str(cassette)!r})).close()\n"
        "loaded = ('pytest_citations.recording.signing', 'pytest_citations.recording.sealing')\n"
        "print([name for name in loaded if name in sys.modules])\n"
    )
    checkout = Path(pytest_citations.__file__).parents[1]  # the package under test
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=checkout, capture_output=True, text=True
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
