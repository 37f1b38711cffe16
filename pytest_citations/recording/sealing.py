"""A cassette's text with its signature written in or taken out, every other byte as it was:
what every writer of cassettes ends with (:func:`seal`), and what ``pytest-citations
cassettes sign`` does to a reviewed file.

The ``signature`` entry goes just before ``version``, which stays last (a file cut short has
lost it, see :mod:`.files`). Only the top level is touched, by the offsets of its keys: the
interactions and retrieval's choices keep every byte, comments and layout included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import yaml

try:  # libyaml's C composer: a 22 MB cassette in a fraction of a second
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

from ..errors import CitationsError, SignatureRefused
from .signing import SIGNATURE_KEY, Signer, signer_from_environment

#: A top-level ``signature`` key, as a block mapping writes it (quoted or not).
_SIGNED = re.compile(r"""^[ ]*(?:signature|'signature'|"signature")[ ]*:""", re.MULTILINE)


class UnsealableText(ValueError):
    """A cassette text whose top level cannot take a signature entry (a flow mapping)."""


class UnsignableCassette(CitationsError):
    """A cassette a writer was to sign and cannot (a content no signature covers, a top
    level that takes no signature entry); nothing was written."""


def _block_text(block: Mapping[str, str], indent: str) -> str:
    """The ``signature`` entry as YAML, its later lines indented by ``indent``, ending with
    the indentation of the key that follows it."""
    dumped = yaml.safe_dump(
        {SIGNATURE_KEY: dict(block)}, default_flow_style=False, sort_keys=False, width=1000
    )
    first, *rest = dumped.splitlines()
    return "".join([first + "\n", *(indent + line + "\n" for line in rest), indent])


def with_signature(text: str, block: Mapping[str, str] | None) -> str:
    """``text`` with its top-level ``signature`` entry replaced by ``block`` (taken out
    when None), placed just before ``version``; every other byte kept. ``text`` must be a
    readable cassette. Raises :class:`UnsealableText` when its top level is a flow mapping."""
    root = yaml.compose(text, Loader=_Loader)
    if not isinstance(root, yaml.MappingNode) or not root.value:
        raise UnsealableText("it has no top-level mapping")
    if root.flow_style:
        raise UnsealableText("its top level is a flow mapping ({…}); write it as a block mapping")
    names = [str(key.value) for key, _ in root.value]
    starts = [key.start_mark.index for key, _ in root.value] + [len(text)]
    pieces = [text[: starts[0]]]
    for at, name in enumerate(names):
        if name == "version" and block is not None:
            indent = " " * root.value[at][0].start_mark.column
            pieces.append(_block_text(block, indent))
            block = None
        if name != SIGNATURE_KEY:
            pieces.append(text[starts[at] : starts[at + 1]])
    if block is not None:  # no version: the entry goes last
        if not pieces[-1].endswith("\n"):
            pieces.append("\n")
        pieces.append(_block_text(block, "").rstrip(" "))
    return "".join(pieces)


def sign_text(text: str, document: Mapping[str, Any], signer: Signer) -> str:
    """``text`` (whose parsed content is ``document``) signed by ``signer``."""
    return with_signature(text, signer.block(document))


def seal(
    text: str, load: Callable[[str], Mapping[str, Any]], env: Mapping[str, str] | None = None
) -> str:
    """A cassette's text as a writer writes it: signed when ``CITATIONS_SIGNING_KEY`` is set
    (``load`` parses it as a replay does), else without any signature (one that an earlier
    content carried would no longer match). Raises
    :class:`~pytest_citations.recording.signing.SigningKeyError` for a key that is unusable,
    :class:`UnsignableCassette` for a text it cannot sign."""
    signer = signer_from_environment(env)
    if signer is not None:
        try:
            return sign_text(text, load(text), signer)
        except (SignatureRefused, UnsealableText) as error:
            raise UnsignableCassette(f"it cannot be signed: {error}") from None
    signed = "signature" in text and _SIGNED.search(text) is not None
    return with_signature(text, None) if signed else text
