"""Copy the cassettes a pull request's citation gate recorded into the pull request's branch.

    python3 take_recordings.py RECORDINGS BRANCH

``RECORDINGS`` holds one folder per artifact of the gate's shards, each with ``where`` (the
folder pytest ran in, relative to the repository) and ``cassettes/``. Only ``*.yaml`` files
that are not links are taken, only into ``BRANCH/<where>/cassettes/``; a ``where`` that leaves
the repository, a file that two shards recorded differently, or a file that holds the value
of a token in the environment (``CRAWLBASE_TOKEN``, ``CRAWLBASE_JS_TOKEN``,
``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``) stops the copy before anything is written, naming
the file, never the value. Exit status 0 when the files were copied, 1 when refused.

The standard library only: it runs on a bare runner, from the default branch's checkout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath

TOKEN_VARIABLES = ("CRAWLBASE_TOKEN", "CRAWLBASE_JS_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")


class Refused(Exception):
    """A recording that must not reach the branch."""


def _folder(artifact: Path) -> PurePosixPath:
    where = PurePosixPath((artifact / "where").read_text(encoding="utf-8").strip() or ".")
    if where.is_absolute() or ".." in where.parts:
        raise Refused(f"{artifact.name}: the folder {str(where)!r} is outside the repository")
    return where


def _secrets() -> list[tuple[str, bytes]]:
    values = ((name, os.environ.get(name, "")) for name in TOKEN_VARIABLES)
    return [(name, value.encode()) for name, value in values if len(value) >= 8]


def planned(recordings: Path) -> dict[PurePosixPath, bytes]:
    """The files to write, by their path in the repository; :class:`Refused` otherwise."""
    secrets = _secrets()
    files: dict[PurePosixPath, bytes] = {}
    for artifact in sorted(path for path in recordings.iterdir() if path.is_dir()):
        cassettes = artifact / "cassettes"
        if not (artifact / "where").is_file() or not cassettes.is_dir():
            raise Refused(f"{artifact.name} is not a recordings artifact (no where, cassettes/)")
        target = _folder(artifact) / "cassettes"
        for source in sorted(cassettes.rglob("*")):
            if source.is_symlink():
                raise Refused(f"{artifact.name}: {source.relative_to(cassettes)} is a link")
            if not source.is_file() or source.suffix != ".yaml":
                continue
            data = source.read_bytes()
            named = target / PurePosixPath(source.relative_to(cassettes).as_posix())
            for variable, value in secrets:
                if value in data:
                    raise Refused(f"{named} holds the value of {variable}")
            if files.get(named, data) != data:
                raise Refused(f"{named} was recorded differently by two shards")
            files[named] = data
    return files


def take(recordings: Path, branch: Path) -> list[PurePosixPath]:
    """Write the planned files into ``branch``; the paths that changed."""
    changed = []
    for named, data in planned(recordings).items():
        path = branch / named
        if path.is_symlink() or (path.exists() and path.read_bytes() == data):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".part")
        partial.write_bytes(data)
        partial.replace(path)
        changed.append(named)
    return changed


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        changed = take(Path(argv[0]), Path(argv[1]))
    except Refused as refused:
        print(f"::error::recordings refused: {refused}")
        return 1
    for named in changed:
        print(f"recorded: {named}")
    print(f"{len(changed)} cassette(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
