"""The README says ``make run`` and ``make test`` need Python 3.10+ (pyproject's ``requires-python``): nothing
ragviz, its tests, scripts or benchmarks import is a standard-library module newer than that, unless the import
falls back to a backport (``tests/test_packaging.py`` used ``tomllib``, 3.11+, and stopped ``make test`` on 3.10)."""

from __future__ import annotations

import ast
import re

from tests.sample import ROOT

OLDEST = (3, 10)
NEWER_STDLIB = {"tomllib": (3, 11)}  # standard-library modules added after OLDEST (3.12 and 3.13 added none)
SOURCES = ("ragviz", "tests", "scripts", "benchmarks", "pages")


def _guarded(node: ast.Try) -> bool:
    caught = {n.id for h in node.handlers if h.type is not None for n in ast.walk(h.type) if isinstance(n, ast.Name)}
    return bool(caught & {"ImportError", "ModuleNotFoundError"})


def unguarded_newer_imports(source: str) -> list[str]:
    """The standard-library modules newer than :data:`OLDEST` that *source* imports outside a ``try`` that
    catches ``ImportError``.

    >>> unguarded_newer_imports("import tomllib")
    ['tomllib']
    >>> unguarded_newer_imports("try:\\n    import tomllib\\nexcept ModuleNotFoundError:\\n    import tomli as tomllib")
    []
    """
    found: list[str] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom) and not guarded:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found.extend(n for n in names if n.split(".")[0] in NEWER_STDLIB)
        inner = guarded or (isinstance(node, ast.Try) and _guarded(node))
        for child in ast.iter_child_nodes(node):
            visit(child, guarded if isinstance(node, ast.Try) and child in node.handlers else inner)

    visit(ast.parse(source), False)
    return found


def test_requires_python_is_the_oldest_version_checked():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^requires-python = ">=3\.10"$', pyproject, re.M)
    assert all(version > OLDEST for version in NEWER_STDLIB.values())


def test_nothing_imports_a_standard_library_module_newer_than_the_oldest_python():
    paths = [
        ROOT / "app.py",
        ROOT / "serve.py",
        *(p for d in SOURCES for p in (ROOT / d).rglob("*.py") if "node_modules" not in p.parts),
    ]
    newer = {
        str(p.relative_to(ROOT)): found
        for p in paths
        if (found := unguarded_newer_imports(p.read_text(encoding="utf-8")))
    }
    assert not newer, f"import these with a fallback (Python {OLDEST[0]}.{OLDEST[1]} lacks them): {newer}"


def test_the_finder_sees_an_import_inside_a_function_and_the_handler_is_not_a_guard():
    assert unguarded_newer_imports("def f():\n    import tomllib") == ["tomllib"]
    assert unguarded_newer_imports("try:\n    pass\nexcept ImportError:\n    import tomllib") == ["tomllib"]
    assert unguarded_newer_imports("from tomllib import loads") == ["tomllib"]
