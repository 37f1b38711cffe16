"""What the text of an option means: each parser turns a flag's or an ini key's raw value into
the setting, or raises a configuration error naming the option (``what``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The package, not its names: the drift check loads when a run names drift statuses (PEP 562).
from .. import drift
from ..errors import ConfigurationError
from ..labels import Label
from ..recording import RecordMode
from ..retrieval.lines import MIN_EVIDENCE_WORDS

if TYPE_CHECKING:
    from ..gating.shards import Shard
    from ..recording.signing import TrustedKeys

#: Metrics the calibration gate (``citations_min_agreement``) may name.
AGREEMENT_METRICS = ("kappa", "accuracy", "balanced_accuracy")


def fraction(raw: Any, what: str) -> float:
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} must be a number from 0 to 1, got {raw!r}") from None
    if not 0 <= number <= 1:
        raise ConfigurationError(f"{what} must be a number from 0 to 1, got {raw!r}")
    return number


def shard(raw: Any, what: str) -> Shard:
    """``K/N``: shard K of N, 1 <= K <= N."""
    # Only a run that shards loads the shard machinery: here, where its option is read.
    from ..gating.shards import Shard

    return Shard.parse(raw, what)


def labels(raw: Any, what: str) -> tuple[str, ...]:
    # Comma- or space-separated, on the command line and in the ini file alike (the ini key
    # is of type "args", so "contradicted,partial" arrives as one word).
    words = " ".join([raw] if isinstance(raw, str) else raw).replace(",", " ").split()
    known = {label.value for label in Label}
    if not words:
        # An empty list would fail nothing: a gate turned off by one comma.
        raise ConfigurationError(
            f"{what} names no label; name at least one of " + ", ".join(sorted(known))
        )
    for label in words:
        if label not in known:
            raise ConfigurationError(
                f"{what}: unknown label {label!r}; choose from " + ", ".join(sorted(known))
            )
    return tuple(words)


def agreement(raw: Any, what: str) -> tuple[str, float]:
    """``0.6`` (Cohen's kappa) or ``accuracy=0.8`` / ``balanced_accuracy=0.7`` / ``kappa=0.6``."""
    metric, _, number = str(raw).strip().rpartition("=")
    metric = metric.strip() or "kappa"
    if metric not in AGREEMENT_METRICS:
        choices = ", ".join(AGREEMENT_METRICS)
        raise ConfigurationError(f"{what}: unknown metric {metric!r}; use one of {choices}")
    try:
        value = float(number)
    except ValueError:
        raise ConfigurationError(f"{what}: {number!r} is not a number") from None
    if not -1 <= value <= 1:
        raise ConfigurationError(f"{what} must be between -1 and 1")
    return metric, value


def drift_fail_on(raw: Any, what: str) -> tuple[str, ...]:
    words = " ".join([raw] if isinstance(raw, str) else raw).replace(",", " ").split()
    try:
        policy = drift.DriftPolicy.parse(words)
    except ConfigurationError as error:
        raise ConfigurationError(f"{what}: {error}") from None
    return tuple(name for name in drift.FAIL_ON_CHOICES if name in policy.fail_on)


def record_mode(raw: Any, what: str) -> RecordMode:
    try:
        return RecordMode(str(raw))
    except ValueError:
        choices = ", ".join(mode.value for mode in RecordMode)
        raise ConfigurationError(
            f"unknown citations record mode {raw!r}; choose one of {choices}"
        ) from None


def whole_number(raw: Any, what: str) -> int:
    """A whole number of at least 1."""
    try:
        number = int(str(raw).strip())
    except ValueError:
        raise ConfigurationError(f"{what} must be a whole number, got {raw!r}") from None
    if number < 1:
        raise ConfigurationError(f"{what} must be at least 1, got {raw!r}")
    return number


def evidence_words(raw: Any, what: str) -> int:
    """Words of the page the judge is shown: 0 (the top-k passages) or at least
    :data:`~pytest_citations.retrieval.lines.MIN_EVIDENCE_WORDS`."""
    try:
        number = int(str(raw).strip())
    except ValueError:
        raise ConfigurationError(f"{what} must be a whole number, got {raw!r}") from None
    if number != 0 and number < MIN_EVIDENCE_WORDS:
        raise ConfigurationError(
            f"{what} must be 0 (the top-k passages) or at least {MIN_EVIDENCE_WORDS}, got {raw!r}"
        )
    return number


def trusted_keys(raw: Any, what: str) -> TrustedKeys:
    """One public key a line (``ssh-ed25519 AAAA…``): the keys whose signatures a replay
    requires on every cassette."""
    # Only a run with trusted keys loads the signing machinery: here, where its keys are read.
    from ..recording.signing import TrustedKeys

    return TrustedKeys.parse([raw] if isinstance(raw, str) else list(raw), what)
