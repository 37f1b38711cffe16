"""Canary secrets: distinctive fake tokens, and the search for them (raw or URL-encoded) in
output and files. No token may ever show up; these make a leak easy to find."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, quote_plus

CANARIES = {
    "CRAWLBASE_TOKEN": "canary-normal-4b1d7e20c9",
    # Characters that URLs percent-encode, so that an encoded leak is caught too.
    "CRAWLBASE_JS_TOKEN": "canary/js+token=8f2a61",
    "OPENAI_API_KEY": "sk-canary-openai-53c0de",
}


def leaks(text: str | bytes) -> list[str]:
    """The canary values (raw or URL-encoded) found in ``text``."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    found = []
    for variable, value in CANARIES.items():
        for form in {value, quote(value, safe=""), quote_plus(value)}:
            if form.encode("utf-8") in data:
                found.append(f"{variable} as {form!r}")
    return found


def files_with_leaks(folder: Path) -> dict[str, list[str]]:
    """Every file under ``folder`` (read as bytes) that holds a canary."""
    return {
        str(path.relative_to(folder)): found
        for path in sorted(folder.rglob("*"))
        if path.is_file() and (found := leaks(path.read_bytes()))
    }


#: A canary private key for signed recordings (``CITATIONS_SIGNING_KEY``): a fixed Ed25519
#: seed, so that every form it can leak in is known. Never a real key.
SIGNING_SEED = bytes.fromhex("5ca1ab1e0ddba11c0ffee5eed0fcafe7" "ab5ce55ed0c0ffeec0de5eed5ca1ab1e")


def signing_key_pem() -> str:
    """The canary key as the PKCS 8 PEM ``pytest-citations cassettes keygen`` writes."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(SIGNING_SEED)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def signing_key_forms() -> list[str]:
    """Every form the canary key could leak in: its PEM body (whole and each line), its
    seed in hex and base64, and the private key as cryptography stores it in the PEM."""
    import base64

    pem = signing_key_pem()
    body = [line for line in pem.splitlines() if not line.startswith("-----")]
    seed_b64 = base64.b64encode(SIGNING_SEED).decode("ascii")
    return ["".join(body), *body, SIGNING_SEED.hex(), seed_b64, seed_b64.rstrip("=")]


def signing_key_leaks(text: str | bytes) -> list[str]:
    """The forms of the canary signing key found in ``text`` (raw or URL-encoded)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    found = []
    for form in signing_key_forms():
        for shown in {form, quote(form, safe=""), quote_plus(form)}:
            if shown.encode("utf-8") in data or shown.lower().encode("utf-8") in data.lower():
                found.append(shown)
    return found


def files_with_signing_key(folder: Path) -> dict[str, list[str]]:
    """Every file under ``folder`` (read as bytes) that holds a form of the canary key."""
    return {
        str(path.relative_to(folder)): found
        for path in sorted(folder.rglob("*"))
        if path.is_file() and (found := signing_key_leaks(path.read_bytes()))
    }
