"""The embedding cache's file: an SQLite table of vectors by model and text hash, shared by
runs and processes (the plugin keeps it in pytest's cache folder, the drift command reads
the same one).

A cache is disposable, so it never fails a run. A file that cannot be opened or read
(random bytes, a truncated copy, a table of another shape, a row that holds no vector of
the model's size) is set aside as ``embeddings.sqlite.corrupt-<time>``, its ``-wal`` and
``-shm`` beside it; a warning names both files, once per process; a fresh file takes its
place. When the disk itself refuses (a read-only folder, a full disk, a folder that cannot
be made) the file is left alone and the run keeps its vectors in memory. A lock another
process holds past the timeout skips that one read or write (as the file opens, it too
leaves the run in memory): a busy file is not a damaged one.

One process opens each file once (:meth:`VectorStore.open`), however many embedders use
it: a second connection would still hold the old file after the first set it aside, and
SQLite, closing it, would delete the new file's write-ahead log by name.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

FILE_NAME = "embeddings.sqlite"
_COLUMNS = [("model", "TEXT"), ("key", "TEXT"), ("vector", "BLOB")]
#: Another process holds the lock (past the timeout): skip this read or write (or, as the
#: file opens, keep vectors in memory), never set the file aside.
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
#: The disk refuses, not the file: keep the file, carry on in memory.
_REFUSED = {
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_NOMEM,
}
_logger = logging.getLogger(__name__)
_Result = TypeVar("_Result")
Vectors = npt.NDArray[np.float32]


class EmbeddingCacheWarning(UserWarning):
    """The embedding cache file was set aside, or cannot be used; the run goes on."""


class _Damaged(Exception):
    """What SQLite accepts but the cache cannot use (a table of another shape, a row that
    is no vector)."""


# One store per file and one warning per file, in this process, however many embedders and
# runs meet it (pytester runs many in one process); locks because embedding runs in threads.
_stores: dict[Path, VectorStore] = {}
_registry = threading.Lock()
_warned: set[Path] = set()
_warned_lock = threading.Lock()


def _warn_once(path: Path, message: str) -> None:
    with _warned_lock:
        if path in _warned:
            return
        _warned.add(path)
    try:
        warnings.warn(message, EmbeddingCacheWarning, stacklevel=3)
    except Warning:
        # Warnings are errors in this run (-W error): a disposable cache must not fail it.
        _logger.warning(message)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _reason(error: BaseException) -> str:
    return str(error) or type(error).__name__


def _code(error: BaseException) -> int | None:
    """SQLite's primary result code of an error, when SQLite raised it."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


class VectorStore:
    """The process's connection to one cache file, with the recovery the module describes.
    Thread-safe; every method returns normally whatever the file holds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        #: The file this store opened (device, inode): only that one is ever set aside.
        self._opened: tuple[int, int] | None = None
        #: Vector size in bytes per model, from the first row read or written.
        self._sizes: dict[str, int] = {}
        self._users = 0
        self._set_aside_once = False
        self._start()

    @classmethod
    def open(cls, folder: Path) -> VectorStore:
        """The store of ``folder``'s cache file, shared in this process; :meth:`release`
        it when done."""
        path = folder.resolve() / FILE_NAME
        with _registry:
            store = _stores.get(path)
            if store is None:
                store = _stores[path] = cls(path)
            store._users += 1
        return store

    def release(self) -> None:
        """One user less; the last one closes the file."""
        with _registry:
            self._users -= 1
            if self._users > 0:
                return
            _stores.pop(self.path, None)
        with self._lock:
            self._close()

    def get(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of ``keys``, as many as are there."""
        found = self._use(lambda db: self._select(db, model, keys))
        return {key: np.frombuffer(blob, dtype=np.float32) for key, blob in (found or {}).items()}

    def put(self, model: str, vectors: Mapping[str, Vectors]) -> None:
        """Store vectors by key (as float32)."""
        rows = {key: vector.astype(np.float32).tobytes() for key, vector in vectors.items()}
        if rows:
            self._use(lambda db: self._insert(db, model, rows))

    # The file ----------------------------------------------------------------------------
    def _start(self) -> None:
        """Open the file (creating it), or recover as the module says."""
        try:
            self._open()
        except (sqlite3.Error, OSError, _Damaged) as error:
            self._failed(error)

    def _open(self) -> None:
        # The connection is kept even when a check fails: closing it deletes the journal
        # files by name, and they must first be set aside with the file.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._opened = _identity(self.path)
        self._db = db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with contextlib.suppress(sqlite3.OperationalError):
            db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings ("
            "model TEXT NOT NULL, key TEXT NOT NULL, vector BLOB NOT NULL,"
            " PRIMARY KEY (model, key))"
        )
        db.commit()
        self._opened = _identity(self.path)
        columns = [
            (row[1], str(row[2]).upper()) for row in db.execute("PRAGMA table_info(embeddings)")
        ]
        if columns != _COLUMNS:
            raise _Damaged("its table has other columns than model, key and vector")

    def _close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _use(self, work: Callable[[sqlite3.Connection], _Result]) -> _Result | None:
        """``work`` on the file; after a failure that set the file aside, once more on the
        fresh one. None when the file could not serve it."""
        with self._lock:
            for _ in range(2):
                if self._db is None:
                    return None
                try:
                    return work(self._db)
                except sqlite3.Error as error:
                    if _code(error) in _BUSY:
                        return None
                    self._failed(error)
                except _Damaged as error:
                    self._failed(error)
            return None

    def _failed(self, error: BaseException) -> None:
        """Set the file aside and start a fresh one, or carry on in memory."""
        # A lock held past the timeout as the file opens is no damage either.
        refused = isinstance(error, OSError) or _code(error) in _REFUSED | _BUSY
        if refused or self._set_aside_once:
            self._close()
            _warn_once(
                self.path,
                f"the embedding cache {self.path} cannot be used ({_reason(error)}); this "
                "process keeps its vectors in memory",
            )
            return
        self._set_aside_once = True
        # Renamed before the connection closes: closing deletes the journal files by name,
        # which then name nothing.
        aside = self._set_aside()
        self._close()
        if aside is not None:
            _warn_once(
                self.path,
                f"the embedding cache {self.path} could not be read ({_reason(error)}); it "
                f"was set aside as {aside.name} and a new one started (delete the old one "
                "when you no longer need it)",
            )
        self._sizes.clear()
        self._start()

    def _set_aside(self) -> Path | None:
        """Rename the damaged file (and its journal files) out of the way; None when another
        store got there first (the file there is no longer the one this store opened)."""
        if self._opened is not None and _identity(self.path) != self._opened:
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        number = 2
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{number}")
            number += 1
        try:
            os.replace(self.path, aside)
        except OSError:
            return None
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        return aside

    # The table ---------------------------------------------------------------------------
    def _select(self, db: sqlite3.Connection, model: str, keys: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                f"SELECT key, vector FROM embeddings WHERE model = ? AND key IN ({marks})",
                [model, *chunk],
            ).fetchall()
            for key, blob in rows:
                self._check(model, blob)
                found[key] = blob
        return found

    def _insert(self, db: sqlite3.Connection, model: str, vectors: Mapping[str, bytes]) -> None:
        for blob in vectors.values():
            self._check(model, blob)
        db.executemany(
            "INSERT OR REPLACE INTO embeddings (model, key, vector) VALUES (?, ?, ?)",
            [(model, key, blob) for key, blob in vectors.items()],
        )
        db.commit()

    def _check(self, model: str, blob: object) -> None:
        """A vector is float32 bytes of one size per model."""
        if not isinstance(blob, bytes) or not blob or len(blob) % 4:
            raise _Damaged("a row of it holds no vector")
        size = self._sizes.setdefault(model, len(blob))
        if len(blob) != size:
            raise _Damaged(f"it holds vectors of {len(blob) // 4} and {size // 4} dimensions")
