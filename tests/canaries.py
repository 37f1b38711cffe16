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
