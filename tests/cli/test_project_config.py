"""The command reads ``citations_trusted_keys`` from the configuration file pytest itself
would use (issue 24): the first of pytest's files, in pytest's order, in ``--root`` or the
nearest folder above it, each in its own format. Each case is checked against pytest's own
reading of the same folder, so that the command and the plugin never trust different keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_citations.cli.project import project_config
from pytest_citations.errors import ConfigurationError

KEY = "citations_trusted_keys"

FILES = {
    "pytest.toml": '[pytest]\ncitations_trusted_keys = ["ssh-ed25519 A", "ssh-ed25519 B"]\n',
    "pytest.ini": "[pytest]\ncitations_trusted_keys =\n    ssh-ed25519 A\n    ssh-ed25519 B\n",
    "pyproject.toml": (
        "[tool.pytest.ini_options]\n"
        'citations_trusted_keys = """\nssh-ed25519 A\nssh-ed25519 B\n"""\n'
    ),
    "tox.ini": "[tox]\n[pytest]\ncitations_trusted_keys =\n  ssh-ed25519 A\n  ssh-ed25519 B\n",
    "setup.cfg": "[tool:pytest]\ncitations_trusted_keys =\n  ssh-ed25519 A\n  ssh-ed25519 B\n",
}


def pytest_reads(pytester: pytest.Pytester) -> list[str]:
    """``citations_trusted_keys`` as pytest reads it in the pytester folder."""
    config = pytester.parseconfig("-p", "no:cacheprovider")
    value = config.getini(KEY)
    return [line for line in value if line.strip()] if isinstance(value, list) else []


@pytest.mark.parametrize("name", list(FILES))
def test_each_configuration_file_is_read_as_pytest_reads_it(
    pytester: pytest.Pytester, name: str
) -> None:
    (pytester.path / name).write_text(FILES[name], encoding="utf-8")

    config = project_config(pytester.path)

    assert config is not None
    assert config.path == pytester.path / name
    lines = [line for line in config.lines(KEY) or [] if line.strip()]
    assert lines == ["ssh-ed25519 A", "ssh-ed25519 B"]
    assert lines == pytest_reads(pytester)


def test_the_first_file_in_pytests_order_wins(pytester: pytest.Pytester) -> None:
    for name in ("setup.cfg", "tox.ini", "pyproject.toml"):
        (pytester.path / name).write_text(FILES[name].replace(" A", " X"), encoding="utf-8")
    (pytester.path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")

    config = project_config(pytester.path)

    # pytest.ini counts even without the key: nothing is trusted, as for pytest.
    assert config is not None
    assert config.path.name == "pytest.ini"
    assert config.lines(KEY) is None
    assert pytest_reads(pytester) == []


def test_a_file_without_its_section_is_passed_over_and_folders_above_are_searched(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(FILES["pyproject.toml"], encoding="utf-8")
    inner = tmp_path / "examples" / "assistant"
    inner.mkdir(parents=True)
    (inner / "tox.ini").write_text("[tox]\nenvlist = py311\n", encoding="utf-8")
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")

    config = project_config(inner)

    assert config is not None
    assert config.path == tmp_path / "pyproject.toml"


def test_a_configuration_file_that_cannot_be_read_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "pytest.toml").write_text("[pytest\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"pytest\.toml cannot be read"):
        project_config(tmp_path)
