"""The plugin hooks a ``conftest.py`` implements: ``pytest_citations_vcr`` (adjust the VCR
configuration) and ``pytest_citations_backends`` (register a judge or a fetcher by name)."""

from __future__ import annotations

from plugin_helpers import (
    BOILING_CASE,
    BOILING_URL,
    CONTRADICTED_CLAIM,
    CRAWLBASE_TOKEN,
    SUPPORTED_CLAIM,
    TOKENS,
    Citations,
    interactions,
    single_claim_case,
)

DROP_HEADER_CONFTEST = """
def drop_pc_status(response):
    response["headers"] = {
        name: value for name, value in response["headers"].items() if name != "pc_status"
    }
    return response


def pytest_citations_vcr(config, vcr):
    vcr.before_record_response = drop_pc_status
"""

MY_JUDGE_CONFTEST = """
from pytest_citations.judges import Judgement
from pytest_citations.labels import Label

CALLS = []


class MyJudge:
    name = "mine"

    def __init__(self, config, requester):
        self.model = config.model or "my-model-1"

    async def judge(self, claim, passages):
        CALLS.append(claim)
        quote = passages[0].split("\\n")[-1].split(". ")[0]
        return Judgement(Label.SUPPORTED, quote, 0.99)


def pytest_citations_backends(config, backends):
    backends.judges["mine"] = MyJudge


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"my judge was asked {len(CALLS)} times")
"""


def test_vcr_hook_adds_scrubbing_and_keeps_the_builtin_one(citations: Citations) -> None:
    citations.pytester.makeconftest(DROP_HEADER_CONFTEST)
    citations.write("cases/boiling.yaml", BOILING_CASE)

    recorded, _ = citations.record("cases/", gate="default")
    replayed = citations.run("cases/", gate="default")

    recorded.assert_outcomes(passed=2, failed=1)
    replayed.assert_outcomes(passed=2, failed=1)
    cassette = citations.cassette("cases/boiling.yaml")
    crawls = [i for i in interactions(cassette) if i["request"]["method"] == "GET"]
    assert crawls
    for crawl in crawls:
        assert "pc_status" not in crawl["response"]["headers"]
        assert "original_status" in crawl["response"]["headers"]
    # The hook replaced vcr.before_record_response; the tokens are still scrubbed.
    text = cassette.read_text(encoding="utf-8")
    assert "storage_url" in text
    for value in TOKENS.values():
        assert value not in text


def test_vcr_hook_changes_the_matching(citations: Citations) -> None:
    # A conftest that stops matching judge requests on their body: an edited claim then
    # replays the recorded verdict, which the default matching never does.
    citations.pytester.makeconftest(
        """
        def pytest_citations_vcr(config, vcr):
            vcr.match_on = tuple(name for name in vcr.match_on if name != "body")
        """
    )
    citations.write("cases/boiling.yaml", BOILING_CASE)
    citations.record("cases/", gate="default")
    citations.write(
        "cases/boiling.yaml", BOILING_CASE.replace(CONTRADICTED_CLAIM, "Water boils on mountains.")
    )

    relaxed = citations.run("cases/", "-v", gate="default")
    (citations.path / "conftest.py").unlink()
    default = citations.run("cases/", "-v", gate="default")

    assert "request_refused" not in relaxed.stdout.str()
    relaxed.assert_outcomes(passed=2, failed=1)  # the stale "contradicted" verdict replays
    default.stdout.fnmatch_lines(["*has no recording of the judge call POST /v1/chat/completions*"])


def test_backends_hook_registers_a_judge_chosen_by_name(citations: Citations) -> None:
    citations.pytester.makeconftest(MY_JUDGE_CONFTEST)
    citations.write("cases/boiling.yaml", BOILING_CASE)
    # The custom judge needs no OpenAI key; recording asks only for the Crawlbase token.
    with citations.web(tokens={"CRAWLBASE_TOKEN": CRAWLBASE_TOKEN}) as web:
        recorded = citations.run(
            "cases/", "--citations-record=once", "--citations-judge=mine", "-v", gate="default"
        )

    recorded.assert_outcomes(passed=3)
    recorded.stdout.fnmatch_lines(
        [
            "citations: record=once judge=mine *",
            "cases/boiling.yaml::boiling-point::claim-1 PASSED [[]supported[]]*",
            "cases/boiling.yaml::boiling-point::claim-2 PASSED [[]supported[]]*",
            "my judge was asked 2 times",
        ]
    )
    assert web.judge.call_count == 0
    assert web.crawlbase.count(BOILING_URL) == 1
    assert all(
        i["request"]["method"] == "GET"
        for i in interactions(citations.cassette("cases/boiling.yaml"))
    )

    replayed = citations.run("cases/", "--citations-judge=mine", gate="default")
    default_judge = citations.run("cases/", gate="default")

    replayed.assert_outcomes(passed=3)
    replayed.stdout.fnmatch_lines(["my judge was asked 2 times"])
    default_judge.stdout.fnmatch_lines(["*has no recording of the judge call*"])


def test_backends_hook_registers_a_fetcher_chosen_in_the_ini(citations: Citations) -> None:
    citations.pytester.makeconftest(
        f"""
        from pytest_citations.fetchers import PageResponse

        PAGE = (
            "# Water\\n\\n{SUPPORTED_CLAIM} "
            + "It is a well known fact of physics, measured many times. " * 8
        )


        class Static:
            def __init__(self, config, requester, usage):
                pass

            async def crawl(self, url, *, readability, javascript):
                return PageResponse(
                    PAGE, javascript, crawl_status=200, original_status=200, final_url=url
                )


        def pytest_citations_backends(config, backends):
            backends.fetchers["static"] = Static
        """
    )
    citations.pytester.makeini("[pytest]\ncitations_fetcher = static\n")
    citations.write("cases/water.yaml", single_claim_case("water", SUPPORTED_CLAIM, BOILING_URL))

    with citations.web() as web:
        result = citations.run("cases/", "--citations-record=once", "-v", gate="default")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["cases/water.yaml::water::claim-1 PASSED [[]supported[]]*"])
    assert web.crawlbase.crawl_count == 0
    assert web.judge.call_count == 1


KEYED_JUDGE_CONFTEST = """
from pytest_citations.judges.openai import OpenAIJudge


class MistralJudge(OpenAIJudge):
    '''An OpenAI-compatible provider with a key of its own (the emulator speaks its wire).'''

    name = "mistral"
    key_variable = "MISTRAL_API_KEY"
    model_variable = "MISTRAL_MODEL"
    base_url_variable = "MISTRAL_BASE_URL"
    default_base_url = "https://api.mistral.ai/v1"
    default_model = "mistral-small-latest"


def pytest_citations_backends(config, backends):
    backends.judges["mistral"] = MistralJudge
"""


def test_a_keyed_judge_from_the_hook_has_its_key_read(citations: Citations) -> None:
    """Settings were read before the hook registered the judge, so its key was never read
    and recording reported MISTRAL_API_KEY missing although it was set."""
    citations.pytester.makeconftest(KEYED_JUDGE_CONFTEST)
    citations.write("cases/boiling.yaml", BOILING_CASE)
    with citations.web() as web:
        citations.monkeypatch.setenv("MISTRAL_API_KEY", TOKENS["OPENAI_API_KEY"])
        citations.monkeypatch.setenv("MISTRAL_BASE_URL", web.judge.openai_base_url)
        recorded = citations.run("cases/", "--citations-record=once", "--citations-judge=mistral",
                                 gate="default")
        citations.monkeypatch.delenv("MISTRAL_API_KEY")
        missing = citations.run("cases/", "--citations-record=all", "--citations-judge=mistral",
                                gate="default")

    recorded.assert_outcomes(passed=2, failed=1)
    recorded.stdout.fnmatch_lines(
        ["citations: record=once judge=mistral model=mistral-small-latest *"]
    )
    assert web.judge.call_count == 2
    cassette = citations.cassette("cases/boiling.yaml").read_text(encoding="utf-8")
    assert TOKENS["OPENAI_API_KEY"] not in cassette
    assert '"model": "mistral-small-latest"' in cassette
    assert missing.ret == 4
    missing.stderr.fnmatch_lines(["*needs MISTRAL_API_KEY; set it in the environment*"])
