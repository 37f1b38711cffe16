"""The distribution (issue 28): the version is written once, and a message that names an
extra says an install that works. pytest-citations is not on PyPI, so "pip install
'pytest-citations[record]'" fails; the message names where this copy was installed from,
read from pip's record of it (``direct_url.json``, PEP 610), never a credential in it."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from canaries import CANARIES, leaks
from packaging.requirements import Requirement

import pytest_citations
from pytest_citations.distribution import NAME, __version__, install_command

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_written_once_and_the_build_reads_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    source = project["tool"]["hatch"]["version"]["path"]
    assert source == "pytest_citations/distribution.py"
    # hatch reads the first ``__version__ = "…"`` line of the file
    assert re.findall(r'^__version__ = "([^"]+)"$', (ROOT / source).read_text("utf-8"), re.M) == [
        __version__
    ]
    assert pytest_citations.__version__ == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:(?:a|b|rc|\.dev)\d+)?", __version__)


def test_no_module_reads_the_version_from_the_installed_metadata() -> None:
    """A second source would drift from the first (an editable install keeps the metadata
    of when it was installed)."""
    readers = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "pytest_citations").rglob("*.py"))
        if re.search(r"version\(\s*[\"']pytest-citations", path.read_text(encoding="utf-8"))
    ]
    assert readers == []


#: Installs a fake pytest-citations whose ``direct_url.json`` holds the value given.
Install = Callable[[dict[str, object] | str | None], None]


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Install:
    """Make ``importlib.metadata`` find a pytest-citations installed as ``direct_url`` says
    (None: from a package index, with no such record), ahead of the real one."""

    def install(direct_url: dict[str, object] | str | None) -> None:
        info = tmp_path / "site" / "pytest_citations-9.9.9.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {NAME}\nVersion: 9.9.9\n", encoding="utf-8"
        )
        if direct_url is not None:
            text = direct_url if isinstance(direct_url, str) else json.dumps(direct_url)
            (info / "direct_url.json").write_text(text, encoding="utf-8")
        monkeypatch.syspath_prepend(str(tmp_path / "site"))

    return install


def requirement(command: str) -> Requirement:
    """The requirement a ``pip install '…'`` command names."""
    [quoted] = re.findall(r"'([^']+)'", command)
    return Requirement(quoted)


def test_from_a_commit_of_a_repository(installed: Install) -> None:
    installed(
        {
            "url": "https://github.com/acme/pytest-citations",
            "vcs_info": {"vcs": "git", "commit_id": "0123abcd" * 5, "requested_revision": "main"},
        }
    )

    command = install_command("record")

    assert command == (
        "pip install 'pytest-citations[record] @ "
        f"git+https://github.com/acme/pytest-citations@{'0123abcd' * 5}'"
    )
    found = requirement(command)
    assert (found.name, found.extras) == (NAME, {"record"})


def test_from_a_checkout_editable_or_not(installed: Install, tmp_path: Path) -> None:
    installed({"url": "file:///src/pytest-citations", "dir_info": {"editable": True}})
    assert install_command("record") == "pip install -e '/src/pytest-citations[record]'"

    (tmp_path / "site" / "pytest_citations-9.9.9.dist-info" / "direct_url.json").write_text(
        json.dumps({"url": "file:///src/pytest-citations", "dir_info": {}}), encoding="utf-8"
    )
    assert install_command("service") == "pip install '/src/pytest-citations[service]'"


def test_from_a_built_wheel(installed: Install) -> None:
    wheel = "file:///tmp/dist/pytest_citations-0.1.0-py3-none-any.whl"
    installed({"url": wheel, "archive_info": {"hashes": {"sha256": "00"}}})

    command = install_command("record")

    assert command == f"pip install 'pytest-citations[record] @ {wheel}'"
    assert requirement(command).url == wheel


def test_from_a_package_index(installed: Install) -> None:
    installed(None)  # pip writes no direct_url.json for a package from an index

    assert install_command("record") == "pip install 'pytest-citations[record]'"


def test_a_record_it_cannot_read_gives_a_placeholder_not_a_wrong_one(installed: Install) -> None:
    installed("{not json")

    assert install_command("record") == "pip install '<a checkout of pytest-citations>[record]'"


def test_a_credential_in_the_recorded_url_is_never_shown(installed: Install) -> None:
    token = CANARIES["OPENAI_API_KEY"]
    installed(
        {
            "url": f"https://x-access-token:{token}@github.com/acme/pytest-citations",
            "vcs_info": {"vcs": "git", "commit_id": "f" * 40},
        }
    )

    command = install_command("record")

    assert leaks(command) == []
    assert "@github.com" not in command
    assert requirement(command).url == f"git+https://github.com/acme/pytest-citations@{'f' * 40}"
