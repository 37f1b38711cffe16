"""Reading a case file: strict, and every problem of a broken file reported at once, each
with its line, so that a file is fixed in one pass.

The parser records a problem and goes on with the next value, claim or case; the file
raises one :class:`~pytest_citations.cases.model.CaseFileError` listing them all.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..fetchers.urls import is_supported_url
from . import fields
from .claims import extract_claims
from .documents import document_citation
from .loader import line_of
from .model import Claim
from .spelling import respellings, respelt
from .tags import refused_tag

_ID = re.compile(r"[^A-Za-z0-9_.-]+")


class _Skip(Exception):
    """The value at hand is wrong and has been recorded: skip it and go on."""


def _quote_hint(key: str, value: Any) -> str:
    """``, got 42 (quote it: text: "42")`` for a scalar YAML did not read as a string."""
    if isinstance(value, dict | list):
        return f", got a {'mapping' if isinstance(value, dict) else 'list'}"
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    return f', got {shown} (quote it: {key}: "{shown}")'


def slug(text: str) -> str:
    """An id fit for node ids: letters, digits, ``_.-``."""
    return _ID.sub("-", text).strip("-") or "case"


class Parser:
    """Reads the cases of one file, recording every problem it meets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[tuple[int, str]] = []

    def fail(self, line: int, message: str) -> _Skip:
        """Record a problem; the caller raises what this returns to skip the value (a
        structure of a case, :meth:`citations` to :meth:`criteria`, reads as empty)."""
        self.problems.append((line, message))
        return _Skip()

    # Values ------------------------------------------------------------------------------
    def text(
        self, container: Any, key: str, *, required: bool = False, owner: str = "", line: int = 0
    ) -> str | None:
        """A string field, stripped; None when absent. Numbers, dates, lists and mappings
        are refused rather than stringified: ``text: 42`` is a slip, and a stringified
        mapping can be arbitrarily large."""
        value = container.get(key)
        named = f"'{key}'" + (f" of {owner}" if owner else "")
        if value is None:
            if required:
                raise self.fail(line_of(container, None, line), f"{named} is required")
            return None
        where = line_of(container, key, line)
        if not isinstance(value, str):
            raise self.fail(where, f"{named} must be a string{_quote_hint(key, value)}")
        if required and not value.strip():
            raise self.fail(where, f"{named} must not be empty")
        return value.strip()

    def value(self, container: Any, key: str, spec: fields.Key, line: int, owner: str = "") -> Any:
        """A field of one of the simple kinds the tables name, checked."""
        raw = container.get(key)
        where = line_of(container, key, line)
        if raw is None:
            return None
        if spec.kind == "text":
            return self.text(container, key, owner=owner, line=line)
        if spec.kind == "bool" and not isinstance(raw, bool):
            raise self.fail(where, f"'{key}' must be true or false")
        if spec.kind == "fraction" and (
            isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= 1
        ):
            raise self.fail(where, f"'{key}' must be a number from 0 to 1")
        if spec.kind in ("names", "labels"):
            raw = [raw] if isinstance(raw, str) and key == "tags" else raw
            if not (isinstance(raw, list) and all(isinstance(item, str) for item in raw)):
                kind = "list of strings" if key == "tags" else "list of names"
                raise self.fail(where, f"'{key}' must be a {kind}")
            if key == "tags":
                self.tags(raw, where)
            labels = raw if spec.kind == "labels" else []
            unknown = [item for item in labels if item not in fields.LABELS]
            if unknown:
                # A misspelt label would silently never fail a claim: refuse it.
                known = ", ".join(fields.LABELS)
                raise self.fail(
                    where, f"'{key}' names an unknown label {unknown[0]!r} (known: {known})"
                )
        if spec.kind == "expect" and raw not in fields.EXPECTABLE_LABELS:
            allowed = ", ".join(fields.EXPECTABLE_LABELS)
            raise self.fail(where, f"'{key}' of {owner} must be one of {allowed}")
        return raw

    def tags(self, tags: list[str], line: int) -> None:
        """Refuse a tag that names one of pytest's marks with behaviour (``xfail``,
        ``skip``, …): a case's own data never decides whether its checks run or count."""
        for tag in tags:
            refused = refused_tag(tag)
            if refused is not None:
                raise self.fail(line, refused)

    def known_keys(
        self, raw: dict[Any, Any], table: dict[str, fields.Key], line: int, what: str
    ) -> dict[Any, Any]:
        """Record every key the table does not know; return ``raw`` with the keys written in
        another case or spelling read as the keys they mean (see :meth:`respell`)."""
        raw = self.respell(raw, table, line, what)
        allowed = ", ".join(sorted(table))
        for key in sorted(set(raw) - set(table), key=str):
            self.problems.append(
                (line_of(raw, key, line), f"unknown key {key!r}{what} (allowed: {allowed})")
            )
        return raw

    def respell(
        self, raw: dict[Any, Any], keys: Collection[str], line: int, what: str
    ) -> dict[Any, Any]:
        """Record each key of ``keys`` written in another case or spelling (``Question``),
        with the spelling to write; return ``raw`` with those keys read as meant, so that
        the rest of the file is checked as its author meant it, not as missing keys."""
        meant = respellings(raw, keys)
        for key, spelt in meant.items():
            self.problems.append(
                (line_of(raw, key, line), f"unknown key {key!r}{what}: write it {spelt!r}")
            )
        return respelt(raw, meant)

    def marker(self, raw: Any, line: int) -> str:
        """A citation marker: ``1``, ``"1"`` and ``"[1]"`` are the same marker."""
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise self.fail(line, f"a citation marker must be a number or a string: {raw!r}")
        return str(raw).strip().strip("[]").strip()

    def markers(self, raw: dict[Any, Any], line: int, what: str) -> dict[str, Any]:
        """Marker -> (key, value, line), refusing two markers that are one once normalised."""
        seen: dict[str, Any] = {}
        for key, value in raw.items():
            where = line_of(raw, key, line)
            try:
                marker = self.marker(key, where)
            except _Skip:
                continue
            if marker in seen:
                first = seen[marker][0]
                same = (
                    ""
                    if str(first) == str(key)
                    else (f" (the same as marker {first!r} after '[]' and spaces are removed)")
                )
                self.fail(where, f"duplicate marker [{marker}] in {what}{same}")
                continue
            seen[marker] = (key, value, where)
        return seen

    def url(self, value: Any, line: int, what: str) -> str:
        """An http(s) URL (long and internationalised ones are the engine's to judge)."""
        if not isinstance(value, str) or not is_supported_url(value):
            raise self.fail(line, f"{what} is not an http(s) URL: {value!r}")
        return value.strip()

    def urls(self, pairs: list[tuple[str, Any, int, str]]) -> dict[str, str]:
        """marker -> URL for every valid one of ``(marker, value, line, what)``."""
        found = {}
        for marker, value, where, what in pairs:
            try:
                found[marker] = self.url(value, where, what)
            except _Skip:
                continue
        return found

    # Structures --------------------------------------------------------------------------
    def citations(self, raw: Any, line: int) -> tuple[dict[str, str], dict[str, str]]:
        """``citations:`` (marker -> URL, or a list numbered from 1): marker -> URL, and marker
        -> how a claim names a document cited without a URL (:func:`.document_citation`)."""
        if raw is None:
            return {}, {}
        if isinstance(raw, list):
            entries = [
                (str(n), v, line_of(raw, n - 1, line), f"citation [{n}]")
                for n, v in enumerate(raw, start=1)
            ]
        elif isinstance(raw, dict):
            entries = [
                (m, v, where, f"citation [{key}]")
                for m, (key, v, where) in self.markers(raw, line, "'citations'").items()
            ]
        else:
            self.fail(line, "'citations' must be a mapping of marker to URL, or a list of URLs")
            return {}, {}
        linked: list[tuple[str, Any, int, str]] = []
        documented: list[tuple[str, Any, int, str]] = []
        for entry in entries:
            (documented if isinstance(entry[1], dict) else linked).append(entry)
        urls = self.urls(linked)
        documents: dict[str, str] = {}
        for marker, value, where, _ in documented:
            try:
                documents[marker] = document_citation(self, value, where, marker)
            except _Skip:
                continue
        return urls, documents

    def cites(
        self,
        raw: dict[Any, Any],
        index: int,
        line: int,
        citations: dict[str, str],
        documents: dict[str, str],
    ) -> tuple[list[str], list[str]]:
        """The URLs and markers a claim cites (a document's marker among the markers)."""
        cites = raw.get("cites", [])
        cites_line = line_of(raw, "cites", line)
        cites = [cites] if isinstance(cites, str | int) else cites
        if not isinstance(cites, list):
            raise self.fail(cites_line, f"'cites' of claim {index} must be a list")
        urls: list[str] = []
        markers: list[str] = []
        for position, cite in enumerate(cites):
            where = line_of(cites, position, cites_line)
            try:
                marker = self.marker(cite, where)
                if marker in citations:
                    urls.append(citations[marker])
                    markers.append(marker)
                elif marker in documents:
                    markers.append(marker)
                elif isinstance(cite, str) and "://" in cite:
                    urls.append(self.url(cite, where, f"claim {index} cites"))
                    markers.append(cite.strip())
                else:
                    known = ", ".join(f"[{m}]" for m in {**citations, **documents}) or "none"
                    not_there = f"[{marker}], which is not in 'citations' (known: {known})"
                    self.fail(where, f"claim {index} cites {not_there}")
            except _Skip:
                continue
        return urls, markers

    def claim(
        self,
        raw: Any,
        index: int,
        line: int,
        citations: dict[str, str],
        documents: dict[str, str],
    ) -> Claim:
        """One entry of ``claims:``."""
        if isinstance(raw, str):
            raw = {"text": raw}
        if not isinstance(raw, dict):
            raise self.fail(line, f"claim {index} must be a mapping with 'text' and 'cites'")
        raw = self.known_keys(raw, fields.CLAIM, line, f" in claim {index}")
        owner = f"claim {index}"
        text = raw.get("text")
        if text is not None and not isinstance(text, str):
            self.fail(
                line_of(raw, "text", line),
                f"'text' of claim {index} must be a string{_quote_hint('text', text)}",
            )
        elif text is None or not text.strip():
            self.fail(line_of(raw, "text", line), f"claim {index} has an empty text")
        values = {}
        for key, spec in fields.CLAIM.items():
            if spec.kind != "structure" and key != "text":
                try:
                    values[key] = self.value(raw, key, spec, line, owner)
                except _Skip:
                    continue
        urls, markers = self.cites(raw, index, line, citations, documents)
        if not isinstance(text, str) or not text.strip():
            raise _Skip()
        return Claim(
            index=index,
            text=" ".join(text.split()),
            urls=tuple(dict.fromkeys(urls)),
            markers=tuple(markers),
            documents=tuple(documents[m] for m in dict.fromkeys(markers) if m in documents),
            line=line_of(raw, None, line),
            topic=values.get("topic") or None,
            expect=values.get("expect"),
            general=bool(values.get("general")),
            span=values.get("span") or None,
            sentence=values.get("from") or None,
        )

    def claims(
        self,
        raw: dict[Any, Any],
        line: int,
        citations: dict[str, str],
        documents: dict[str, str],
    ) -> tuple[Claim, ...]:
        """``claims:`` as written, or the sentences of ``answer:`` (C1, C2)."""
        raw_claims = raw.get("claims")
        answer = raw.get("answer")
        if raw_claims is None and isinstance(answer, str) and answer.strip():
            return self.derived(answer, line_of(raw, "answer", line), citations, documents)
        where = line_of(raw, "claims", line)
        if not isinstance(raw_claims, list) or not raw_claims:
            self.fail(where, "'claims' must be a non-empty list (or give an 'answer' to split)")
            return ()
        claims = []
        for number, item in enumerate(raw_claims, start=1):
            try:
                claims.append(
                    self.claim(
                        item, number, line_of(raw_claims, number - 1, where), citations, documents
                    )
                )
            except _Skip:
                continue
        return tuple(claims)

    def derived(
        self,
        answer: str,
        line: int,
        citations: dict[str, str],
        documents: dict[str, str],
    ) -> tuple[Claim, ...]:
        """Claims split from the answer, one per sentence, citing the sentence's markers."""
        claims = []
        for index, extracted in enumerate(extract_claims(answer), start=1):
            unknown = [m for m in extracted.markers if m not in citations and m not in documents]
            if unknown:
                known = ", ".join(f"[{m}]" for m in {**citations, **documents}) or "none"
                not_there = f"[{unknown[0]}], which is not in 'citations' (known: {known})"
                self.fail(line, f"sentence {index} of 'answer' cites {not_there}")
                continue
            urls = tuple(dict.fromkeys(citations[m] for m in extracted.markers if m in citations))
            cited = tuple(documents[m] for m in extracted.markers if m in documents)
            claims.append(
                Claim(
                    index,
                    extracted.text,
                    urls,
                    extracted.markers,
                    line,
                    derived=True,
                    documents=cited,
                )
            )
        if not claims and not self.problems:
            self.fail(line, "'answer' holds no sentence to check")
        return tuple(claims)

    def criteria(self, raw: Any, line: int) -> dict[str, Any]:
        """Per-case acceptance criteria (004, C7), validated."""
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.fail(line, "'criteria' must be a mapping")
            return {}
        raw = self.respell(raw, fields.CRITERIA, line, " in 'criteria'")
        allowed = ", ".join(sorted(fields.CRITERIA))
        for key in sorted(set(raw) - set(fields.CRITERIA), key=str):
            self.fail(line_of(raw, key, line), f"unknown criterion {key!r} (allowed: {allowed})")
        checked = {}
        for key, spec in fields.CRITERIA.items():
            if key in raw:
                try:
                    checked[key] = self.value(raw, key, spec, line)
                except _Skip:
                    continue
        return checked

    def retrieved(self, raw: Any, line: int) -> dict[str, str]:
        """``retrieved:``: URL -> marker ('' for a plain list)."""
        if raw is None:
            return {}
        if isinstance(raw, dict):
            marked = self.markers(raw, line, "'retrieved'")
            found = self.urls(
                [(m, v, where, "retrieved URL") for m, (_, v, where) in marked.items()]
            )
            return {url: marker for marker, url in found.items()}
        if isinstance(raw, list):
            found = self.urls(
                [(str(n), v, line_of(raw, n, line), "retrieved URL") for n, v in enumerate(raw)]
            )
            return dict.fromkeys(found.values(), "")
        self.fail(line, "'retrieved' must be a list of URLs or a mapping marker -> URL")
        return {}
