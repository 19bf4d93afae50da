"""Imports go one way: scenarios | server_sim <- master_sim, slave_sim <- harness, and no
module imports itself back through others. Every import counts, function-level ones and
those under `if TYPE_CHECKING:` included: a cycle a type checker sees is still a cycle in
the design. Inside server_sim, modules import their own layer or lower ones (SERVER_LAYERS).
A name is imported from the module that defines it, never through one that only imported it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGES: dict[str, int] = {"scenarios": 0, "server_sim": 0, "master_sim": 1, "slave_sim": 1, "harness": 2}
# Packages of one level that must still not import each other.
APART: set[frozenset[str]] = {frozenset({"scenarios", "server_sim"}), frozenset({"master_sim", "slave_sim"})}

# The layers inside server_sim, lowest first: a module imports its own layer or lower ones.
# A name stands for the module and, when it is a package, every module in it.
SERVER_LAYERS: list[tuple[str, frozenset[str]]] = [
    # Errors, values and the server's static data; the binlog format.
    ("base", frozenset({"errors", "types", "temporal_types", "enum_set", "bit_type", "json_type", "lenient_values", "type_declarations", "flavor", "sysvars", "engines", "system_tables", "udf", "binlog", "declined", "collation", "collation_mix", "charsets"})),
    # Statements and expressions: what a text means, before any table is looked at.
    # The function library and the fast path's typed values, which its entries produce.
    ("sql", frozenset({"statement", "syntax", "trigger_definition", "executable_comments", "foreign_syntax", "modifiers", "parser", "ddl_clauses", "expressions", "system_table_access", "operands", "functions", "prepared", "views", "routine_statements", "table_lock_statements", "reset_statements", "do_statement", "compound"})),
    # Tables, triggers and functions with MySQL meaning, and their saved form.
    ("catalog", frozenset({"catalog", "table", "key_parts", "dictionary", "show_create", "foreign_keys", "view_expansion"})),
    # Rows: DuckDB, its Python mirror, and the sessions' transactions over them.
    ("storage", frozenset({"storage", "mirror_scan", "mirror", "session", "duckdb_connection", "write_back", "user_locks"})),
    # One server: identity, clock, generators, catalog and storage together.
    ("server", frozenset({"server", "checkpoint"})),
    # Running statements on a server.
    ("execute", frozenset({"execute"})),
    # Applying row events, through the executor's row operations.
    ("applier", frozenset({"applier"})),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def package_of(name: str, path: Path) -> list[str]:
    """The package a module's relative imports start from."""
    return name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]


def source_module(node: ast.ImportFrom, package: list[str]) -> str:
    """The module a `from ... import` reads, a relative one resolved from `package`."""
    base = package[: len(package) - node.level + 1] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports, anywhere in the file."""
    package = package_of(name, path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = source_module(node, package)
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target.split(".")[0] in PACKAGES and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []


def test_packages_import_downwards() -> None:
    wrong = []
    for module, targets in graph().items():
        source = module.split(".")[0]
        for target in targets:
            destination = target.split(".")[0]
            if destination == source:
                continue
            if PACKAGES[destination] > PACKAGES[source] or frozenset({source, destination}) in APART:
                wrong.append(f"{module} -> {target}")
    assert sorted(wrong) == []


def server_layer(module: str) -> int | None:
    """The index in SERVER_LAYERS of a server_sim module's layer; None for one in no layer."""
    name = module.removeprefix("server_sim.").split(".")[0]
    return next((index for index, (_, members) in enumerate(SERVER_LAYERS) if name in members), None)


def test_every_server_module_has_a_layer() -> None:
    assert sorted(name for name in graph() if name.startswith("server_sim.") and server_layer(name) is None) == []


def test_server_modules_import_their_layer_or_lower() -> None:
    wrong = []
    for module, targets in graph().items():
        if not module.startswith("server_sim."):
            continue
        source = server_layer(module)
        for target in targets:
            destination = server_layer(target) if target.startswith("server_sim.") else None
            if source is not None and destination is not None and destination > source:
                wrong.append(f"{module} ({SERVER_LAYERS[source][0]}) -> {target} ({SERVER_LAYERS[destination][0]})")
    assert sorted(wrong) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (def, class, assignment, also under `if`,
    `try`, `with` or a loop); not the names it imports."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(found.id for target in targets for found in ast.walk(target) if isinstance(found, ast.Name))
        if isinstance(node, (ast.If, ast.Try, ast.TryStar, ast.ExceptHandler, ast.With, ast.For, ast.While)):
            for block in ("body", "handlers", "orelse", "finalbody"):
                pending.extend(getattr(node, block, []))
    return names


def borrowed_imports(files: dict[str, Path], root: Path) -> list[str]:
    """Every `from X import name` (function-level ones too) of a project module where X is a
    project module that does not define `name`, only imports it: as 'file:line: ...'."""
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in files.items()}
    defined = {name: defined_names(tree) for name, tree in trees.items()}
    wrong = []
    for name, tree in trees.items():
        package = package_of(name, files[name])
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or (source := source_module(node, package)) not in files:
                continue
            for alias in node.names:
                if f"{source}.{alias.name}" not in files and alias.name not in defined[source]:
                    place = files[name].relative_to(root).as_posix()
                    wrong.append(f"{place}:{node.lineno}: imports {alias.name} from {source}, which does not define it")
    return sorted(wrong)


def test_names_are_imported_from_the_module_that_defines_them() -> None:
    """A re-export hides a concept's home and ties its importers to the module passing it on."""
    importers = {module_name(path): path for folder in ("tests", "benchmarks") for path in sorted((ROOT / folder).rglob("*.py"))}
    wrong = borrowed_imports({**modules(), **importers}, ROOT)
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize(
    ("importer", "found"),
    [
        ("from pkg.home import helper", []),
        ("from .home import LIMIT, helper", []),
        ("from . import home", []),
        ("from pkg.shim import LOCAL", []),
        ("from pkg.shim import helper", ["pkg/user.py:1: imports helper from pkg.shim, which does not define it"]),
        ("from .shim import LIMIT as limit", ["pkg/user.py:1: imports LIMIT from pkg.shim, which does not define it"]),
        ("def run():\n    from .shim import LIMIT", ["pkg/user.py:2: imports LIMIT from pkg.shim, which does not define it"]),
        ("from pkg import home", []),
        ("from pkg import LIMIT", ["pkg/user.py:1: imports LIMIT from pkg, which does not define it"]),
    ],
)
def test_the_borrowed_import_finder(tmp_path: Path, importer: str, found: list[str]) -> None:
    texts = {
        "pkg": ("__init__.py", ""),
        "pkg.home": ("home.py", "LIMIT = 3\n\ndef helper():\n    pass\n"),
        "pkg.shim": ("shim.py", "from .home import LIMIT, helper\n\nLOCAL = LIMIT\n"),
        "pkg.user": ("user.py", importer + "\n"),
    }
    (tmp_path / "pkg").mkdir()
    paths = {name: tmp_path / "pkg" / file for name, (file, _) in texts.items()}
    for name, (_, text) in texts.items():
        paths[name].write_text(text, encoding="utf-8")
    assert borrowed_imports(paths, tmp_path) == found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_module_is_parsed(package: str) -> None:
    assert any(name.startswith(package) for name in graph()), package

