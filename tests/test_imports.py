"""wason's modules import one another without cycles, and say at their top what they depend on (issue 52).

The module graph is read from the source (``ast``): every import of a wason module, at the top of a file and
inside functions alike; only ``if TYPE_CHECKING:`` blocks are left out (they are never run). An import inside a
function is allowed only of the modules declared in :data:`LAZY` (heavy or optional packages, and the wason
modules that pull them in where start-up matters), and in a family's entry modules, of the family's own package
(the registry loads a family by name; its parts load on first use). docs/design.md lists the same."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAZY: dict[str, str] = {
    # optional extras and heavy third-party packages
    "alembic": "migrations, only when the schema is old",
    "inspect_ai": "optional extra (wason[inspect])",
    "llama_cpp": "optional extra (wason[local])",
    "matplotlib": "figures only (slowest import of a first figure)",
    "pandas": "optional extra (wason[data])",
    "pydantic": "start-up: building the parser imports none of it (issue 53)",
    "pyarrow": "optional extra (wason[data])",
    "ray": "optional extra (wason[ray])",
    "rich": "start-up: not on the `wason --help` path",
    "sympy": "heavy (about 0.3 s)",
    "tokenizers": "optional extra (wason[novelty])",
    "uvicorn": "the server, only under `wason serve`",
    "wordfreq": "heavy word lists, read on first use",
    "z3": "heavy solver, only where a rule needs it",
    # wason modules that pull heavy packages in, imported where used so that start-up stays light
    "wason.cli": "the command line, run by the contract's checks only: importing wason.testing loads none of it",
    "wason.cli.common": "pydantic and the family machinery, not for `wason --help` / `--version`",
    "wason.cli.console": "rich, not for `wason --help`",
    "wason.core.family": "pydantic: the registry answers `wason --help` without it",
    "wason.core.game": "pydantic (Outcome): building the parser imports none of it (issue 53)",
    "wason.core.records": "pydantic records: building the parser imports none of it (issue 53)",
    "wason.core.registry": "`wason --version` imports nothing (issue 39)",
    "wason.core.session": "sessions (pydantic): building the parser imports none of it (issue 53)",
    "wason.examples": "the example family (pydantic), only when `wason new` writes a package of it",
    "wason.tasks": "the built-in families' table, read by the registry when a card is asked for",
    "wason.engine": "the store (SQLAlchemy) and the engine, only when a run is played",
    "wason.env.audit": "gymnasium (optional) and the environments",
    "wason.env.trajectories": "the environments and their optional packages",
    "wason.inspect.logs": "inspect_ai (optional)",
    "wason.metrics.embedding": "tokenizers (optional)",
    "wason.metrics.rates": "numpy, off the records' import",
    "wason.models.anthropic_backend": "the Anthropic SDK, only for its models",
    "wason.models.llama_sampling": "numpy, imported with llama.cpp, not with wason",
    "wason.models.local": "llama_cpp (optional) and the embedded model",
    "wason.models.openai_compat": "the OpenAI-compatible client (aiohttp), only for its models",
    "wason.models.spec": "the model clients, only when a model is named",
    "wason.report.compare": "numpy and rich, only for comparisons",
    "wason.report.export": "pyarrow/pandas (optional)",
    "wason.report.grid": "numpy and rich, only for grids",
    "wason.report.inspect_log": "inspect_ai (optional)",
    "wason.report.novelty": "numpy and the embeddings",
    "wason.report.plots": "matplotlib",
    "wason.report.render": "rich, only for rendered tables",
    "wason.report.runs": "rich, only for `wason runs`",
    "wason.report.tables": "rich and the store",
    "wason.sandbox.smt": "z3",
    "wason.server": "FastAPI, Jinja2 and uvicorn, only under `wason serve`",
    "wason.store": "SQLAlchemy, only when the store is opened",
    "wason.tasks.code_functions.writer": "z3-backed rule writer, only for its command and report",
    "wason.tasks.lab.learner": "the ideal learner's arrays, off the family's load path",
    "wason.tasks.lists.game": "the lists game, off the solver player's import",
    "wason.tasks.lists.reduction": "the hypothesis space (numpy), only for a finished game's metrics",
    "wason.tasks.lists.solver": "the hypothesis space (numpy), only when the solver plays",
    "wason.tasks.lists.solver_space": "the hypothesis space (numpy), only when the solver plays",
    "wason.tasks.math_rules.game": "the game (sympy), only when the solver plays",
    "wason.tasks.wilt.complexity": "guess complexity (numpy), only for a finished game's metrics",
    "wason.tasks.wilt.game": "the game, only when rules are generated",
    "wason.tasks.wilt.listed_space": "the hypothesis space (numpy), only when used",
    "wason.tasks.wilt.reduction": "the hypothesis space (numpy), only for a finished game's metrics",
    "wason.tasks.wilt.single": "the one-variable game (numpy), only for its rules",
    "wason.tasks.wilt.elimination": "the solver (numpy), only when rules are generated",
    "wason.tasks.wilt.values": "value parsing, only for rules given as text",
}
"""What may be imported inside a function, with why: a package or a module and everything under it."""

ENTRY_MODULE = re.compile(r"wason\.tasks\.\w+\.(family|commands)")
"""A family's entry modules (the registry loads ``family``; every parser reads its ``commands``): they may import
their own package's modules inside functions."""


def module_name(path: Path, root: Path = SRC) -> str:
    name = ".".join(path.relative_to(root).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> list[str]:
    """The modules an import names: ``from a import b`` is ``a.b`` where that is a module, else ``a``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, *([node.module] if node.module else [])])
    out = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
    return out if len(out) == len(node.names) else [base, *out]


def _walk(
    node: ast.AST, module: str, is_package: bool, known: set[str], in_function: bool
) -> Iterator[tuple[str, str, int, bool]]:
    for child in ast.iter_child_nodes(node):
        if _is_type_checking(child):
            continue
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if isinstance(child, ast.Import | ast.ImportFrom):
            for target in _targets(module, is_package, child, known):
                yield module, target, child.lineno, inside
        yield from _walk(child, module, is_package, known, inside)


def imports(root: Path = SRC) -> Iterator[tuple[str, str, int, bool]]:
    """Every import in the tree under ``root``: (importing module, imported module, line, inside a function);
    ``if TYPE_CHECKING:`` blocks left out."""
    paths = sorted(root.rglob("*.py"))
    known = {module_name(p, root) for p in paths}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        yield from _walk(tree, module_name(path, root), path.name == "__init__.py", known, False)


def wason_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> the wason modules it imports (anywhere in it)."""
    graph: dict[str, set[str]] = {}
    for module, target, _, _ in imports(root):
        graph.setdefault(module, set())
        if target.split(".")[0] == "wason" and target != module:
            graph[module].add(target)
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as its modules in import order (the first again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def lazy_refused(root: Path = SRC) -> list[str]:
    """Imports inside functions of a wason module or a third-party package that :data:`LAZY` does not allow."""
    out = []
    for module, target, line, inside in imports(root):
        top = target.split(".")[0]
        if not inside or not top or (top in sys.stdlib_module_names and top != "wason"):
            continue
        if any(target == name or target.startswith(f"{name}.") for name in LAZY):
            continue
        package = module.rsplit(".", 1)[0]
        if ENTRY_MODULE.fullmatch(module) and (target == package or target.startswith(f"{package}.")):
            continue
        out.append(f"{module}:{line} imports {target} inside a function")
    return out


def test_no_import_cycle_among_wason_modules() -> None:
    cycle = find_cycle(wason_graph())
    assert cycle is None, "an import cycle: " + " -> ".join(cycle or [])


def test_imports_inside_functions_only_of_declared_heavy_modules() -> None:
    refused = lazy_refused()
    assert refused == [], "move these to the top of their file, or declare the module in LAZY:\n" + "\n".join(
        refused
    )


def test_every_declared_lazy_module_is_imported_lazily_somewhere() -> None:
    # the list says what is lazy now: an entry nothing imports inside a function any longer is stale
    lazy = {target for _, target, _, inside in imports() if inside}
    stale = [n for n in LAZY if not any(t == n or t.startswith(f"{n}.") for t in lazy)]
    assert stale == []


def test_the_checks_fail_on_a_planted_cycle_and_a_lazy_import(tmp_path: Path) -> None:
    pkg = tmp_path / "wason"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from wason.b import B\nA = 1\n")
    (pkg / "b.py").write_text("B = 2\n\ndef f():\n    from wason.a import A\n    return A\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from wason.d import D\n"
    )
    (pkg / "d.py").write_text("from wason.c import TYPE_CHECKING\n")
    graph = wason_graph(tmp_path)
    assert find_cycle(graph) == ["wason.a", "wason.b", "wason.a"]  # the lazy import counts
    assert find_cycle({k: v for k, v in graph.items() if k != "wason.b"}) is None  # TYPE_CHECKING does not
    assert lazy_refused(tmp_path) == ["wason.b:4 imports wason.a inside a function"]


def test_the_design_lists_the_modules_imported_where_used() -> None:
    """docs/design.md names exactly the modules of :data:`LAZY` (its list of imports inside functions)."""
    design = (SRC.parent / "docs" / "design.md").read_text(encoding="utf-8")
    section = design[design.index("### Imports: no cycles") : design.index("## Rules of the house")]
    listed = set(re.findall(r"`([a-z_][\w.]*)`", section.split("  - packages:", 1)[1]))
    assert listed == set(LAZY), (sorted(set(LAZY) - listed), sorted(listed - set(LAZY)))
