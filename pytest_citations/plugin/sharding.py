"""``--citations-shard K/N``: this process runs shard K of N of the run, whole files shared out
by their paths (:mod:`pytest_citations.gating.shards`). The plan is made once collection is
done and before any other plugin's selection (``-k``, ``-m``), from every file collected,
case files that could not be read included; the items of the other shards are deselected
as ``-m`` deselects them, so pytest counts them among the deselected. The plan reaches the
reporter in this process, or from a worker's output on an xdist controller (which collects
nothing itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from . import identity
from .options import OPTIONS_KEY

if TYPE_CHECKING:  # made below, only in a run that shards
    from ..gating.shards import ShardPlan

#: This process's plan, once collection made it.
SHARD_KEY = pytest.StashKey["ShardPlan"]()
#: Node ids of the items this shard left to the others (not the user's selection).
SHARD_DESELECTED_KEY = pytest.StashKey[frozenset[str]]()
#: The key of the plan's assignment in an xdist worker's ``workeroutput``.
SHARD_OUTPUT = "citations_shard"


def _file(item: pytest.Item) -> str:
    """The item's file as node ids name it, from its file's node (a file's name may itself
    hold ``::``); an item under no file is a unit of its own."""
    node = item.getparent(pytest.File)  # type: ignore[type-abstract]
    return node.nodeid if node is not None else item.nodeid


def shard_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep this shard's items in ``items`` and deselect the others' (see the module): the
    plan shares out every file collected, the case files that hold no item included."""
    shard = config.stash[OPTIONS_KEY].shard
    if shard is None:
        return
    from ..gating.shards import ShardPlan  # a run that shards: --citations-shard loaded it

    case_files = identity.case_files_of(config) or {}
    plan = ShardPlan.of(shard, {_file(item) for item in items} | set(case_files))
    config.stash[SHARD_KEY] = plan
    kept = [item for item in items if plan.owns(_file(item))]
    others = [item for item in items if not plan.owns(_file(item))]
    config.stash[SHARD_DESELECTED_KEY] = frozenset(item.nodeid for item in others)
    if others:
        config.hook.pytest_deselected(items=others)
        items[:] = kept


def left_to_other_shards(config: pytest.Config, nodeid: str) -> bool:
    """Whether this shard deselected ``nodeid`` because another shard runs it."""
    return nodeid in config.stash.get(SHARD_DESELECTED_KEY, frozenset())


def hand_over(config: pytest.Config, output: dict[str, Any]) -> None:
    """On an xdist worker: put the plan's assignment into the worker's output."""
    plan = config.stash.get(SHARD_KEY, None)
    if plan is not None:
        output[SHARD_OUTPUT] = dict(plan.assignment)


def plan_of(config: pytest.Config, output: dict[str, Any] | None = None) -> ShardPlan | None:
    """The run's plan: this process's, or the one in a worker's ``output``."""
    shard = config.stash[OPTIONS_KEY].shard
    if shard is None:
        return None
    from ..gating.shards import ShardPlan  # a run that shards: --citations-shard loaded it

    if output is not None and SHARD_OUTPUT in output:
        return ShardPlan(shard, {str(k): int(v) for k, v in output[SHARD_OUTPUT].items()})
    return config.stash.get(SHARD_KEY, None)


__all__ = ["hand_over", "left_to_other_shards", "plan_of", "shard_items"]
