"""A replay lets each case file's recording go once the file is verified: a suite of many
files replays in the memory of a few, not of all of them (benchmarks/replay measures it)."""

from __future__ import annotations

from plugin_helpers import BOILING_URL, SUPPORTED_CLAIM, Citations, single_claim_case

#: Counts the cassette sessions still alive when the session ends, before the plugin closes
#: its verifier (which lets everything go anyway).
PROBE = """
import gc
from pathlib import Path

import pytest

from pytest_citations.recording.session import CassetteSession


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    gc.collect()
    held = sum(isinstance(found, CassetteSession) for found in gc.get_objects())
    Path("held.txt").write_text(str(held), encoding="utf-8")
"""


def test_a_replay_holds_no_case_files_recording_once_the_file_is_verified(
    citations: Citations,
) -> None:
    for number in range(4):
        case = single_claim_case(f"part-{number}", SUPPORTED_CLAIM, BOILING_URL)
        citations.write(f"cases/part_{number}.yaml", case)
    recorded, _ = citations.record("cases/", gate="default")
    assert recorded.ret == 0, recorded.stdout.str()
    citations.write("conftest.py", PROBE)

    replayed = citations.run_subprocess("cases/", gate="default")

    assert replayed.ret == 0, replayed.stdout.str()
    replayed.stdout.fnmatch_lines(["*8 passed*"])
    assert (citations.path / "held.txt").read_text(encoding="utf-8") == "0"
