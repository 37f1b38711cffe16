"""A run split into shards, one per CI runner (``--citations-shard K/N``), and whether a set
of shard reports makes one whole run again (``pytest-citations merge``).

Whole files go to a shard, never part of one (a case file is verified and decided at once),
and which shard a file goes to depends only on the set of file paths:

- **balanced**: the shards' sizes differ by one file at most (no shard is empty while
  there are at least as many files as shards);
- **stable**: adding or removing a file moves few others (one or two on average), unlike
  dealing sorted paths round-robin, where one new file moves every file after it.

It is rendezvous hashing with bounded loads: every file ranks the shards by a hash of its
path and the shard's number, and files, taken in the order of their own hash, each go to
the first shard on their list that still has room (shard ``k`` holds ``F // N`` files, one
more for the first ``F % N`` shards). SHA-256 of the path as node ids name it (relative to
the rootdir, ``/``-separated) is the same on every machine and in every Python process.

Nothing here does I/O or knows pytest.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ConfigurationError

_SHARD = re.compile(r"\s*(\d{1,12})\s*/\s*(\d{1,12})\s*")
#: The most shards a run is shared out among: every file ranks every shard, so a count in
#: the billions would never end (GitHub's matrix runs 256 jobs at most).
MAX_SHARDS = 1000


@dataclass(frozen=True, order=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, raw: object, what: str = "--citations-shard") -> Shard:
        """``K/N`` with 1 <= K <= N; anything else is a :class:`ConfigurationError`."""
        found = _SHARD.fullmatch(str(raw))
        if found is None:
            raise ConfigurationError(f"{what} must be K/N, like 2/3 (shard K of N), got {raw!r}")
        index, count = int(found[1]), int(found[2])
        if count > MAX_SHARDS:
            raise ConfigurationError(
                f"{what} {index}/{count}: N must be at most {MAX_SHARDS}, got {raw!r}"
            )
        if count < 1 or not 1 <= index <= count:
            raise ConfigurationError(
                f"{what} {index}/{count}: K must be from 1 to N (shard K of N), got {raw!r}"
            )
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def preferences(path: str, count: int) -> list[int]:
    """The shards (0-based) in the order ``path`` prefers them."""
    return sorted(range(count), key=lambda shard: (_hash(f"{path}\n{shard}"), shard))


def assign(paths: Iterable[str], count: int) -> dict[str, int]:
    """Each path's shard (1-based), balanced and stable (see the module's docstring)."""
    unique = sorted(set(paths))
    room = [len(unique) // count + (1 if k < len(unique) % count else 0) for k in range(count)]
    shards: dict[str, int] = {}
    for path in sorted(unique, key=lambda path: (_hash(path), path)):
        chosen = next(k for k in preferences(path, count) if room[k] > 0)
        room[chosen] -= 1
        shards[path] = chosen + 1
    return dict(sorted(shards.items()))


def digest(paths: Iterable[str]) -> str:
    """``sha256:…`` of the sorted paths: the identity of the set of files a run shared out."""
    joined = "\n".join(sorted(set(paths)))
    return "sha256:" + hashlib.sha256(joined.encode("utf-8")).hexdigest()


def identity_problems(identities: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Why reports (each a name and its run's identity: the recording, the settings, the
    case files) are not the shards of one run: one line for each report whose identity
    differs from the first's, naming the keys that differ (never their values, which may
    be long)."""
    if not identities:
        return []
    first_name, first = identities[0]
    problems = []
    for name, identity in identities[1:]:
        keys = sorted(key for key in {*first, *identity} if first.get(key) != identity.get(key))
        if keys:
            problems.append(
                f"{name} and {first_name} are not shards of one run: they differ in "
                + ", ".join(keys)
            )
    return problems


def holding_problems(shard: ShardReport, held: Collection[str]) -> list[str]:
    """Why a shard's report does not hold what it ran: a case file of its own of which it
    holds nothing (no case, no error, no item left out by the selection), which a report
    that dropped a failing case would look like; or a case file it does not run."""
    unknown = sorted(file for file in set(held) - set(shard.files) - set(shard.case_files))
    return [
        f"{shard.name} ran {file} but holds no case of it, nor why it has none"
        for file in shard.case_files
        if file not in held
    ] + [f"{shard.name} holds {file}, which is not one of the files it ran" for file in unknown]


@dataclass(frozen=True)
class ShardPlan:
    """Which shard runs each file of the run (``assignment``: path → 1-based shard)."""

    shard: Shard
    assignment: Mapping[str, int] = field(default_factory=dict)
    #: Which of the run's files are case files (the others are Python tests, which hold no
    #: case): known once the run collected them.
    case_files: frozenset[str] = frozenset()

    @classmethod
    def of(cls, shard: Shard, paths: Iterable[str]) -> ShardPlan:
        """The plan of ``shard`` over the run's files."""
        return cls(shard, assign(paths, shard.count))

    def with_case_files(self, case_files: Iterable[str]) -> ShardPlan:
        """This plan, knowing which of the run's files are case files."""
        return replace(self, case_files=frozenset(case_files))

    @property
    def files(self) -> list[str]:
        """This shard's files, sorted."""
        return [path for path, shard in self.assignment.items() if shard == self.shard.index]

    def owns(self, path: str) -> bool:
        """Whether this shard answers for ``path``: its own files, and a file the run does
        not have (a baseline's or a base report's entry of a deleted file) when it is the
        file's first choice, so that exactly one shard reports it."""
        found = self.assignment.get(path)
        if found is None:
            found = preferences(path, self.shard.count)[0] + 1
        return found == self.shard.index

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``run.shard``: the shard, its files, and the identity of every
        file of the run (how many, and a digest) so that a merge can tell a missing,
        duplicated or foreign shard."""
        return {
            "index": self.shard.index,
            "count": self.shard.count,
            "files": self.files,
            "case_files": [path for path in self.files if path in self.case_files],
            "run_files": len(self.assignment),
            "run_digest": digest(self.assignment),
        }


@dataclass(frozen=True)
class ShardReport:
    """What a shard's report says of its shard (``run.shard``), and the report's name."""

    name: str
    shard: Shard
    files: tuple[str, ...]
    run_files: int
    run_digest: str
    #: Of ``files``, the case files (each holds at least one case).
    case_files: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, name: str, data: Mapping[str, Any]) -> ShardReport:
        """Read ``run.shard``; a value of the wrong shape is a :class:`ConfigurationError`."""
        try:
            shard = Shard(int(data["index"]), int(data["count"]))
            files = tuple(str(path) for path in data["files"])
            case_files = tuple(str(path) for path in data["case_files"])
            return cls(
                name, shard, files, int(data["run_files"]), str(data["run_digest"]), case_files
            )
        except (KeyError, TypeError, ValueError):
            raise ConfigurationError(f"{name}: its run.shard is not a shard's record") from None


def shard_problems(reports: Sequence[ShardReport]) -> list[str]:
    """Why ``reports`` are not the shards of one run, each problem naming its file; empty
    when they are: one report per shard 1..N, of the same N and the same files, each
    holding the files the plan gives its shard."""
    if not reports:
        return []
    first = reports[0]
    counts = sorted({report.shard.count for report in reports})
    if len(counts) > 1:
        named = ", ".join(f"{report.name} is {report.shard}" for report in reports)
        return [f"the reports are shards of different counts ({named})"]
    problems = [
        f"{report.name} shares out another set of files than {first.name} "
        f"({report.run_files} files against {first.run_files}: not the same run)"
        for report in reports[1:]
        if report.run_digest != first.run_digest
    ]
    seen: dict[int, str] = {}
    for report in reports:
        if report.shard.index in seen:
            problems.append(
                f"{report.name} is shard {report.shard} again (so is {seen[report.shard.index]})"
            )
        seen.setdefault(report.shard.index, report.name)
    missing = [f"{k}/{counts[0]}" for k in range(1, counts[0] + 1) if k not in seen]
    if missing:
        problems.append(f"shard {', '.join(missing)} is missing: no report given holds it")
    if problems:
        return problems
    return _misplaced(reports, first.run_files)


def _misplaced(reports: Sequence[ShardReport], run_files: int) -> list[str]:
    """Problems of a complete set: the files do not add up to the run's, or a report holds
    files the plan gives another shard."""
    every = [path for report in reports for path in report.files]
    if (
        len(every) != run_files
        or len(set(every)) != len(every)
        or digest(every) != (reports[0].run_digest)
    ):
        return [f"the shards hold {len(every)} files, not the {run_files} the run shared out"]
    plan = assign(every, reports[0].shard.count)
    return [
        f"{report.name} holds files of another shard ({', '.join(wrong[:3])})"
        for report in reports
        if (wrong := [path for path in report.files if plan[path] != report.shard.index])
    ]


__all__ = [
    "Shard",
    "ShardPlan",
    "ShardReport",
    "assign",
    "digest",
    "holding_problems",
    "identity_problems",
    "shard_problems",
]
