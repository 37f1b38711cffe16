"""What a run was about to record and what its budget and its recordings left unchecked, as
lines: the plan printed before a recording run spends anything, the claims its budget kept
from being sent, and the claims new since the recording, each with the command that records
them (naming the variables it needs, never a value). Pure functions of the run's result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..gating.result import ClaimResult
from ..gating.run_result import RunResult
from ..labels import counted
from ..network.usage import Spending, SpendPlan, Usage
from ..pipeline.settings import BUDGETS
from ..recording.layout import record_command

#: Each budget in words, by its settings field.
BUDGET_WORDS = {
    "max_judge_calls": "judge calls",
    "max_judge_tokens": "judge tokens",
    "max_credits": "credits",
}
#: The same, of exactly one (``1 judge call``).
ONE = {"judge calls": "judge call", "judge tokens": "judge token", "credits": "credit"}


def budget_words(budget: Mapping[str, float]) -> str:
    """``judge calls 20, credits 10``, or ``none``."""
    shown = [
        f"{BUDGET_WORDS[limit.field]} {budget[limit.field]:g}"
        for limit in BUDGETS
        if limit.field in budget
    ]
    return ", ".join(shown) or "none"


def budget_flags(budget: Mapping[str, float]) -> str:
    """``--citations-max-judge-calls 3``: the budgets as the run was given them."""
    return ", ".join(
        f"--citations-{limit.name} {budget[limit.field]:g}"
        for limit in BUDGETS
        if limit.field in budget
    )


def plan_line(plan: SpendPlan, budget: Mapping[str, float]) -> str:
    """``to record: 12 claims new since the recording (judge calls ≤ 24), 3 pages not
    recorded (4.5 credits, ≤ 24 with retries and a browser); budget: judge calls 20``."""
    parts = []
    if plan.claims:
        parts.append(
            f"{counted(plan.claims, 'claim')} new since the recording "
            f"(judge calls ≤ {plan.judge_calls})"
        )
    if plan.pages:
        parts.append(
            f"{counted(plan.pages, 'page')} not recorded ({plan.credits:g} credits, "
            f"≤ {plan.most_credits:g} with retries and a browser)"
        )
    if not parts and plan.case_files:
        parts.append(
            "nothing new in the case files (their recordings hold every claim and page)"
            if plan.tests
            else "nothing new (the recordings hold every claim and page)"
        )
    if plan.tests:
        parts.append(
            f"{counted(plan.tests, 'test')} using citation_verifier, which the plan does not "
            "cover (the budget does)"
        )
    what = ", ".join(parts) or "nothing (no case file or test to record)"
    return f"to record: {what}; budget: {budget_words(budget)}"


def against_plan(plan: SpendPlan, usage: Usage) -> dict[str, Any]:
    """What a recording run planned beside what it spent, JSON-ready (the JSON report's
    ``summary.recording``): the plan's estimate, and the credits by kind, judge calls and
    tokens the run's ledger counted."""
    return {
        "planned": {
            "credits": plan.credits,
            "most_credits": plan.most_credits,
            "judge_calls": plan.judge_calls,
            "pages": plan.pages,
            "claims": plan.claims,
        },
        "spent": {
            "credits": usage.credits,
            "credits_by_kind": usage.credits_by_kind(),
            "judge_calls": usage.judge_calls,
            "judge_tokens": usage.judge_tokens,
        },
    }


def against_plan_line(plan: SpendPlan, usage: Usage) -> str:
    """``recording: planned 3 credits for 3 pages (≤ 24 with retries and a browser), ≤ 4
    judge calls; spent 5 credits (normal 1, javascript 4, storage 0), 4 judge calls, 2100
    tokens``: what escalating thin pages to a browser cost shows in the JavaScript credits."""
    kinds = usage.credits_by_kind()
    pages = (
        f"{plan.credits:g} credits for {counted(plan.pages, 'page')} (≤ {plan.most_credits:g} "
        "with retries and a browser)"
        if plan.pages
        else "no page"
    )
    return (
        f"recording: planned {pages}, ≤ {counted(plan.judge_calls, 'judge call')}; spent "
        f"{usage.credits:g} credits (normal "
        f"{kinds['normal']:g}, javascript {kinds['javascript']:g}, storage "
        f"{kinds['storage']:g}), {counted(usage.judge_calls, 'judge call')}, "
        f"{counted(usage.judge_tokens, 'token')}"
    )


def _spent(usage: Usage, budget: Mapping[str, float]) -> str:
    """What was spent of each budget set: ``3 judge calls``."""
    spent = {
        "max_judge_calls": usage.judge_calls,
        "max_judge_tokens": usage.judge_tokens,
        "max_credits": usage.credits,
    }
    shown = []
    for name, value in spent.items():
        if name in budget:
            words = BUDGET_WORDS[name]
            shown.append(f"{value:g} {ONE[words] if value == 1 else words}")
    return ", ".join(shown)


def _command(spending: Spending, claims: Sequence[ClaimResult]) -> str:
    prefix = spending.file_prefix
    files = dict.fromkeys(f"{prefix}{claim.where.file}" for claim in claims)
    return record_command(spending.record_variables, list(files))


def pending_lines(report: RunResult) -> list[str]:
    """The claims the budget kept from being sent (each named), then how many claims are new
    since the recording, each group with the command that records it."""
    spending = report.spending
    lines = []
    over = report.unrecorded_claims(over_budget=True)
    if over:
        budget = spending.budget
        its, it = ("its", "it") if len(over) == 1 else ("their", "them")
        whose, spent = "the run's budget", "spent"
        if spending.holders > 1:  # merged shards, each of which held the budget
            whose, spent = "each shard's budget", f"{spending.holders} shards spent"
        lines.append(
            f"{counted(len(over), 'claim')} not checked: {whose} ({budget_flags(budget)}; "
            f"{spent} {_spent(report.usage, budget)}) did not cover {its} requests, which "
            f"were not sent. Record {it} with more budget, or in the next run: "
            f"{_command(spending, over)}"
        )
        lines += [f"  {claim.nodeid}" for claim in over]
    new = report.unrecorded_claims(over_budget=False)
    if new:
        verb, pronoun = ("is", "it") if len(new) == 1 else ("are", "them")
        lines.append(
            f"{counted(len(new), 'claim')} {verb} new since the recording: record {pronoun} "
            f"with {_command(spending, new)}"
        )
    return lines


__all__ = [
    "against_plan",
    "against_plan_line",
    "budget_flags",
    "budget_words",
    "pending_lines",
    "plan_line",
]
