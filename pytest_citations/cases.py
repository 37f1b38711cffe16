"""Case files: YAML with a question, an answer, its citations and its claims.

Parsing is strict and every error names the file, the line and what is wrong, so a broken
case file is a readable collection error. No pytest here: the plugin wraps these types.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from .claims import extract_claims
from .errors import CitationsError
from .labels import Label
from .urls import is_supported_url

CASE_KEYS = frozenset(
    {
        "id",
        "question",
        "answer",
        "citations",
        "claims",
        "min_precision",
        "retrieved",
        "topic",
        "criteria",
        "tags",
        "notes",
    }
)
CLAIM_KEYS = frozenset({"text", "cites", "id", "topic", "expect", "general", "notes"})
CRITERIA_KEYS = frozenset(
    {
        "forbid_contradicted_topics",
        "numbers_traceable",
        "min_supported_share",
        "uncited_allowed",
        "fail_on",
    }
)
#: Top-level keys that make a YAML file a case file. YAML with none of them belongs to
#: another tool (mkdocs, docker compose, pre-commit, CI) and is not collected.
SIGNATURE_KEYS = ("cases", "claims", "citations", "answer", "question")
_KEY = r"['\"]?(?:" + "|".join(SIGNATURE_KEYS) + r")['\"]?[ \t]*:"
_BLOCK_SIGNATURE = re.compile(r"^" + _KEY, re.MULTILINE)
_FLOW_SIGNATURE = re.compile(r"[{,]\s*" + _KEY)
_PREAMBLE = re.compile(r"(?:\s+|#[^\n]*|---|%[^\n]*)*")
#: Labels a human may give a claim for calibration (C5).
EXPECTABLE_LABELS = ("supported", "partial", "contradicted", "not_found")
_ID = re.compile(r"[^A-Za-z0-9_.-]+")
#: Deeper YAML than this is refused: no case needs it, and PyYAML composes recursively.
MAX_DEPTH = 100
_MERGE_TAG = "tag:yaml.org,2002:merge"


class CaseFileError(CitationsError):
    """A case file that cannot be used; ``line`` is 1-based (0 when unknown)."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else str(self.path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Claim:
    """One claim of a case, with the URLs it cites (resolved from markers)."""

    index: int
    text: str
    urls: tuple[str, ...]
    markers: tuple[str, ...]
    line: int
    topic: str | None = None
    #: A human label for judge calibration (004, C5).
    expect: str | None = None
    #: General phrasing that may stand without a citation (004, C7).
    general: bool = False
    #: True when the claim was split from the answer rather than written out (C1).
    derived: bool = False

    @property
    def name(self) -> str:
        """The item name: ``claim-1``, ``claim-2`` … (stable while the order holds)."""
        return f"claim-{self.index}"


@dataclass(frozen=True)
class Case:
    """One question with its answer, citations and claims."""

    id: str
    path: Path
    line: int
    question: str | None
    answer: str | None
    citations: dict[str, str]
    claims: tuple[Claim, ...]
    min_precision: float | None = None
    retrieved: tuple[str, ...] = ()
    #: Marker of each retrieved URL when ``retrieved:`` is a mapping (``3: https://…``).
    retrieved_markers: dict[str, str] = field(default_factory=dict)
    criteria: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


class _LineLoader(yaml.SafeLoader):
    """A safe loader whose mappings remember the line of each key and of themselves, and
    that refuses aliases and nesting deeper than :data:`MAX_DEPTH` while composing, before
    anything is built: a few hundred bytes of aliases expand to gigabytes once a value is
    turned into text, and deep nesting exhausts the stack."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise CaseFileError(
                "",
                event.start_mark.line + 1,
                f"YAML aliases (*{event.anchor}) are not allowed in case files; "
                "write the value out",
            )
        if self._depth >= MAX_DEPTH:
            raise CaseFileError(
                "",
                self.peek_event().start_mark.line + 1,  # type: ignore[no-untyped-call]
                f"nested deeper than {MAX_DEPTH} levels",
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Mapping(dict[Any, Any]):
    line: int = 0
    key_lines: dict[Any, int]


class _Sequence(list[Any]):
    line: int = 0
    item_lines: list[int]


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> _Mapping:
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            raise CaseFileError(
                "",
                key_node.start_mark.line + 1,
                "YAML merge keys (<<) are not allowed in case files; write the keys out",
            )
    mapping = _Mapping()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise CaseFileError("", key_node.start_mark.line + 1, f"duplicate key {key!r}")
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[key] = key_node.start_mark.line + 1
    return mapping


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> _Sequence:
    sequence = _Sequence(loader.construct_object(child, deep=True) for child in node.value)
    sequence.line = node.start_mark.line + 1
    sequence.item_lines = [child.start_mark.line + 1 for child in node.value]
    return sequence


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _line_of(container: Any, key: Any = None, default: int = 0) -> int:
    if isinstance(container, _Mapping):
        return container.key_lines.get(key, container.line) if key is not None else container.line
    if isinstance(container, _Sequence):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return default


def _quote_hint(key: str, value: Any) -> str:
    """``, got 42 (quote it: text: "42")`` for a scalar YAML did not read as a string."""
    if isinstance(value, dict | list):
        return f", got a {'mapping' if isinstance(value, dict) else 'list'}"
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    return f', got {shown} (quote it: {key}: "{shown}")'


def _slug(text: str) -> str:
    return _ID.sub("-", text).strip("-") or "case"


class _Parser:
    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, line: int, message: str) -> CaseFileError:
        return CaseFileError(self.path, line, message)

    def text(
        self, container: Any, key: str, *, required: bool, owner: str = "", line: int = 0
    ) -> str | None:
        """A string field, stripped; None when absent. Numbers, dates, lists and mappings
        are refused rather than stringified: ``text: 42`` is a slip, and a stringified
        mapping can be arbitrarily large."""
        value = container.get(key)
        named = f"'{key}'" + (f" of {owner}" if owner else "")
        if value is None:
            if required:
                raise self.error(_line_of(container, None, line), f"{named} is required")
            return None
        where = _line_of(container, key, line)
        if not isinstance(value, str):
            raise self.error(where, f"{named} must be a string{_quote_hint(key, value)}")
        value = value.strip()
        if required and not value:
            raise self.error(where, f"{named} must not be empty")
        return value

    def marker(self, raw: Any, line: int) -> str:
        """A citation marker: ``1``, ``"1"`` and ``"[1]"`` are the same marker."""
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise self.error(line, f"a citation marker must be a number or a string: {raw!r}")
        return str(raw).strip().strip("[]").strip()

    def markers(self, raw: dict[Any, Any], line: int, what: str) -> dict[str, Any]:
        """Marker -> value, refusing two markers that are one once normalised."""
        seen: dict[str, Any] = {}
        for key, value in raw.items():
            where = _line_of(raw, key, line)
            marker = self.marker(key, where)
            if marker in seen:
                raise self.error(
                    where,
                    f"duplicate marker [{marker}] in {what} (the same as marker "
                    f"{seen[marker][0]!r} after '[]' and spaces are removed)"
                    if str(seen[marker][0]) != str(key)
                    else f"duplicate marker [{marker}] in {what}",
                )
            seen[marker] = (key, value, where)
        return seen

    def url(self, value: Any, line: int, what: str) -> str:
        if not isinstance(value, str) or not is_supported_url(value):
            raise self.error(line, f"{what} is not an http(s) URL: {value!r}")
        return value.strip()

    def citations(self, raw: Any, line: int) -> dict[str, str]:
        if raw is None:
            return {}
        if isinstance(raw, list):
            return {
                str(number): self.url(
                    value, _line_of(raw, number - 1, line), f"citation [{number}]"
                )
                for number, value in enumerate(raw, start=1)
            }
        if isinstance(raw, dict):
            return {
                marker: self.url(value, where, f"citation [{key}]")
                for marker, (key, value, where) in self.markers(raw, line, "'citations'").items()
            }
        raise self.error(line, "'citations' must be a mapping of marker to URL, or a list of URLs")

    def claim(self, raw: Any, index: int, line: int, citations: dict[str, str]) -> Claim:
        if isinstance(raw, str):
            raw_map: dict[str, Any] = {"text": raw}
        elif isinstance(raw, dict):
            raw_map = raw
            unknown = sorted(set(raw_map) - CLAIM_KEYS, key=str)
            if unknown:
                raise self.error(
                    _line_of(raw, unknown[0], line),
                    f"unknown key {unknown[0]!r} in claim {index} (allowed: "
                    + ", ".join(sorted(CLAIM_KEYS))
                    + ")",
                )
        else:
            raise self.error(line, f"claim {index} must be a mapping with 'text' and 'cites'")
        text = raw_map.get("text")
        if text is not None and not isinstance(text, str):
            raise self.error(
                _line_of(raw_map, "text", line),
                f"'text' of claim {index} must be a string{_quote_hint('text', text)}",
            )
        if text is None or not text.strip():
            raise self.error(_line_of(raw_map, "text", line), f"claim {index} has an empty text")
        owner = f"claim {index}"
        for key in ("id", "notes"):
            self.text(raw_map, key, required=False, owner=owner, line=line)
        topic = self.text(raw_map, "topic", required=False, owner=owner, line=line)
        cites = raw_map.get("cites", [])
        if isinstance(cites, str | int):
            cites = [cites]
        if not isinstance(cites, list):
            raise self.error(
                _line_of(raw_map, "cites", line), f"'cites' of claim {index} must be a list"
            )
        urls: list[str] = []
        markers: list[str] = []
        cites_line = _line_of(raw_map, "cites", line)
        for position, cite in enumerate(cites):
            cite_line = _line_of(cites, position, cites_line)
            marker = self.marker(cite, cite_line)
            if marker in citations:
                urls.append(citations[marker])
                markers.append(marker)
            elif isinstance(cite, str) and "://" in cite:
                urls.append(self.url(cite, cite_line, f"claim {index} cites"))
                markers.append(cite.strip())
            else:
                known = ", ".join(f"[{m}]" for m in citations) or "none"
                raise self.error(
                    cite_line,
                    f"claim {index} cites [{marker}], which is not in 'citations' (known: {known})",
                )
        expect = raw_map.get("expect")
        if expect is not None and expect not in EXPECTABLE_LABELS:
            raise self.error(
                _line_of(raw_map, "expect", line),
                f"'expect' of claim {index} must be one of " + ", ".join(EXPECTABLE_LABELS),
            )
        general = raw_map.get("general", False)
        if not isinstance(general, bool):
            raise self.error(_line_of(raw_map, "general", line), "'general' must be true or false")
        return Claim(
            index=index,
            text=" ".join(text.split()),
            urls=tuple(dict.fromkeys(urls)),
            markers=tuple(markers),
            line=_line_of(raw, None, line) if isinstance(raw, dict) else line,
            topic=topic or None,
            expect=expect,
            general=general,
        )

    def derived_claims(
        self, answer: str, line: int, citations: dict[str, str]
    ) -> tuple[Claim, ...]:
        """Claims split from the answer, one per sentence, citing the sentence's markers."""
        claims = []
        for index, extracted in enumerate(extract_claims(answer), start=1):
            unknown = [m for m in extracted.markers if m not in citations]
            if unknown:
                known = ", ".join(f"[{m}]" for m in citations) or "none"
                raise self.error(
                    line,
                    f"sentence {index} of 'answer' cites [{unknown[0]}], which is not in "
                    f"'citations' (known: {known})",
                )
            claims.append(
                Claim(
                    index=index,
                    text=extracted.text,
                    urls=tuple(dict.fromkeys(citations[m] for m in extracted.markers)),
                    markers=extracted.markers,
                    line=line,
                    derived=True,
                )
            )
        if not claims:
            raise self.error(line, "'answer' holds no sentence to check")
        return tuple(claims)

    def criteria(self, raw: Any, line: int) -> dict[str, Any]:
        """Per-case acceptance criteria (004, C7), validated."""
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.error(line, "'criteria' must be a mapping")
        for key, value in raw.items():
            where = _line_of(raw, key, line)
            if key not in CRITERIA_KEYS:
                raise self.error(
                    where,
                    f"unknown criterion {key!r} (allowed: "
                    + ", ".join(sorted(CRITERIA_KEYS))
                    + ")",
                )
            if key in ("numbers_traceable", "uncited_allowed") and not isinstance(value, bool):
                raise self.error(where, f"'{key}' must be true or false")
            if key == "min_supported_share" and (
                isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1
            ):
                raise self.error(where, "'min_supported_share' must be a number from 0 to 1")
            if key in ("forbid_contradicted_topics", "fail_on") and not (
                isinstance(value, list) and all(isinstance(item, str) for item in value)
            ):
                raise self.error(where, f"'{key}' must be a list of names")
            if key == "fail_on":
                labels = [label.value for label in Label]
                unknown = [item for item in value if item not in labels]
                if unknown:
                    # A misspelt label would silently never fail a claim: refuse it.
                    raise self.error(
                        where,
                        f"'fail_on' names an unknown label {unknown[0]!r} (known: "
                        + ", ".join(labels)
                        + ")",
                    )
        return dict(raw)

    def case(self, raw: Any, line: int, default_id: str, ids: set[str]) -> Case:
        if not isinstance(raw, dict):
            raise self.error(line, "a case must be a mapping with 'claims' and 'citations'")
        unknown = sorted(set(raw) - CASE_KEYS, key=str)
        if unknown:
            raise self.error(
                _line_of(raw, unknown[0], line),
                f"unknown key {unknown[0]!r} (allowed: " + ", ".join(sorted(CASE_KEYS)) + ")",
            )
        case_id = _slug(self.text(raw, "id", required=False, line=line) or default_id)
        question = self.text(raw, "question", required=False, line=line)
        topic = self.text(raw, "topic", required=False, line=line)
        self.text(raw, "notes", required=False, line=line)
        tags = raw.get("tags")
        if tags is not None and not (
            isinstance(tags, str)
            or (isinstance(tags, list) and all(isinstance(tag, str) for tag in tags))
        ):
            raise self.error(_line_of(raw, "tags", line), "'tags' must be a list of strings")
        if case_id in ids:
            raise self.error(_line_of(raw, "id", line), f"duplicate case id {case_id!r}")
        ids.add(case_id)
        citations = self.citations(raw.get("citations"), _line_of(raw, "citations", line))
        raw_claims = raw.get("claims")
        claims_line = _line_of(raw, "claims", line)
        answer = self.text(raw, "answer", required=False, line=line)
        if raw_claims is None and answer:
            claims = self.derived_claims(answer, _line_of(raw, "answer", line), citations)
        elif not isinstance(raw_claims, list) or not raw_claims:
            raise self.error(
                claims_line, "'claims' must be a non-empty list (or give an 'answer' to split)"
            )
        else:
            claims = tuple(
                self.claim(item, number, _line_of(raw_claims, number - 1, claims_line), citations)
                for number, item in enumerate(raw_claims, start=1)
            )
        if topic:
            claims = tuple(
                claim if claim.topic else replace(claim, topic=topic) for claim in claims
            )
        min_precision = raw.get("min_precision")
        if min_precision is not None and (
            isinstance(min_precision, bool)
            or not isinstance(min_precision, int | float)
            or not 0 <= min_precision <= 1
        ):
            raise self.error(
                _line_of(raw, "min_precision", line), "'min_precision' must be a number from 0 to 1"
            )
        retrieved_raw = raw.get("retrieved") or []
        retrieved_line = _line_of(raw, "retrieved", line)
        if isinstance(retrieved_raw, dict):
            retrieved_markers = {
                self.url(value, where, "retrieved URL"): marker
                for marker, (_, value, where) in self.markers(
                    retrieved_raw, retrieved_line, "'retrieved'"
                ).items()
            }
        elif isinstance(retrieved_raw, list):
            retrieved_markers = {
                self.url(value, _line_of(retrieved_raw, n, retrieved_line), "retrieved URL"): ""
                for n, value in enumerate(retrieved_raw)
            }
        else:
            raise self.error(
                retrieved_line, "'retrieved' must be a list of URLs or a mapping marker -> URL"
            )
        retrieved = tuple(retrieved_markers)
        return Case(
            id=case_id,
            path=self.path,
            line=_line_of(raw, None, line),
            question=question,
            answer=answer,
            citations=citations,
            claims=claims,
            min_precision=float(min_precision) if min_precision is not None else None,
            retrieved=retrieved,
            retrieved_markers={url: m for url, m in retrieved_markers.items() if m},
            criteria=self.criteria(raw.get("criteria"), _line_of(raw, "criteria", line)),
            extra={key: raw[key] for key in ("topic", "tags") if key in raw},
        )


def load_cases(path: Path, text: str | None = None) -> list[Case]:
    """Parse one case file: a single case, or several under a top-level ``cases:`` list."""
    parser = _Parser(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CaseFileError(path, 0, f"cannot read the file: {error}") from None
    try:
        document = yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass
    except CaseFileError as error:
        raise CaseFileError(path, error.line, error.message) from None
    except RecursionError:
        # MAX_DEPTH keeps composing shallow; this is for a stack already deep when called.
        raise CaseFileError(path, 0, "the YAML is nested too deeply") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = error.problem or str(error)
        raise CaseFileError(path, line, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise CaseFileError(path, 0, f"invalid YAML: {error}") from None
    if document is None:
        raise CaseFileError(path, 1, "the file is empty")
    stem = _slug(path.stem)
    ids: set[str] = set()
    if isinstance(document, dict) and "cases" in document:
        extra = sorted(set(document) - {"cases"}, key=str)
        if extra:
            raise CaseFileError(
                path, _line_of(document, extra[0]), f"unknown key {extra[0]!r} beside 'cases'"
            )
        items = document["cases"]
        if not isinstance(items, list) or not items:
            raise CaseFileError(
                path, _line_of(document, "cases"), "'cases' must be a non-empty list"
            )
        return [
            parser.case(item, _line_of(items, n - 1), f"{stem}-{n}", ids)
            for n, item in enumerate(items, start=1)
        ]
    return [parser.case(document, 1, stem, ids)]


def looks_like_case_file(text: str) -> bool:
    """True when a top-level key of the YAML text is one of :data:`SIGNATURE_KEYS`. A text
    scan, not a parse: another tool's YAML may use tags (``!!python/name:``) that a safe
    load refuses, and it must not become a collection error."""
    if _BLOCK_SIGNATURE.search(text):
        return True
    # A document written as one flow mapping: {id: x, claims: [...]}
    start = _PREAMBLE.match(text)
    body = text[start.end() if start else 0 :]
    return body.startswith("{") and _FLOW_SIGNATURE.search(body) is not None


def iter_claims(cases: list[Case]) -> Iterator[tuple[Case, Claim]]:
    """Every claim of every case, in file order."""
    for case in cases:
        for claim in case.claims:
            yield case, claim
