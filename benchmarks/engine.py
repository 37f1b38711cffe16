#!/usr/bin/env python
"""Benchmark of the verification engine against the local emulators (issue 2, "Benchmark to ship").

200 claims cite 60 distinct URLs (pages of about 2,000 words) served by the Crawlbase emulator;
the OpenAI-compatible judge emulator labels them. Both answer every fetch and every judge call
after ``--latency`` seconds. For each concurrency limit a fresh :class:`Verifier` (fresh
in-memory embedding cache) verifies every claim with ``verify_many``, and the script prints
what each emulator saw, credits, judge calls, wall time, peak memory and the ideal wall time:

    ideal = ceil(fetch requests / N) * latency + ceil(judge calls / N) * latency
            + time to embed the same passages and claims alone (same process, model loaded)

PASS needs, at every limit: crawl requests == the count the fetch rules predict for the cited
pages (per URL); per-citation judge calls == distinct claim-URL pairs that reached the judge,
joint-support calls (004, C2) == distinct (claim, judged URL set) that need one, no identical
judge request twice; and wall <= 1.5 * ideal. The exit status is 1 on FAIL. The tracemalloc
peak comes from a separate, untimed run (tracing slows the HTTP stack about fourfold).

Usage: python benchmarks/engine.py [--concurrency 4 16] [--claims 200] [--urls 60]
       [--latency 0.2] [--embedder minilm|lexical] [--json PATH]
See benchmarks/README.md for every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import multiprocessing
import os
import platform
import random
import re
import resource
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
if str(ROOT) not in sys.path:
    sys.path.insert(1, str(ROOT))

import httpx  # noqa: E402
from fakes import NOT_FOUND_MARKDOWN, CrawlbaseEmulator, FakePage, JudgeEmulator  # noqa: E402

from pytest_citations import (  # noqa: E402
    ClaimRequest,
    ClaimVerdict,
    Label,
    Reason,
    Settings,
    Verifier,
)
from pytest_citations.aggregate import aggregate_verdicts  # noqa: E402
from pytest_citations.embeddings import Embedder, Vectors, make_embedder  # noqa: E402
from pytest_citations.network import make_http_client  # noqa: E402
from pytest_citations.passages import split_passages  # noqa: E402
from pytest_citations.redact import Secret  # noqa: E402
from pytest_citations.settings import DEFAULT_EMBEDDING_MODEL  # noqa: E402

CRAWL_TOKEN = "normal-token"  # the emulator's defaults
JS_TOKEN = "js-token"
OPENAI_KEY = "sk-test-openai"
EMBEDDERS = {"minilm": DEFAULT_EMBEDDING_MODEL, "lexical": "lexical"}
WALL_FACTOR = 1.5

#: Reasons the fetch rules give without asking the judge (F3-F7, faults, bad input), plus
#: "no passages" (nothing to judge). Any other citation reached the judge.
NOT_JUDGED_REASONS = frozenset(
    {
        Reason.HTTP_404,
        Reason.HTTP_410,
        Reason.REDIRECTED_TO_HOMEPAGE,
        Reason.SOFT_404,
        Reason.PDF_UNSUPPORTED,
        Reason.CRAWL_FAILED,
        Reason.EMPTY_PAGE,
        Reason.INVALID_URL,
        Reason.FETCH_ERROR,
        Reason.NO_PASSAGES,
        # Offline replay only: a request missing from a cassette is never sent.
        getattr(Reason, "REQUEST_REFUSED", "request_refused"),
    }
)

# ---------------------------------------------------------------------------------------------
# Scenario: deterministic pages and claims
# ---------------------------------------------------------------------------------------------

# Filler vocabulary: common English words (about one MiniLM token each, so a 200-word passage
# stays within the model's 256-token window). Words of the fact templates, the judge oracle's
# qualifiers and negations, digits and soft-404 phrases are left out on purpose.
_VOCABULARY_TEXT = """
able account across act action activity actually add address admit adult affect afraid age
agency agent agree ahead air allow almost alone along already although always amount analysis
animal answer appear apply approach area argue arm around arrive art article artist ask assume
attack attention author available avoid away baby back bad bag ball bank bar base beat beautiful
become bed begin behavior behind believe benefit best better beyond big bill bit black blood
blue board body book born box boy break bring brother budget build building buy call camera
campaign capital car card care career carry case catch cause cell center central century certain
chair challenge chance change character charge check child choice choose church citizen city
civil claim class clear close coach cold collection college color come common community company
compare computer concern condition conference consider consumer contain continue control cost
country couple course court cover create crime cultural culture cup current customer cut dark
data daughter dead deal death debate decade decide decision deep defense degree describe design
despite detail determine develop difference different difficult dinner direction director
discover discuss disease doctor dog door draw dream drive drop drug early east easy eat economic
economy edge education effect effort eight either election else employee end energy enjoy enough
enter entire environment especially establish even evening event ever everybody evidence exactly
example executive exist expect experience expert explain eye face fact factor fail fall family
far fast father fear federal feel field fight figure fill film final finally financial find fine
finger finish fire firm first fish five floor fly focus follow food foot force foreign forget
form former forward four free friend front full fund future game garden gas general generation
girl give glass goal good government great green ground group grow growth guess gun guy hair half
hand hang happen happy hard head health hear heart heat heavy help herself high himself history
hit hold home hope hospital hot hotel hour house huge human hundred husband idea identify image
imagine impact important improve include increase indeed indicate individual industry inside
instead institution interest interview investment involve island issue item job join keep kid
kill kind kitchen know knowledge land language large last late later laugh law lawyer lay lead
leader learn least leave left leg legal less letter level lie life light like likely line list
listen little live local long look lose loss lot love low machine magazine main maintain major
majority make man manage management manager market marriage material matter maybe mean measure
media medical meet meeting member memory mention message method middle might military million
mind minute miss mission model modern moment money month morning mother mouth move movement movie
music must myself name nation national natural nature near nearly necessary need network new news
newspaper next nice night none north note nothing notice number occur offer office officer
official often oil old open operation opportunity option order organization others outside owner
paint painter paper parent part participant particular partner party pass past patient pattern
pay peace people perform performance perhaps period person personal phone physical pick picture
piece place plan plant play player point police policy political poor popular population position
positive possible power practice prepare present president pressure pretty prevent price private
probably problem process produce product professional professor program project property protect
prove provide public pull purpose push quality question quickly quite race radio raise range rate
rather reach read ready real reality realize really reason receive recent recently recognize
reduce reflect region relate relationship religious remain remember report represent require
research resource respond response rest result return reveal rich right rise risk road rock role
room rule run safe save scene school science scientist score sea season seat second section
security see seek seem sell send senior sense series serious serve service set seven several
shake share shoot short shot shoulder show side sign significant similar simple simply since sing
single sister sit site situation six size skill skin small smile social society soldier someone
something sometimes son song soon sort sound source south southern space speak special specific
speech spend sport spring staff stage stand standard star start state statement station stay step
still stock stop story strategy street strong structure student study stuff style subject success
successful suddenly suffer suggest summer support sure surface system table take talk task tax
teach teacher team technology television tell ten tend term test thank theory thing think third
thousand threat three throughout throw thus today together tonight total tough toward town trade
traditional training travel treat treatment tree trial trip trouble true truth try turn type
understand unit usually value various victim view violence visit voice vote wait walk wall want
war watch water way weapon wear week weight well west western whatever whether white whole wide
wife win wind window wish within without woman wonder word work worker world worry write writer
wrong yard yeah yet young yourself
"""
VOCABULARY = _VOCABULARY_TEXT.split()

# Fact templates: (sentence on the page, paraphrase, negated claim). Four unique names fill
# {a} {b} {c} {d}; at most three template content words each, so a claim about one page's fact
# shares under half of its content words with the same template on another page.
TEMPLATES = (
    (
        "{a} {b} founded the {c} {d} guild in {n}.",
        "The {c} {d} guild was started by {a} {b} in {n}.",
        "{a} {b} never founded the {c} {d} guild.",
    ),
    (
        "{a} {b} measured {n} millimetres of rain at {c} {d}.",
        "At {c} {d}, {a} {b} recorded {n} millimetres of rainfall.",
        "{a} {b} did not measure any rain at {c} {d}.",
    ),
    (
        "The {a} {b} ferry links {c} and {d} with {n} crossings.",
        "{n} crossings connect {c} and {d} on the {a} {b} ferry.",
        "The {a} {b} ferry does not link {c} and {d}.",
    ),
    (
        "The {a} {b} library in {c} {d} holds {n} manuscripts.",
        "{c} {d} is home to the {a} {b} library, which keeps {n} manuscripts.",
        "The {a} {b} library in {c} {d} holds no manuscripts.",
    ),
    (
        "{a} {b} sailed from {c} {d} with {n} crew.",
        "With {n} crew aboard, {a} {b} departed {c} {d}.",
        "{a} {b} never sailed from {c} {d}.",
    ),
)
# A fact with a condition: a claim that drops "only" is partial (004, C3).
QUALIFIED = (
    "{a} {b} admitted {c} {d} apprentices only after {n} years.",
    "{a} {b} admitted {c} {d} apprentices after {n} years.",
)
FACTS_PER_PAGE = len(TEMPLATES) + 1  # every template once + the qualified fact
PAGE_WORDS = 2000
# Claim kinds for a primary page that has facts, with weights.
CLAIM_KINDS = (
    ("quote", 30),  # the fact sentence verbatim -> supported
    ("paraphrase", 20),  # same names and number, other words -> supported
    ("wrong_number", 20),  # paraphrase with another number -> contradicted
    ("negated", 5),  # the fact denied -> contradicted
    ("partial", 10),  # the qualified fact without its condition -> partial
    ("absent", 15),  # a fact on no page -> not_found
)


@dataclass(frozen=True)
class Fact:
    values: dict[str, str]
    template: int  # index in TEMPLATES, or -1 for QUALIFIED

    @property
    def sentence(self) -> str:
        fmt = QUALIFIED[0] if self.template < 0 else TEMPLATES[self.template][0]
        return fmt.format(**self.values)

    def claim(self, kind: str, rng: random.Random) -> str:
        if self.template < 0:
            values = dict(self.values)
            if kind == "wrong_number":
                values["n"] = str(int(values["n"]) + rng.randint(2, 9))
            # Without "only", the claim drops the condition: partial.
            fmt = QUALIFIED[1] if kind in ("partial", "wrong_number") else QUALIFIED[0]
            return fmt.format(**values)
        sentence, paraphrase, negated = TEMPLATES[self.template]
        if kind == "quote":
            return sentence.format(**self.values)
        if kind == "negated":
            return negated.format(**self.values)
        values = dict(self.values)
        if kind == "wrong_number":
            values["n"] = str(int(values["n"]) + rng.choice((-1, 1)) * rng.randint(3, 40))
        return paraphrase.format(**values)


@dataclass
class PageSpec:
    url: str
    kind: str  # normal, pdf, http_404, thin_readability, javascript, crawl_520, homepage, soft_404
    page: FakePage | None  # None: never requested (PDF)
    facts: list[Fact] = field(default_factory=list)


@dataclass
class Scenario:
    pages: dict[str, PageSpec]
    requests: list[ClaimRequest]
    seed: int

    @property
    def fake_pages(self) -> dict[str, FakePage]:
        return {url: spec.page for url, spec in self.pages.items() if spec.page is not None}


class _Names:
    """Unique invented proper names (two or three syllables), never a filler word."""

    ONSETS = (
        "b",
        "br",
        "d",
        "dr",
        "f",
        "g",
        "gr",
        "h",
        "k",
        "kr",
        "l",
        "m",
        "n",
        "p",
        "r",
        "s",
        "st",
        "t",
        "tr",
        "v",
        "z",
        "sk",
        "th",
    )
    VOWELS = ("a", "e", "i", "o", "u", "ae", "ei", "ou")
    CODAS = ("n", "r", "l", "s", "th", "k", "nd", "rk", "v", "")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set(VOCABULARY)

    def __call__(self) -> str:
        while True:
            syllables = self.rng.choice((2, 2, 3))
            name = "".join(
                self.rng.choice(self.ONSETS) + self.rng.choice(self.VOWELS)
                for _ in range(syllables)
            ) + self.rng.choice(self.CODAS)
            if name not in self.used and len(name) >= 5:
                self.used.add(name)
                return name.capitalize()


def _sentence(rng: random.Random, words: int) -> str:
    chosen = [rng.choice(VOCABULARY) for _ in range(words)]
    if words > 9 and rng.random() < 0.3:
        chosen[rng.randint(3, words - 4)] += ","
    return " ".join(chosen).capitalize() + "."


def _article(rng: random.Random, facts: Sequence[Fact]) -> str:
    """About PAGE_WORDS words: a title and paragraphs of 90-100 words, the facts spread over
    distinct paragraphs at random sentence positions."""
    title = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(3, 6))).title()
    paragraphs: list[list[str]] = []
    total = 0
    while total < PAGE_WORDS:
        target = rng.randint(90, 100)
        sentences: list[str] = []
        count = 0
        while count < target:
            length = min(rng.randint(8, 18), target - count)
            sentences.append(_sentence(rng, max(length, 3)))
            count += max(length, 3)
        paragraphs.append(sentences)
        total += count
    for fact, index in zip(facts, rng.sample(range(len(paragraphs)), len(facts)), strict=True):
        sentences = paragraphs[index]
        sentences.insert(rng.randint(0, len(sentences)), fact.sentence)
    body = "\n\n".join(" ".join(sentences) for sentences in paragraphs)
    return f"# {title}\n\n{body}\n"


def _make_fact(rng: random.Random, names: _Names, template: int) -> Fact:
    values = {key: names() for key in "abcd"}
    if template == 0:
        values["n"] = str(rng.randint(1620, 1990))
    elif template < 0:
        values["n"] = str(rng.randint(2, 12))
    else:
        values["n"] = str(rng.randint(12, 9800))
    return Fact(values, template)


SPECIAL_KINDS = (
    "pdf",
    "http_404",
    "thin_readability",
    "javascript",
    "crawl_520",
    "homepage",
    "soft_404",
)


def build_scenario(n_claims: int, n_urls: int, seed: int) -> Scenario:
    if n_urls < len(SPECIAL_KINDS) + 1:
        raise SystemExit(f"--urls must be at least {len(SPECIAL_KINDS) + 1}")
    if n_claims * 3 < n_urls:
        raise SystemExit("--claims too small: every URL must be cited (at most 3 URLs per claim)")
    rng = random.Random(seed)
    names = _Names(rng)
    hosts = [f"{names().lower()}.example" for _ in range(12)]

    def url(slug: str) -> str:
        return f"https://{rng.choice(hosts)}/articles/{slug}"

    pages: dict[str, PageSpec] = {}
    kinds = list(SPECIAL_KINDS) + ["normal"] * (n_urls - len(SPECIAL_KINDS))
    for number, kind in enumerate(kinds):
        slug = f"{number:03d}-{names().lower()}"
        facts: list[Fact] = []
        if kind == "pdf":
            address = f"https://{rng.choice(hosts)}/reports/{slug}.pdf"
            pages[address] = PageSpec(address, kind, None)
            continue
        address = url(slug)
        if kind in ("normal", "thin_readability", "javascript", "crawl_520"):
            templates = rng.sample(range(len(TEMPLATES)), FACTS_PER_PAGE - 1)
            facts = [_make_fact(rng, names, t) for t in templates] + [_make_fact(rng, names, -1)]
            rng.shuffle(facts)
            article = _article(rng, facts)
        else:
            article = _article(rng, [])
        if kind == "normal":
            page = FakePage(markdown=article)
        elif kind == "http_404":
            page = FakePage(markdown=NOT_FOUND_MARKDOWN, original_status=404)
        elif kind == "thin_readability":
            # Readability keeps only a teaser; the full markdown has the article (F2).
            page = FakePage(
                markdown="# Weekly digest\n\nSubscribe to read the whole story.\n",
                markdown_full=article,
            )
        elif kind == "javascript":
            # Thin with and without readability; rendered with JavaScript it is complete (F6).
            page = FakePage(
                markdown="# App\n\nPlease enable JavaScript.\n",
                markdown_full="# App\n\nPlease enable JavaScript to continue.\n",
                markdown_js=article,
            )
        elif kind == "crawl_520":
            # The normal crawl fails with HTTP 520; the JavaScript crawl succeeds (F6).
            page = FakePage(markdown=article, fail_normal=True)
        elif kind == "homepage":
            split = urlsplit(address)
            page = FakePage(markdown=article, final_url=f"{split.scheme}://{split.netloc}/")
        elif kind == "soft_404":
            page = FakePage(
                markdown="# Page not found\n\nSorry, the page you were looking for "
                "does not exist.\n"
            )
        else:  # pragma: no cover
            raise AssertionError(kind)
        pages[address] = PageSpec(address, kind, page, facts)

    # Popularity: Zipf-like weights in a random order, so a few URLs are cited very often.
    addresses = list(pages)
    order = addresses[:]
    rng.shuffle(order)
    weight = {address: 1.0 / (rank + 1) ** 0.9 for rank, address in enumerate(order)}

    def pick(exclude: set[str]) -> str:
        candidates = [a for a in addresses if a not in exclude]
        return rng.choices(candidates, [weight[a] for a in candidates])[0]

    duplicates = n_claims // 20
    claims: list[tuple[str, list[str]]] = []
    texts: set[str] = set()
    kinds_list = [kind for kind, _ in CLAIM_KINDS]
    kind_weights = [w for _, w in CLAIM_KINDS]

    def claim_about(primary: str) -> str:
        facts = pages[primary].facts
        kind = rng.choices(kinds_list, kind_weights)[0]
        if not facts or kind == "absent":
            return _make_fact(rng, names, rng.randrange(len(TEMPLATES))).claim("quote", rng)
        if kind == "partial":
            fact = next(f for f in facts if f.template < 0)
        elif kind == "negated":
            fact = rng.choice([f for f in facts if f.template >= 0])
        else:
            fact = rng.choice(facts)
        return fact.claim(kind, rng)

    for _ in range(n_claims - duplicates):
        primary = pick(set())
        cited = [primary]
        for _extra in range(rng.choice((0, 0, 1, 1, 1, 2, 2))):
            cited.append(pick(set(cited)))
        text = claim_about(primary)
        while text in texts:  # distinct claims; repeats are added on purpose below
            text = claim_about(primary)
        texts.add(text)
        claims.append((text, cited))
    # Every URL is cited at least once.
    cited_any = {address for _, cited in claims for address in cited}
    for address in addresses:
        if address not in cited_any:
            room = [cited for _, cited in claims if len(cited) < 3]
            rng.choice(room).append(address)
    # The same claim asserted twice (same URLs, or overlapping URLs): one judge call per pair.
    for number in range(duplicates):
        text, cited = rng.choice(claims[: n_claims - duplicates])
        if number % 2 == 0:
            claims.append((text, list(cited)))
        else:
            other = cited[:1] + ([pick(set(cited))] if len(cited) < 3 else [])
            claims.append((text, other))
    rng.shuffle(claims)
    return Scenario(pages, [ClaimRequest.of(text, cited) for text, cited in claims], seed)


# ---------------------------------------------------------------------------------------------
# What the fetch rules of 000 predict for each page (F1-F7), written independently of the engine
# ---------------------------------------------------------------------------------------------

THIN_CHARS = 200  # F2
SOFT_404_MAX_CHARS = 800  # F5
_SOFT_404_HINT = re.compile(r"(?i)\b404\b|not\s+found|does\s*n[o']t\s+exist|does\s+not\s+exist")


def _visible(text: str) -> int:
    return len("".join(text.split()))


@dataclass(frozen=True)
class Expectation:
    crawls: tuple[tuple[bool, bool], ...]  # (javascript, readability) of each request, in order
    credits: float
    judged_markdown: str | None  # the markdown that goes to retrieval, or None (rule verdict)


def expect(spec: PageSpec) -> Expectation:
    """The requests one fetch sequence makes for a page, its credits, and what gets judged.

    PDF: no request. Each attempt (normal, then JavaScript) crawls with readability; a failed
    crawl (520) escalates at once, unbilled. A 404/410 origin, a landing on "/" or a soft 404
    ends the sequence unjudged. Thin text (< 200 visible chars) is retried without readability
    and, still thin, escalates to JavaScript. A successful crawl costs 1 (JavaScript 2) + 0.5 for
    storage.
    """
    if spec.page is None or urlsplit(spec.url).path.lower().endswith(".pdf"):
        return Expectation((), 0.0, None)
    page = spec.page
    crawls: list[tuple[bool, bool]] = []
    credits = 0.0
    best = ""

    def terminal(body: str, javascript: bool) -> bool:
        final = (page.final_url_js if javascript else page.final_url) or spec.url
        path = urlsplit(spec.url).path.rstrip("/") or "/"
        homepage = path != "/" and (urlsplit(final).path.rstrip("/") or "/") == "/"
        soft = _visible(body) < SOFT_404_MAX_CHARS and bool(_SOFT_404_HINT.search(body))
        return page.original_status in (404, 410) or homepage or soft

    for javascript in (False, True):
        failed = page.fail_js if javascript else page.fail_normal
        crawls.append((javascript, True))
        if failed:
            continue
        credits += (2.0 if javascript else 1.0) + 0.5
        body = page.body_for(javascript, True)
        status = page.cb_status_js if javascript else page.cb_status
        if terminal(body, javascript):
            return Expectation(tuple(crawls), credits, None)
        # A 207 (empty origin page) skips the readability retry on the normal path.
        if _visible(body) < THIN_CHARS and (javascript or status != 207):
            crawls.append((javascript, False))
            credits += (2.0 if javascript else 1.0) + 0.5
            full = page.body_for(javascript, False)
            if terminal(full, javascript):
                return Expectation(tuple(crawls), credits, None)
            if _visible(full) >= _visible(body):
                body = full
        best = max(best, body, key=_visible)
        if _visible(body) >= THIN_CHARS and status == 200:
            return Expectation(tuple(crawls), credits, body)
    return Expectation(tuple(crawls), credits, best if _visible(best) > 0 else None)


@dataclass
class Predicted:
    per_url: dict[str, Expectation]
    crawls: int
    credits: float
    judged_pairs: set[tuple[str, str]]
    embed_groups: list[list[str]]  # claims first, then each judged page's new passages

    @property
    def embed_texts(self) -> int:
        return sum(len(group) for group in self.embed_groups)


def predict(scenario: Scenario) -> Predicted:
    per_url = {url: expect(spec) for url, spec in scenario.pages.items()}
    judged_pairs = {
        (request.claim, url)
        for request in scenario.requests
        for url in request.urls
        if per_url[url].judged_markdown is not None
    }
    seen: set[str] = set()
    groups: list[list[str]] = []
    claims = list(dict.fromkeys(request.claim for request in scenario.requests))
    groups.append(claims)
    seen.update(claims)
    for expectation in per_url.values():
        if expectation.judged_markdown is None:
            continue
        fresh = [
            p for p in dict.fromkeys(split_passages(expectation.judged_markdown)) if p not in seen
        ]
        seen.update(fresh)
        groups.append(fresh)
    return Predicted(
        per_url,
        sum(len(e.crawls) for e in per_url.values()),
        sum(e.credits for e in per_url.values()),
        judged_pairs,
        groups,
    )


# ---------------------------------------------------------------------------------------------
# Emulators, in a child process (default) or in threads of this process
# ---------------------------------------------------------------------------------------------


def _schema_name(body: dict[str, Any]) -> str:
    response_format = body.get("response_format") or {}
    return str((response_format.get("json_schema") or {}).get("name", ""))


def _emulator_stats(cb: CrawlbaseEmulator, judge: JudgeEmulator) -> dict[str, Any]:
    calls = judge.calls
    bodies = Counter(json.dumps(call.body, sort_keys=True) for call in calls)
    return {
        "crawl": cb.crawl_count,
        "storage": cb.storage_count,
        "judge": len(calls),
        # Joint-support checks (004, C2) use their own schema; the rest are per citation.
        "judge_joint": sum(1 for call in calls if _schema_name(call.body) == "joint_verdict"),
        "judge_duplicates": sum(count - 1 for count in bodies.values()),
        "credits": cb.credits,
        "per_url": dict(Counter(record.target_url for record in cb.requests)),
        "crawl_max_in_flight": cb.max_in_flight,
        "judge_max_in_flight": judge.max_in_flight,
        "judge_tokens": judge.tokens["total"],
    }


def _serve_emulators(conn: Any, pages: dict[str, FakePage], latency: float) -> None:
    """Child process: serve both emulators until told to stop; answer "stats" requests."""
    with (
        CrawlbaseEmulator(CRAWL_TOKEN, JS_TOKEN, latency=latency, default_page=pages.get) as cb,
        JudgeEmulator(OPENAI_KEY, latency=latency) as judge,
    ):
        conn.send((cb.url, judge.openai_base_url))
        while True:
            command = conn.recv()
            if command == "stats":
                conn.send(_emulator_stats(cb, judge))
            else:
                break


class Emulators:
    """Fresh emulators for one run. ``mode="process"`` keeps their Python work (HTTP parsing,
    the judge oracle) and their memory out of the measured process, as remote services are."""

    def __init__(self, pages: dict[str, FakePage], latency: float, mode: str) -> None:
        self.pages, self.latency, self.mode = pages, latency, mode
        self.crawl_url = self.openai_base_url = ""

    def __enter__(self) -> Emulators:
        if self.mode == "process":
            context = multiprocessing.get_context("spawn")
            self._conn, child = context.Pipe()
            self._process = context.Process(
                target=_serve_emulators, args=(child, self.pages, self.latency), daemon=True
            )
            self._process.start()
            child.close()
            self.crawl_url, self.openai_base_url = self._conn.recv()
        else:
            self._cb = CrawlbaseEmulator(
                CRAWL_TOKEN, JS_TOKEN, latency=self.latency, default_page=self.pages.get
            ).start()
            self._judge = JudgeEmulator(OPENAI_KEY, latency=self.latency).start()
            self.crawl_url, self.openai_base_url = self._cb.url, self._judge.openai_base_url
        return self

    def stats(self) -> dict[str, Any]:
        if self.mode == "process":
            self._conn.send("stats")
            stats: dict[str, Any] = self._conn.recv()
            return stats
        return _emulator_stats(self._cb, self._judge)

    def __exit__(self, *exc: object) -> None:
        if self.mode == "process":
            self._conn.send("stop")
            self._process.join(timeout=10)
            self._conn.close()
        else:
            self._cb.stop()
            self._judge.stop()


# ---------------------------------------------------------------------------------------------
# Instrumentation (no change to the engine's code paths)
# ---------------------------------------------------------------------------------------------


class TimedEmbedder:
    """Wraps the embedder the engine would build itself; records each model call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[float, float, list[str]]] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        start = time.perf_counter()
        vectors = self.inner.embed(texts)
        self.calls.append((start, time.perf_counter(), list(texts)))
        return vectors


def _cpu_seconds() -> float:
    """CPU time of this process (every thread; not the emulators' child process)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _maxrss_mib() -> float:
    # Linux reports KiB, macOS bytes.
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def settings_for(emulators: Emulators, concurrency: int, embedding_model: str) -> Settings:
    return Settings(
        secrets={
            "CRAWLBASE_TOKEN": Secret(CRAWL_TOKEN, "CRAWLBASE_TOKEN"),
            "CRAWLBASE_JS_TOKEN": Secret(JS_TOKEN, "CRAWLBASE_JS_TOKEN"),
            "OPENAI_API_KEY": Secret(OPENAI_KEY, "OPENAI_API_KEY"),
        },
        endpoints={
            "CRAWLBASE_API_URL": emulators.crawl_url,
            "OPENAI_BASE_URL": emulators.openai_base_url,
        },
        judge_provider="openai",
        concurrency=concurrency,
        embedding_model=embedding_model,
        embedding_cache_dir=None,
    )


@dataclass
class RunResult:
    concurrency: int
    wall: float
    emulator: dict[str, Any]
    usage: dict[str, Any]
    verdicts: list[ClaimVerdict]
    embed_calls: list[tuple[float, float, list[str]]]
    http_events: list[tuple[str, float, float]]
    tracemalloc_peak: float | None
    maxrss: float
    cpu: float


async def _verify(
    settings: Settings,
    requests: list[ClaimRequest],
    embedder: TimedEmbedder,
    events: list[tuple[str, float, float]],
) -> tuple[list[ClaimVerdict], Any, float]:
    http = make_http_client(settings)  # the client the Verifier would make, plus timing hooks

    async def on_request(request: httpx.Request) -> None:
        request.extensions["bench_start"] = time.perf_counter()

    async def on_response(response: httpx.Response) -> None:
        request = response.request
        kind = (
            "judge"
            if request.method == "POST"
            else "storage"
            if request.url.path.rstrip("/").endswith("storage")
            else "crawl"
        )
        events.append((kind, request.extensions.get("bench_start", 0.0), time.perf_counter()))

    http.event_hooks = {"request": [on_request], "response": [on_response]}
    start = time.perf_counter()
    try:
        async with Verifier(settings, embedder=embedder, http=http) as verifier:
            verdicts = await verifier.verify_many(requests)
            usage = verifier.usage
        wall = time.perf_counter() - start
    finally:
        await http.aclose()
    return verdicts, usage, wall


def run_once(
    scenario: Scenario,
    concurrency: int,
    latency: float,
    embedding_model: str,
    mode: str,
    trace: bool,
) -> RunResult:
    with Emulators(scenario.fake_pages, latency, mode) as emulators:
        settings = settings_for(emulators, concurrency, embedding_model)
        embedder = TimedEmbedder(make_embedder(embedding_model))
        events: list[tuple[str, float, float]] = []
        gc.collect()
        if trace:
            tracemalloc.start()
        cpu = _cpu_seconds()
        verdicts, usage, wall = asyncio.run(_verify(settings, scenario.requests, embedder, events))
        cpu = _cpu_seconds() - cpu
        peak = None
        if trace:
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        stats = emulators.stats()
    # Relative times: the first event of the run is the Verifier start.
    origin = min([call[0] for call in embedder.calls] + [e[1] for e in events] or [0.0])
    return RunResult(
        concurrency,
        wall,
        stats,
        usage.to_dict(),
        verdicts,
        [(s - origin, e - origin, texts) for s, e, texts in embedder.calls],
        [(kind, s - origin, e - origin) for kind, s, e in events],
        peak,
        _maxrss_mib(),
        cpu,
    )


def embed_alone(groups: list[list[str]], embedding_model: str) -> tuple[float, float]:
    """Embed the same texts in the same batches with a fresh embedder instance (model
    loaded); returns (wall seconds, CPU seconds)."""
    embedder = make_embedder(embedding_model)
    gc.collect()
    cpu = _cpu_seconds()
    start = time.perf_counter()
    for group in groups:
        if group:
            embedder.embed(group)
    return time.perf_counter() - start, _cpu_seconds() - cpu


def warm_model(embedding_model: str, seed: int) -> float:
    """Load the model and run it once on passage-sized texts outside the measured set."""
    rng = random.Random(seed + 1)
    texts = [" ".join(rng.choice(VOCABULARY) for _ in range(200)) for _ in range(8)]
    start = time.perf_counter()
    make_embedder(embedding_model).embed(texts)
    return time.perf_counter() - start


# ---------------------------------------------------------------------------------------------
# Figures and report
# ---------------------------------------------------------------------------------------------


def figures(
    run: RunResult, predicted: Predicted, embed_seconds: float, embed_cpu: float, latency: float
) -> dict[str, Any]:
    n = run.concurrency
    citations = [(claim.claim, v) for claim in run.verdicts for v in claim.citations]
    judged_pairs = {(text, v.url) for text, v in citations if v.reason not in NOT_JUDGED_REASONS}
    # 004, C2: a claim that no single citation supports or contradicts, with two or more
    # judged citations, gets one joint check over all their passages.
    joint_checks: set[tuple[str, frozenset[Any]]] = set()
    joint_ordered: set[tuple[str, tuple[Any, ...]]] = set()
    for claim in run.verdicts:
        evidence = tuple(getattr(claim, "evidence", ()))
        if len(evidence) >= 2 and aggregate_verdicts(claim.citations) not in (
            Label.SUPPORTED,
            Label.CONTRADICTED,
        ):
            joint_checks.add((claim.claim, frozenset(evidence)))
            joint_ordered.add((claim.claim, evidence))
    labels = Counter(v.label.value for _, v in citations)
    claim_labels = Counter(claim.label.value for claim in run.verdicts)
    stats = run.emulator
    fetch_requests = stats["crawl"] + stats["storage"]
    single_calls = stats["judge"] - stats["judge_joint"]
    latency_bound = (math.ceil(fetch_requests / n) + math.ceil(stats["judge"] / n)) * latency
    ideal = latency_bound + embed_seconds
    per_url_expected = {u: len(e.crawls) for u, e in predicted.per_url.items() if e.crawls}
    per_url_diff = {
        url: (stats["per_url"].get(url, 0), per_url_expected.get(url, 0))
        for url in set(stats["per_url"]) | set(per_url_expected)
        if stats["per_url"].get(url, 0) != per_url_expected.get(url, 0)
    }
    embedded = [text for _, _, texts in run.embed_calls for text in texts]
    expected_texts = {text for group in predicted.embed_groups for text in group}
    crawl_events = [e for e in run.http_events if e[0] == "crawl"]
    judge_events = [e for e in run.http_events if e[0] == "judge"]
    embed_calls = run.embed_calls
    checks = {
        "fetches": stats["crawl"] == predicted.crawls and not per_url_diff,
        "judge_calls": single_calls == len(judged_pairs)
        and stats["judge_joint"] == len(joint_checks)
        and stats["judge_duplicates"] == 0,
        "wall": run.wall <= WALL_FACTOR * ideal,
    }
    return {
        "concurrency": n,
        "crawl_requests": stats["crawl"],
        "expected_crawl_requests": predicted.crawls,
        "per_url_mismatches": {u: {"made": a, "expected": b} for u, (a, b) in per_url_diff.items()},
        "storage_requests": stats["storage"],
        "judge_requests": stats["judge"],
        "judge_requests_per_citation": single_calls,
        "judge_requests_joint": stats["judge_joint"],
        "judge_requests_duplicate": stats["judge_duplicates"],
        "expected_joint_checks": len(joint_checks),
        "joint_checks_by_evidence_order": len(joint_ordered),
        "credits": stats["credits"],
        "engine_credits": run.usage["credits"],
        "expected_credits": predicted.credits,
        "engine_judge_calls": run.usage["judge_calls"],
        "judged_pairs": len(judged_pairs),
        "expected_judged_pairs": len(predicted.judged_pairs),
        "citations": len(citations),
        "distinct_urls": len({v.url for _, v in citations}),
        "citation_labels": dict(labels),
        "claim_labels": dict(claim_labels),
        "judge_tokens": stats["judge_tokens"],
        "max_in_flight": {
            "crawl": stats["crawl_max_in_flight"],
            "judge": stats["judge_max_in_flight"],
        },
        "embedded_texts": len(embedded),
        "distinct_embedded_texts": len(set(embedded)),
        "embedded_texts_as_predicted": set(embedded) == expected_texts,
        "wall_s": run.wall,
        "ideal_s": ideal,
        "latency_bound_s": latency_bound,
        "embedding_alone_s": embed_seconds,
        "ratio": run.wall / ideal,
        "cpu_s": run.cpu,
        "embedding_alone_cpu_s": embed_cpu,
        "tracemalloc_peak_mib": run.tracemalloc_peak,
        "maxrss_mib": run.maxrss,
        "timeline_s": {
            "claims_embedded": embed_calls[0][1] if embed_calls else None,
            "first_crawl_start": min((e[1] for e in crawl_events), default=None),
            "last_crawl_end": max((e[2] for e in crawl_events), default=None),
            "embed_busy": sum(e - s for s, e, _ in embed_calls),
            "embed_calls": len(embed_calls),
            "last_embed_end": max((e for _, e, _ in embed_calls), default=None),
            "first_judge_start": min((e[1] for e in judge_events), default=None),
            "last_judge_end": max((e[2] for e in judge_events), default=None),
        },
        "checks": checks,
        "pass": all(checks.values()),
    }


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def print_report(header: list[str], results: list[dict[str, Any]]) -> None:
    for line in header:
        print(line)
    print()
    label_order = ("supported", "partial", "contradicted", "not_found", "unreachable")
    rows: list[tuple[str, list[str], str]] = [
        (
            "crawl requests",
            [_fmt(r["crawl_requests"]) for r in results],
            f"expected {results[0]['expected_crawl_requests']}",
        ),
        ("storage requests", [_fmt(r["storage_requests"]) for r in results], ""),
        ("judge requests", [_fmt(r["judge_requests"]) for r in results], "judge emulator"),
        (
            "  per citation",
            [_fmt(r["judge_requests_per_citation"]) for r in results],
            f"expected {results[0]['expected_judged_pairs']} (claim-URL pairs)",
        ),
        (
            "  joint checks (C2)",
            [_fmt(r["judge_requests_joint"]) for r in results],
            "expected "
            + "/".join(_fmt(r["expected_joint_checks"]) for r in results)
            + " (claim, judged URL set)",
        ),
        (
            "  identical repeats",
            [_fmt(r["judge_requests_duplicate"]) for r in results],
            "expected 0",
        ),
        (
            "credits",
            [_fmt(r["credits"]) for r in results],
            f"expected {_fmt(results[0]['expected_credits'])}; engine counted "
            + "/".join(_fmt(r["engine_credits"]) for r in results),
        ),
        (
            "judge calls (engine)",
            [_fmt(r["engine_judge_calls"]) for r in results],
            "the engine's own count",
        ),
        (
            "claim-URL pairs judged",
            [_fmt(r["judged_pairs"]) for r in results],
            f"expected {results[0]['expected_judged_pairs']} "
            f"of {results[0]['citations']} citations",
        ),
        ("distinct URLs", [_fmt(r["distinct_urls"]) for r in results], ""),
        (
            "max in flight crawl/judge",
            [f"{r['max_in_flight']['crawl']}/{r['max_in_flight']['judge']}" for r in results],
            "",
        ),
        (
            "citations s/p/c/nf/u",
            ["/".join(str(r["citation_labels"].get(k, 0)) for k in label_order) for r in results],
            "",
        ),
        (
            "texts embedded",
            [_fmt(r["embedded_texts"]) for r in results],
            "distinct, as predicted"
            if all(
                r["embedded_texts"] == r["distinct_embedded_texts"]
                and r["embedded_texts_as_predicted"]
                for r in results
            )
            else "MISMATCH with prediction",
        ),
        ("wall time (s)", [_fmt(r["wall_s"]) for r in results], ""),
        ("ideal (s)", [_fmt(r["ideal_s"]) for r in results], "latency bound + embedding alone"),
        ("  latency bound (s)", [_fmt(r["latency_bound_s"]) for r in results], ""),
        ("  embedding alone (s)", [_fmt(r["embedding_alone_s"]) for r in results], ""),
        ("wall / ideal", [_fmt(r["ratio"], 2) for r in results], f"limit {WALL_FACTOR}"),
        ("CPU time in run (s)", [_fmt(r["cpu_s"]) for r in results], "this process, all threads"),
        ("CPU embedding alone (s)", [_fmt(r["embedding_alone_cpu_s"]) for r in results], ""),
        (
            "embed busy in run (s)",
            [_fmt(r["timeline_s"]["embed_busy"]) for r in results],
            "model time inside the run",
        ),
        ("last crawl done at (s)", [_fmt(r["timeline_s"]["last_crawl_end"]) for r in results], ""),
        ("last embed done at (s)", [_fmt(r["timeline_s"]["last_embed_end"]) for r in results], ""),
        ("last judge done at (s)", [_fmt(r["timeline_s"]["last_judge_end"]) for r in results], ""),
        (
            "tracemalloc peak (MiB)",
            [_fmt(r["tracemalloc_peak_mib"]) for r in results],
            "Python allocations, separate traced run"
            + (
                ""
                if all(r.get("traced_run_same_requests", True) for r in results)
                else " (its requests DIFFER)"
            ),
        ),
        (
            "maxrss (MiB)",
            [_fmt(r["maxrss_mib"], 0) for r in results],
            "process peak after the timed run (model included)",
        ),
    ]
    checks = (
        ("fetches", "fetches = expected"),
        ("judge_calls", "judge calls = pairs + joint"),
        ("wall", f"wall <= {WALL_FACTOR} x ideal"),
    )
    for key, title in checks:
        rows.append((title, ["PASS" if r["checks"][key] else "FAIL" for r in results], ""))
    rows.append(("RESULT", ["PASS" if r["pass"] else "FAIL" for r in results], ""))
    width = max(len(name) for name, _, _ in rows)
    columns = [f"N={r['concurrency']}" for r in results]
    cell = max([len(c) for c in columns] + [len(v) for _, values, _ in rows for v in values]) + 2
    print(" " * width + "".join(c.rjust(cell) for c in columns))
    for name, values, note in rows:
        print(
            name.ljust(width)
            + "".join(v.rjust(cell) for v in values)
            + (f"   {note}" if note else "")
        )
    for r in results:
        for url, counts in r["per_url_mismatches"].items():
            print(
                f"  N={r['concurrency']}: {url}: {counts['made']} crawls, "
                f"expected {counts['expected']}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--claims", type=int, default=200)
    parser.add_argument("--urls", type=int, default=60)
    parser.add_argument(
        "--latency",
        type=float,
        default=0.2,
        help="seconds before every fetch and judge answer (default 0.2)",
    )
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), default="minilm")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument(
        "--emulators",
        choices=("process", "thread"),
        default="process",
        help="run the emulators in a child process (default) or in threads",
    )
    parser.add_argument(
        "--no-tracemalloc",
        action="store_true",
        help="skip the extra traced run per limit that measures the tracemalloc peak",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.concurrency):
        parser.error("concurrency limits must be at least 1")
    model = EMBEDDERS[args.embedder]
    trace = not args.no_tracemalloc

    scenario = build_scenario(args.claims, args.urls, args.seed)
    predicted = predict(scenario)
    kinds = Counter(spec.kind for spec in scenario.pages.values())
    words = [
        len(spec.page.markdown.split())
        for spec in scenario.pages.values()
        if spec.kind == "normal" and spec.page is not None
    ]
    citations = sum(len(r.urls) for r in scenario.requests)
    sharing = Counter(url for r in scenario.requests for url in r.urls)

    load = warm_model(model, args.seed)  # excluded from every figure below
    load_before = os.getloadavg()[0]
    rss_before = _maxrss_mib()

    # The embedding time alone is measured before and after each run and averaged, so that
    # a drift in machine load (a shared CI box) hits the run and its ideal alike.
    results = []
    runs = []
    before = embed_alone(predicted.embed_groups, model)
    print(f"... embedding alone: {before[0]:.1f} s", file=sys.stderr, flush=True)
    for n in args.concurrency:
        run = run_once(scenario, n, args.latency, model, args.emulators, trace=False)
        runs.append(run)
        print(f"... N={n}: {run.wall:.1f} s", file=sys.stderr, flush=True)
        after = embed_alone(predicted.embed_groups, model)
        print(f"... embedding alone: {after[0]:.1f} s", file=sys.stderr, flush=True)
        embed_seconds = (before[0] + after[0]) / 2
        embed_cpu = (before[1] + after[1]) / 2
        result = figures(run, predicted, embed_seconds, embed_cpu, args.latency)
        result["embedding_alone_before_after_s"] = [before[0], after[0]]
        results.append(result)
        before = after
    # tracemalloc slows allocation-heavy Python (the HTTP stack) about fourfold, which on two
    # cores also slows the model: the Python peak comes from a separate, untimed run.
    if trace:
        for run, result in zip(runs, results, strict=True):
            traced = run_once(
                scenario, run.concurrency, args.latency, model, args.emulators, trace=True
            )
            print(
                f"... N={run.concurrency} traced: {traced.wall:.1f} s", file=sys.stderr, flush=True
            )
            result["tracemalloc_peak_mib"] = traced.tracemalloc_peak
            result["traced_run_wall_s"] = traced.wall
            result["traced_run_same_requests"] = all(
                traced.emulator[key] == run.emulator[key] for key in ("crawl", "judge", "per_url")
            )

    header = [
        f"pytest-citations engine benchmark ({platform.python_version()}, "
        f"{multiprocessing.cpu_count()} CPUs, embedder {args.embedder}, emulators in "
        f"{args.emulators})",
        f"scenario: {len(scenario.requests)} claims ({len({r.claim for r in scenario.requests})}"
        f" distinct), {citations} citations, {len(scenario.pages)} URLs "
        f"({kinds['normal']} normal ~{sum(words) // max(len(words), 1)} words; "
        + ", ".join(f"{k} {kinds[k]}" for k in SPECIAL_KINDS if kinds[k])
        + ")",
        f"URL sharing: most cited URL {max(sharing.values())} claims, "
        f"{sum(1 for c in sharing.values() if c >= 10)} URLs cited by 10+ claims, "
        f"{sum(1 for c in sharing.values() if c == 1)} by one claim",
        f"latency {args.latency:.3f} s per fetch and per judge call; model load+warm-up "
        f"{load:.1f} s (excluded); embedding alone: {predicted.embed_texts} texts "
        f"({predicted.embed_texts - len(predicted.embed_groups[0])} passages + "
        f"{len(predicted.embed_groups[0])} claims), mean of before and after each run; "
        f"maxrss before runs {rss_before:.0f} MiB; load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after",
    ]
    print_report(header, results)
    ok = all(r["pass"] for r in results)
    if args.json is not None:
        payload = {
            "python": platform.python_version(),
            "cpus": multiprocessing.cpu_count(),
            "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "scenario": {
                "claims": len(scenario.requests),
                "distinct_claims": len({r.claim for r in scenario.requests}),
                "citations": citations,
                "urls": len(scenario.pages),
                "page_kinds": dict(kinds),
                "expected_crawl_requests": predicted.crawls,
                "expected_credits": predicted.credits,
                "expected_judged_pairs": len(predicted.judged_pairs),
                "embedding_texts": predicted.embed_texts,
            },
            "model_load_s": load,
            "load_average_before": load_before,
            "load_average_after": list(os.getloadavg()),
            "runs": results,
            "pass": ok,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
