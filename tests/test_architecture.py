"""The floors of the house: imports run downward only, no import circles, Streamlit only in the UI floors.

Floors, from the ground up (a module may import its own floor and the floors below it):
data -> metrics -> store -> analysis -> judge -> export -> cli -> ui -> app.py / pages/.
``ragviz/version.py`` and ``ragviz/errors.py`` (the exception root) sit under everything; ``ragviz/__init__.py`` (the public API) and ``ragviz/__main__.py``
sit above the core and are imported by nothing inside ``ragviz/``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ragviz"
FLOORS = ("data", "metrics", "store", "analysis", "judge", "export", "cli", "ui")
MAX_MODULE_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, known: set[str]) -> set[str]:
    """Every ragviz module *path* imports, at any depth of the file (lazy imports inside functions and
    ``TYPE_CHECKING`` blocks count: they are dependencies too). ``from pkg import mod`` counts as ``pkg.mod``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in known)
    return {m for m in found if m in known and m != me}


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    known = {_module_name(p) for p in files}
    return {_module_name(p): _imported_modules(p, known) for p in files}


def _floor(module: str) -> int | None:
    """The floor index of *module*; -1 for ragviz.version and ragviz.errors; None for the façade (ragviz, ragviz.__main__)."""
    parts = module.split(".")
    if module in ("ragviz.version", "ragviz.errors"):
        return -1
    if len(parts) >= 2 and parts[1] in FLOORS:
        return FLOORS.index(parts[1])
    return None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_the_imports():
    graph = _graph()
    assert "ragviz.data.model" in graph["ragviz.data.dataset"]
    assert "ragviz.data.ragbench" in graph["ragviz.data.schema"]  # `from ragviz.data import ragbench as rb`
    assert "ragviz.store.label_store" in graph["ragviz.cli.export"]  # a lazy import inside a function


def test_cycle_finder_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles_in_ragviz():
    assert _cycles(_graph()) == []


def test_imports_run_downward_only():
    wrong = []
    for module, imports in _graph().items():
        mine = _floor(module)
        for target in imports:
            theirs = _floor(target)
            if theirs is None:
                wrong.append(f"{module} imports the façade {target}")
            elif mine is not None and theirs > mine:
                wrong.append(f"{module} ({FLOORS[mine]}) imports {target} ({FLOORS[theirs]}) from a higher floor")
    assert wrong == []


def test_every_module_lives_on_a_floor():
    loose = [m for m in _graph() if _floor(m) is None and m not in ("ragviz", "ragviz.__main__")]
    assert loose == [], "put new modules in one of " + ", ".join(FLOORS)


def test_core_does_not_import_streamlit():
    offenders = [
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if "ui" not in p.relative_to(PACKAGE).parts and "streamlit" in _top_level_imports(p)
    ]
    assert offenders == []


def test_core_does_not_import_pages_or_app():
    for p in PACKAGE.rglob("*.py"):
        assert not ({"pages", "app"} & _top_level_imports(p)), p


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_short_or_say_why(path: Path):
    """A module over ~400 lines must be one thing that reads best whole and say so in its docstring. The
    ``__all__`` listing is its table of contents, not code: its lines do not count."""
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n") - _all_listing_lines(text)
    if lines <= MAX_MODULE_LINES:
        return
    docstring = ast.get_docstring(ast.parse(text)) or ""
    assert "reads best whole" in docstring, f"{path.name}: {lines} lines; split it or say why not"


def _all_listing_lines(text: str) -> int:
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return (node.end_lineno or node.lineno) - node.lineno + 1
    return 0


def test_public_api_resolves():
    import ragviz

    assert set(ragviz.__all__) == {"__version__", *ragviz._PUBLIC}
    missing = [name for name in ragviz.__all__ if not hasattr(ragviz, name)]
    assert missing == []
    with pytest.raises(AttributeError):
        ragviz.no_such_name  # noqa: B018


def test_pages_do_not_compute_metrics_inline():
    """Pages are glue: metric formulas live in ragviz.metrics, never in a page script."""
    for page in [ROOT / "app.py", *(ROOT / "pages").glob("*.py")]:
        if page.exists():
            text = page.read_text(encoding="utf-8")
            assert "len(set(" not in text, f"{page.name} seems to compute a metric inline"


def test_no_unsafe_html_anywhere():
    for p in [*PACKAGE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        if p.exists():
            assert "unsafe_allow_html=True" not in p.read_text(encoding="utf-8"), p


MAX_PAGE_LINES = 120
# A page may be longer only for a reason written here.
LONGER_PAGES = {
    "review.py": (
        176,
        "the Review flow: choosing the example (filter, deep link, resume, a team's assignments), six keyboard "
        "actions, the guidelines panel and the link back to a trace",
    ),
    "data.py": (124, "four ways to load (sample, upload, path, a Phoenix project) each checked before it is opened"),
}
MARKUP_IN_PAGES = {
    ".html(": "HTML is drawn by a renderer in ragviz/ui",  # st.html( and a column's .html(
    '"<div': "an HTML literal belongs in ragviz/ui",
    "'<div": "an HTML literal belongs in ragviz/ui",
    '"<span': "an HTML literal belongs in ragviz/ui",
    "'<span": "an HTML literal belongs in ragviz/ui",
}


def test_pages_are_glue():
    """A page script reads state, calls the core and calls renderers: it stays short and draws no
    markup or chart itself (renderers live in ragviz/ui/<page>.py)."""
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        n_lines = len(text.splitlines())
        limit = LONGER_PAGES.get(page.name, (MAX_PAGE_LINES, ""))[0]
        assert n_lines <= limit, f"pages/{page.name} has {n_lines} lines (at most {limit})"
        for needle, why in MARKUP_IN_PAGES.items():
            assert needle not in text, f"pages/{page.name} contains {needle!r}: {why}"
        assert "altair" not in _top_level_imports(page) and not re.search(r"\balt\.", text), (
            f"pages/{page.name} builds an altair chart: charts belong in ragviz/ui"
        )


# Inside store/, from the ground up: what every part stands on (the dialects, the errors, the pure folding of
# events), the schema (store/schema/), the connection to a database; then the store and its parts (every other
# module). A module imports its own level and the levels below it.
STORE_LEVELS: tuple[tuple[str, ...], ...] = (
    ("ragviz.store.dialect", "ragviz.store.errors", "ragviz.store.events"),
    ("ragviz.store.schema",),
    ("ragviz.store.sqlite", "ragviz.store.postgres", "ragviz.store.database"),
)


def _store_level(module: str) -> int:
    for level, names in enumerate(STORE_LEVELS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return level
    return len(STORE_LEVELS)


def test_imports_inside_the_store_run_downward_only():
    wrong = [
        f"{module} imports {target}"
        for module, imports in _graph().items()
        if module.startswith("ragviz.store.")
        for target in imports
        if target.startswith("ragviz.store.") and _store_level(target) > _store_level(module)
    ]
    assert wrong == []


def test_migrations_import_no_live_code():
    """Django's rule: a migration never imports live code, so a later change to ragviz never changes what an old
    migration does to a store it meets for the first time (what one needs is copied, frozen, into the schema)."""
    live = [
        f"{module} imports {target}"
        for module, imports in _graph().items()
        if module.startswith("ragviz.store.schema")
        for target in imports
        if target != "ragviz.store.dialect" and not target.startswith("ragviz.store.schema")
    ]
    assert live == []


def test_one_migration_runner_and_one_migrations_table():
    """Every schema change goes through ragviz/store/schema/runner.py, recorded in its one table."""
    runner = PACKAGE / "store" / "schema" / "runner.py"
    table = re.compile(r"CREATE TABLE (IF NOT EXISTS )?\w*migrations\b", re.IGNORECASE)
    elsewhere = [
        str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if p != runner and table.search(p.read_text("utf-8"))
    ]
    assert elsewhere == [] and table.search(runner.read_text("utf-8"))
    runs_migrations = re.compile(r"^\s*def _?migrate\b", re.MULTILINE)
    assert [
        str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if runs_migrations.search(p.read_text("utf-8"))
    ] == ["ragviz/store/schema/runner.py"]
