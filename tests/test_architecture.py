"""The floors: the core never imports Streamlit; only ragviz/ui, app.py and pages/ may."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_does_not_import_streamlit():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "ragviz").rglob("*.py")
        if "ui" not in p.relative_to(ROOT / "ragviz").parts and "streamlit" in _imports(p)
    ]
    assert offenders == []


def test_pages_do_not_compute_metrics_inline():
    """Pages are glue: metric formulas live in ragviz.metrics, never in a page script."""
    for page in [ROOT / "app.py", *(ROOT / "pages").glob("*.py")]:
        if page.exists():
            text = page.read_text(encoding="utf-8")
            assert "len(set(" not in text, f"{page.name} seems to compute a metric inline"


def test_no_unsafe_html_anywhere():
    for p in [*(ROOT / "ragviz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        if p.exists():
            assert "unsafe_allow_html=True" not in p.read_text(encoding="utf-8"), p


MAX_PAGE_LINES = 120
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
        assert n_lines <= MAX_PAGE_LINES, f"pages/{page.name} has {n_lines} lines (at most {MAX_PAGE_LINES})"
        for needle, why in MARKUP_IN_PAGES.items():
            assert needle not in text, f"pages/{page.name} contains {needle!r}: {why}"
        assert "altair" not in _imports(page) and not re.search(r"\balt\.", text), (
            f"pages/{page.name} builds an altair chart: charts belong in ragviz/ui"
        )
