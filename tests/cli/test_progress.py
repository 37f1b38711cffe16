"""The batch progress (issue 11): on a terminal, claims done with the rate and the time left;
``--quiet`` silences it; off a terminal there is none (see ``test_batch.py``).

The console script runs in a subprocess whose standard error is a pseudo-terminal, as when a
person runs it; standard output stays a pipe, so the precision lines are still read apart.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import termios
import threading
from pathlib import Path

from ops_support import COMMAND, Web
from test_batch import PRECISION_LINES, clean_jsonl


def run_on_a_terminal(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """``pytest-citations ARGS`` with standard error on a 120-column pseudo-terminal:
    (exit code, standard output, what the terminal showed)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    shown: list[bytes] = []

    def drain() -> None:  # the terminal's buffer is small: read while the command runs
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the command exited and closed the terminal
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [*COMMAND, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=180,
            check=False,
        )
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    return done.returncode, done.stdout.decode("utf-8"), b"".join(shown).decode("utf-8")


#: tqdm's meter: "3/5 [00:01<00:00,  2.41claim/s]": done/total, elapsed<left, rate.
METER = re.compile(r"(\d+)/5 \[(\d\d:\d\d)<(\d\d:\d\d|\?), +(\?|[\d.]+)(?:claim/s|s/claim)\]")


def test_a_terminal_sees_claims_done_rate_and_time_left(web: Web, tmp_path: Path) -> None:
    source = tmp_path / "outputs.jsonl"
    source.write_text(clean_jsonl(), encoding="utf-8")

    code, stdout, terminal = run_on_a_terminal("batch", str(source), env=web.env)

    assert code == 0, terminal
    assert stdout == PRECISION_LINES  # the bar never lands on standard output
    meters = METER.findall(terminal)
    assert meters, terminal
    done = [int(count) for count, *_ in meters]
    assert done == sorted(done)
    assert done[-1] == 5
    last = meters[-1]
    assert last[2] == "00:00"  # nothing left
    assert last[3] != "?"  # a rate, once claims are done
    assert "\r" in terminal  # redrawn in place, not one line per claim
    assert "claims=5 skipped_lines=0" in terminal


def test_quiet_silences_the_bar_on_a_terminal(web: Web, tmp_path: Path) -> None:
    source = tmp_path / "outputs.jsonl"
    source.write_text(clean_jsonl(), encoding="utf-8")

    code, stdout, terminal = run_on_a_terminal("batch", str(source), "--quiet", env=web.env)

    assert code == 0, terminal
    assert stdout == PRECISION_LINES
    assert not METER.search(terminal), terminal
    assert "claims=5 skipped_lines=0" in terminal
