"""``pytest-citations drift PATH…`` (issue 12): the drift check without running the tests,
in a subprocess against the emulators, over cassettes the plugin recorded."""

from __future__ import annotations

import json
import shutil

import pytest
from ops_support import SECRETS, emulators, run_cli
from plugin_helpers import Citations

BOILING_URL = "https://example.org/physics/boiling"  # the example site's page
BOILING_CLAIM = "Water boils at 100 °C at sea level."
RETURNS_URL = "https://shop.example.com/policies/hardware-returns"
RETURNS_CLAIM = "Consumers can return hardware within 30 days."
RETURNS_PAGE = (
    "# Returns policy for hardware\n\n"
    "Consumers can return hardware within 30 days of delivery.\n\n"
    "Items must come back with all accessories and the original packaging, and a receipt "
    "or an order number that shows where and when the item was bought.\n\n"
    "Refunds go back to the original payment method within five working days of the "
    "returned item arriving at our warehouse.\n\n"
    "Page updated on 2025-01-03 at 09:14.\n"
)


def case_text(case_id: str, claim: str, url: str) -> str:
    return f"id: {case_id}\ncitations:\n  1: {url}\nclaims:\n  - text: {claim}\n    cites: [1]\n"


@pytest.fixture
def project(citations: Citations) -> Citations:
    """Two case files and the cassettes the plugin recorded for them."""
    citations.write("cases/policy.yaml", case_text("policy", RETURNS_CLAIM, RETURNS_URL))
    citations.write("cases/water.yaml", case_text("water", BOILING_CLAIM, BOILING_URL))
    citations.write("notes/other.yaml", "title: not a case file\n")
    with citations.web() as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        citations.run("--citations-record=once", "cases/").assert_outcomes(passed=4)
    return citations


def test_drift_command_reports_flips_and_exits_by_the_policy(project: Citations) -> None:
    policy = project.cassette("cases/policy.yaml").read_bytes()
    with emulators(project.path) as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE.replace("30 days", "14 days"))
        run = run_cli("drift", "cases/", "notes/", "--json", "out/drift.json", env=web.env,
                      cwd=project.path)  # fmt: skip
        lenient = run_cli("drift", "cases/", "--fail-on", "gone", env=web.env, cwd=project.path)

    assert run.returncode == 1, run.stderr
    assert "drift: 2 citations in 2 cassettes; 2 URLs to fetch live" in run.stderr
    assert (
        f"EVIDENCE_CHANGED cases/policy.yaml::policy::claim-1 {RETURNS_URL}: "
        "supported → contradicted FLIPPED"
    ) in run.stdout
    assert run.stdout.rstrip().endswith("drift decision: fail (flipped 1)")
    report = json.loads((project.path / "out/drift.json").read_text(encoding="utf-8"))
    assert report["counts"]["evidence_changed"] == 1
    assert report["counts"]["unchanged"] == 1
    assert project.cassette("cases/policy.yaml").read_bytes() == policy  # no --update
    assert lenient.returncode == 0, lenient.stderr
    for secret in SECRETS.values():
        assert secret not in run.stdout + run.stderr


def test_drift_command_names_every_missing_variable_before_any_request(
    project: Citations,
) -> None:
    with emulators(project.path) as web:
        env = web.without("CRAWLBASE_TOKEN", "OPENAI_API_KEY")
        run = run_cli("drift", "cases/", env=env, cwd=project.path)
        crawled = web.crawlbase.crawl_count

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert "OPENAI_API_KEY" in run.stderr
    assert crawled == 0


def test_drift_command_rejects_an_unknown_status(project: Citations) -> None:
    with emulators(project.path) as web:
        run = run_cli("drift", "cases/", "--fail-on", "vanished", env=web.env, cwd=project.path)

    assert run.returncode == 2
    assert "unknown drift status 'vanished'" in run.stderr


def test_drift_command_keeps_what_it_embedded_for_the_next_check(project: Citations) -> None:
    # The nightly workflow caches pytest's cache folder between nights: the check must
    # write its vectors there even when no pytest run made the folder first.
    shutil.rmtree(project.path / ".pytest_cache", ignore_errors=True)
    with emulators(project.path) as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE)
        run = run_cli("drift", "cases/", env=web.env, cwd=project.path)

    assert run.returncode == 0, run.stdout
    cache = project.path / ".pytest_cache" / "d" / "citations-embeddings" / "embeddings.sqlite"
    assert cache.is_file()
    assert cache.stat().st_size > 0
