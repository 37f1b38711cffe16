"""The benchmark's prose: a filler vocabulary, invented names, fact templates and articles.

Everything here draws from the ``random.Random`` it is given, in a fixed order, so a seed
gives the same words (``scenario`` decides which pages and claims use them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Fact:
    """One factual sentence of a page: a template filled with names and a number."""

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


class Names:
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


def article(rng: random.Random, facts: Sequence[Fact]) -> str:
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


def make_fact(rng: random.Random, names: Names, template: int) -> Fact:
    values = {key: names() for key in "abcd"}
    if template == 0:
        values["n"] = str(rng.randint(1620, 1990))
    elif template < 0:
        values["n"] = str(rng.randint(2, 12))
    else:
        values["n"] = str(rng.randint(12, 9800))
    return Fact(values, template)
