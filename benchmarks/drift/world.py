"""The recorded world: the scenario's claims as case files, recorded the way the plugin
records them, and what each recorded verdict rests on, read from the cassettes with plain
YAML and JSON (not through the drift code, whose answers it checks)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from pytest_citations import Settings, Verifier
from pytest_citations.drift import DriftSource
from pytest_citations.recording import CassetteLibrary, CassetteTransport, RecordMode, build_vcr
from pytest_citations.sandbox import parse_user_message

from ..engine.scenario import Scenario

_BLANK_LINE = re.compile(r"\n\s*\n")


def write_case_files(scenario: Scenario, project: Path, files: int) -> list[DriftSource]:
    """The claims, in order, as ``files`` case files of about equal size under
    ``project/cases``; their cassettes under ``project/cassettes``."""
    requests = scenario.requests
    size = -(-len(requests) // files)
    sources = []
    for number in range(files):
        chunk = requests[number * size : (number + 1) * size]
        if not chunk:
            break
        urls = list(dict.fromkeys(url for request in chunk for url in request.urls))
        lines = [f"id: part-{number + 1:02d}", "citations:"]
        lines += [f"  {n}: {url}" for n, url in enumerate(urls, start=1)]
        lines.append("claims:")
        for request in chunk:
            markers = ", ".join(str(urls.index(url) + 1) for url in request.urls)
            lines += [f"  - text: {json.dumps(request.claim)}", f"    cites: [{markers}]"]
        path = project / "cases" / f"part-{number + 1:02d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        sources.append(DriftSource.from_case_file(path, project / "cassettes", project))
    return sources


async def _record(sources: Sequence[DriftSource], settings: Settings, mode: RecordMode) -> None:
    library = CassetteLibrary(build_vcr(settings.redactor()), mode, lambda path: "record")
    http = settings.http_client(CassetteTransport(library, settings.transport()))
    try:
        async with Verifier(settings, http=http, observer=library) as verifier:
            for source in sources:  # one case file after the other, as the plugin does
                session = library.open(source.cassette)
                try:
                    with session.active():
                        await verifier.verify_many([claim.request for claim in source.claims])
                finally:
                    session.close()
    finally:
        await http.aclose()


def record(sources: Sequence[DriftSource], settings: Settings, mode: RecordMode) -> None:
    """Record (``once``) or re-record (``all``) every case file, as the plugin would."""
    asyncio.run(_record(sources, settings, mode))


def paragraphs(text: str) -> list[str]:
    """A page's or a passage's paragraphs, whitespace collapsed."""
    return [" ".join(block.split()) for block in _BLANK_LINE.split(text) if block.strip()]


@dataclass(frozen=True)
class Judged:
    """One judged citation as its cassette recorded it: the paragraphs its judge was shown,
    its label and quote."""

    claim: str
    url: str
    shown: tuple[str, ...]
    label: str
    quote: str | None

    @property
    def rests_on(self) -> frozenset[str]:
        """The paragraphs the verdict rests on: those holding its quote, or every paragraph
        shown when it has none (the rule the issue asks for, worked out here on its own)."""
        if self.quote:
            quote = " ".join(self.quote.split())
            holding = [p for p in self.shown if quote in p]
            if holding:
                return frozenset(holding)
        return frozenset(self.shown)


def _judge_calls(cassette: Path) -> list[tuple[str, list[str], dict[str, object]]]:
    """(claim, passages, verdict) of every single-citation judge call in a cassette."""
    data = yaml.safe_load(cassette.read_text(encoding="utf-8")) or {}
    found = []
    for interaction in data.get("interactions", []):
        request, response = interaction["request"], interaction["response"]
        if request["method"] != "POST":
            continue
        body = json.loads(request["body"])
        if body["response_format"]["json_schema"]["name"] != "citation_verdict":
            continue  # a joint check (004, C2) is not one citation's verdict
        claim, passages = parse_user_message(body["messages"][-1]["content"])
        answer = json.loads(response["body"]["string"])
        verdict = json.loads(answer["choices"][0]["message"]["content"])
        found.append((claim, passages, verdict))
    return found


def judged_citations(
    cassettes: Sequence[Path], pages: dict[str, str]
) -> dict[tuple[str, str], Judged]:
    """Every judged (claim, URL) of the cassettes, its URL found by the page its passages
    come from (``pages``: URL to the text served when recording)."""
    owner = {paragraph: url for url, text in pages.items() for paragraph in paragraphs(text)}
    found: dict[tuple[str, str], Judged] = {}
    for cassette in cassettes:
        for claim, passages, verdict in _judge_calls(cassette):
            shown = tuple(p for passage in passages for p in paragraphs(passage))
            urls = {owner[p] for p in shown if p in owner}
            if len(urls) != 1:
                raise AssertionError(f"passages of {claim!r} come from {sorted(urls)}")
            url = urls.pop()
            quote = verdict.get("evidence_quote")
            found[(claim, url)] = Judged(
                claim, url, shown, str(verdict["label"]), quote if isinstance(quote, str) else None
            )
    return found
