"""The one writer of every file the package owns (``pytest_citations.atomic``): the target
holds the old file or the whole new one, never part of either; the temporary file goes
whatever fails; a new file gets the umask, a replaced one keeps its mode; a link keeps
pointing where it did; what a killed writer left is removed by the next write, and what a
live writer holds is not."""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from pytest_citations.atomic import UnwritableFile, sweep_temporary_files, write_atomically
from pytest_citations.errors import CitationsError


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask() -> Iterator[int]:
    before = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(before)


def failing_after(written: bytes, error: BaseException) -> Callable[[IO[bytes]], None]:
    """Content that writes ``written`` to the temporary file, then fails with ``error``."""

    def fill(stream: IO[bytes]) -> None:
        stream.write(written)
        stream.flush()
        raise error

    return fill


@pytest.mark.parametrize("existed", [True, False], ids=["replacing", "new"])
def test_a_write_that_fails_half_way_leaves_the_old_file_and_no_temporary_one(
    tmp_path: Path, existed: bool
) -> None:
    target = tmp_path / "report.json"
    if existed:
        target.write_bytes(b'{"old": true}\n')
    full_disk = OSError(27, "File too large")

    with pytest.raises(UnwritableFile) as raised:
        write_atomically(target, failing_after(b'{"new": ', full_disk))

    kept = "the previous file was left as it was" if existed else "no file was written"
    assert str(raised.value) == f"cannot write {target}: File too large ({kept})"
    assert isinstance(raised.value, CitationsError)
    assert isinstance(raised.value, OSError)
    if existed:
        assert target.read_bytes() == b'{"old": true}\n'
    else:
        assert not target.exists()
    assert leftovers(tmp_path) == []


def test_an_interruption_propagates_and_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "baseline.json"
    target.write_text("old\n", encoding="utf-8")

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, failing_after(b"ne", KeyboardInterrupt()))

    assert target.read_text(encoding="utf-8") == "old\n"
    assert leftovers(tmp_path) == []


def test_text_bytes_and_folders(tmp_path: Path) -> None:
    text = tmp_path / "a" / "b" / "report.html"
    write_atomically(text, "<p>café</p>\n")
    data = tmp_path / "data.bin"
    write_atomically(data, b"\x00\xff")

    assert text.read_bytes() == "<p>café</p>\n".encode()
    assert data.read_bytes() == b"\x00\xff"


def test_a_new_file_gets_the_umask_and_a_replaced_one_keeps_its_mode(
    tmp_path: Path, umask: int
) -> None:
    new = tmp_path / "new.yaml"
    write_atomically(new, "a: 1\n")
    shared = tmp_path / "shared.yaml"
    shared.write_text("a: 1\n", encoding="utf-8")
    shared.chmod(0o664)

    write_atomically(shared, "a: 2\n")

    assert mode(new) == 0o666 & ~umask
    assert mode(shared) == 0o664
    assert shared.read_text(encoding="utf-8") == "a: 2\n"


def test_a_link_keeps_pointing_at_its_file_which_is_replaced(tmp_path: Path) -> None:
    real = tmp_path / "shared" / "baseline.json"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "baseline.json"
    link.symlink_to(real)

    write_atomically(link, "new\n")

    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "new\n"
    assert leftovers(real.parent) == []


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomically(fifo, "through the pipe\n")
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_killed_writers_file_is_removed_by_the_next_write_and_a_live_one_stays(
    tmp_path: Path,
) -> None:
    target = tmp_path / "citations.csv"
    dead = tmp_path / f".{target.name}.4242.0badf00d.tmp"
    dead.write_bytes(b"case,claim\nhalf a ro")
    live = tmp_path / f".{target.name}.{os.getpid()}.12345678.tmp"
    held = os.open(live, os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    other = tmp_path / ".other.csv.4242.0badf00d.tmp"  # another file's: not this write's
    other.write_bytes(b"x")
    try:
        write_atomically(target, "case,claim\n")
        assert not dead.exists()
        assert live.exists()
        assert other.exists()
        assert sweep_temporary_files(tmp_path) == [other]
        assert live.exists()
    finally:
        os.close(held)
    assert target.read_text(encoding="utf-8") == "case,claim\n"
