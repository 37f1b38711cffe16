"""Secrets never show: not in ``repr``/``str``, not in exceptions, not in any log record
(httpx logs request URLs, token included, at INFO; httpcore logs response headers, the
``storage_url`` included, at DEBUG)."""

from __future__ import annotations

import asyncio
import logging
import pickle

import pytest

from pytest_citations import Settings, Verifier
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sanitize import LogRedaction, Redactor, Secret

CANARY_CRAWLBASE = "canary-crawlbase-7f3a9"
CANARY_JS = "canary-crawlbase-js-1c2d3"
CANARY_OPENAI = "canary-openai-9e8d7"
CANARY_ANTHROPIC = "canary-anthropic-4b5a6"
CANARIES = (CANARY_CRAWLBASE, CANARY_JS, CANARY_OPENAI, CANARY_ANTHROPIC)
CLAIM = "Water boils at 100 degrees Celsius at sea level."


def _canary_settings(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator, **kw) -> Settings:
    environment = {
        "CRAWLBASE_TOKEN": CANARY_CRAWLBASE,
        "CRAWLBASE_JS_TOKEN": CANARY_JS,
        "OPENAI_API_KEY": CANARY_OPENAI,
        "ANTHROPIC_API_KEY": CANARY_ANTHROPIC,
        "CRAWLBASE_API_URL": crawlbase.url,
        "OPENAI_BASE_URL": judge.openai_base_url,
        "ANTHROPIC_BASE_URL": judge.anthropic_base_url,
    }
    return Settings.from_env(environment, **{"backoff": 0.01, "embedding_model": "lexical", **kw})


# -- repr, str, pickling -----------------------------------------------------------------------


def test_secret_never_shows_its_value():
    secret = Secret("s3cr3t-value", "CRAWLBASE_TOKEN")
    for shown in (str(secret), repr(secret), f"{secret}", f"{secret!r}", format(secret, "")):
        assert "s3cr3t-value" not in shown
        assert "CRAWLBASE_TOKEN" in shown
    assert secret.reveal() == "s3cr3t-value"
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_settings_repr_never_shows_values():
    config = Settings(
        secrets={
            "CRAWLBASE_TOKEN": Secret(CANARY_CRAWLBASE, "CRAWLBASE_TOKEN"),
            "CRAWLBASE_JS_TOKEN": Secret(CANARY_JS, "CRAWLBASE_JS_TOKEN"),
            "OPENAI_API_KEY": Secret(CANARY_OPENAI, "OPENAI_API_KEY"),
            "ANTHROPIC_API_KEY": Secret(CANARY_ANTHROPIC, "ANTHROPIC_API_KEY"),
        },
    )
    for shown in (repr(config), str(config), f"{config}"):
        for canary in CANARIES:
            assert canary not in shown
        assert "CRAWLBASE_TOKEN" in shown


def test_settings_from_env_wraps_every_token_as_a_secret():
    env = {
        "CRAWLBASE_TOKEN": CANARY_CRAWLBASE,
        "CRAWLBASE_JS_TOKEN": CANARY_JS,
        "OPENAI_API_KEY": CANARY_OPENAI,
        "ANTHROPIC_API_KEY": CANARY_ANTHROPIC,
    }
    config = Settings.from_env(env)
    assert {secret.reveal() for secret in config.secrets.values()} == set(CANARIES)
    assert not any(canary in repr(config) for canary in CANARIES)
    assert Settings.from_env({"CRAWLBASE_TOKEN": "  "}).secret("CRAWLBASE_TOKEN") is None


def test_redactor_hides_values_token_params_and_bearer_tokens():
    redact = Redactor([Secret(CANARY_CRAWLBASE, "CRAWLBASE_TOKEN")])
    text = (
        f"GET /?token={CANARY_CRAWLBASE}&url=x then /storage?token=other-value&rid=abc "
        "Authorization: Bearer sk-live-123 and /v1?a=1&api_key=zzz"
    )
    clean = redact(text)
    for leaked in (CANARY_CRAWLBASE, "other-value", "sk-live-123", "zzz"):
        assert leaked not in clean
    assert "rid=abc" in clean


# -- Logs ---------------------------------------------------------------------------------------


def test_no_canary_in_any_log_record_during_a_verification(caplog, article):
    url = "https://example.org/water"
    with (
        CrawlbaseEmulator(token=CANARY_CRAWLBASE, js_token=CANARY_JS) as crawlbase,
        JudgeEmulator(openai_key=CANARY_OPENAI, anthropic_key=CANARY_ANTHROPIC) as judge,
    ):
        crawlbase.add(url, markdown=article(CLAIM), fail_normal=True)  # JS token in use too
        config = _canary_settings(crawlbase, judge)
        caplog.set_level(logging.DEBUG)

        async def scenario():
            async with Verifier(config, embedder=LexicalEmbedder()) as verifier:
                result = await verifier.verify(CLAIM, [url])
                stored = await verifier.stored_page(result.citations[0].rid)
                logging.getLogger("test").info("stored page read with %s", CANARY_CRAWLBASE)
                return result, stored

        result, stored = asyncio.run(scenario())

    assert result.label == "supported"
    assert CLAIM in stored
    messages = [record.getMessage() for record in caplog.records]
    assert any("HTTP Request" in message for message in messages), "httpx did not log"
    assert any("storage" in message for message in messages), "no storage request logged"
    assert any("receive_response_headers" in m for m in messages), "httpcore did not log"
    text = caplog.text + "\n".join(messages)
    for canary in CANARIES:
        assert canary not in text


def test_log_redaction_is_removed_when_the_verifier_closes(crawlbase, judge, settings):
    before = logging.getLogRecordFactory()

    async def scenario():
        async with Verifier(settings(), embedder=LexicalEmbedder()):
            return logging.getLogRecordFactory()

    during = asyncio.run(scenario())
    assert during is not before
    assert logging.getLogRecordFactory() is before


def test_log_redaction_survives_out_of_order_uninstall(caplog):
    # Two verifiers whose lifetimes overlap: the first one closes first.
    first = LogRedaction(Redactor([Secret("first-secret", "A")]))
    second = LogRedaction(Redactor([Secret("second-secret", "B")]))
    original = logging.getLogRecordFactory()
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("redaction-test")
    try:
        first.install()
        second.install()
        logger.info("both %s %s", "first-secret", "second-secret")
        first.uninstall()
        logger.info("after first %s %s", "first-secret", "second-secret")
        second.uninstall()
        logger.info("after both %s %s", "first-secret", "second-secret")
        assert logging.getLogRecordFactory() is original
    finally:
        logging.setLogRecordFactory(original)
    assert [record.getMessage() for record in caplog.records] == [
        "both <A> <B>",
        "after first first-secret <B>",
        "after both first-secret second-secret",
    ]


def test_log_redaction_under_a_foreign_factory_keeps_the_chain_working(caplog):
    redaction = LogRedaction(Redactor([Secret("inner-secret", "A")]))
    original = logging.getLogRecordFactory()
    caplog.set_level(logging.INFO)
    try:
        redaction.install()
        below = logging.getLogRecordFactory()
        logging.setLogRecordFactory(lambda *a, **kw: below(*a, **kw))
        redaction.uninstall()
        logging.getLogger("redaction-test").info("still %s", "inner-secret")
    finally:
        logging.setLogRecordFactory(original)
    assert [record.getMessage() for record in caplog.records] == ["still <A>"]
