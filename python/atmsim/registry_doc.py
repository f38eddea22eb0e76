"""The key reference of every registered mechanism, written from the core's registries.

docs/scenarios.md holds it between two markers; `python -m atmsim.registry_doc` rewrites that
block from `atmsim.registry()`, and tests/test_registry.py fails when the committed block differs
(a mechanism or key registered without its docs row). Standard library only.
"""
from __future__ import annotations

import sys
from pathlib import Path

BEGIN = "<!-- registry: begin (python -m atmsim.registry_doc writes this block) -->"
END = "<!-- registry: end -->"


def _key_cell(key: dict) -> str:
    kind = key["kind"] + (f" ({key['unit']})" if key["unit"] else "")
    rng = f", {key['range']}" if key["range"] else ""
    default = key["default"] if key["computed"] else f"`{key['default']}`"
    return f"`{key['name']}`: {key['about']} ({kind}{rng}; default {default})"


def render(mechanisms: list) -> str:
    """The block: per selecting key, one row per registered mechanism with its keys and counters."""
    out = [BEGIN, ""]
    for selector in sorted({m["selected_by"] for m in mechanisms}):
        out += [f"#### `{selector}`", "", "| choice | networks | what | its keys | counters | docs |",
                "| --- | --- | --- | --- | --- | --- |"]
        for m in (m for m in mechanisms if m["selected_by"] == selector):
            keys = "<br>".join(_key_cell(k) for k in m["keys"]) or "none"
            counters = ", ".join(f"`{c}`" for c in m["counters"]) or "none"
            page = m["docs"].split("#")[0]
            out.append(f"| `\"{m['name']}\"` | {m['networks']} | {m['about']} | {keys} | {counters} | [{page}]({m['docs']}) |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def replace_block(text: str, block: str) -> str:
    """`text` with its registry block replaced by `block`; ValueError if the markers are missing."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"docs/scenarios.md: the markers {BEGIN!r} and {END!r} are missing")
    return text[:start] + block + text[end + len(END):]


def main(argv=None) -> int:
    import atmsim
    from atmsim.one_line_args import OneLineParser

    OneLineParser(prog="python -m atmsim.registry_doc", description=__doc__.splitlines()[0]).parse_args(argv)

    path = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
    if not path.is_file():
        print(f"atmsim: error: {path}: not found (run this from a source checkout)", file=sys.stderr)
        return 2
    text = path.read_text(encoding="utf-8")
    try:
        new = replace_block(text, render(atmsim.registry()))
    except ValueError as e:
        print(f"atmsim: error: {e}", file=sys.stderr)
        return 2
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"rewrote the registry block of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
