"""The package's layers hold (issue 9): the engine never imports pytest, nothing runs back up
the layers, there is no import cycle, and no module or function outgrows what a reader
can hold (400 and 60 lines, unless a comment above it says why)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_citations"

#: The layers, lowest first; a module may import from its own layer and the ones below. The
#: network and the stages take their own configuration: they never name the pipeline, not
#: even in annotations.
LAYERS = {
    "core": {
        "labels", "verdicts", "errors", "sanitize", "paths", "atomic", "timing", "distribution",
        "lazy",
    },
    "network": {"network"},
    "stages": {"fetchers", "retrieval", "judges"},
    "pipeline": {"pipeline"},
    "cases": {"cases"},
    # The assertion helpers count a precision, which the gates own.
    "gating": {"gating", "assertions"},
    "inputs": {"recording", "reports", "importing", "drift", "upkeep"},
    # The stand-ins of the remote services (issue 28): above the whole engine, so that
    # nothing of it can lean on them; only the command that serves them imports them.
    "stand-ins": {"sandbox"},
    "shells": {"plugin", "cli", "service", "__init__", "__main__"},
}  # fmt: skip
RANK = {name: rank for rank, names in enumerate(LAYERS.values()) for name in names}
#: The engine: everything the plugin, the command and the service are shells over.
ENGINE = {name for layer in list(LAYERS)[:-2] for name in LAYERS[layer]}
#: What the sandbox may import of the package: the registries that name the variables and
#: providers it stands in for (and their own modules), nothing that runs a check.
SANDBOX_NEEDS = {"judges", "judges.config", "fetchers", "fetchers.crawlbase"}
#: The top level holds the public API and what every stage shares; a module of one stage
#: lives in that stage's folder.
TOP_LEVEL = LAYERS["core"] | {"assertions", "__init__"}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (``plugin.session``, ``verifier``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path) -> set[str]:
    """The package modules a module imports when it runs: at module level and inside
    functions alike (an import inside a function is still an edge of the graph), not those
    imported only for type checking. As dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [f"{target}.{alias.name}" if target else alias.name for alias in node.names]
            found.update(n for n in [target, *names] if n in MODULES)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            absolute = [node.module] if isinstance(node, ast.ImportFrom) else [
                alias.name for alias in node.names]  # fmt: skip
            for module in absolute:
                if module and module.startswith("pytest_citations."):
                    dotted = module.removeprefix("pytest_citations.")
                    if dotted in MODULES:
                        found.add(dotted)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return found


MODULES = modules()
GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer(name: str) -> str:
    return name.split(".")[0]


def test_the_engine_never_imports_pytest() -> None:
    # A subprocess where importing pytest fails: every engine module must still import, and
    # so must the stand-ins, which a shell without pytest serves.
    importable = ENGINE | LAYERS["stand-ins"]
    engine = sorted(f"pytest_citations.{name}" for name in MODULES if layer(name) in importable)
    script = textwrap.dedent(
        f"""
        import importlib, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "pytest" or name.startswith(("pytest.", "_pytest")):
                    raise ImportError("the engine imported " + name)
        sys.meta_path.insert(0, Block())
        for name in {engine!r}:
            importlib.import_module(name)
        print(len({engine!r}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 40


def test_no_top_level_module_belongs_to_a_stage() -> None:
    assert {name for name in MODULES if "." not in name} - set(RANK) == set()
    assert {name for name in MODULES if "." not in name and name not in LAYERS["network"]
            and MODULES[name].name != "__init__.py"} <= TOP_LEVEL  # fmt: skip


def test_the_top_level_holds_at_most_ten_modules() -> None:
    """Issue 25: beside the subpackages, the top level is the public API and what every
    stage shares, small enough to read at a glance; a module that one layer owns (the
    precision the gates count, the ledger the network keeps) lives in that layer's folder."""
    top = sorted(
        name
        for name, path in MODULES.items()
        if path.parent == PACKAGE and name not in {"__init__", "__main__"}
    )
    assert len(top) <= 10, top


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        for target in targets
        if RANK[layer(target)] > RANK[layer(name)]
    ]
    assert upward == []


def test_there_is_no_import_cycle() -> None:
    visiting: list[str] = []
    done: set[str] = set()
    cycles: list[list[str]] = []

    def walk(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            cycles.append([*visiting[visiting.index(name) :], name])
            return
        visiting.append(name)
        for target in sorted(GRAPH[name]):
            # A package importing its own submodules (re-exports) is not a cycle of layers.
            if not target.startswith(f"{name}."):
                walk(target)
        visiting.pop()
        done.add(name)

    for name in sorted(GRAPH):
        walk(name)
    assert cycles == []


def test_the_network_and_the_stages_never_name_the_pipeline() -> None:
    """Issue 25: each stage owns its configuration (a NetworkConfig, a CrawlbaseConfig, a
    JudgeConfig), so no import of the pipeline is left in them, under ``TYPE_CHECKING``
    included, where it used to close a cycle settings -> backends -> judges -> settings."""
    named = []
    for name, path in MODULES.items():
        if RANK[layer(name)] > RANK["judges"]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and "pipeline" in (node.module or "").split("."):
                named.append(f"{name} imports {node.module}")
    assert named == []


def test_the_sandbox_imports_only_the_registries_and_only_its_command_imports_it() -> None:
    """Issue 28: the stand-ins are the tests' and the sandbox's, never the engine's; they
    read the registries (variables, providers) and nothing that checks a claim."""
    sandbox = {name for name in GRAPH if layer(name) == "sandbox"}
    needs = {target for name in sandbox for target in GRAPH[name] if layer(target) != "sandbox"}
    users = {name for name in GRAPH if name not in sandbox and GRAPH[name] & sandbox}

    assert sandbox
    assert needs <= SANDBOX_NEEDS
    assert users == {"cli.sandbox"}


def test_every_subpackage_has_a_test_folder() -> None:
    """Issue 25: a subpackage's tests are found beside its name (``tests/retrieval`` for
    ``pytest_citations/retrieval``), not under a folder named for no package."""
    tests = PACKAGE.parent / "tests"
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert sorted(name for name in packages if not (tests / name).is_dir()) == []


def test_every_layer_is_known() -> None:
    assert {layer(name) for name in MODULES} <= set(RANK)


def _commented(lines: list[str], node: ast.AST) -> bool:
    first = getattr(node, "decorator_list", None)
    start = (first[0].lineno if first else node.lineno) - 2  # type: ignore[attr-defined]
    return start >= 0 and lines[start].strip().startswith("#")


def test_the_sizes_are_the_formatters() -> None:
    """Issue 25: the size limits hold for the code as ``ruff format`` writes it, so no line
    of the package keeps the formatter out."""
    skipped = [
        f"{name}:{number}"
        for name, path in MODULES.items()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "fmt: skip" in line or "fmt: off" in line
    ]
    assert skipped == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_and_functions_stay_small(name: str) -> None:
    path = MODULES[name]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    assert len(lines) <= 400, f"{path.name}: {len(lines)} lines"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            assert size <= 60 or _commented(lines, node), f"{node.name}: {size} lines"
