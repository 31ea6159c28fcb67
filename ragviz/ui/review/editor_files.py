"""The Review page's text editor's component name and files, without registering it: ``serve.py`` names them for its
HTML page's preloads (:mod:`ragviz.ui.core.index_page`) before any run of the app, where registering the component
(:mod:`ragviz.ui.review.sentence_editor`) would find no manifest and keep it inline."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ASSETS", "CSS", "JS", "NAME", "served_paths"]


ASSETS = Path(__file__).with_name("sentence_editor")
NAME = "ragviz.sentence_editor"  # <project>.<component> of the manifest ragviz/pyproject.toml
JS = "editor.js"
CSS = "editor.css"


def served_paths(served: set[str]) -> list[str]:
    """The editor's files as paths under the app's root (``_stcore/bidi-components/<component>/<file>``), when
    *served* (the components Streamlit serves as files) holds it; none when it is inline."""
    return [f"_stcore/bidi-components/{NAME}/{f}" for f in (JS, CSS)] if NAME in served else []
