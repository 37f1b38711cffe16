"""What a judge takes: its provider's name, the model it asks and where it sends, resolved
once from the environment variables the judge class declares.

The model is the one asked for (``--citations-model``, ``JUDGE_MODEL``), else the
provider's own variable (``OPENAI_MODEL``), else the provider's default; the base URL is the
provider's variable (``OPENAI_BASE_URL``), else its default. :meth:`JudgeConfig.from_env`
is the only place that decides either: the judge, the header, the reports and the service
read the value it gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: The variables that choose the judge: its provider by name, and a model for any provider.
PROVIDER_VARIABLE, MODEL_VARIABLE = "JUDGE_PROVIDER", "JUDGE_MODEL"
#: The provider when none is named.
DEFAULT_PROVIDER = "openai"


@dataclass(frozen=True)
class JudgeConfig:
    """The judge a run uses: the provider's name (a key of the judge registry), the model
    it asks (empty for a judge that declares no default), and its base URL (empty for a
    judge that declares none)."""

    provider: str = DEFAULT_PROVIDER
    model: str = ""
    base_url: str = ""

    @staticmethod
    def chosen(environ: Mapping[str, str], provider: str | None = None) -> str:
        """The provider's name: ``provider`` when given, else ``JUDGE_PROVIDER``, else
        :data:`DEFAULT_PROVIDER`."""
        return provider or _read(environ, PROVIDER_VARIABLE).lower() or DEFAULT_PROVIDER

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str],
        judge: object,
        *,
        provider: str | None = None,
        model: str | None = None,
    ) -> JudgeConfig:
        """The config of the judge class (or factory) ``judge``: ``provider`` and ``model``
        when given, else ``JUDGE_PROVIDER`` and ``JUDGE_MODEL``; then what the class
        declares (``model_variable``, ``default_model``, ``base_url_variable``,
        ``default_base_url``, each optional for a judge a plugin registers)."""
        provider = cls.chosen(environ, provider)
        model = (
            model
            or _read(environ, MODEL_VARIABLE)
            or _read(environ, getattr(judge, "model_variable", None))
            or str(getattr(judge, "default_model", "") or "")
        )
        base_url = _read(environ, getattr(judge, "base_url_variable", None)) or str(
            getattr(judge, "default_base_url", "") or ""
        )
        return cls(provider, model, base_url)


def _read(environ: Mapping[str, str], variable: str | None) -> str:
    """The variable's value, stripped; empty when it is not set (or there is none)."""
    return environ.get(variable, "").strip() if variable else ""
