"""``pytest-citations drift PATH…`` (issue 12): the drift check without running the tests,
in a subprocess against the emulators, over cassettes the plugin recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ops_support import SECRETS, Run, copy_examples, emulators, run_cli
from plugin_helpers import Citations

import pytest_citations

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


#: The folder that holds the package under test: the command runs this code, not another
#: installed copy.
SOURCE = str(Path(pytest_citations.__file__).resolve().parent.parent)


def drift(*args: str, env: dict[str, str], cwd: Path) -> Run:
    """``pytest-citations drift ARGS`` in a fresh process with exactly ``env``."""
    return run_cli("drift", *args, env={**env, "PYTHONPATH": SOURCE}, cwd=cwd)


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
        citations.run("--citations-record=once", "cases/", gate="default").assert_outcomes(passed=4)
    return citations


def test_drift_command_reports_flips_and_exits_by_the_policy(project: Citations) -> None:
    policy = project.cassette("cases/policy.yaml").read_bytes()
    with emulators(project.path) as web:
        web.crawlbase.add(RETURNS_URL, markdown=RETURNS_PAGE.replace("30 days", "14 days"))
        run = drift("cases/", "notes/", "--json", "out/drift.json", env=web.env,
                      cwd=project.path)  # fmt: skip
        lenient = drift("cases/", "--fail-on", "gone", env=web.env, cwd=project.path)

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
        run = drift("cases/", env=env, cwd=project.path)
        crawled = web.crawlbase.crawl_count

    assert run.returncode == 2
    assert "CRAWLBASE_TOKEN" in run.stderr
    assert "OPENAI_API_KEY" in run.stderr
    assert crawled == 0


def test_drift_command_rejects_an_unknown_status(project: Citations) -> None:
    with emulators(project.path) as web:
        run = drift("cases/", "--fail-on", "vanished", env=web.env, cwd=project.path)

    assert run.returncode == 2
    assert "unknown drift status 'vanished'" in run.stderr


def test_drift_command_keeps_what_it_embedded_for_the_next_check(project: Citations) -> None:
    # The nightly workflow caches pytest's cache folder between nights: the check must
    # write its vectors there even when no pytest run made the folder first. Evidence that
    # changed is ranked again (an unchanged page recalls its recorded choice: no vector).
    shutil.rmtree(project.path / ".pytest_cache", ignore_errors=True)
    with emulators(project.path) as web:
        edited = RETURNS_PAGE.replace("of delivery.", "of delivery to your door.")
        web.crawlbase.add(RETURNS_URL, markdown=edited)
        run = drift("cases/", env=web.env, cwd=project.path)

    assert run.returncode == 0, run.stdout
    cache = project.path / ".pytest_cache" / "d" / "citations-embeddings" / "embeddings.sqlite"
    assert cache.is_file()
    assert cache.stat().st_size > 0


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """The repository's example case files and their real cassettes, copied."""
    copy_examples(tmp_path)
    return tmp_path.resolve()


@pytest.mark.parametrize(
    ("arrange", "args", "folder"),
    [
        ("remove", (), "cassettes"),
        ("remove", ("--allow-unchecked",), "cassettes"),
        ("keep", ("--cassette-dir", "recordings"), "recordings"),
        ("keep", ("--root", "elsewhere"), "elsewhere/cassettes"),
    ],
    ids=["moved-away", "moved-away-allow-unchecked", "wrong-cassette-dir", "wrong-root"],
)
def test_drift_command_that_checks_nothing_fails_and_says_why(
    examples: Path, arrange: str, args: tuple[str, ...], folder: str
) -> None:
    if arrange == "remove":
        shutil.move(examples / "cassettes", examples / "old-cassettes")
    (examples / "elsewhere").mkdir()
    with emulators(examples) as web:
        run = drift("cases/", *args, env=web.env, cwd=examples)
        crawled = web.crawlbase.crawl_count

    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    # The three examples cite 10 URLs, and the returns case retrieved one for its 3 claims.
    assert lines[0].startswith("drift: 13 citations in 0 cassettes, 0 URLs fetched live")
    assert "unchecked 13" in lines[1]
    assert "  UNCHECKED cases/boiling-point.yaml::boiling-point::claim-1 " in run.stdout
    assert (
        f"  nothing checked: none of the 3 case files has a cassette under {examples / folder}: "
        "wrong --cassette-dir or --root?"
    ) in lines
    unchecked = "" if "--allow-unchecked" in args else ", unchecked 13"
    assert lines[-1] == f"drift decision: fail (nothing checked{unchecked})"
    assert "skipped" not in run.stdout
    assert crawled == 0
    run.assert_no_secret()


def test_drift_command_names_the_cassette_each_citation_lacks(examples: Path) -> None:
    shutil.move(examples / "cassettes/cases/fetch-rules.yaml", examples / "fetch-rules.yaml.bak")
    with emulators(examples) as web:
        run = drift("cases/", env=web.env, cwd=examples)

    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        "  UNCHECKED cases/fetch-rules.yaml::fetch-rules::claim-2 "
        "https://example.org/physics/pressure-cookers: not_found (request_refused)"
    ) in run.stdout
    assert "      no cassette at cassettes/cases/fetch-rules.yaml" in run.stdout
    assert run.stdout.rstrip().endswith("drift decision: fail (unchecked 4)")


def test_drift_command_fails_on_a_citation_its_cassette_holds_no_recording_of(
    examples: Path,
) -> None:
    case = examples / "cases" / "boiling-point.yaml"
    case.write_text(
        case.read_text("utf-8").replace("    cites: [1, 2]", "    cites: [1, 2, 3]", 1)
        .replace("  2: https://example.org/old-report",
                 "  2: https://example.org/old-report\n  3: https://example.org/physics/pressure-cookers"),
        encoding="utf-8",
    )  # fmt: skip
    with emulators(examples) as web:
        strict = drift("cases/", env=web.env, cwd=examples)
        allowed = drift("cases/", "--allow-unchecked", env=web.env, cwd=examples)

    assert strict.returncode == 1, strict.stdout + strict.stderr
    lines = strict.stdout.splitlines()
    head = lines.index(
        "  UNCHECKED cases/boiling-point.yaml::boiling-point::claim-1 "
        "https://example.org/physics/pressure-cookers: not_found (request_refused)"
    )
    assert lines[head + 1].startswith(
        "      the cassette holds no recording of it: cassettes/cases/boiling-point.yaml has no "
    )
    assert lines[-1] == "drift decision: fail (unchecked 1)"
    assert allowed.returncode == 0, allowed.stdout
    assert allowed.stdout.rstrip().endswith("drift decision: pass")


def test_drift_command_refuses_a_corrupt_cassette_naming_it(examples: Path) -> None:
    cassette = examples / "cassettes" / "cases" / "returns-policy.yaml"
    cassette.write_bytes(cassette.read_bytes()[:300])
    with emulators(examples) as web:
        run = drift("cases/", "--allow-unchecked", env=web.env, cwd=examples)
        crawled = web.crawlbase.crawl_count

    assert run.returncode == 2, run.stdout + run.stderr
    assert "pytest-citations: cassette cassettes/cases/returns-policy.yaml cannot be read: " in (
        run.stderr
    )
    assert (
        "delete it and record it again with: pytest --citations cases/returns-policy.yaml "
        "--citations-record=new_episodes"
    ) in run.stderr
    assert "drift decision" not in run.stdout
    assert crawled == 0
    run.assert_no_secret()
