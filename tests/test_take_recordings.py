"""``.github/scripts/take_recordings.py``: what citations-recordings.yml runs to copy a pull
request's new cassettes into its branch. Only cassette files reach the branch, only below a
``cassettes/`` folder of the repository, never through a link of the branch or into a file
that is not the one renamed into place, and none that holds a token's value, as it is or
encoded (checked with canaries); anything refused stops the copy before a file is written.
Two shards' artifacts (download-artifact's layout: one folder per artifact) each hold only
what their shard changed, or the base's copy of the rest: each file comes from the shard
that changed it (issue 24)."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, quote_plus, unquote_plus

import pytest
import yaml
from canaries import CANARIES

SCRIPT = Path(__file__).resolve().parents[1] / ".github" / "scripts" / "take_recordings.py"
CANARY = "canary-openai-key-0f1e2d3c4b5a"


def artifact(root: Path, name: str, where: str, files: dict[str, str]) -> None:
    folder = root / name
    (folder / "cassettes").mkdir(parents=True)
    (folder / "where").write_text(where + "\n", encoding="utf-8")
    for path, text in files.items():
        target = folder / "cassettes" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def take(
    recordings: Path, branch: Path, **env_extra: str
) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env = {**inherited, "OPENAI_API_KEY": CANARY, "CRAWLBASE_TOKEN": "", **env_extra}
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(recordings), str(branch)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def branch(tmp_path: Path) -> Path:
    root = tmp_path / "branch"
    (root / "examples" / "assistant" / "cassettes").mkdir(parents=True)
    (root / "examples" / "assistant" / "cassettes" / "kept.yaml").write_text("old\n", "utf-8")
    return root


def test_each_shards_new_cassettes_land_in_the_folder_pytest_ran_in(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    artifact(
        recordings,
        "assistant-recordings-1",
        "examples/assistant",
        {"cases/a.yaml": "interactions: []\n", "kept.yaml": "old\n", "notes.txt": "x"},
    )
    artifact(recordings, "assistant-recordings-2", "examples/assistant",
             {"tests/b.yaml": "interactions: []\n"})  # fmt: skip

    done = take(recordings, branch)

    assert done.returncode == 0, done.stdout + done.stderr
    cassettes = branch / "examples" / "assistant" / "cassettes"
    assert (cassettes / "cases" / "a.yaml").read_text("utf-8") == "interactions: []\n"
    assert (cassettes / "tests" / "b.yaml").exists()
    assert not (cassettes / "notes.txt").exists()  # cassette files only
    assert "2 cassette(s) changed" in done.stdout  # kept.yaml did not change


@pytest.mark.parametrize("where", ["../elsewhere", "/etc", "a/../../b"])
def test_a_folder_outside_the_repository_is_refused(
    tmp_path: Path, branch: Path, where: str
) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", where, {"a.yaml": "interactions: []\n"})

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "outside the repository" in done.stdout
    assert not (tmp_path / "elsewhere").exists()


def test_a_cassette_holding_a_tokens_value_is_refused_and_nothing_is_written(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    leaked = f"headers: {{key: {CANARY}}}\n"
    artifact(recordings, "x-recordings-1", "examples/assistant",
             {"a.yaml": "interactions: []\n", "z.yaml": leaked})  # fmt: skip

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "z.yaml holds the value of OPENAI_API_KEY" in done.stdout
    assert CANARY not in done.stdout + done.stderr
    assert not (branch / "examples" / "assistant" / "cassettes" / "a.yaml").exists()


def test_one_cassette_recorded_differently_by_two_shards_is_refused(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", ".", {"a.yaml": "one\n"})
    artifact(recordings, "x-recordings-2", ".", {"a.yaml": "two\n"})

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "recorded differently by two shards" in done.stdout
    assert not (branch / "cassettes").exists()


def test_a_link_in_the_artifact_is_refused(tmp_path: Path, branch: Path) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", ".", {})
    (tmp_path / "secret.yaml").write_text("private\n", "utf-8")
    (recordings / "x-recordings-1" / "cassettes" / "a.yaml").symlink_to(tmp_path / "secret.yaml")

    done = take(recordings, branch)

    assert done.returncode == 1
    assert "is a link" in done.stdout


# Links and other names in the branch (issue 24): a write never goes through one.


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A checkout of the pull request's branch: a git repository with ``docs/`` and the
    assistant's ``cassettes/``."""
    root = tmp_path / "branch"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("docs\n", "utf-8")
    cassettes = root / "examples" / "assistant" / "cassettes"
    cassettes.mkdir(parents=True)
    (cassettes / "kept.yaml").write_text("old\n", "utf-8")
    assert git(root, "init", "-q").returncode == 0
    return root


#: What a hostile shard records as ``c.yaml``: git configuration that runs a command.
GIT_CONFIG = '[core]\n\tfsmonitor = "echo ran > ../fsmonitor-ran; false"\n'


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (links not followed), by its path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


LINKS = {
    # The temporary name the copy used to write through, to .git/config.
    "temporary name": ("c.yaml.part", "../../../.git/config", "c.yaml"),
    # A linked folder: files land in docs/.
    "folder": ("docs", "../../../docs", "docs/x.yaml"),
    # The cassette file itself, a link to a file outside.
    "file": ("c.yaml", "../../../docs/index.md", "c.yaml"),
    # A link the shards do not write to: the branch holds one, so nothing is taken.
    "elsewhere": ("other.yaml", "../../../.git/config", "c.yaml"),
}


@pytest.mark.parametrize("case", LINKS, ids=str)
def test_a_link_under_the_branchs_cassettes_refuses_the_whole_take(
    tmp_path: Path, repository: Path, case: str
) -> None:
    name, target, recorded = LINKS[case]
    cassettes = repository / "examples" / "assistant" / "cassettes"
    (cassettes / name).symlink_to(target)
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant",
             {recorded: GIT_CONFIG, "new.yaml": "interactions: []\n"})  # fmt: skip
    before = snapshot(repository)

    done = take(recordings, repository)

    assert done.returncode == 1, done.stdout
    assert "is a link" in done.stdout
    assert snapshot(repository) == before  # nothing written, .git/config untouched
    git(repository, "diff", "--quiet")  # what the workflow runs next
    assert not (tmp_path / "fsmonitor-ran").exists()


@pytest.mark.parametrize("link", ["examples", "examples/assistant/cassettes"])
def test_a_link_on_the_way_to_the_cassettes_refuses_the_whole_take(
    tmp_path: Path, repository: Path, link: str
) -> None:
    moved = repository / link
    moved.rename(repository / "docs" / "moved")
    moved.symlink_to(Path("../" * link.count("/")) / "docs" / "moved")
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant", {"c.yaml": "x: 1\n"})
    before = snapshot(repository)

    done = take(recordings, repository)

    assert done.returncode == 1, done.stdout
    assert "is not a folder" in done.stdout or "is a link" in done.stdout
    assert snapshot(repository) == before


def test_a_temporary_name_hard_linked_elsewhere_is_never_written_into(
    tmp_path: Path, repository: Path
) -> None:
    cassettes = repository / "examples" / "assistant" / "cassettes"
    os.link(repository / ".git" / "config", cassettes / "c.yaml.part")
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant", {"c.yaml": GIT_CONFIG})
    before = snapshot(repository)

    done = take(recordings, repository)

    assert done.returncode == 1, done.stdout
    assert "has other names" in done.stdout
    assert snapshot(repository) == before


def test_a_file_of_the_branch_named_like_a_temporary_file_is_left_alone(
    tmp_path: Path, repository: Path
) -> None:
    # Temporary files are new files, created exclusively under names of their own.
    cassettes = repository / "examples" / "assistant" / "cassettes"
    (cassettes / "c.yaml.part").write_text("the branch's own file\n", "utf-8")
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant",
             {"c.yaml": "interactions: []\n"})  # fmt: skip

    done = take(recordings, repository)

    assert done.returncode == 0, done.stdout
    assert (cassettes / "c.yaml").read_text("utf-8") == "interactions: []\n"
    assert (cassettes / "c.yaml.part").read_text("utf-8") == "the branch's own file\n"
    names = sorted(path.name for path in cassettes.iterdir())
    assert names == ["c.yaml", "c.yaml.part", "kept.yaml"]  # no temporary file left


def test_a_fifo_under_the_branchs_cassettes_refuses_the_whole_take(
    tmp_path: Path, repository: Path
) -> None:
    os.mkfifo(repository / "examples" / "assistant" / "cassettes" / "pipe.yaml")
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant", {"c.yaml": "x: 1\n"})

    done = take(recordings, repository)

    assert done.returncode == 1, done.stdout
    assert "neither a folder nor a file" in done.stdout
    assert not (repository / "examples" / "assistant" / "cassettes" / "c.yaml").exists()


@pytest.mark.parametrize("where", [".git", "examples/.GIT/hooks"])
def test_a_folder_inside_git_is_refused(tmp_path: Path, repository: Path, where: str) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", where, {"a.yaml": "interactions: []\n"})

    done = take(recordings, repository)

    assert done.returncode == 1
    assert "not a folder to record in" in done.stdout
    assert not (repository / ".git" / "cassettes").exists()


# A token encoded (issue 24): compared with what a YAML loader, a URL decoder or a reader
# of wrapped base64 makes of the file.

TOKEN = CANARIES["CRAWLBASE_JS_TOKEN"]  # holds "/", "+" and "=", which URLs encode


def wrapped_base64(value: bytes, width: int = 16) -> str:
    encoded = base64.b64encode(value).decode("ascii")
    return "\n".join("      " + encoded[i : i + width] for i in range(0, len(encoded), width))


def as_text(value: object) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def from_urlsafe(value: object) -> str:
    return base64.urlsafe_b64decode(str(value)).decode("latin-1")


def from_url(value: object) -> str:
    return unquote_plus(str(value))


#: Each encoding as a cassette holds it, and how a reader of the loaded value decodes it.
ENCODED: dict[str, tuple[str, Callable[[object], str]]] = {
    "x escapes": ('"' + "".join(f"\\x{ord(ch):02x}" for ch in TOKEN) + '"', as_text),
    "u escapes": (f'"a {TOKEN[:5]}' + "".join(f"\\u{ord(ch):04X}" for ch in TOKEN[5:]) + '"',
                  as_text),
    "folded over lines": (f'"a long line that holds {TOKEN[:9]}\\\n      {TOKEN[9:]} and more"',
                          as_text),
    "base64, aligned": ("!!binary |\n" + wrapped_base64(TOKEN.encode()), as_text),
    "base64, one byte before": ("!!binary |\n" + wrapped_base64(b"x" + TOKEN.encode() + b"y"),
                                as_text),
    "base64, two bytes before": ("!!binary |\n" + wrapped_base64(b"xy" + TOKEN.encode() + b"!"),
                                 as_text),
    "url-safe base64": (base64.urlsafe_b64encode(b"{" + TOKEN.encode() + b"}").decode(),
                        from_urlsafe),
    "percent-encoded": (f"https://api.example/?token={quote(TOKEN, safe='')}", from_url),
    "form-encoded": (f"token={quote_plus(TOKEN)}&x=1", from_url),
    "every byte percent-encoded": ("k=" + "".join(f"%{b:02x}" for b in TOKEN.encode()), from_url),
}  # fmt: skip


@pytest.mark.parametrize("case", ENCODED, ids=str)
def test_a_token_encoded_in_a_cassette_is_refused_without_showing_it(
    tmp_path: Path, branch: Path, case: str
) -> None:
    body, decode = ENCODED[case]
    text = f"interactions:\n- request:\n    body: {body}\n"
    loaded = yaml.safe_load(text)["interactions"][0]["request"]["body"]
    assert TOKEN in decode(loaded), "the fixture must really encode the token"
    assert TOKEN not in text
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", "examples/assistant",
             {"a.yaml": "interactions: []\n", "z.yaml": text})  # fmt: skip

    done = take(recordings, branch, CRAWLBASE_JS_TOKEN=TOKEN)

    assert done.returncode == 1, done.stdout
    assert "z.yaml holds the value of CRAWLBASE_JS_TOKEN" in done.stdout
    for form in (TOKEN, quote(TOKEN, safe=""), base64.b64encode(TOKEN.encode()).decode()):
        assert form not in done.stdout + done.stderr
    assert not (branch / "examples" / "assistant" / "cassettes" / "a.yaml").exists()


def test_a_cassette_that_is_not_utf8_is_refused(tmp_path: Path, branch: Path) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "x-recordings-1", "examples/assistant", {})
    utf16 = f"body: {TOKEN}\n".encode("utf-16")  # YAML readers accept it; a byte search not
    (recordings / "x-recordings-1" / "cassettes" / "z.yaml").write_bytes(utf16)

    done = take(recordings, branch, CRAWLBASE_JS_TOKEN=TOKEN)

    assert done.returncode == 1
    assert "z.yaml is not UTF-8 text" in done.stdout


# Shards (issue 24): each artifact is a folder of download-artifact's, named after it.


def test_two_shards_that_recorded_different_files_are_both_taken(
    tmp_path: Path, branch: Path
) -> None:
    # Artifacts that carry the shard's whole cassette folder: each holds the base's copy of
    # the file the other shard recorded.
    recordings = tmp_path / "recordings"
    base = {"kept.yaml": "old\n"}
    artifact(recordings, "assistant-recordings-1", "examples/assistant",
             {**base, "cases/a.yaml": "a recorded\n"})  # fmt: skip
    artifact(recordings, "assistant-recordings-2", "examples/assistant",
             {**base, "kept.yaml": "kept, new episodes\n"})  # fmt: skip
    summary = tmp_path / "summary.md"

    done = take(recordings, branch, GITHUB_STEP_SUMMARY=str(summary))

    assert done.returncode == 0, done.stdout
    cassettes = branch / "examples" / "assistant" / "cassettes"
    assert (cassettes / "cases" / "a.yaml").read_text("utf-8") == "a recorded\n"
    assert (cassettes / "kept.yaml").read_text("utf-8") == "kept, new episodes\n"
    assert "2 cassette(s) changed" in done.stdout
    assert "`examples/assistant/cassettes/kept.yaml`" in summary.read_text("utf-8")


def test_a_shard_that_recorded_nothing_uploads_no_cassettes_folder(
    tmp_path: Path, branch: Path
) -> None:
    # upload-artifact keeps no empty folder: a shard that changed nothing has only `where`.
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant", {"b.yaml": "b\n"})
    (recordings / "assistant-recordings-2").mkdir()
    (recordings / "assistant-recordings-2" / "where").write_text("examples/assistant\n", "utf-8")

    done = take(recordings, branch)

    assert done.returncode == 0, done.stdout
    assert (branch / "examples" / "assistant" / "cassettes" / "b.yaml").exists()


def test_a_file_two_shards_changed_differently_refuses_the_take_and_says_so(
    tmp_path: Path, branch: Path
) -> None:
    recordings = tmp_path / "recordings"
    artifact(recordings, "assistant-recordings-1", "examples/assistant",
             {"kept.yaml": "one\n", "b.yaml": "b\n"})  # fmt: skip
    artifact(recordings, "assistant-recordings-2", "examples/assistant", {"kept.yaml": "two\n"})
    summary = tmp_path / "summary.md"
    summary.write_text("# before\n", "utf-8")

    done = take(recordings, branch, GITHUB_STEP_SUMMARY=str(summary))

    assert done.returncode == 1
    expected = (
        "examples/assistant/cassettes/kept.yaml was recorded differently by two shards "
        "(assistant-recordings-1 and assistant-recordings-2)"
    )
    assert expected in done.stdout
    written = summary.read_text("utf-8")
    assert written.startswith("# before\n")
    assert expected in written
    assert "artifacts" in written  # where both copies are
    assert not (branch / "examples" / "assistant" / "cassettes" / "b.yaml").exists()
