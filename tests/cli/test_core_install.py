"""The core install (no ``record`` extra): every command that chooses passages for a judge
stops with exit status 4 and names the extra before it sends anything; the commands that need
no model still run. Run in a Python where the model packages are really absent
(:func:`light_env.light_python`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from light_env import light_python
from ops_support import SECRETS, Run, Web, base_env, copy_examples

from pytest_citations.distribution import install_command

#: How the record extra installs from where this copy came from (not PyPI: it is not there).
EXTRA = install_command("record")


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return light_python(tmp_path_factory.mktemp("light"))


def run(python: Path, *args: str, env: dict[str, str], cwd: Path) -> Run:
    done = subprocess.run(
        [str(python), "-m", "pytest_citations.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "Water boils at 100 °C.", "https://example.org/physics/boiling"],
        ["batch", "claims.jsonl"],
        ["drift", "cases/"],
        ["serve", "--port", "0"],
    ],
    ids=lambda words: words[0],
)
def test_a_command_that_chooses_passages_needs_the_record_extra(
    python: Path, tmp_path: Path, web: Web, command: list[str]
) -> None:
    copy_examples(tmp_path)
    (tmp_path / "claims.jsonl").write_text(
        '{"id": "1", "claim": "Water boils at 100 °C.", "urls": ["https://example.org/physics/boiling"]}\n',
        encoding="utf-8",
    )
    env = {**web.env}
    env.pop("CITATIONS_EMBEDDING_MODEL")  # the default: MiniLM, and e5 or USE

    done = run(python, *command, env=env, cwd=tmp_path)

    assert done.returncode == 4, done.stdout + done.stderr
    assert EXTRA in done.stderr
    assert "sentence_transformers" in done.stderr
    done.assert_no_secret()
    assert web.crawlbase.crawl_count == 0  # nothing was sent
    assert web.judge.call_count == 0


def test_the_lexical_embedder_needs_no_model(python: Path, tmp_path: Path, web: Web) -> None:
    done = run(
        python,
        "verify",
        "Water boils at 100 °C at sea level.",
        "https://example.org/physics/boiling",
        env=web.env,  # CITATIONS_EMBEDDING_MODEL=lexical
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "supported" in done.stdout


def test_commands_that_choose_nothing_run_on_the_core_install(python: Path, tmp_path: Path) -> None:
    env = base_env(tmp_path, lexical=False)

    done = run(python, "schema", env=env, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert set(SECRETS.values()).isdisjoint(done.stdout.split())
