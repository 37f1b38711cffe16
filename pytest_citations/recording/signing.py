"""Signed cassettes (off by default): an Ed25519 signature over a cassette's canonical
content, made with the private key in ``CITATIONS_SIGNING_KEY`` and checked against the
public keys of ``citations_trusted_keys``, so that a recording edited after it was recorded
(a judge's ``contradicted`` turned into ``supported``) is refused by the replay.

**Canonical content.** The cassette's YAML as a replay reads it (parsed, not its text),
without its top-level ``signature`` entry, written as JSON with its keys sorted, no
whitespace and every character beyond ASCII escaped (``json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=True)``). Bytes become ``{"!binary": base64}``, a
timestamp ``{"!timestamp": ISO 8601}``, and a mapping key that starts with ``!`` gets one
more ``!``, so that no text can pass for bytes. The signed message is the line
``pytest-citations cassette signature v1`` and a newline, then that JSON. So rewriting the
YAML (another layout, block or quoted strings, comments) keeps the signature, and any change
of what a replay reads breaks it.

**The signature** is a top-level mapping written just before ``version``::

    signature:
      key: SHA256:<the public key's fingerprint, as ``ssh-keygen -l`` shows it>
      value: <the 64-byte signature in base64>

**Keys.** The private key: a PEM block (PKCS 8 ``BEGIN PRIVATE KEY``, or OpenSSH's
``BEGIN OPENSSH PRIVATE KEY``, unencrypted), or its 32 bytes in base64 or hex. A public key:
an OpenSSH line (``ssh-ed25519 AAAA… comment``) or its 32 bytes in base64 or hex.

The cryptography is pyca/cryptography's, imported only where a key is used: a replay without
trusted keys never loads it. A private key's value never enters a message, a ``repr`` or a
file other than the one ``keygen`` writes.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import hashlib
import json
import os
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, SignatureRefused
from ..pipeline.settings import SIGNING_KEY_VARIABLE

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = [
    "SIGNATURE_KEY",
    "SIGNING_KEY_VARIABLE",
    "TRUSTED_KEYS_INI",
    "SignatureRefused",
    "Signer",
    "SigningKeyError",
    "TrustedKeys",
    "canonical",
    "fingerprint",
    "generate_key",
    "refused_writes",
    "signer_from_environment",
]

#: The top-level key of a cassette that holds its signature.
SIGNATURE_KEY = "signature"
#: The ini key of the public keys a replay trusts.
TRUSTED_KEYS_INI = "citations_trusted_keys"
#: What precedes the canonical JSON in the signed message: the scheme and its version.
DOMAIN = b"pytest-citations cassette signature v1\n"
_SSH_TYPE = b"ssh-ed25519"
_FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")


class SigningKeyError(ConfigurationError):
    """``CITATIONS_SIGNING_KEY`` is set but holds no usable key (the message never holds
    the value)."""


# Canonical content ---------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it (see the module docstring)."""
    if isinstance(value, dict):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise SignatureRefused(f"it has a key that is not text ({key!r:.40})")
            plain["!" + key if key.startswith("!") else key] = _plain(item)
        return plain
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, bytes):
        return {"!binary": base64.b64encode(value).decode("ascii")}
    if isinstance(value, datetime.date):
        return {"!timestamp": value.isoformat()}
    if value is None or isinstance(value, str | int | float):
        return value
    kind = type(value).__name__
    raise SignatureRefused(f"it holds a value of a kind no cassette holds ({kind})")


def canonical(document: Mapping[str, Any]) -> bytes:
    """The message a cassette's signature is made over: :data:`DOMAIN`, then the document
    without its ``signature`` entry as canonical JSON. Raises :class:`SignatureRefused` for
    a document no signature can cover (a key that is not text, a set)."""
    body = {key: value for key, value in document.items() if key != SIGNATURE_KEY}
    try:
        text = json.dumps(
            _plain(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True
        )
    except RecursionError:
        raise SignatureRefused("it is nested too deeply to be signed") from None
    return DOMAIN + text.encode("ascii")


# Keys ------------------------------------------------------------------------------------
def _ssh_blob(raw: bytes) -> bytes:
    """An Ed25519 public key in OpenSSH's wire format."""
    return struct.pack(">I", len(_SSH_TYPE)) + _SSH_TYPE + struct.pack(">I", len(raw)) + raw


def fingerprint(raw: bytes) -> str:
    """A public key's fingerprint as ``ssh-keygen -l`` shows it: ``SHA256:`` and the
    SHA-256 of its OpenSSH wire format in base64, unpadded."""
    digest = hashlib.sha256(_ssh_blob(raw)).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def _bytes32(text: str) -> bytes | None:
    """32 bytes written in hex or base64 (None: it is neither)."""
    if re.fullmatch(r"[0-9a-fA-F]{64}", text):
        return bytes.fromhex(text)
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def _public_raw(line: str) -> bytes | None:
    """The 32 bytes of a public key line (see the module docstring), or None."""
    words = line.split()
    if len(words) >= 2 and words[0] == _SSH_TYPE.decode():
        try:
            blob = base64.b64decode(words[1], validate=True)
        except (binascii.Error, ValueError):
            return None
        prefix = _ssh_blob(b"\0" * 32)[:-32]
        if len(blob) != len(prefix) + 32 or not blob.startswith(prefix):
            return None
        return blob[len(prefix) :]
    return _bytes32(words[0]) if len(words) == 1 else None


def _cryptography_error() -> SigningKeyError:
    return SigningKeyError(
        "signed cassettes need the cryptography package (pip install cryptography), which "
        "pytest-citations installs: reinstall it"
    )


def _private_key(text: str) -> Ed25519PrivateKey:
    """The Ed25519 private key ``text`` holds; a :class:`SigningKeyError` that never quotes
    it otherwise."""
    try:  # pyca/cryptography, imported only where a key is used
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    except ImportError:  # pragma: no cover - a dependency of the package
        raise _cryptography_error() from None
    shape = (
        f"{SIGNING_KEY_VARIABLE} holds no Ed25519 private key: give the PEM file "
        "`pytest-citations cassettes keygen` wrote, or the key's 32 bytes in base64 or hex"
    )
    stripped = text.strip()
    try:
        if stripped.startswith("-----BEGIN OPENSSH PRIVATE KEY-----"):
            key: object = serialization.load_ssh_private_key(stripped.encode("ascii"), None)
        elif stripped.startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(stripped.encode("ascii"), None)
        else:
            raw = _bytes32(stripped)
            if raw is None:
                raise SigningKeyError(shape)
            key = Ed25519PrivateKey.from_private_bytes(raw)
    except TypeError:  # a key behind a passphrase
        raise SigningKeyError(
            f"{SIGNING_KEY_VARIABLE} holds an encrypted key: give it unencrypted (keep it "
            "in a secret store instead)"
        ) from None
    except (ValueError, UnicodeError, binascii.Error):
        raise SigningKeyError(shape) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(
            f"{SIGNING_KEY_VARIABLE} holds a key of another kind: cassettes are signed with "
            "Ed25519 keys (`pytest-citations cassettes keygen` makes one)"
        )
    return key


class Signer:
    """The key that signs cassettes. Its ``repr`` names only its public fingerprint; it
    cannot be pickled."""

    __slots__ = ("_key", "fingerprint", "public")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives import serialization  # loaded with the key

        self._key = key
        #: The public key's 32 bytes, and its fingerprint.
        self.public = key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.fingerprint = fingerprint(self.public)

    @classmethod
    def from_text(cls, text: str) -> Signer:
        """The signer of a private key's text (see the module docstring)."""
        return cls(_private_key(text))

    def public_line(self, comment: str = "pytest-citations") -> str:
        """The public key as an OpenSSH line, for ``citations_trusted_keys``."""
        encoded = base64.b64encode(_ssh_blob(self.public)).decode("ascii")
        return f"{_SSH_TYPE.decode()} {encoded} {comment}".rstrip()

    def block(self, document: Mapping[str, Any]) -> dict[str, str]:
        """The ``signature`` entry of ``document`` (whatever signature it holds now is left
        out of what is signed)."""
        value = self._key.sign(canonical(document))
        return {"key": self.fingerprint, "value": base64.b64encode(value).decode("ascii")}

    def __repr__(self) -> str:
        return f"Signer({self.fingerprint})"

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Signer cannot be pickled")


@functools.lru_cache(maxsize=2)
def _signer(text: str) -> Signer:
    return Signer.from_text(text)


def signer_from_environment(env: Mapping[str, str] | None = None) -> Signer | None:
    """The signer of ``CITATIONS_SIGNING_KEY`` (None when it is not set). Raises
    :class:`SigningKeyError` when it holds no usable key."""
    text = (os.environ if env is None else env).get(SIGNING_KEY_VARIABLE, "").strip()
    return _signer(text) if text else None


def generate_key() -> tuple[bytes, Signer]:
    """A new private key as PKCS 8 PEM (unencrypted: it goes into a secret store), and
    its signer."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem, Signer(key)


def refused_writes(trust: TrustedKeys | None, env: Mapping[str, str] | None = None) -> str | None:
    """Why ``trust`` will refuse the cassettes written now (``CITATIONS_SIGNING_KEY`` not
    set, or not one of them), for a warning before they are written; None when it will
    not. Raises :class:`SigningKeyError` for a key that is unusable."""
    signer = signer_from_environment(env)
    if trust is None or (signer is not None and signer.fingerprint in trust.keys):
        return None
    why = (
        f"{SIGNING_KEY_VARIABLE} is not set"
        if signer is None
        else f"{SIGNING_KEY_VARIABLE} holds the key {signer.fingerprint}, which is not one of them"
    )
    return (
        f"the cassettes written now are refused by the trusted keys ({trust.source}): {why}. "
        "Every replay refuses them until they are signed with a trusted key "
        "(pytest-citations cassettes sign PATH) or recorded again with it"
    )


# Trusted keys ----------------------------------------------------------------------------
def _shown_key(value: object) -> str:
    """A signature's ``key`` as a message may show it: a fingerprint, or what it is not."""
    if isinstance(value, str) and _FINGERPRINT.fullmatch(value):
        return f"the key {value}"
    return "a key that is not named by its fingerprint"


@dataclass(frozen=True)
class TrustedKeys:
    """The public keys whose signatures a replay accepts, by fingerprint."""

    keys: Mapping[str, bytes]
    #: Where they were read (``citations_trusted_keys``, a file), for messages.
    source: str = TRUSTED_KEYS_INI

    @classmethod
    def parse(cls, lines: Sequence[str], what: str = TRUSTED_KEYS_INI) -> TrustedKeys:
        """One public key a line (blank lines and ``#`` comments skipped). Raises
        :class:`~pytest_citations.errors.ConfigurationError` naming the line (never
        quoting it: a private key pasted there by mistake stays unprinted)."""
        keys: dict[str, bytes] = {}
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            raw = _public_raw(stripped)
            if raw is None:
                raise ConfigurationError(
                    f"{what}, line {number}: not an Ed25519 public key (give the "
                    "'ssh-ed25519 AAAA…' line `pytest-citations cassettes keygen` printed)"
                )
            keys[fingerprint(raw)] = raw
        if not keys:
            raise ConfigurationError(f"{what} holds no public key")
        return cls(keys, what)

    def check(self, document: Mapping[str, Any]) -> None:
        """Accept a parsed cassette signed by one of these keys over its content as it is;
        raise :class:`SignatureRefused` saying why not."""
        block = document.get(SIGNATURE_KEY)
        if block is None:
            raise SignatureRefused("it is not signed")
        if not isinstance(block, dict) or not all(
            isinstance(block.get(name), str) for name in ("key", "value")
        ):
            raise SignatureRefused("its signature is not a mapping of 'key' and 'value'")
        raw = self.keys.get(block["key"])
        if raw is None:
            raise SignatureRefused(
                f"it is signed by {_shown_key(block['key'])}, which is not among the "
                f"trusted keys ({self.source})"
            )
        try:
            value = base64.b64decode(block["value"], validate=True)
        except (binascii.Error, ValueError):
            value = b""
        if not _verifies(raw, value, canonical(document)):
            raise SignatureRefused(
                "it was edited after it was recorded: its signature does not match its content"
            )


def _verifies(raw: bytes, signature: bytes, message: bytes) -> bool:
    try:  # pyca/cryptography, imported only where a key is used
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError:  # pragma: no cover - a dependency of the package
        raise _cryptography_error() from None
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
