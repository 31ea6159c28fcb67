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

from tests.sample import ROOT

PACKAGE = ROOT / "ragviz"
FLOORS = ("data", "metrics", "store", "analysis", "judge", "export", "cli", "ui")


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


def _room(module: str, packages: set[str]) -> str:
    """The room of *module* inside its floor: its sub-package (``ragviz.ui.label``), or the module itself when it
    is loose on the floor (``ragviz.data.schema``)."""
    room = ".".join(module.split(".")[:3])
    return room if room in packages else module


def _room_graph() -> dict[str, set[str]]:
    """Imports between the rooms of one floor (each sub-package one node, each loose module another)."""
    graph = _graph()
    packages = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}
    rooms: dict[str, set[str]] = {}
    for module, imports in graph.items():
        mine = _room(module, packages)
        for target in imports:
            theirs = _room(target, packages)
            if mine != theirs and mine.split(".")[:2] == theirs.split(".")[:2]:
                rooms.setdefault(mine, set()).add(theirs)
    return rooms


# Floors whose rooms still import each other in a circle, each with who is taking it apart; the lead empties
# this as their work lands.
ROOM_CIRCLES_WAIVED: dict[str, str] = {}


def test_the_room_graph_sees_rooms_and_loose_modules():
    rooms = _room_graph()
    assert "ragviz.ui.core" in rooms["ragviz.ui.label"]
    assert "ragviz.data.tool_columns" in rooms["ragviz.data.schema"]


def test_no_import_circles_between_the_rooms_of_a_floor():
    """Inside a floor too, the rooms stand in an order: ``ui/label`` and ``ui/judge`` may not use each other,
    nor ``data/schema.py`` and ``data/formats/``."""
    circles = [c for c in _cycles(_room_graph()) if c[0].split(".")[1] not in ROOM_CIRCLES_WAIVED]
    assert circles == []


def test_ui_core_is_the_ground_of_the_ui_floor():
    """``ui/core`` is what every page shares: it imports no page's room or renderer above it."""
    upward = sorted(t for t in _room_graph().get("ragviz.ui.core", set()) if t.startswith("ragviz.ui."))
    assert upward == []


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


MAX_MODULE_LINES = 400
HARD_MODULE_LINES = 600
# Modules others are taking apart in this round, each with who; the rule holds for them once the lead empties
# this list (their work merged).
MODULE_SIZE_WAIVED = {}


def _module_lines(text: str) -> int:
    """Every line of the file counts: docstring, imports, ``__all__``, comments and blank lines."""
    return len(text.splitlines())


def test_the_line_count_counts_every_line():
    text = '"""Doc."""\n\n__all__ = [\n    "a",\n    "b",\n]\n\n# why\n\ndef a(): ...\ndef b(): ...\n'
    assert _module_lines(text) == 11


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_short_or_say_why(path: Path):
    """A module is one concept (scikit-learn's rule): at most 400 lines counted whole, more only when its docstring
    says why it reads best whole, and never more than 600."""
    relative = str(path.relative_to(ROOT))
    if any(relative.startswith(waived) for waived in MODULE_SIZE_WAIVED):
        return
    text = path.read_text(encoding="utf-8")
    lines = _module_lines(text)
    assert lines <= HARD_MODULE_LINES, f"{relative}: {lines} lines; split it (at most {HARD_MODULE_LINES})"
    if lines <= MAX_MODULE_LINES:
        return
    docstring = ast.get_docstring(ast.parse(text)) or ""
    assert "reads best whole" in docstring, f"{relative}: {lines} lines; split it or say why it reads best whole"


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
    for p in [*PACKAGE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py", ROOT / "serve.py"]:
        if p.exists():
            assert "unsafe_allow_html=True" not in p.read_text(encoding="utf-8"), p


MAX_PAGE_LINES = 150
# A page may be longer only for a reason written here.
LONGER_PAGES: dict[str, tuple[int, str]] = {}
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


# -- the label store's public interface (issue 35) ----------------------------------------------------------------
STORE = PACKAGE / "store"
SQL_STATEMENT = re.compile(
    r"""["'f]\s*(SELECT\s+\S.*\bFROM\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b)""", re.S
)
# SQL kept outside ragviz/store on purpose: the judge cache's own tables and its batch ledger (in the same
# database the judge cache opens on its own connection; their migrations are the store schema's judge set).
SQL_OUTSIDE_STORE = {"ragviz/judge/cache.py", "ragviz/judge/batch/ledger.py"}


def _private_attributes(tree: ast.AST) -> set[str]:
    """The private attributes the classes of one module define (methods, and ``self._x = ...``)."""
    out: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            name = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = node.name
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                name = node.attr if isinstance(node.ctx, ast.Store) else None
            if name and name.startswith("_") and not name.startswith("__"):
                out.add(name)
    return out


def _store_private_names() -> dict[str, str]:
    """Every private attribute a class in ragviz/store defines, with its module."""
    out: dict[str, str] = {}
    for path in sorted(STORE.rglob("*.py")):
        for name in _private_attributes(ast.parse(path.read_text(encoding="utf-8"))):
            out.setdefault(name, str(path.relative_to(ROOT)))
    return out


def _python_files_using_the_store() -> list[Path]:
    return sorted(
        p
        for folder in (PACKAGE, ROOT / "pages", ROOT / "tests", ROOT / "benchmarks", ROOT / "scripts")
        if folder.exists()
        for p in folder.rglob("*.py")
    ) + [ROOT / "app.py", ROOT / "serve.py"]


def test_the_private_name_finder_sees_the_stores_lock_and_runner():
    names = _store_private_names()
    assert names["_lock"] == "ragviz/store/connection.py" and "_conn" in names and "_statuses" in names


def test_nothing_outside_a_store_module_uses_its_private_attributes():
    """``store._q``, ``store._write()``, ``store._lock`` and the like: the store's interface is ``read`` / ``write`` /
    ``query`` and its parts' functions. An object's own ``self._x`` is its own business, and so is a module's use of
    a private name its own classes define (a test server's ``_lock``)."""
    private = _store_private_names()
    wrong = []
    for path in _python_files_using_the_store():
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        own = _private_attributes(tree) if not rel.startswith("ragviz/store/") else set()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr in private) or node.attr in own:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if private[node.attr] != rel and not rel.startswith("ragviz/store/"):
                wrong.append(f"{rel}:{node.lineno}: .{node.attr}")
            elif rel.startswith("ragviz/store/") and rel != private[node.attr]:
                wrong.append(f"{rel}:{node.lineno}: .{node.attr} (defined in {private[node.attr]})")
    assert wrong == []


def test_no_sql_outside_the_store():
    """Statements live in ragviz/store (each part owns its SQL); everything else calls a part's function."""
    wrong = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py", ROOT / "serve.py"]:
        rel = str(path.relative_to(ROOT))
        if rel.startswith("ragviz/store/") or rel in SQL_OUTSIDE_STORE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and SQL_STATEMENT.search(repr(node.value))
            ):
                wrong.append(f"{rel}:{node.lineno}: {node.value[:60]!r}")
    assert wrong == []


def test_the_sql_finder_finds_a_statement():
    assert SQL_STATEMENT.search(repr("SELECT COUNT(*) FROM judge_batch_requests"))
    assert not SQL_STATEMENT.search(repr("select the rows you want from the table"))


# Inside ragviz/store, from the ground up (a module may import its own layer and the layers below; a name matches
# a module or a package of modules).
STORE_LAYERS: tuple[tuple[str, ...], ...] = (
    # pure: errors, event folding, the backends' drivers, uploads on disk, the status cache, the SQL dialects
    ("errors", "events", "postgres", "sqlite", "uploads", "status_cache", "dialect"),
    ("paths", "roles"),  # pure rules: who may do what (identity_name names people in the store), which paths open
    ("schema", "identity_folds"),  # the schema: its migration sets and runner, and what migration 020 folded
    ("database",),  # one connection interface over the backends
    ("connection",),  # the public read / write interface
    # the parts the core is composed of, each owning its SQL
    ("label_events", "judge_sets", "sources", "audit_samples", "team"),
    ("label_store",),  # the core: decisions, statuses, the composed parts
    # what is built over the core: its functions take a LabelStore
    (
        "judge_versions",
        "judge_confidence",
        "sign_ins",
        "trace_pushes",
    ),
)


def _store_layer(module: str) -> int | None:
    name = module.removeprefix("ragviz.store").removeprefix(".")
    if name == "":
        return len(STORE_LAYERS)
    found = [
        (len(entry), i)
        for i, layer in enumerate(STORE_LAYERS)
        for entry in layer
        if name == entry or name.startswith(entry + ".")
    ]
    return max(found)[1] if found else None


def test_every_store_module_has_a_layer():
    graph = _graph()
    assert [m for m in graph if m.startswith("ragviz.store") and _store_layer(m) is None] == []


def test_store_imports_run_down_its_layers():
    """No upward import inside ragviz/store: the parts never import the core that composes them, the connection
    never imports a part, the schema never imports live code above it."""
    wrong = []
    for module, imports in _graph().items():
        if not module.startswith("ragviz.store"):
            continue
        mine = _store_layer(module)
        for target in imports:
            if target.startswith("ragviz.store") and (theirs := _store_layer(target)) is not None:
                if mine is not None and theirs > mine:
                    wrong.append(f"{module} imports {target} from a higher layer")
    assert wrong == []


def test_no_import_circles_inside_the_store():
    store = {
        m: {t for t in ts if t.startswith("ragviz.store")} for m, ts in _graph().items() if m.startswith("ragviz.store")
    }
    assert _cycles(store) == []
