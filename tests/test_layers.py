"""The core's modules stand in layers, and no file imports in a circle.

Read from the sources, not from a build: every `crate::` and `super::` path
outside the test modules is resolved to the file of the longest module
prefix it names. A `mod.rs` naming its own submodules (declarations and
re-exports) is the module tree, not an import, and is left out; a
submodule importing its parent counts. Issue 26 asked for this check: `net/`
and `atm/` imported each other, `rng.rs` imported upward, and three small
file circles remained.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "crates" / "atmsim-core" / "src"
PY = ROOT / "python" / "atmsim"

# Each top-level module of the core and its layer: a module may import
# its own layer's modules (without a circle) and lower layers, never higher.
LAYERS = {
    "time": 0, "ring": 0,
    "base": 1, "rng": 1,
    "net": 2,
    "atm": 3, "fabric": 3, "coding": 3, "host": 3, "send_jitter": 3, "source": 3, "ledger": 3, "engine": 3,
    "transport": 4,
    "stats": 5, "summary": 5, "trace": 5,
    "scenario": 6,
    "capture": 7,
    "world": 8,
    "lib": 9,
}  # fmt: skip

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def module_file(parts: list[str]) -> Path | None:
    if not parts:
        return SRC / "lib.rs"
    p = SRC.joinpath(*parts)
    for candidate in (p.with_suffix(".rs"), p / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def module_of(f: Path) -> list[str]:
    parts = list(f.relative_to(SRC).with_suffix("").parts)
    return parts[:-1] if parts[-1] in ("mod", "lib") else parts


def top(f: Path) -> str:
    parts = module_of(f)
    return parts[0] if parts else "lib"


def without_tests(text: str) -> str:
    """The file up to its test module (tests come last, by convention)."""
    i = text.find("#[cfg(test)]")
    text = text if i < 0 else text[:i]
    return re.sub(r"//[^\n]*", "", text)


def imports(f: Path) -> set[Path]:
    text = without_tests(f.read_text(encoding="utf-8"))
    me = module_of(f)
    paths = [(m[1], m[2].split("::")[1:]) for m in PATH.finditer(text)]
    for m in USE_GROUP.finditer(text):
        base = m[2].split("::")[1:] if m[2] else []
        for item in m[3].split(","):
            item = item.strip().split(" as ")[0]
            if item and "{" not in item:
                paths.append((m[1], base + item.split("::")))
    out = set()
    for root, parts in paths:
        if root == "super":
            parts = me[:-1] + parts
        for k in range(len(parts), -1, -1):
            target = module_file(parts[:k])
            if target is not None:
                break
        if target != f and not (f.name in ("mod.rs", "lib.rs") and f.parent in target.parents):
            out.add(target)
    return out


def core_files() -> list[Path]:
    skip = ("tests.rs", "test_support.rs")
    return sorted(f for f in SRC.rglob("*.rs") if f.name not in skip and not f.name.endswith("_tests.rs"))


def circles(graph: dict) -> list[list]:
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(map(str, comp)))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def core_graph():
    return {f: imports(f) for f in core_files()}


def test_every_core_module_has_a_layer(core_graph):
    assert {top(f) for f in core_graph} <= set(LAYERS), {top(f) for f in core_graph} - set(LAYERS)


def test_no_core_file_imports_upward(core_graph):
    upward = [
        f"{f.relative_to(SRC)} -> {t.relative_to(SRC)}"
        for f, targets in core_graph.items()
        for t in targets
        if LAYERS[top(t)] > LAYERS[top(f)]
    ]
    assert not upward, upward


def test_no_circles_between_core_files_or_modules(core_graph):
    rel = {f.relative_to(SRC): {t.relative_to(SRC) for t in ts} for f, ts in core_graph.items()}
    assert circles(rel) == []
    modules: dict[str, set[str]] = {}
    for f, ts in core_graph.items():
        modules.setdefault(top(f), set()).update(top(t) for t in ts if top(t) != top(f))
    assert circles(modules) == []


def test_the_checker_sees_a_circle_and_an_upward_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # rng.rs names ids through the floor; were it to name `crate::net::PortId`
    # again the import would point up a layer.
    target = imports(SRC / "rng.rs")
    assert SRC / "base" / "mod.rs" in target and LAYERS[top(SRC / "base" / "mod.rs")] <= LAYERS["rng"]
    assert LAYERS["net"] > LAYERS["rng"]


def python_imports(f: Path) -> set[str]:
    """The package's modules a file imports (any level, lazy imports too)."""
    tree = ast.parse(f.read_text(encoding="utf-8"))
    me = f.relative_to(PY.parent).with_suffix("").parts
    package = me[:-1] if f.name != "__init__.py" else me[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + tuple(filter(None, (node.module or "").split("."))))
            else:
                mod = node.module or ""
            names = [mod] + [f"{mod}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("atmsim"):
                out.add(name)
    return out


def test_no_circles_between_python_files():
    files = {".".join(f.relative_to(PY.parent).with_suffix("").parts).removesuffix(".__init__"): f for f in PY.rglob("*.py")}
    graph = {}
    for name, f in files.items():
        targets = set()
        for imp in python_imports(f):
            # the longest module the import names
            while imp and imp not in files:
                imp = imp.rpartition(".")[0]
            # a package's __init__ naming its own submodules is the tree, not an import
            if imp and imp != name and not (f.name == "__init__.py" and imp.startswith(name + ".")):
                targets.add(imp)
        graph[name] = targets
    assert circles(graph) == []
