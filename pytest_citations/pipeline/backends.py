"""Backends by name: the fetchers and judges a run may use, and what each needs from the
environment.

A backend declares, as class attributes, the environment variables it reads, so that
:class:`~pytest_citations.pipeline.settings.Settings` stays generic:

- ``secret_variables``: tokens and keys it sends (masked everywhere, never recorded);
- ``required_variables``: those of them it cannot send a request without;
- ``endpoint_variables``: base URLs it can be pointed at (emulators, proxies);
- judges also ``model_variable`` and ``default_model``.

Plugins add their own backends in the ``pytest_citations_backends`` hook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..fetchers import FETCHERS, CrawlerFactory
from ..judges import JUDGES, JudgeFactory

if TYPE_CHECKING:
    from .settings import Settings


@dataclass
class Backends:
    """Named fetchers and judges (the built-in ones, plus any a plugin registered)."""

    judges: dict[str, JudgeFactory] = field(default_factory=lambda: dict(JUDGES))
    fetchers: dict[str, CrawlerFactory] = field(default_factory=lambda: dict(FETCHERS))

    def judge(self, name: str) -> JudgeFactory:
        """The judge factory called ``name``, or a configuration error listing the names."""
        factory: JudgeFactory = _named(self.judges, name, "judge provider")
        return factory

    def fetcher(self, name: str) -> CrawlerFactory:
        """The fetcher factory called ``name``, or a configuration error listing the names."""
        factory: CrawlerFactory = _named(self.fetchers, name, "fetcher")
        return factory

    def variables(self, kind: str) -> tuple[str, ...]:
        """Every variable of one kind (``secret_variables``, ``endpoint_variables``) that
        any backend declares, in a stable order."""
        found: dict[str, None] = {}
        backends: list[object] = [*self.fetchers.values(), *self.judges.values()]
        for backend in backends:
            found.update(dict.fromkeys(getattr(backend, kind, ())))
        return tuple(found)

    def judge_variable(self, provider: str, attribute: str) -> Any:
        """One declared attribute of a judge (``model_variable``, ``default_model``), or
        None for an unknown provider or one that declares nothing."""
        return getattr(self.judges.get(provider), attribute, None)

    def required(self, settings: Settings) -> list[str]:
        """The variables the selected fetcher and judge cannot send requests without."""
        chosen = (self.fetchers.get(settings.fetcher), self.judges.get(settings.judge_provider))
        return [name for backend in chosen for name in getattr(backend, "required_variables", ())]

    def missing(self, settings: Settings) -> list[str]:
        """Of :meth:`required`, the variables that are not set, every one of them."""
        return [name for name in self.required(settings) if settings.secret(name) is None]

    def model(self, settings: Settings) -> str:
        """The judge model in use: the configured one or the provider's default."""
        default = self.judge_variable(settings.judge_provider, "default_model")
        return settings.judge_model or str(default or "")


def _named(registry: dict[str, Any], name: str, what: str) -> Any:
    try:
        return registry[name]
    except KeyError:
        choices = ", ".join(sorted(registry))
        raise ConfigurationError(f"unknown {what} {name!r}; choose one of {choices}") from None
