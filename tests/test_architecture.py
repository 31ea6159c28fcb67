"""The floors: the core never imports Streamlit; only ragviz/ui, app.py and pages/ may."""

from __future__ import annotations

import ast
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
