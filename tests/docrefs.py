"""What the code defines, for tests/test_docs_*.py: a small index of the Rust sources (per file:
its `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`, `mod` and `macro_rules!` names;
per type: its variants, fields, associated consts and the methods of its `impl` blocks) and of
the Python package (per module: its functions, classes, methods and module-level names), so that
a name the docs give can be resolved to where it is defined."""
import ast
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST_ROOTS = ("crates/atmsim-core/src", "crates/atmsim-core/tests", "crates/atmsim-py/src")
PY_ROOTS = ("python/atmsim", "validation", "bench", "buildtools", "tests")

# Comments and literals removed before the braces are counted: a `{` in a string or a doc comment
# must not open a block.
_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?\'(?:\\.|[^\'\\\n])\'', re.S)
_ITEM = re.compile(r"\b(fn|struct|enum|trait|type|mod|union|macro_rules!)\s+(\w+)|\b(const|static)\s+(?:mut\s+)?(\w+)\s*:")
_NESTED = re.compile(r"\{[^{}]*\}|\([^()]*\)|\[[^\[\]]*\]|<[^<>]*>")


class Rust:
    """`items[file]`: names defined in that file (any depth); `members[type]`: the names a
    `Type::name` may end with; `kinds[name]`: what each name is (`fn`, `struct`, ...)."""

    def __init__(self):
        self.items = defaultdict(set)
        self.members = defaultdict(set)
        self.kinds = defaultdict(set)
        self.reexports = defaultdict(set)
        self.names = defaultdict(set)  # per file: its items, members and the types it has an `impl` of
        self.impl_members = defaultdict(set)  # (file, type): the names its `impl` blocks there define
        self.strings = set()  # string literals that are a whole identifier ("selective_drop")
        self.modules = set()
        self.files = []
        for root in RUST_ROOTS:
            for path in sorted((ROOT / root).rglob("*.rs")):
                rel = str(path.relative_to(ROOT))
                self.files.append(rel)
                text = path.read_text(encoding="utf-8")
                self.strings.update(re.findall(r'"(\w+)"', text))
                self.modules.update(p for p in Path(rel).with_suffix("").parts if p != "mod")
                clean = _NOISE.sub(lambda m: " " if m.group().startswith("/") else '""', text)
                self._read(rel, clean)
                self._registry(rel, clean)
                self.names[rel] |= self.items[rel]

    def _read(self, rel, text):
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            self.reexports[rel].update(re.findall(r"(\w+)\s*(?:[,}]|$)", m.group(1)))
        # One frame per open brace: (kind, name, body start, paren depth inside it).
        stack = [("file", None, 0, 0)]
        boundary, depth = 0, 0
        for m in re.finditer(r"[{};()\[\]]", text):
            c = m.group()
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == ";" and depth <= 0:
                self._header(rel, text[boundary:m.start()], stack[-1])
                boundary = m.end()
            elif c == "{":
                kind, name = self._header(rel, text[boundary:m.start()], stack[-1])
                stack.append((kind, name, m.end(), depth))
                boundary, depth = m.end(), 0
            elif c == "}":
                kind, name, start, depth = stack.pop() if len(stack) > 1 else stack[0]
                if kind in ("enum", "struct", "union"):
                    self.names[rel].update(self._body(kind, name, text[start:m.start()]))
                boundary = m.end()

    def _registry(self, rel, text):
        """A `registry! { module { Variant: Type, ... }, ... }` call (net/drop, the TCP growths and
        recoveries) declares its modules and adds each Variant to the enums its `macro_rules!`
        writes from the list (those whose body repeats `$(...)`)."""
        call = re.search(r"(?<!macro_rules!\s)\bregistry!\s*\{", text)
        if not call or "macro_rules! registry" not in text:
            return
        depth, end = 1, call.end()
        while depth and end < len(text):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        body = text[call.end():end - 1]
        enums = re.findall(r"\benum\s+(\w+)\s*\{[^}]*?\$\(", text)
        for module in re.findall(r"(\w+)\s*\{", body):
            self.modules.add(module)
        for variant in re.findall(r"\b([A-Z]\w*)\s*:", body):
            for enum in enums:
                self.members[enum].add(variant)
            self.kinds[variant].add("variant")
            self.names[rel].add(variant)

    def _header(self, rel, header, parent):
        """Records the items a header declares; returns the block it opens (kind, name)."""
        header = re.sub(r"#!?\[[^\]]*\]", " ", header).strip()
        impl = re.match(r"(?:unsafe\s+)?impl\b(.*)", header, re.S)
        if impl:
            rest = impl.group(1)
            while _NESTED.search(rest):
                rest = _NESTED.sub(" ", rest)
            target = re.split(r"\bfor\b", rest.split(" where ")[0])[-1]
            names = re.findall(r"\w+", target)
            if names:
                self.names[rel].add(names[-1])
            return ("impl", names[-1] if names else None)
        found = _ITEM.search(header)
        macro = re.match(r"\w+!\s*\((.*)\)\s*$", header, re.S)
        if macro and not found and parent[0] == "file":
            # An item-level macro call defines the types it is given: `id!(PortId);`.
            for name in re.findall(r"\b[A-Z]\w*[a-z]\w*", macro.group(1)):
                self.items[rel].add(name)
                self.kinds[name].add("macro-made")
        if not found:
            return ("block", None)
        kind, name = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
        kind = kind.rstrip("!")
        self.items[rel].add(name)
        self.kinds[name].add(kind)
        if kind == "mod":
            self.modules.add(name)
        if parent[0] in ("impl", "trait") and parent[1]:
            self.members[parent[1]].add(name)
            self.impl_members[rel, parent[1]].add(name)
        if kind == "struct" and "(" in header[found.end():]:
            return ("tuple", name)
        return (kind, name)

    def _body(self, kind, name, body):
        while _NESTED.search(body):
            body = _NESTED.sub(" ", body)
        body = re.sub(r"#!?", " ", body)
        found = []
        for piece in body.split(","):
            piece = piece.strip()
            if kind == "enum":
                m = re.match(r"([A-Z]\w*)", piece)
            else:
                m = re.match(r"(?:pub(?:\s*\([^)]*\))?\s+)?(\w+)\s*:", piece)
            if m:
                self.members[name].add(m.group(1))
                self.kinds[m.group(1)].add("variant" if kind == "enum" else "field")
                found.append(m.group(1))
        return found

    def defined(self, name):
        return name in self.kinds

    def module_path(self, rel):
        """`crates/atmsim-core/src/net/drop/mod.rs` -> ("net", "drop")."""
        parts = Path(re.split(r"/(?:src|tests)/", rel, maxsplit=1)[-1]).with_suffix("").parts
        return tuple(p for p in parts if p not in ("mod", "lib"))

    def files_defining(self, name):
        return [f for f, names in self.items.items() if name in names]


class Python:
    """`items[file]`: functions, classes and module-level names of each module; `members[class]`:
    its methods and class attributes."""

    def __init__(self):
        self.items = defaultdict(set)
        self.members = defaultdict(set)
        self.imports = defaultdict(set)
        self.used = defaultdict(set)  # per module: every name and attribute its code reads
        self.strings = set()
        for root in PY_ROOTS:
            for path in sorted((ROOT / root).rglob("*.py")):
                rel = str(path.relative_to(ROOT))
                tree = ast.parse(path.read_text(encoding="utf-8"))
                for node in ast.walk(tree):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"\w+", node.value):
                        self.strings.add(node.value)
                    if isinstance(node, ast.Name):
                        self.used[rel].add(node.id)
                    if isinstance(node, ast.Attribute):
                        self.used[rel].add(node.attr)
                    if isinstance(node, ast.ImportFrom):
                        self.imports[rel].update(a.asname or a.name for a in node.names)
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        self.items[rel].add(node.name)
                    if isinstance(node, ast.ClassDef):
                        for child in node.body:
                            for n in _assigned(child):
                                self.members[node.name].add(n)
                for child in tree.body:
                    self.items[rel].update(_assigned(child))

    def defined(self, name):
        return any(name in names for names in self.items.values())


def _assigned(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


@lru_cache(maxsize=None)
def rust() -> Rust:
    return Rust()


@lru_cache(maxsize=None)
def python() -> Python:
    return Python()
