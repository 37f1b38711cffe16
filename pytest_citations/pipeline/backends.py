"""Backends by name: the fetchers and judges a run may use, and what each needs from the
environment.

A backend declares, as class attributes, the environment variables it reads, so that
:class:`~pytest_citations.pipeline.settings.Settings` stays generic:

- ``secret_variables``: tokens and keys it sends (masked everywhere, never recorded);
- ``required_variables``: those of them it cannot send a request without;
- ``endpoint_variables``: base URLs it can be pointed at (emulators, proxies);
- judges also ``model_variable`` and ``default_model`` (read by
  :meth:`~pytest_citations.judges.config.JudgeConfig.from_env`), fetchers ``configure``
  (their own config from the environment).

Plugins add their own backends in the ``pytest_citations_backends`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigurationError
from ..fetchers import FETCHERS, CrawlerFactory
from ..judges import JUDGES, JudgeConfig, JudgeFactory
from ..sanitize import Secret


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
        """Every variable of one kind (``secret_variables``, ``endpoint_variables``,
        ``model_variable``) that any backend declares, in a stable order."""
        found: dict[str, None] = {}
        backends: list[object] = [*self.fetchers.values(), *self.judges.values()]
        for backend in backends:
            declared = getattr(backend, kind, ())
            declared = (declared,) if isinstance(declared, str) else declared or ()
            found.update(dict.fromkeys(declared))
        return tuple(found)

    def secrets(self, environ: Mapping[str, str]) -> dict[str, Secret]:
        """The tokens and keys set in ``environ``, by the variable every backend declares
        them in (``secret_variables``)."""
        return {
            name: Secret(environ[name].strip(), name)
            for name in self.variables("secret_variables")
            if environ.get(name, "").strip()
        }

    def judge_config(
        self, environ: Mapping[str, str], *, provider: str | None = None, model: str | None = None
    ) -> JudgeConfig:
        """The config of the judge ``provider`` (else ``JUDGE_PROVIDER``) names, resolved once
        from ``environ`` (see :meth:`JudgeConfig.from_env`); an unknown provider gets what
        the variables say, and fails where its judge is built."""
        name = JudgeConfig.chosen(environ, provider)
        if name not in self.judges and name.lower() in self.judges:
            # JUDGE_PROVIDER=Ollama is ollama wherever it is read (the plugin's option
            # table passes the variable's text as given; the command lowercases it).
            name = name.lower()
        return JudgeConfig.from_env(environ, self.judges.get(name), provider=name, model=model)

    def fetcher_config(self, name: str, environ: Mapping[str, str]) -> object:
        """The config the fetcher called ``name`` reads from ``environ`` with its ``configure``;
        None when it has none (a fetcher a plugin registered that needs nothing)."""
        configure = getattr(self.fetchers.get(name), "configure", None)
        return configure(environ) if callable(configure) else None

    def required(self, fetcher: str, provider: str) -> list[str]:
        """The variables the fetcher and the judge provider cannot send requests without."""
        chosen = (self.fetchers.get(fetcher), self.judges.get(provider))
        return [name for backend in chosen for name in getattr(backend, "required_variables", ())]


def _named(registry: dict[str, Any], name: str, what: str) -> Any:
    try:
        return registry[name]
    except KeyError:
        choices = ", ".join(sorted(registry))
        raise ConfigurationError(f"unknown {what} {name!r}; choose one of {choices}") from None
