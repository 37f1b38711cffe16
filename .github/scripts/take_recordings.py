"""Copy the cassettes a pull request's citation gate recorded into the pull request's branch.

    python3 take_recordings.py RECORDINGS BRANCH

``RECORDINGS`` holds one folder per artifact of the gate's shards (as download-artifact
leaves them: ``RECORDINGS/<artifact name>/``), each with ``where`` (the folder pytest ran
in, relative to the repository) and ``cassettes/`` (what that shard recorded; absent when
it recorded nothing). Only ``*.yaml`` files are taken, only into
``BRANCH/<where>/cassettes/``. A shard's copy that is the branch's file as it is counts
for nothing; a file that two shards changed differently is a conflict.

The whole take is refused, before anything is written, when:

- a ``where`` leaves the repository or names ``.git``;
- a link, or anything but a folder or a file with one name, is in an artifact or in the
  branch, on the way to a ``cassettes/`` folder or anywhere below it (a write never
  follows a link: every folder is opened without following one, and each file is written
  to a new temporary file, created exclusively, then renamed over its name);
- a file holds the value of a token in the environment (``CRAWLBASE_TOKEN``,
  ``CRAWLBASE_JS_TOKEN``, ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``), as it is or encoded:
  YAML's double-quoted escapes and escaped line breaks, percent-encoding, base64 (standard
  or URL-safe, at any alignment, across line breaks); the message names the file and the
  variable, never the value;
- a file is not UTF-8 text, is larger than :data:`MAX_FILE` bytes, or its name holds a
  control character;
- two shards changed one file differently (both copies stay in the artifacts).

Exit status 0 when the files were copied, 1 when refused. Under GitHub Actions the job
summary (``GITHUB_STEP_SUMMARY``) says what was taken, or why nothing was.

The standard library only: it runs on a bare runner, from the default branch's checkout.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, unquote_plus

TOKEN_VARIABLES = ("CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
#: The largest cassette taken (a recording of a few dozen pages is a few MB).
MAX_FILE = 64 * 1024 * 1024
#: How a folder on the way is opened: never through a link, never anything but a folder.
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: A YAML double-quoted escape (the same as JSON's for ``\\uXXXX``), or an escaped line break
#: with the next line's indentation.
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|\r?\n[ \t]*|\r|.)", re.S)
_SIMPLE = dict(zip("0abtnvfreN_LP", "\0\a\b\t\n\v\f\r\x1b\x85\xa0\u2028\u2029", strict=True))
_SPACE = re.compile(r"\s+")


class Refused(Exception):
    """A recording that must not reach the branch."""


def _shown(name: object) -> str:
    """A path as the log shows it: GitHub's legacy command prefix ``##[`` broken."""
    return str(name).replace("##[", "#\u200b#[")


def _unescaped(text: str) -> str:
    """``text`` with every YAML double-quoted escape decoded wherever it stands."""

    def one(found: re.Match[str]) -> str:
        escape = found[1]
        if escape[0] in "xuU" and len(escape) > 1:
            code = int(escape[1:], 16)
            return chr(code) if code <= 0x10FFFF else ""
        if escape[0] in "\r\n":
            return ""
        return _SIMPLE.get(escape, escape)

    return _ESCAPE.sub(one, text)


def _views(text: str) -> Iterator[str]:
    """What a YAML loader, a URL decoder or a reader of wrapped lines could make of ``text``:
    each decoding applied wherever it could (decoding what was not encoded can only find
    more), white space removed (base64 is wrapped over lines; a token holds none)."""
    for yaml_view in (text, _unescaped(text)):
        for url_view in (
            yaml_view,
            unquote(yaml_view),
            unquote(unquote(yaml_view)),
            unquote_plus(yaml_view),
        ):
            yield _SPACE.sub("", url_view)


def _base64_forms(value: bytes) -> list[str]:
    """The base64 characters that encode ``value`` whatever bytes stand before and after it:
    one run for each of the three alignments, in both alphabets."""
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + value + b"\0\0").decode("ascii")
        first = -(-8 * offset // 6)
        last = 8 * (offset + len(value)) // 6
        run = encoded[first:last]
        forms += [run, run.replace("+", "-").replace("/", "_")]
    return forms


def _secrets() -> list[tuple[str, str, list[str]]]:
    found = []
    for name in TOKEN_VARIABLES:
        value = os.environ.get(name, "")
        if len(value) >= 8:
            found.append((name, value, _base64_forms(value.encode("utf-8"))))
    return found


def _leak(data: bytes, named: PurePosixPath, tokens: list[tuple[str, str, list[str]]]) -> None:
    """Refuse a file that is not UTF-8 text, or that holds a token's value (in its name, or
    in its text as it is or encoded)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{_shown(named)} is not UTF-8 text") from None
    for variable, value, _ in tokens:
        if value in str(named):
            raise Refused(f"the name of {_shown(named.parent)}/… holds the value of {variable}")
    for view in _views(text) if tokens else ():
        for variable, value, forms in tokens:
            if value in view or any(form in view for form in forms):
                raise Refused(f"{_shown(named)} holds the value of {variable}")


def _folder(artifact: Path) -> PurePosixPath:
    data = _read(artifact / "where", 4096).decode("utf-8", "replace")
    where = PurePosixPath(data.strip() or ".")
    if where.is_absolute() or ".." in where.parts:
        raise Refused(f"{artifact.name}: the folder {str(where)!r} is outside the repository")
    if any(part.lower() == ".git" for part in where.parts) or _CONTROL.search(str(where)):
        raise Refused(f"{artifact.name}: the folder {str(where)!r} is not a folder to record in")
    return where


def _read(path: Path, limit: int = MAX_FILE) -> bytes:
    """A regular file's bytes, never through a link; :class:`Refused` otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        raise Refused(f"{_shown(path)} cannot be read ({error.strerror})") from None
    with os.fdopen(fd, "rb") as opened:
        found = os.fstat(opened.fileno())
        if not stat.S_ISREG(found.st_mode):
            raise Refused(f"{_shown(path)} is not a file")
        if found.st_size > limit:
            raise Refused(f"{_shown(path)} is larger than {limit} bytes")
        return opened.read()


def _unreadable(error: OSError) -> None:
    raise Refused(f"{_shown(error.filename)} cannot be read ({error.strerror})")


def _entries(folder: Path) -> Iterator[tuple[PurePosixPath, Path]]:
    """Every file below ``folder`` (its relative path, its path), in order; a link, or any
    entry but a folder or a file, is :class:`Refused`."""
    for current, folders, files in os.walk(folder, onerror=_unreadable):
        folders.sort()
        for name in sorted(folders + files):
            path = Path(current, name)
            if _CONTROL.search(name):
                raise Refused(f"a name in {_shown(current)} holds a control character")
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                raise Refused(f"{_shown(path)} is a link")
            if stat.S_ISREG(mode):
                yield PurePosixPath(path.relative_to(folder).as_posix()), path
            elif not stat.S_ISDIR(mode):
                raise Refused(f"{_shown(path)} is neither a folder nor a file")


def _recorded(
    recordings: Path,
) -> tuple[set[PurePosixPath], dict[PurePosixPath, dict[str, bytes]]]:
    """The cassette folders the artifacts write to, and their ``*.yaml`` files by their path
    in the repository: each artifact's copy, checked."""
    tokens = _secrets()
    folders: set[PurePosixPath] = set()
    found: dict[PurePosixPath, dict[str, bytes]] = {}
    for artifact in sorted(recordings.iterdir()):
        if not stat.S_ISDIR(os.lstat(artifact).st_mode):
            raise Refused(f"{_shown(artifact.name)} is not a recordings artifact (a folder)")
        target = _folder(artifact) / "cassettes"
        folders.add(target)
        cassettes = artifact / "cassettes"
        if not os.path.lexists(cassettes):
            continue  # the shard recorded nothing
        if not stat.S_ISDIR(os.lstat(cassettes).st_mode):
            raise Refused(f"{_shown(artifact.name)}: cassettes is not a folder")
        for relative, path in _entries(cassettes):
            if path.suffix != ".yaml":
                continue
            named = target / relative
            if any(part.lower() == ".git" for part in named.parts):
                raise Refused(f"{_shown(named)} is not a cassette")
            data = _read(path)
            _leak(data, named, tokens)
            found.setdefault(named, {})[artifact.name] = data
    return folders, found


def _checkout(branch: Path, folders: set[PurePosixPath]) -> None:
    """Refuse a branch whose way to a cassette folder, or whose cassette folder, holds a
    link, or anything but folders and files with one name."""
    for folder in sorted(folders):
        path = branch
        for part in folder.parts:
            path = path / part
            if not os.path.lexists(path):
                break
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                raise Refused(f"the branch's {_shown(path.relative_to(branch))} is not a folder")
        else:
            for _, file in _entries(path):
                if os.lstat(file).st_nlink != 1:
                    shown = _shown(file.relative_to(branch))
                    raise Refused(f"the branch's {shown} has other names (a hard link)")


def _open_folder(branch: Path, folder: PurePosixPath) -> int:
    """A descriptor of ``branch/folder``, made where missing, opened one folder at a time
    without following a link."""
    fd = os.open(branch, _DIRECTORY)
    try:
        for part in folder.parts:
            try:
                inner = os.open(part, _DIRECTORY, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(part, 0o755, dir_fd=fd)
                inner = os.open(part, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write(fd: int, name: str, data: bytes) -> None:
    """``data`` as the file ``name`` of the folder ``fd``: written to a new file created
    exclusively (never an existing one, never through a link), then renamed over ``name``."""
    partial = f".{name}.{secrets.token_hex(8)}.part"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    out = os.open(partial, flags, 0o644, dir_fd=fd)
    try:
        with os.fdopen(out, "wb") as opened:
            opened.write(data)
            opened.flush()
            os.fsync(opened.fileno())
        os.replace(partial, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=fd)
        raise


def planned(recordings: Path, branch: Path) -> dict[PurePosixPath, bytes]:
    """The files to write, by their path in the repository: the one copy of each that
    changes the branch; :class:`Refused` otherwise."""
    folders, recorded = _recorded(recordings)
    _checkout(branch, folders)
    files: dict[PurePosixPath, bytes] = {}
    for named, copies in sorted(recorded.items()):
        path = branch.joinpath(*named.parts)
        current = _read(path) if os.path.lexists(path) else None
        changed = {data: artifact for artifact, data in sorted(copies.items()) if data != current}
        if len(changed) > 1:
            shards = " and ".join(sorted(changed.values()))
            raise Refused(f"{_shown(named)} was recorded differently by two shards ({shards})")
        if changed:
            files[named] = next(iter(changed))
    return files


def take(recordings: Path, branch: Path) -> list[PurePosixPath]:
    """Write the planned files into ``branch``; the paths that changed."""
    files = planned(recordings, branch)
    for named, data in files.items():
        fd = _open_folder(branch, named.parent)
        try:
            _write(fd, named.name, data)
        finally:
            os.close(fd)
    return list(files)


def _summary(text: str) -> None:
    """Append ``text`` to the job summary in one write, or leave the file as it was."""
    named = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    if not named:
        return
    try:
        fd = os.open(named, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return
    size = os.fstat(fd).st_size
    try:
        data = text.encode("utf-8")
        if os.write(fd, data) != len(data):
            raise OSError("short write")
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, size)
    finally:
        os.close(fd)


def _code(text: str) -> str:
    """``text`` fit for a Markdown code span (names come from the artifacts)."""
    return text.replace("`", "'")


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        changed = take(Path(argv[0]), Path(argv[1]))
    except (Refused, OSError) as refused:
        why = str(refused) if isinstance(refused, Refused) else f"{refused.strerror}"
        print(f"::error::recordings refused: {_escape(why)}")
        _summary(f"## Recordings\n\nNothing was committed: `{_code(why)}`. The recordings "
                 "stay in the gate run's artifacts.\n")  # fmt: skip
        return 1
    for named in changed:
        print(f"recorded: {_shown(named)}")
    print(f"{len(changed)} cassette(s) changed")
    listed = "".join(f"- `{_code(str(named))}`\n" for named in changed)
    _summary(f"## Recordings\n\n{len(changed)} cassette(s) changed\n\n{listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
