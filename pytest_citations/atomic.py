"""Files pytest-citations owns, written whole or not at all.

Cassettes, the baseline, the JSON, HTML and CSV reports, the drift command's JSON, imported
case files and the schema ``import --schema`` saves all go through :func:`write_atomically`:
the new content goes to a temporary file beside the target (``.<name>.<pid>.<nonce>.tmp``),
locked while it is written, flushed and synced to disk, then renamed over the target, and the
folder is synced so that the rename survives a power cut. Any failure (a full disk, a file
size limit, SIGINT) removes the temporary file and leaves the target byte-identical: the old
file, or no file at all. A writer killed outright (SIGKILL, SIGXFSZ) leaves its temporary
file behind; its lock died with it, so the next write of that target (and the cassette
library, folder by folder) removes it.

A new file gets the mode of any file the user creates (0o666 less the umask); a replaced
file keeps its mode. A target that is not a regular file (a FIFO, ``/dev/stdout``) is written
in place: there is nothing to rename over.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

from .errors import CitationsError

#: What a file of this module's writers holds: text (written as UTF-8), bytes, or a function
#: that writes it to a binary stream (a cassette dumped as it is serialised).
Content = str | bytes | Callable[[IO[bytes]], None]

#: ``.<target name>.<pid>.<nonce>.tmp``: beside its target, never a case file
#: (``citations_files`` matches ``*.yaml``/``*.yml``) and recognisable when left behind.
TEMPORARY = re.compile(r"^\..+\.\d+\.[0-9a-f]{8}\.tmp$")
#: Without ``fcntl`` a writer's lock cannot be seen: only files this old count as abandoned.
_ABANDONED_AFTER = 3600.0


class UnwritableFile(CitationsError, OSError):
    """A file that could not be written; the message names it and says that what was there
    before is still there. An ``OSError`` too, for callers that handle those."""

    def __init__(self, path: Path, error: OSError, existed: bool) -> None:
        self.path = path
        self.reason = error.strerror or str(error) or type(error).__name__
        kept = "the previous file was left as it was" if existed else "no file was written"
        super().__init__(f"cannot write {path}: {self.reason} ({kept})")


def write_atomically(path: Path, content: Content) -> None:
    """Replace ``path`` by ``content`` whole, or leave it as it was (see the module's
    docstring); folders are created as needed. Raises :class:`UnwritableFile` naming the
    file for any operating-system error; an interruption (KeyboardInterrupt) propagates as
    it is, the temporary file removed either way."""
    existed = os.path.lexists(path)
    try:
        _write(path, content)
    except UnwritableFile:
        raise
    except OSError as error:
        raise UnwritableFile(path, error, existed) from None


def _write(path: Path, content: Content) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        before: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        before = None
    if before is not None and not stat.S_ISREG(before.st_mode):
        with open(path, "wb") as stream:
            _fill(stream, content)
        return
    # A symbolic link keeps pointing where it did: its target is the file replaced.
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    sweep_temporary_files(target.parent, target.name)
    fd, temporary = _locked_temporary(target)
    try:
        with open(fd, "wb") as stream:
            _fill(stream, content)
            stream.flush()
            os.fsync(stream.fileno())
            if before is not None and hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), stat.S_IMODE(before.st_mode))
            # Renamed while still locked, so that a sweep never takes it for abandoned.
            os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(target.parent)


def _fill(stream: IO[bytes], content: Content) -> None:
    if isinstance(content, str):
        stream.write(content.encode("utf-8"))
    elif isinstance(content, bytes):
        stream.write(content)
    else:
        content(stream)


def _locked_temporary(target: Path) -> tuple[int, Path]:
    """A new temporary file beside ``target``, locked: its descriptor and path."""
    for _ in range(3):
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        fd = -1
        try:
            # Inside the try: an interruption right after creation removes it too.
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            _lock(fd, wait=True)
            if _still_named(fd, temporary):
                return fd, temporary
        except BaseException:
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        # A sweep removed it between its creation and this writer's lock: again.
        os.close(fd)
    raise OSError(f"the temporary file beside {target.name} kept disappearing")


def _still_named(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def _lock(fd: int, *, wait: bool) -> bool:
    """Hold an advisory lock on ``fd`` (released when the process dies, SIGKILL included)."""
    if _fcntl is None:  # pragma: no cover - Windows
        return True
    try:
        _fcntl.flock(fd, _fcntl.LOCK_EX | (0 if wait else _fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _sync_folder(folder: Path) -> None:
    """Make a rename durable: the folder's entry, not only the file, must reach the disk."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def sweep_temporary_files(folder: Path, name: str | None = None) -> list[Path]:
    """Remove the temporary files that killed writers left in ``folder`` (only those of the
    file ``name``, when given); a live writer's file is locked and stays. Returns what was
    removed."""
    prefix = f".{name}." if name is not None else "."
    removed: list[Path] = []
    try:
        names = [
            entry.name
            for entry in os.scandir(folder)
            if entry.name.startswith(prefix) and TEMPORARY.match(entry.name)
        ]
    except OSError:
        return removed
    for found in names:
        candidate = folder / found
        if _abandoned(candidate):
            removed.append(candidate)
    return removed


def _abandoned(candidate: Path) -> bool:
    """Remove ``candidate`` if no live writer holds it; whether it was removed."""
    try:
        fd = os.open(candidate, os.O_RDONLY)
    except OSError:
        return False
    try:
        if _fcntl is None:  # pragma: no cover - Windows
            abandoned = time.time() - os.fstat(fd).st_mtime > _ABANDONED_AFTER
        else:
            # Locked by the writer that renames it: the lock is free only when that writer
            # died (or has not taken it yet, which it then sees), and the name must still
            # be that same file.
            abandoned = _lock(fd, wait=False) and _still_named(fd, candidate)
        if abandoned:
            os.unlink(candidate)
        return abandoned
    except OSError:
        return False
    finally:
        os.close(fd)
