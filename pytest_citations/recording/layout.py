"""Where recordings live: the cassette of a case file (its path mirrored under the cassette
folder) and of a test that uses the fixture (pytest-recording's layout), and the command that
records what a cassette lacks."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Sequence
from pathlib import Path

from ..errors import SignatureRefused
from ..paths import shown
from .choices import choices_document, parse_choices
from .files import CassetteContentError, read_cassette, write_cassette
from .library import CassetteLibrary


def mirrored_cassette(source: Path, cassette_dir: Path, root: Path | None = None) -> Path:
    """The cassette of a case file: its path (relative to ``root`` when inside it) mirrored
    under ``cassette_dir``, its suffix kept (``a.yaml`` and ``a.yml`` are two cassettes), the
    rule the plugin records by."""
    relative = Path(shown(source, root)) if source.is_absolute() else source
    if relative.is_absolute():
        relative = Path(source.name)
    if relative.suffix not in (".yaml", ".yml"):
        relative = relative.with_suffix(".yaml")
    return cassette_dir / relative


def _kept(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.[]" else "-" for ch in name)


def _safe(name: str) -> str:
    """A test's name fit for a file name; a long parametrised id keeps a readable start and
    a digest of the whole."""
    if len(_kept(name).encode("utf-8")) <= 120:
        return _kept(name)
    return f"{_kept(name)[:60]}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"


class CassetteLayout:
    """The cassette of every source of a run (case files and tests), each assigned once in
    the library, and the command that records each."""

    def __init__(
        self,
        library: CassetteLibrary,
        folder: Path,
        root: Path,
        required: Sequence[str] = (),
        records: bool = False,
    ) -> None:
        self.library = library
        self.folder = folder
        self.root = root
        #: The variables a recording needs, for the record command (``CRAWLBASE_TOKEN=…``).
        self.required = tuple(required)
        self.records = records
        #: Each cassette's source as the user names it (a case file, a test's node id).
        self._sources: dict[Path, str] = {}
        self._case_files: dict[Path, Path] = {}

    def case_file(self, source: Path) -> Path:
        """The cassette of a case file (see :func:`mirrored_cassette`), assigned once."""
        known = self._case_files.get(source)
        if known is not None:
            return known
        path = mirrored_cassette(source, self.folder, self.root)
        name = shown(source, self.root)
        self._sources.setdefault(path, name)
        self.library.assign(path, source.resolve(), f"the case file {name}")
        self._case_files[source] = path
        return path

    def test(
        self, module: Path, nodeid: str, name: str, classes: Sequence[str], *, opening: bool = False
    ) -> Path:
        """A test's cassette in pytest-recording's layout,
        ``<cassettes>/<test dir>/<module>/<Class>.<test>.yaml`` (the module's path relative to
        the root, so two tests of one name in two folders never share a file).

        A cassette of the older layout, ``<cassettes>/<module stem>/<test>.yaml``, is still
        read while the new one does not exist (unless it is another source's cassette now):
        a replay reads it as it is, and a recording run (``opening``: the fixture is about to
        open it) first copies it to the new path, so that nothing recorded is sent again and
        new recordings go only to the new path."""
        relative = Path(shown(module, self.root))
        folder = relative.with_suffix("") if not relative.is_absolute() else Path(module.stem)
        path = self.folder / folder / f"{_safe('.'.join([*classes, name]))}.yaml"
        self._sources.setdefault(path, nodeid)
        self.library.assign(path, ("test", nodeid), f"the test {nodeid}")
        older = self.folder / module.stem / f"{_kept(name)}.yaml"
        # Every test was assigned its path at collection; the fixture's call decides.
        if not opening or older == path or path.exists() or not older.is_file():
            return path
        if self._sources.setdefault(older, nodeid) != nodeid:
            return path  # the older file is another case file's or test's cassette now
        if not self.records:
            return older
        # An older file that cannot be read, or that trusted keys refuse, is not carried over.
        with contextlib.suppress(CassetteContentError, SignatureRefused, OSError):
            # Retrieval's choices come along: a replay of the new path needs no model either.
            trust = self.library.trust
            raw = older.read_bytes()
            interactions, section = read_cassette(raw, trust.check if trust else None)
            write_cassette(path, interactions, choices_document(parse_choices(section)))
        return path

    def upgrade_command(self, cassette: Path) -> str | None:
        """The command that adds retrieval's choices to a case file's cassette recorded
        before they were kept (None for a test's cassette: only recording it again can)."""
        source = self._sources.get(cassette)
        if source is None or "::" in source or not source.endswith((".yaml", ".yml")):
            return None
        words = ["pytest-citations", "cassettes", "upgrade", shown(cassette, self.root)]
        if self.folder.resolve() != (self.root / "cassettes").resolve():
            words += ["--cassette-dir", shown(self.folder, self.root)]
        return " ".join(words)

    def record_command(self, cassette: Path) -> str:
        """The command that records what a cassette lacks."""
        return record_command(self.required, [self._sources.get(cassette, str(cassette))])


def record_command(variables: Sequence[str], targets: Sequence[str]) -> str:
    """The command that records what the cassettes of ``targets`` (case files, or tests by
    node id) lack, naming the variables it needs (``CRAWLBASE_TOKEN=…``), never a value."""
    parts = [*(f"{name}=…" for name in variables), "pytest"]
    if any(target.endswith((".yaml", ".yml")) for target in targets):
        parts.append("--citations")
    return " ".join([*parts, *targets, "--citations-record=new_episodes"])
