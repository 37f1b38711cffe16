"""One answer, whatever its shape, as a case sees it: text with ``[n]`` markers, marker ->
URL, retrieved pages, and the claims the answer splitter derives from it.

This is also what a test uses to check a live pipeline's answer: :func:`claim_requests`
takes the object the pipeline returned and gives the verifier's requests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..cases.claims import extract_claims
from ..pipeline.verifier import ClaimRequest
from .formats import AUTO, Document, RawAnswer, ReadRecord, Source, read_record
from .formats.base import http_url
from .identity import claim_key, content_case_id, question_case_id, slug, without_tracking
from .markup import claim_text, link_urls, prose_claims, span_text
from .spans import Marked, place_markers

#: What to do with sources of an answer that carries no ``[n]`` marker at all (a LangChain or
#: LlamaIndex answer over its retrieved documents): ``cite-all`` has every sentence cite
#: every source, so each is checked against the pages the answer was grounded in;
#: ``retrieved`` lists them as retrieved and leaves the sentences uncited.
Unmarked = Literal["cite-all", "retrieved"]
UNMARKED_POLICIES: tuple[Unmarked, ...] = ("cite-all", "retrieved")

#: Every line end YAML knows, as one: PyYAML does not read back a NEL (U+0085) it wrote.
_LINE_BREAKS = re.compile("\r\n|[\r\x85\u2028\u2029]")


@dataclass(frozen=True)
class AnswerClaim:
    """A sentence of the answer: its text, the markers it cites and their URLs."""

    text: str
    markers: tuple[str, ...]
    urls: tuple[str, ...]
    #: Markers the sentence carries that the record does not resolve to a URL.
    unresolved: tuple[str, ...] = ()
    #: Markers of the documents without a URL it cites (they cannot be fetched).
    documents: tuple[str, ...] = ()
    #: The answer's text the provider attributed the claim's sources to, when it is not
    #: the claim's own sentence (a span over several sentences, or over a heading with it).
    span: str | None = None

    @property
    def uncited(self) -> bool:
        """True when the sentence cites no URL and no document."""
        return not self.urls and not self.documents


@dataclass(frozen=True)
class ImportedAnswer:
    """An answer ready to become a case."""

    format: str
    #: The answer with its own markers, or with markers placed at the provider's spans.
    text: str
    #: Marker -> URL of the sources the answer cites.
    citations: dict[str, str]
    #: ``(marker, url)`` of pages the answer had but does not cite; marker "" when unnumbered.
    retrieved: tuple[tuple[str, str], ...] = ()
    question: str | None = None
    record_id: str | None = None
    tags: tuple[str, ...] = ()
    #: True when the answer had no markers and every sentence cites every source.
    whole_answer: bool = False
    titles: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: Marker -> a cited document the record gives no URL for.
    documents: dict[str, Document] = field(default_factory=dict)
    #: Marker -> the answer's text the provider attributed that source to (its own spans).
    spans: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def claims(self) -> list[AnswerClaim]:
        """One claim per sentence the answer asserts, split by
        :func:`pytest_citations.cases.claims.extract_claims` once each line of markdown
        structure is a block of its own, in plain text (:mod:`.markup`): headings, lines of
        sources and lead-ins to a list are no claims."""
        claims = []
        known = {**self.citations, **dict.fromkeys(self.documents, "")}
        for extracted in prose_claims(self.text):
            text = claim_text(extracted.text)
            if text is None:
                continue
            if self.whole_answer:
                markers = tuple(self.citations)
                unresolved: tuple[str, ...] = ()
            else:
                markers = tuple(m for m in extracted.markers if m in known)
                unresolved = tuple(m for m in extracted.markers if m not in known)
            urls = tuple(dict.fromkeys(self.citations[m] for m in markers if m in self.citations))
            documents = tuple(m for m in markers if m in self.documents)
            span = self._span(text, markers)
            claims.append(AnswerClaim(text, markers, urls, unresolved, documents, span))
        return claims

    def _span(self, text: str, markers: tuple[str, ...]) -> str | None:
        """The provider's span of the claim's sources that holds the claim (or that the
        claim holds), when it is not the claim itself."""
        key = claim_key(text)
        for marker in markers:
            for span in self.spans.get(marker, ()):
                plain = claim_key(span_text(span))
                if plain == key:
                    return None
                if plain and (key in plain or plain in key):
                    return " ".join(span.split())
        return None

    def claim_requests(self) -> list[ClaimRequest]:
        """The verifier's requests: each claim with its URLs; the retrieved pages beside them
        so that a claim its citations miss but a retrieved page holds is ``misattributed``."""
        retrieved = [url for _, url in self.retrieved]
        return [
            ClaimRequest.of(
                claim.text,
                claim.urls,
                retrieved,
                [self.documents[marker].described for marker in claim.documents],
            )
            for claim in self.claims()
        ]

    def case_id(self) -> str:
        """A stable id: the record's own question id, else one from the question's text,
        else from the content; never random and never a provider's response id, so that the
        same questions exported again get the same ids."""
        if self.record_id:
            own = slug(self.record_id)
            if own:
                return own
        if self.question:
            return question_case_id(self.question)
        content = json.dumps(
            [self.text, sorted(self.citations.items()), list(self.retrieved)], ensure_ascii=False
        )
        return content_case_id(content)


#: What a span's source is numbered by: its URL, or the document as the provider names it.
SourceKey = str | tuple[str, str | None, str | None]


def source_key(source: Source | Document) -> SourceKey:
    """The identity a source is numbered by."""
    if isinstance(source, Source):
        return source.url
    return (source.name, source.pages, source.cited_text)


@dataclass
class _Sorted:
    """Sources of one answer sorted into cited (marker -> URL) and retrieved."""

    text: str
    citations: dict[str, str] = field(default_factory=dict)
    cited: list[tuple[str, Source]] = field(default_factory=list)
    retrieved: list[tuple[str, Source]] = field(default_factory=list)
    whole_answer: bool = False
    warnings: list[str] = field(default_factory=list)
    documents: dict[str, Document] = field(default_factory=dict)
    spans: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _from_spans(raw: RawAnswer) -> _Sorted:
    """Number the span sources by first appearance and mark the sentences they support;
    keep the text each span covers (a span that is only a link covers none)."""
    numbers: dict[SourceKey, str] = {}
    for span in sorted(raw.spans, key=lambda s: (s.start, s.end)):
        numbers.setdefault(source_key(span.source), str(len(numbers) + 1))
    marker = {id(span): numbers[source_key(span.source)] for span in raw.spans}
    text = place_markers(raw.text, [Marked(s.start, s.end, marker[id(s)]) for s in raw.spans])
    result = _Sorted(text)
    for span in raw.spans:
        number = marker[id(span)]
        if isinstance(span.source, Source):
            result.citations[number] = span.source.url
            result.cited.append((number, span.source))
        else:
            result.documents[number] = span.source
        covered = raw.text[span.start : span.end]
        if not span.link and covered.strip():
            texts = result.spans.setdefault(number, ())
            if covered not in texts:
                result.spans[number] = (*texts, covered)
    return result


def _from_markers(raw: RawAnswer, unmarked: Unmarked) -> _Sorted:
    """Resolve the answer's own markers against its numbered sources."""
    numbered = dict(raw.numbered or {})
    used: list[str] = []
    for extracted in extract_claims(raw.text):
        used.extend(m for m in extracted.markers if m not in used)
    if not used and unmarked == "cite-all":
        sources = list({s.url: s for s in numbered.values() if s is not None}.values())
        cited = [(str(n), s) for n, s in enumerate(sources, start=1)]
        return _Sorted(
            raw.text,
            citations={m: s.url for m, s in cited},
            cited=cited,
            whole_answer=bool(cited),
        )
    result = _Sorted(raw.text)
    for marker in used:
        source = numbered.get(marker)
        if source is not None:
            result.citations[marker] = source.url
            result.cited.append((marker, source))
        elif marker not in numbered:
            result.warnings.append(f"the answer cites [{marker}], which the record does not list")
    result.retrieved = [(m, s) for m, s in numbered.items() if s is not None and m not in used]
    return result


def _untracked(raw: RawAnswer) -> RawAnswer:
    """The answer with every source's URL free of tracking parameters, before sources are
    numbered: ``page?utm_source=openai`` and ``page`` are one page."""

    def clean(source: Source) -> Source:
        return replace(source, url=without_tracking(source.url))

    def clean_any(source: Source | Document) -> Source | Document:
        return clean(source) if isinstance(source, Source) else source

    numbered = None
    if raw.numbered is not None:
        numbered = {m: None if s is None else clean(s) for m, s in raw.numbered.items()}
    return replace(
        raw,
        numbered=numbered,
        spans=tuple(replace(span, source=clean_any(span.source)) for span in raw.spans),
        retrieved=tuple(map(clean, raw.retrieved)),
    )


def tidy(text: str) -> str:
    """The text as a case file shows it: one kind of line end, no tabs, no trailing spaces,
    no blank lines around it. None of this changes a sentence, and all of it lets YAML show the
    text in block style rather than as one escaped string."""
    # Lone surrogates (a JSON "\\ud83d" cut in half) cannot be written as UTF-8.
    text = text.encode("utf-8", "replace").decode("utf-8")
    lines = _LINE_BREAKS.sub("\n", text).expandtabs(4).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def build_answer(read: ReadRecord, unmarked: Unmarked = "cite-all") -> ImportedAnswer:
    """Number the sources, place markers at spans, and sort cited from retrieved."""
    raw = _untracked(read.answer)
    if raw.spans:
        result = _from_spans(raw)
    elif raw.numbered is not None:
        result = _from_markers(raw, unmarked)
    else:
        result = _Sorted(raw.text)
    seen = set(result.citations.values())
    retrieved: list[tuple[str, str]] = []
    # Pages the answer links to in its text without a citation are sources it listed.
    linked = [Source(without_tracking(url)) for url in link_urls(result.text) if http_url(url)]
    for marker, source in [*result.retrieved, *(("", s) for s in (*raw.retrieved, *linked))]:
        if source.url not in seen:
            seen.add(source.url)
            retrieved.append((marker, source.url))
    titles: dict[str, str] = {}
    for marker, source in result.cited:
        if source.title and marker not in titles:
            titles[marker] = source.title
    return ImportedAnswer(
        format=read.format,
        text=tidy(result.text),
        citations=result.citations,
        retrieved=tuple(retrieved),
        question=tidy(read.question) if read.question else None,
        record_id=read.record_id,
        tags=read.tags,
        whole_answer=result.whole_answer,
        titles=titles,
        warnings=tuple(dict.fromkeys([*raw.warnings, *result.warnings])),
        documents=result.documents,
        spans=result.spans,
    )


def read_answer(
    response: Any, format: str = AUTO, *, unmarked: Unmarked = "cite-all"
) -> ImportedAnswer:
    """Read one answer object of any supported shape (a dict, or an SDK object with
    ``model_dump()``/``to_dict()``, or a dataclass) into an :class:`ImportedAnswer`."""
    return build_answer(read_record(response, format), unmarked)


def claim_requests(
    response: Any, format: str = AUTO, *, unmarked: Unmarked = "cite-all"
) -> list[ClaimRequest]:
    """The claims of one answer object with the URLs each cites, ready for the verifier
    (the engine under ``citation_verifier.check_answer(response)``)."""
    return read_answer(response, format, unmarked=unmarked).claim_requests()
