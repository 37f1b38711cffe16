"""Every provider's answers through ``pytest-citations import`` (issue 26): a real Gemini
answer and a real Perplexity Agent API answer gated end to end (import, record against the
local emulators, the grounding redirects followed to their pages, replay offline), the
formats named on ``--help``, and the warnings of a record printed with its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from ops_support import base_env, emulators, run_cli, run_pytest

from pytest_citations.importing import FORMATS
from pytest_citations.sandbox import FakePage

REAL = Path(__file__).resolve().parents[1] / "data" / "answers" / "real"
#: A real generateContent response with Google Search grounding (google-gemini/cookbook).
GEMINI = REAL / "gemini_generate_content_search.json"
#: Where the emulated grounding redirects lead (the ``url`` header of the crawl, F4).
FINAL = {
    "tradingview.com": "https://www.tradingview.com/symbols/NASDAQ-GOOG/",
    "angelone.in": "https://www.angelone.in/stocks/alphabet-inc-class-a-share-price",
}
PAGES = {
    "tradingview.com": """\
# Alphabet Inc. Class C (GOOG)

GOOG (Alphabet Inc Class C) traded at $187.07 on February 12, 2025, after the company's
fourth-quarter report.

Alphabet is the parent company of Google; its Class C shares carry no voting rights. They
were created in the 2014 stock split, which gave every holder of a Class A share one Class C
share as well, so that the founders kept control of the company.
""",
    "angelone.in": """\
# Alphabet Inc Class A share price

GOOGL (Alphabet Inc Class A) traded at $185.37 on February 12, 2025.

Class A shares carry one vote each and are listed on the Nasdaq under the symbol GOOGL.
Alphabet also has Class B shares, held by the founders and insiders, which carry ten votes
each and are not traded on any exchange.
""",
}


def gemini_record() -> dict[str, object]:
    """The cookbook's response, in the wrapper an application logs it in (the question is
    the one the cookbook asked)."""
    response = json.loads(GEMINI.read_text(encoding="utf-8"))
    return {
        "id": "google-stock-price",
        "question": "What is the current Google stock price?",
        "response": response,
    }


def test_a_gemini_answer_is_imported_recorded_through_its_redirects_and_replayed(
    tmp_path: Path,
) -> None:
    (tmp_path / "answers.jsonl").write_text(json.dumps(gemini_record()) + "\n", "utf-8")
    imported = run_cli("import", "answers.jsonl", env=base_env(tmp_path), cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "Detected format: gemini (1 record)" in imported.stdout
    case_file = tmp_path / "cases" / "imported" / "google-stock-price.yaml"
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    # The case file keeps the citation the answer made: the grounding redirect.
    redirects = case["citations"]
    assert all("/grounding-api-redirect/" in url for url in redirects.values())
    assert [(c["text"], c["cites"]) for c in case["claims"]] == [
        ("GOOG (Alphabet Inc Class C): $187.07", [1]),
        ("GOOGL (Alphabet Inc Class A): $185.37", [2]),
    ]
    titles = {1: "tradingview.com", 2: "angelone.in"}

    gate = ("cases/imported", "--citations-fail-on=contradicted,not_found,unreachable")
    with emulators(tmp_path) as web:
        for marker, url in redirects.items():
            site = titles[marker]
            web.crawlbase.pages[url] = FakePage(markdown=PAGES[site], final_url=FINAL[site])
        recorded = run_pytest(
            tmp_path,
            *gate,
            "--citations-record=new_episodes",
            "--citations-report=recorded.json",
            env=web.env,
        )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "3 passed" in recorded.stdout  # two claims and their case
    # What was crawled is the redirect the answer cited (F2's retries ask for it again).
    assert {r.target_url for r in web.crawlbase.requests} == set(redirects.values())

    # Offline: no emulator, no token; the cassette replays both pages.
    replayed = run_pytest(
        tmp_path, *gate, "--citations-report=replayed.json", env=base_env(tmp_path)
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "3 passed" in replayed.stdout
    assert "request_refused" not in replayed.stdout
    for name in ("recorded.json", "replayed.json"):
        report = json.loads((tmp_path / name).read_text(encoding="utf-8"))
        citations = [
            citation
            for case_report in report["cases"]
            for claim in case_report["claims"]
            for citation in claim["citations"]
        ]
        # Both shown: the redirect the answer cited, and the page it led to.
        assert sorted((c["url"], c["final_url"]) for c in citations) == sorted(
            (redirects[marker], FINAL[titles[marker]]) for marker in redirects
        )
        assert {c["label"] for c in citations} == {"supported"}


#: A real Agent API response recorded by the AI SDK (vercel/ai), and the prompt its
#: fixtures' README says it answered.
PERPLEXITY_AGENT = REAL / "perplexity_agent_web_search.json"
PERPLEXITY_PROMPT = (
    "Find the official TypeScript website and describe TypeScript in one sentence with a "
    "citation."
)


def test_a_perplexity_agent_answer_is_imported_recorded_and_replayed(tmp_path: Path) -> None:
    """The answer's one claim cites the result its ``[7]`` names; the nine results it does
    not cite are retrieved, and a supported citation sends none of them to the judge."""
    response = json.loads(PERPLEXITY_AGENT.read_text(encoding="utf-8"))
    record = {"id": "typescript-website", "question": PERPLEXITY_PROMPT, "response": response}
    (tmp_path / "answers.jsonl").write_text(json.dumps(record) + "\n", "utf-8")
    imported = run_cli("import", "answers.jsonl", env=base_env(tmp_path), cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "Detected format: perplexity-agent (1 record)" in imported.stdout
    assert "Warning" not in imported.stdout
    case_file = tmp_path / "cases" / "imported" / "typescript-website.yaml"
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    assert case["question"] == PERPLEXITY_PROMPT
    cited = "https://www.typescriptlang.org/"
    assert case["citations"] == {7: cited}
    assert [(c["text"], c["cites"]) for c in case["claims"]] == [
        (
            "The official TypeScript website is typescriptlang.org; TypeScript is a strongly "
            "typed programming language that builds on JavaScript with syntax for types.",
            [7],
        )
    ]
    [results] = [item["results"] for item in response["output"] if item["type"] == "search_results"]
    assert case["retrieved"] == {r["id"]: r["url"] for r in results if r["id"] != 7}

    # The page is served as the provider's search quoted it (the cited result's snippet).
    [snippet] = [r["snippet"] for r in results if r["url"] == cited]
    gate = ("cases/imported", "--citations-fail-on=contradicted,not_found,unreachable")
    with emulators(tmp_path) as web:
        web.crawlbase.pages[cited] = FakePage(markdown=snippet)
        recorded = run_pytest(
            tmp_path,
            *gate,
            "--citations-record=new_episodes",
            "--citations-report=recorded.json",
            env=web.env,
        )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "2 passed" in recorded.stdout  # the claim and its case
    assert {r.target_url for r in web.crawlbase.requests} == {cited}

    replayed = run_pytest(
        tmp_path, *gate, "--citations-report=replayed.json", env=base_env(tmp_path)
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "2 passed" in replayed.stdout
    assert "request_refused" not in replayed.stdout
    for name in ("recorded.json", "replayed.json"):
        report = json.loads((tmp_path / name).read_text(encoding="utf-8"))
        citations = [
            citation
            for case_report in report["cases"]
            for claim in case_report["claims"]
            for citation in claim["citations"]
        ]
        assert [(c["url"], c["label"]) for c in citations] == [(cited, "supported")]


def test_the_formats_are_named_on_help(tmp_path: Path) -> None:
    shown = run_cli("import", "--help", env=base_env(tmp_path), cwd=tmp_path)
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    for name in ("auto", *FORMATS):
        assert name in text, name
    for name in ("gemini", "gemini-interactions", "perplexity-agent"):
        assert name in FORMATS


def test_a_records_warnings_are_printed_with_its_file_and_line(tmp_path: Path) -> None:
    record = gemini_record()
    response = record["response"]
    assert isinstance(response, dict)
    segment = response["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["segment"]
    segment["startIndex"], segment["endIndex"] = 9000, 9045
    lines = [json.dumps({"id": "first", "answer": "Water boils at 100 °C [1].",
                         "citations": ["https://example.org/physics/boiling"]}),
             json.dumps(record)]  # fmt: skip
    (tmp_path / "answers.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    run = run_cli("import", "answers.jsonl", env=base_env(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    [warning] = [line for line in run.stdout.splitlines() if line.startswith("Warning ")]
    assert warning.startswith("Warning answers.jsonl:2: grounding support 1: offsets 9000-9045")
    assert "out of range" in warning
