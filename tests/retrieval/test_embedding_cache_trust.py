"""The embedding cache is disposable (issue 17): random bytes over its SQLite file, a
truncated copy, a table of another shape or rows that hold no vector of the model's size
made every claim an ERROR with pages of ``sqlite3.DatabaseError``, and the drift command
crash. Now the damaged file is set aside (``embeddings.sqlite.corrupt-<time>``, its
``-wal`` and ``-shm`` with it), one warning names it, a fresh file takes its place, and the
vectors are what the model gives; a folder the cache cannot use leaves it in memory.

Through the plugin (the shipped example, MiniLM, pytest's cache folder), through the drift
command, and on :class:`EmbeddingCache` itself."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml
from ops_support import REPO, emulators, run_cli
from plugin_helpers import QUIET, STEERING_VARIABLES, Citations

from pytest_citations.retrieval.embedders.base import Vectors
from pytest_citations.retrieval.embedders.cache import EmbeddingCache
from pytest_citations.retrieval.embedders.hashed import LexicalEmbedder

PYTEST_CACHE = Path(".pytest_cache") / "d" / "citations-embeddings" / "embeddings.sqlite"
#: The warning's category (by name: the test must also run, and fail, where it is not).
CATEGORY = "EmbeddingCacheWarning"
TEXTS = [f"passage {n} about water boiling at {90 + n} degrees" for n in range(40)]


class Counting(LexicalEmbedder):
    """The lexical embedder, counting what it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(dimensions=64)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return super().embed(texts)


def expected(texts: Sequence[str]) -> Vectors:
    return LexicalEmbedder(dimensions=64).embed(texts)


def filled(folder: Path, texts: Sequence[str] = TEXTS) -> Path:
    """A healthy cache file in ``folder`` holding the vectors of ``texts``."""
    cache = EmbeddingCache(Counting(), folder)
    cache.embed(texts)
    cache.close()
    return folder / "embeddings.sqlite"


def embed_with_warnings(folder: Path, texts: Sequence[str]) -> tuple[Vectors, list[str], Counting]:
    """Embed through a fresh cache on ``folder``: the vectors, the warnings, the embedder."""
    embedder = Counting()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = EmbeddingCache(embedder, folder)
        try:
            vectors = cache.embed(texts)
            again = EmbeddingCache(Counting(), folder)  # a second embedder of the process
            again.embed(texts[:2])
            again.close()
        finally:
            cache.close()
    found = [str(w.message) for w in caught if w.category.__name__ == CATEGORY]
    return vectors, found, embedder


def set_aside(folder: Path) -> list[Path]:
    """The damaged files set aside in ``folder`` (their journal files left out)."""
    found = folder.glob("embeddings.sqlite.corrupt-*")
    return sorted(path for path in found if not path.name.endswith(("-wal", "-shm")))


def assert_fresh_and_complete(folder: Path, texts: Sequence[str]) -> None:
    """The file in place is a healthy cache that holds every vector of ``texts``."""
    with sqlite3.connect(folder / "embeddings.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        (count,) = db.execute("SELECT count(*) FROM embeddings").fetchone()
    assert count == len(set(texts))
    embedder = Counting()
    cache = EmbeddingCache(embedder, folder)
    np.testing.assert_array_equal(cache.embed(texts), expected(texts))
    cache.close()
    assert embedder.texts == []  # all read back from the fresh file


def test_random_bytes_are_set_aside_with_one_warning_and_the_cache_rebuilt(tmp_path: Path) -> None:
    damaged = os.urandom(20000)
    (tmp_path / "embeddings.sqlite").write_bytes(damaged)
    (tmp_path / "embeddings.sqlite-wal").write_bytes(b"old log")
    (tmp_path / "embeddings.sqlite-shm").write_bytes(b"old index")

    vectors, found, _ = embed_with_warnings(tmp_path, TEXTS)

    np.testing.assert_array_equal(vectors, expected(TEXTS))
    [aside] = set_aside(tmp_path)
    assert aside.read_bytes() == damaged
    assert Path(f"{aside}-wal").read_bytes() == b"old log"
    assert Path(f"{aside}-shm").is_file()  # SQLite rewrites the index as it opens the file
    assert (
        not (tmp_path / "embeddings.sqlite-wal").exists()
        or b"old log" not in (tmp_path / "embeddings.sqlite-wal").read_bytes()
    )
    assert len(found) == 1
    assert found[0] == (
        f"the embedding cache {tmp_path / 'embeddings.sqlite'} could not be read (file is not "
        f"a database); it was set aside as {aside.name} and a new one started (delete the "
        "old one when you no longer need it)"
    )
    assert_fresh_and_complete(tmp_path, TEXTS)


def test_a_file_truncated_behind_a_readable_header_is_set_aside_when_read(tmp_path: Path) -> None:
    texts = [f"passage {n} about water boiling" for n in range(1500)]
    path = filled(tmp_path, texts)
    size = path.stat().st_size
    assert size > 100_000
    with open(path, "r+b") as handle:
        handle.truncate(size // 3)  # page 1 (the schema) survives: it opens, reads fail

    vectors, found, embedder = embed_with_warnings(tmp_path, texts)

    np.testing.assert_array_equal(vectors, expected(texts))
    assert len(found) == 1
    assert "could not be read (database disk image is malformed)" in found[0]
    assert len(set_aside(tmp_path)) == 1
    assert embedder.texts  # what the damaged file could not give was embedded again
    assert_fresh_and_complete(tmp_path, texts)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("CREATE TABLE embeddings (a, b)", "its table has other columns"),
        ("CREATE VIEW embeddings AS SELECT 1 AS model", "its table has other columns"),
    ],
)
def test_a_table_of_another_shape_is_set_aside(tmp_path: Path, table: str, problem: str) -> None:
    with sqlite3.connect(tmp_path / "embeddings.sqlite") as db:
        db.execute(table)

    vectors, found, _ = embed_with_warnings(tmp_path, TEXTS)

    np.testing.assert_array_equal(vectors, expected(TEXTS))
    assert len(found) == 1
    assert problem in found[0]
    assert len(set_aside(tmp_path)) == 1
    assert_fresh_and_complete(tmp_path, TEXTS)


@pytest.mark.parametrize(
    ("vector", "problem"),
    [("not bytes", "a row of it holds no vector"), (b"\0" * 12, "vectors of 3 and 64 dimensions")],
    ids=["text", "short"],
)
def test_rows_that_hold_no_vector_of_the_model_are_set_aside_and_recomputed(
    tmp_path: Path, vector: object, problem: str
) -> None:
    path = filled(tmp_path, TEXTS[:1])
    forged = EmbeddingCache(Counting(), tmp_path)  # the key the cache gives TEXTS[1]
    forged.embed(TEXTS[1:2])
    forged.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE embeddings SET vector = ? WHERE rowid = 2", (vector,))

    embedder = Counting()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = EmbeddingCache(embedder, tmp_path)
        cache.embed(TEXTS[2:3])  # a vector made: the model's size is known
        vectors = cache.embed(TEXTS[1:2])  # the forged row alone
        both = cache.embed(TEXTS[:2])
        cache.close()

    np.testing.assert_array_equal(vectors, expected(TEXTS[1:2]))
    np.testing.assert_array_equal(both, expected(TEXTS[:2]))
    [message] = [str(w.message) for w in caught if w.category.__name__ == CATEGORY]
    assert problem in message
    assert len(set_aside(tmp_path)) == 1


def test_a_folder_the_cache_cannot_use_leaves_it_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder should be\n", encoding="utf-8")

    vectors, found, embedder = embed_with_warnings(blocked / "cache", TEXTS)

    np.testing.assert_array_equal(vectors, expected(TEXTS))
    assert len(found) == 1
    assert "cannot be used" in found[0]
    assert "this process keeps its vectors in memory" in found[0]
    assert blocked.read_text(encoding="utf-8").startswith("a file")
    assert embedder.texts == TEXTS


def test_warnings_made_errors_do_not_stop_the_run_the_warning_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "embeddings.sqlite").write_bytes(b"not a database at all, " * 100)

    with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
        warnings.simplefilter("error")  # as under -W error or filterwarnings = error
        cache = EmbeddingCache(Counting(), tmp_path)
        vectors = cache.embed(TEXTS)
        cache.close()

    np.testing.assert_array_equal(vectors, expected(TEXTS))
    assert [r.getMessage() for r in caplog.records if "could not be read" in r.getMessage()]


def test_the_plugin_runs_the_example_against_a_corrupted_cache_as_against_none(
    tmp_path: Path,
) -> None:
    for folder in ("cases", "cassettes/cases"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copyfile(
            REPO / folder / "boiling-point.yaml", tmp_path / folder / "boiling-point.yaml"
        )
    # Without its recorded choices, the replay ranks the page with the model, which reads
    # and writes the cache.
    cassette = tmp_path / "cassettes/cases/boiling-point.yaml"
    document = yaml.safe_load(cassette.read_text(encoding="utf-8"))
    del document["retrieval"]
    cassette.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    cache = tmp_path / PYTEST_CACHE
    cache.parent.mkdir(parents=True)
    damaged = os.urandom(20000)
    cache.write_bytes(damaged)
    env = {name: value for name, value in os.environ.items() if name not in STEERING_VARIABLES}

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--citations", "cases/", *QUIET],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )

    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, output  # the contradicted claim
    assert "1 failed, 2 passed, 1 warning" in output
    assert output.count("EmbeddingCacheWarning: the embedding cache") == 1
    assert "DatabaseError" not in output
    [aside] = set_aside(cache.parent)
    assert aside.read_bytes() == damaged
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM embeddings").fetchone()[0] > 0


def test_the_drift_command_checks_against_a_corrupted_cache(citations: Citations) -> None:
    claim, url = "Water boils at 100 °C at sea level.", "https://example.org/physics/boiling"
    citations.write("cases/water.yaml", f"id: water\ncitations:\n  1: {url}\nclaims:\n"
                    f"  - text: {claim}\n    cites: [1]\n")  # fmt: skip
    citations.record("cases/", gate="default")[0].assert_outcomes(passed=2)
    cache = citations.path / PYTEST_CACHE
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(os.urandom(20000))

    with emulators(citations.path) as web:
        # Evidence that changed is ranked again, with the cache; a claim against an
        # unchanged page recalls its recorded choice, which needs no cache.
        web.crawlbase.edit(url, "one standard\natmosphere", "one atmosphere")
        run = run_cli("drift", "cases/", env=web.env, cwd=citations.path)

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.rstrip().endswith("drift decision: pass")
    assert run.stderr.count("EmbeddingCacheWarning: the embedding cache") == 1
    assert "Traceback" not in run.stderr
    assert len(set_aside(cache.parent)) == 1
