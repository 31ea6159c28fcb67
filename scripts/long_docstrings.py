"""List the ragviz modules whose docstring runs past a few lines (issue 40: a module docstring says what the module
is for; the detail belongs in docs/ or in the docstrings of the functions it describes).

    .venv/bin/python scripts/long_docstrings.py [--max 12] [--skip ragviz/store]

Prints ``lines  path`` for each module over --max lines, longest first, and exits 1 when there is any.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def docstring_lines(path: Path) -> int:
    """How many lines *path*'s module docstring spans in the file (0: none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    first = tree.body[0] if tree.body else None
    if not (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    ):
        return 0
    return (first.end_lineno or first.lineno) - first.lineno + 1


def long_docstrings(root: Path, most: int, skip: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """``(lines, path)`` of the modules under *root*/ragviz whose docstring is longer than *most* lines."""
    out = []
    for path in sorted((root / "ragviz").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(s.rstrip("/") + "/") for s in skip):
            continue
        if (n := docstring_lines(path)) > most:
            out.append((n, rel))
    return sorted(out, key=lambda t: (-t[0], t[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=12, help="the most lines a module docstring may take (12)")
    parser.add_argument("--skip", action="append", default=[], help="a folder to leave out, e.g. ragviz/store")
    args = parser.parse_args(argv)
    found = long_docstrings(ROOT, args.max, tuple(args.skip))
    for n, rel in found:
        print(f"{n:4d}  {rel}")
    print(f"{len(found)} modules with a docstring over {args.max} lines", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
