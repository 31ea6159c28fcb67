"""Every module of ``ragviz`` says what it offers (``__all__``), and nothing else crosses a module boundary.

In the spirit of httpx's ``tests/test_exported_members.py``: each module's ``__all__`` names exist, and every
``from ragviz.X import name`` in ``ragviz/``, ``pages/`` and ``app.py`` names a submodule of X or a name in
X's ``__all__`` (so a module's private helpers stay its own).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.sample import ROOT

MODULE_FILES = sorted((ROOT / "ragviz").rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in MODULE_FILES}


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"ragviz.__main__"}))  # __main__ runs the CLI when imported
def test_every_module_lists_what_it_offers_and_every_listed_name_exists(name: str):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    listed = list(module.__all__)
    assert len(listed) == len(set(listed)), f"{name}.__all__ repeats a name"
    missing = [n for n in listed if not hasattr(module, n)]
    assert missing == [], f"{name}.__all__ names what it does not define: {missing}"


def _cross_module_imports() -> list[tuple[str, int, str, str]]:
    users = [*MODULE_FILES, *(ROOT / "pages").glob("*.py"), ROOT / "app.py", ROOT / "serve.py"]
    found = []
    for path in users:
        me = _module_name(path) if path.is_relative_to(ROOT / "ragviz") else str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in MODULES and node.module != me:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" not in MODULES:
                        found.append((str(path.relative_to(ROOT)), node.lineno, node.module, alias.name))
    return found


def test_the_walk_sees_cross_module_imports():
    assert ("ragviz/export/rows.py", "ragviz.store.events", "fold_labels") in {
        (p, m, n) for p, _, m, n in _cross_module_imports()
    }


def test_nothing_is_imported_across_modules_but_what_they_list():
    wrong = []
    for path, line, module, name in _cross_module_imports():
        if name not in importlib.import_module(module).__all__:
            wrong.append(f"{path}:{line}: {name} is not in {module}.__all__")
    assert wrong == []
