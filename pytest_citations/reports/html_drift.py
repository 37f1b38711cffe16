"""The HTML report's drift section (``--citations-drift``): how many citations each drift
status holds, the decision of the policy, what the check cost against a full re-record,
and each citation that drifted, with its old and new label and the passage diff folded
beneath. Built from the JSON-ready drift data (``RunResult.drift``); all text escaped."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from ..sanitize import strip_controls


def _text(value: object) -> str:
    return html.escape(strip_controls(str(value)))


def _labels(citation: dict[str, Any]) -> str:
    old = citation["old"]["label"]
    new = citation.get("new")
    if not new:
        return _text(old)
    reason = f" ({new['reason']})" if new.get("reason") else ""
    return f"{_text(old)} → {_text(new['label'] + reason)}"


def _citation(citation: dict[str, Any]) -> str:
    flipped = ' <span class="flip">flipped</span>' if citation.get("flipped") else ""
    detail = f'<p class="detail">{_text(citation["detail"])}</p>' if citation["detail"] else ""
    diff = ""
    if citation["diff"]:
        lines = "\n".join(_text(line) for line in citation["diff"])
        diff = f"<details><summary>what changed</summary><pre>{lines}</pre></details>"
    return (
        f'<li class="drift {_text(citation["status"])}" data-status="{_text(citation["status"])}">'
        f'<span class="status">{_text(citation["status"])}</span> '
        f'<code>{_text(citation["nodeid"])}</code> <a href="{_text(citation["url"])}">'
        f"{_text(citation['url'])}</a>: {_labels(citation)}{flipped}{detail}{diff}</li>"
    )


def drift_section(drift: Mapping[str, Any]) -> str:
    """The section, or a line saying why the check could not run."""
    if "error" in drift:
        return (
            '<section class="drift" id="drift"><h2>Drift</h2><p class="decision fail">'
            f"The drift check could not run: {_text(drift['error'])}</p></section>"
        )
    counts = "".join(
        f'<tr data-status="{_text(name)}"><th>{_text(name)}</th><td>{count}</td></tr>'
        for name, count in drift["counts"].items()
    )
    costs = drift["costs"]
    cost = (
        f"{costs['crawls']} crawls, {costs['credits']:g} credits, {costs['judge_calls']} judge "
        f"calls (a full re-record: {costs['full_rerecord_judge_calls']} judge calls)"
    )
    drifted = [c for c in drift["citations"] if c["status"] != "unchanged" or c.get("flipped")]
    listed = "".join(_citation(c) for c in drifted) or "<li>No citation drifted.</li>"
    state = "fail" if drift["failed"] else "pass"
    return (
        '<section class="drift" id="drift"><h2>Drift</h2>'
        f'<p class="decision {state}">drift decision: {_text(drift["decision"])} '
        f"(fail on {_text(','.join(drift['policy']['fail_on']))})</p>"
        f'<table class="drift-counts">{counts}</table><p class="cost">{_text(cost)}</p>'
        f'<ul class="drifted">{listed}</ul></section>'
    )
