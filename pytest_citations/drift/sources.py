"""What a drift run checks: case files, the claims they hold, the URLs each claim cites or
its case retrieved without citing, and the cassette that holds each file's recordings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cases import Case, iter_claims, load_cases
from ..paths import shown
from ..pipeline.verifier import ClaimRequest
from ..recording.layout import mirrored_cassette


@dataclass(frozen=True)
class DriftClaim:
    """One claim of a case file: its item's node id and what the verifier is asked."""

    nodeid: str
    request: ClaimRequest


@dataclass(frozen=True)
class DriftCheck:
    """One verification a replay repeats: a claim as the plugin verifies it, or one URL the
    claim's case retrieved without citing, checked alone as the verifier checks it for a
    claim its citations do not settle (004, C3), so that its verdict and evidence are
    read like a cited URL's."""

    nodeid: str
    request: ClaimRequest
    #: The request checks one retrieved URL (``request.urls[0]``), not the claim's citations.
    retrieved: bool = False


@dataclass(frozen=True)
class DriftSource:
    """A case file (``name`` as the user knows it), its cassette and its claims, as the
    plugin verifies them (``ClaimRequest.of(text, urls, case.retrieved)``)."""

    name: str
    cassette: Path
    claims: tuple[DriftClaim, ...]

    @classmethod
    def from_cases(cls, name: str, cassette: Path, cases: Sequence[Case]) -> DriftSource:
        """A source from parsed cases; node ids read ``name::case::claim-n``."""
        claims = tuple(
            DriftClaim(
                f"{name}::{case.id}::{claim.name}",
                ClaimRequest.of(claim.text, claim.urls, case.retrieved),
            )
            for case, claim in iter_claims(list(cases))
        )
        return cls(name, cassette, claims)

    @classmethod
    def from_case_file(
        cls, path: Path, cassette_dir: Path, root: Path | None = None
    ) -> DriftSource:
        """A source from a case file, its cassette where the plugin records it (see
        :func:`~pytest_citations.recording.pages.mirrored_cassette`). Raises
        :class:`~pytest_citations.cases.CaseFileError` for a broken file."""
        return cls.from_cases(
            shown(path, root), mirrored_cassette(path, cassette_dir, root), load_cases(path)
        )

    @property
    def checks(self) -> tuple[DriftCheck, ...]:
        """What a replay verifies: every claim, then each retrieved URL of each claim alone."""
        own = tuple(DriftCheck(claim.nodeid, claim.request) for claim in self.claims)
        return own + tuple(
            DriftCheck(claim.nodeid, ClaimRequest.of(claim.request.claim, [url]), retrieved=True)
            for claim in self.claims
            for url in claim.request.retrieved
        )

    @property
    def urls(self) -> list[str]:
        """Every URL its claims cite or retrieved, once, in order."""
        return list(dict.fromkeys(url for check in self.checks for url in check.request.urls))
