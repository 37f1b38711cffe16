"""One registry drives what is derived from it (issue 25): a judge provider or a fetcher is
one module and one registry line, and every list that names providers (the help text, the
variables a test run strips from the developer's shell, the emulator's routes, the tests'
provider lists) follows the registry, so that the recipe in CONTRIBUTING.md holds."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from plugin_helpers import STEERING_VARIABLES

from pytest_citations.cli.common import global_options
from pytest_citations.fetchers import FETCHERS
from pytest_citations.judges import JUDGES, JudgeConfig
from pytest_citations.pipeline.settings import LIMITS
from pytest_citations.plugin.option_table import OPTIONS
from pytest_citations.sandbox import JudgeEmulator
from pytest_citations.sandbox.judges.wire import ROUTES, WIRES

REPO = Path(__file__).resolve().parent.parent
CONTRIBUTING = REPO / "CONTRIBUTING.md"


def declared(backend: object) -> set[str]:
    """Every environment variable a backend class declares."""
    names = {getattr(backend, "model_variable", None), getattr(backend, "base_url_variable", None)}
    names |= {getattr(backend, "key_variable", None)}
    for kind in ("secret_variables", "endpoint_variables", "required_variables"):
        names |= set(getattr(backend, kind, ()))
    return {name for name in names if name}


@pytest.mark.parametrize("name", sorted({*JUDGES, *FETCHERS}))
def test_a_test_run_strips_every_variable_a_registered_backend_reads(name: str) -> None:
    # A developer's own MISTRAL_API_KEY (or any provider's) must never reach a test run.
    backend = JUDGES.get(name) or FETCHERS[name]
    assert declared(backend) - set(STEERING_VARIABLES) == set()


def test_a_test_run_strips_every_variable_of_the_package() -> None:
    own = {"JUDGE_PROVIDER", "JUDGE_MODEL", "CITATIONS_EMBEDDING_MODEL"}
    own |= {limit.env for limit in LIMITS}  # the budgets' CITATIONS_MAX_* included
    assert own - set(STEERING_VARIABLES) == set()


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_the_help_text_names_every_registered_judge(name: str) -> None:
    judge = next(option for option in OPTIONS if option.name == "judge")
    assert name in judge.help
    assert name in global_options().format_help()


@pytest.mark.parametrize("name", sorted(FETCHERS))
def test_the_help_text_names_every_registered_fetcher(name: str) -> None:
    fetcher = next(option for option in OPTIONS if option.name == "fetcher")
    assert name in fetcher.help


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_the_emulator_serves_every_registered_judge(name: str) -> None:
    # Its wire shape, its route and the base URL its judge is pointed at agree: the judge
    # built from the emulator's environment posts where the emulator answers as it.
    with JudgeEmulator() as emulator:
        config = JudgeConfig.from_env(emulator.environment(), JUDGES[name], provider=name)
        built = JUDGES[name](config, None)  # type: ignore[arg-type]  # sends nothing here
        assert built.name == name  # the row's class, imported as the run names it
        endpoint = httpx.URL(built.endpoint())  # type: ignore[attr-defined]
        assert name in WIRES
        assert endpoint.host == "127.0.0.1"
        assert ROUTES[endpoint.path] == name
        base_url = getattr(JUDGES[name], "base_url_variable", None)
        assert base_url is None or emulator.environment()[base_url] == emulator.base_url(name)


def test_every_emulated_provider_is_registered() -> None:
    assert set(WIRES) == set(JUDGES)


def test_the_judge_recipe_names_the_files_a_provider_touches() -> None:
    recipe = CONTRIBUTING.read_text(encoding="utf-8").split("**A judge provider**")[1]
    recipe = recipe.split("**A fetch rule**")[0]
    for path in (
        "pytest_citations/judges/__init__.py",
        "pytest_citations/sandbox/judges/wire.py",
        "pytest_citations/sandbox/judges/openai.py",
    ):
        assert path in recipe
        assert (REPO / path).exists()
