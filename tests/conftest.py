"""Fixtures for the engine's tests: the HTTP emulators on 127.0.0.1, settings pointing at
them, and verifiers built from those settings.

Every engine test reaches the emulators through real httpx; nothing in the engine is
monkeypatched. Retrieval uses the hashed bag of words
(:class:`~pytest_citations.retrieval.embedders.hashed.LexicalEmbedder`) so that no model
is loaded (the one MiniLM test builds its own embedder).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest
from light_env import light_python
from ops_support import Web, emulators
from plugin_helpers import STEERING_VARIABLES, Citations

from pytest_citations import ClaimVerdict, Settings, Verifier
from pytest_citations.retrieval.embedders.base import Embedder
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder
from pytest_citations.sandbox import CrawlbaseEmulator, JudgeEmulator
from pytest_citations.sanitize import Secret

# A pytester run in this process removes, when it ends, every module it imported; a C extension
# (numpy, torch) cannot be initialised twice in one process, so a run that loaded the model first
# would break every later test of its worker that embeds ("SystemError: bad call flags" in
# torch). The package loads them only when a run embeds; the tests load them before any run.
with contextlib.suppress(ImportError):
    import numpy  # noqa: F401
    import torch  # noqa: F401

#: Credentials the emulators accept. Distinctive, so that a leak is easy to grep for.
CRAWLBASE_TOKEN = "cb-normal-token-0a1b2c3d"
CRAWLBASE_JS_TOKEN = "cb-js-token-4e5f6a7b"
OPENAI_KEY = "sk-test-openai-8c9d0e1f"
ANTHROPIC_KEY = "sk-ant-test-2a3b4c5d"
ALL_SECRETS = (CRAWLBASE_TOKEN, CRAWLBASE_JS_TOKEN, OPENAI_KEY, ANTHROPIC_KEY)

#: Filler sentences that share no content word with the claims used in the tests and never
#: look like a "page does not exist" template.
_FILLER = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
    "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
)


def make_article(*sentences: str, filler: int = 4, title: str = "Reference article") -> str:
    """A markdown page well above every threshold (F2: 200, F5: 800 visible characters):
    a title, ``filler`` paragraphs of lorem ipsum, then one paragraph with ``sentences``."""
    parts = [f"# {title}", *([_FILLER] * filler)]
    if sentences:
        parts.append(" ".join(sentences))
    return "\n\n".join(parts) + "\n"


class SettingsFactory(Protocol):
    def __call__(self, **overrides: Any) -> Settings: ...


class VerifierFactory(Protocol):
    def __call__(
        self, settings: Settings | None = None, *, embedder: Embedder | None = None, **kw: Any
    ) -> Verifier: ...


class VerifyOnce(Protocol):
    def __call__(
        self, claim: str, urls: Sequence[str], **overrides: Any
    ) -> tuple[ClaimVerdict, Verifier]: ...


@pytest.fixture
def crawlbase() -> Iterator[CrawlbaseEmulator]:
    """The Crawling + Storage API emulator, accepting CRAWLBASE_TOKEN and CRAWLBASE_JS_TOKEN."""
    with CrawlbaseEmulator(token=CRAWLBASE_TOKEN, js_token=CRAWLBASE_JS_TOKEN) as emulator:
        yield emulator


@pytest.fixture
def judge() -> Iterator[JudgeEmulator]:
    """The OpenAI + Anthropic + Ollama emulator, accepting OPENAI_KEY and ANTHROPIC_KEY."""
    with JudgeEmulator(openai_key=OPENAI_KEY, anthropic_key=ANTHROPIC_KEY) as emulator:
        yield emulator


#: The network of the engine's tests: short timeouts, quick retries.
TEST_NETWORK = {
    "connect_timeout": 2.0,
    "read_timeout": 10.0,
    "retries": 2,
    "backoff": 0.01,
    "max_backoff": 0.2,
}


def emulator_environment(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator) -> dict[str, str]:
    """The environment a user would set to reach the emulators: every token and key they
    accept, and every registered judge's base URL pointing at them."""
    return {
        "CRAWLBASE_TOKEN": crawlbase.token,
        "CRAWLBASE_JS_TOKEN": crawlbase.js_token,
        "CRAWLBASE_API_URL": crawlbase.url,
        **judge.environment(),
    }


@pytest.fixture
def settings(crawlbase: CrawlbaseEmulator, judge: JudgeEmulator) -> SettingsFactory:
    """A factory of :class:`Settings` composed, as a user's are, from an environment that
    points at the emulators (see :func:`settings_from`), with short backoff and timeouts,
    the lexical embedder and no disk cache; keyword arguments override fields."""
    environment = emulator_environment(crawlbase, judge)

    def factory(**overrides: Any) -> Settings:
        return settings_from(environment, **overrides)

    return factory


#: Short keyword names the tests use for one variable of the environment, e.g.
#: ``verify(claim, urls, crawlbase_token=None)`` (None unsets it; a secret may be given as
#: a :class:`Secret`).
VARIABLE_NAMES = {
    "crawlbase_token": "CRAWLBASE_TOKEN",
    "crawlbase_js_token": "CRAWLBASE_JS_TOKEN",
    "openai_api_key": "OPENAI_API_KEY",
    "anthropic_api_key": "ANTHROPIC_API_KEY",
    "crawlbase_api_url": "CRAWLBASE_API_URL",
    "openai_base_url": "OPENAI_BASE_URL",
    "anthropic_base_url": "ANTHROPIC_BASE_URL",
    "ollama_host": "OLLAMA_HOST",
}


def settings_from(environment: Mapping[str, str], **overrides: Any) -> Settings:
    """:meth:`Settings.from_env` of ``environment``, where a short variable name (see
    :data:`VARIABLE_NAMES`) sets or, with None, unsets that one variable, with the tests'
    network (:data:`TEST_NETWORK`) and the lexical embedder unless overridden."""
    env = dict(environment)
    for name, variable in VARIABLE_NAMES.items():
        if name in overrides:
            value = overrides.pop(name)
            if value is None:
                env.pop(variable, None)
            else:
                env[variable] = value.reveal() if isinstance(value, Secret) else value
    return Settings.from_env(
        env, **{**TEST_NETWORK, "embedding_model": LexicalEmbedder.name, **overrides}
    )


@pytest.fixture
def make_verifier(settings: SettingsFactory) -> VerifierFactory:
    """Build a (not yet entered) :class:`Verifier`: ``make_verifier(settings=None, *,
    embedder=None, **setting_overrides)``. The embedder defaults to a fresh
    :class:`LexicalEmbedder`."""

    def factory(
        config: Settings | None = None, *, embedder: Embedder | None = None, **overrides: Any
    ) -> Verifier:
        if config is None:
            config = settings(**overrides)
        elif overrides:
            config = config.replace(**overrides)
        return Verifier(config, embedder=embedder or LexicalEmbedder())

    return factory


@pytest.fixture
def verify(make_verifier: VerifierFactory) -> VerifyOnce:
    """Verify one claim with a fresh verifier: ``verify(claim, urls, **setting_overrides)``
    returns the claim verdict and the (closed) verifier, whose ``usage`` stays readable."""

    def once(claim: str, urls: Sequence[str], **overrides: Any) -> tuple[ClaimVerdict, Verifier]:
        verifier = make_verifier(**overrides)

        async def scenario() -> ClaimVerdict:
            async with verifier:
                return await verifier.verify(claim, urls)

        return asyncio.run(scenario()), verifier

    return once


@pytest.fixture
def article() -> Callable[..., str]:
    """A builder of long pages: ``article(*sentences, filler=4, title=...)`` (see
    :func:`make_article`)."""
    return make_article


@pytest.fixture
def refused_url() -> str:
    """The URL of a port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


@pytest.fixture
def secret_values() -> tuple[str, ...]:
    """Every credential value the emulators accept: none may ever show up in output."""
    return ALL_SECRETS


@pytest.fixture
def citations(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Citations:
    """A pytester project for ``pytest --citations`` (see :class:`plugin_helpers.Citations`),
    with no steering variable of the developer's shell set, and its (empty) cassette folder
    ``cassettes/``, as a project keeps it: a run whose folder is missing is a usage error
    unless it records every cassette it lacks."""
    for variable in STEERING_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    (pytester.path / "cassettes").mkdir()
    return Citations(pytester, monkeypatch)


@pytest.fixture
def web(tmp_path: Path) -> Iterator[Web]:
    """Both emulators serving the example site, and the environment of the command-line and
    service tests pointing at them (see :func:`ops_support.emulators`)."""
    with emulators(tmp_path) as started:
        yield started


@pytest.fixture(scope="session")
def light(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of an environment without the model packages (a light install, see
    :func:`light_env.light_python`)."""
    return light_python(tmp_path_factory.mktemp("light"))
