"""The deterministic world of one benchmark: pages the Crawlbase emulator serves and the
claims that cite them, all drawn from ``--seed``.

The random draws happen in a fixed order (hosts, then each page, then popularity, claims,
the citations that make every URL cited, repeated claims, the final shuffle), so a seed
always gives the same pages and claims.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pytest_citations import ClaimRequest
from pytest_citations.sandbox import NOT_FOUND_MARKDOWN, FakePage

from .prose import FACTS_PER_PAGE, TEMPLATES, Fact, Names, article, make_fact

#: One URL of each kind that tests a fetch rule; every other URL is a normal article.
SPECIAL_KINDS = (
    "pdf",
    "http_404",
    "thin_readability",
    "javascript",
    "crawl_520",
    "homepage",
    "soft_404",
)
#: Kinds whose page holds the article with its facts (the others are never judged).
FACT_KINDS = ("normal", "thin_readability", "javascript", "crawl_520")
HOSTS = 12
# Claim kinds for a primary page that has facts, with weights.
CLAIM_KINDS = (
    ("quote", 30),  # the fact sentence verbatim -> supported
    ("paraphrase", 20),  # same names and number, other words -> supported
    ("wrong_number", 20),  # paraphrase with another number -> contradicted
    ("negated", 5),  # the fact denied -> contradicted
    ("partial", 10),  # the qualified fact without its condition -> partial
    ("absent", 15),  # a fact on no page -> not_found
)
_CLAIM_KIND_NAMES = [kind for kind, _ in CLAIM_KINDS]
_CLAIM_KIND_WEIGHTS = [weight for _, weight in CLAIM_KINDS]


@dataclass
class PageSpec:
    """One cited URL: its kind and what the emulator answers for it."""

    url: str
    kind: str  # normal, pdf, http_404, thin_readability, javascript, crawl_520, homepage, soft_404
    page: FakePage | None  # None: never requested (PDF)
    facts: list[Fact] = field(default_factory=list)


@dataclass
class Scenario:
    """The pages by URL and the claims to verify, in the order ``verify_many`` gets them."""

    pages: dict[str, PageSpec]
    requests: list[ClaimRequest]
    seed: int

    @property
    def fake_pages(self) -> dict[str, FakePage]:
        return {url: spec.page for url, spec in self.pages.items() if spec.page is not None}


def fake_page(kind: str, address: str, text: str) -> FakePage:
    """What the Crawlbase emulator serves for a URL of ``kind`` whose article is ``text``."""
    if kind == "normal":
        return FakePage(markdown=text)
    if kind == "http_404":
        return FakePage(markdown=NOT_FOUND_MARKDOWN, original_status=404)
    if kind == "thin_readability":
        # Readability keeps only a teaser; the full markdown has the article (F2).
        return FakePage(
            markdown="# Weekly digest\n\nSubscribe to read the whole story.\n",
            markdown_full=text,
        )
    if kind == "javascript":
        # Thin with and without readability; rendered with JavaScript it is complete (F6).
        return FakePage(
            markdown="# App\n\nPlease enable JavaScript.\n",
            markdown_full="# App\n\nPlease enable JavaScript to continue.\n",
            markdown_js=text,
        )
    if kind == "crawl_520":
        # The normal crawl fails with HTTP 520; the JavaScript crawl succeeds (F6).
        return FakePage(markdown=text, fail_normal=True)
    if kind == "homepage":
        split = urlsplit(address)
        return FakePage(markdown=text, final_url=f"{split.scheme}://{split.netloc}/")
    if kind == "soft_404":
        return FakePage(
            markdown="# Page not found\n\nSorry, the page you were looking for does not exist.\n"
        )
    raise AssertionError(kind)  # pragma: no cover


class _Builder:
    """Draws the pages, then the claims, from one random generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names = Names(self.rng)
        self.hosts = [f"{self.names().lower()}.example" for _ in range(HOSTS)]
        self.pages: dict[str, PageSpec] = {}
        self.weight: dict[str, float] = {}

    def add_page(self, number: int, kind: str) -> None:
        slug = f"{number:03d}-{self.names().lower()}"
        if kind == "pdf":
            address = f"https://{self.rng.choice(self.hosts)}/reports/{slug}.pdf"
            self.pages[address] = PageSpec(address, kind, None)
            return
        address = f"https://{self.rng.choice(self.hosts)}/articles/{slug}"
        facts: list[Fact] = []
        if kind in FACT_KINDS:
            templates = self.rng.sample(range(len(TEMPLATES)), FACTS_PER_PAGE - 1)
            facts = [make_fact(self.rng, self.names, t) for t in templates]
            facts.append(make_fact(self.rng, self.names, -1))
            self.rng.shuffle(facts)
        text = article(self.rng, facts)
        self.pages[address] = PageSpec(address, kind, fake_page(kind, address, text), facts)

    def weigh(self) -> None:
        """Popularity: Zipf-like weights in a random order, so a few URLs are cited very often."""
        order = list(self.pages)
        self.rng.shuffle(order)
        self.weight = {address: 1.0 / (rank + 1) ** 0.9 for rank, address in enumerate(order)}

    def pick(self, exclude: set[str]) -> str:
        candidates = [a for a in self.pages if a not in exclude]
        return self.rng.choices(candidates, [self.weight[a] for a in candidates])[0]

    def claim_about(self, primary: str) -> str:
        facts = self.pages[primary].facts
        kind = self.rng.choices(_CLAIM_KIND_NAMES, _CLAIM_KIND_WEIGHTS)[0]
        if not facts or kind == "absent":
            template = self.rng.randrange(len(TEMPLATES))
            return make_fact(self.rng, self.names, template).claim("quote", self.rng)
        if kind == "partial":
            fact = next(f for f in facts if f.template < 0)
        elif kind == "negated":
            fact = self.rng.choice([f for f in facts if f.template >= 0])
        else:
            fact = self.rng.choice(facts)
        return fact.claim(kind, self.rng)

    def distinct_claims(self, count: int) -> list[tuple[str, list[str]]]:
        """``count`` distinct claims, each citing 1-3 URLs, the first about its page."""
        claims: list[tuple[str, list[str]]] = []
        texts: set[str] = set()
        for _ in range(count):
            primary = self.pick(set())
            cited = [primary]
            for _extra in range(self.rng.choice((0, 0, 1, 1, 1, 2, 2))):
                cited.append(self.pick(set(cited)))
            text = self.claim_about(primary)
            while text in texts:  # distinct claims; repeats are added on purpose later
                text = self.claim_about(primary)
            texts.add(text)
            claims.append((text, cited))
        # Every URL is cited at least once.
        cited_any = {address for _, cited in claims for address in cited}
        for address in self.pages:
            if address not in cited_any:
                room = [cited for _, cited in claims if len(cited) < 3]
                self.rng.choice(room).append(address)
        return claims

    def repeat(self, claims: list[tuple[str, list[str]]], count: int) -> None:
        """The same claim asserted twice (same URLs, or overlapping URLs): one judge call per
        pair."""
        originals = claims[:]
        for number in range(count):
            text, cited = self.rng.choice(originals)
            if number % 2 == 0:
                claims.append((text, list(cited)))
            else:
                other = cited[:1] + ([self.pick(set(cited))] if len(cited) < 3 else [])
                claims.append((text, other))


def build_scenario(n_claims: int, n_urls: int, seed: int) -> Scenario:
    """``n_claims`` claims (one in 20 a repeat) citing ``n_urls`` URLs, from ``seed``."""
    if n_urls < len(SPECIAL_KINDS) + 1:
        raise SystemExit(f"--urls must be at least {len(SPECIAL_KINDS) + 1}")
    if n_claims * 3 < n_urls:
        raise SystemExit("--claims too small: every URL must be cited (at most 3 URLs per claim)")
    builder = _Builder(seed)
    kinds = list(SPECIAL_KINDS) + ["normal"] * (n_urls - len(SPECIAL_KINDS))
    for number, kind in enumerate(kinds):
        builder.add_page(number, kind)
    builder.weigh()
    duplicates = n_claims // 20
    claims = builder.distinct_claims(n_claims - duplicates)
    builder.repeat(claims, duplicates)
    builder.rng.shuffle(claims)
    requests = [ClaimRequest.of(text, cited) for text, cited in claims]
    return Scenario(builder.pages, requests, seed)
