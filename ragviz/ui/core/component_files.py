"""A ``st.components.v2`` component whose script and styles are files shipped in the package (issue 38): Streamlit
serves them when it finds the component in the manifest ``ragviz/pyproject.toml``, so the browser fetches them once
instead of receiving them inline with every instance on every run; inline when Streamlit found no manifest (the
module imported outside a Streamlit run, or ragviz not installed as a package)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

__all__ = ["SERVED", "register_component"]

#: The components whose files Streamlit serves (under ``/_stcore/bidi-components/<name>/``); the others are inline.
SERVED: set[str] = set()


def register_component(name: str, folder: Path, js: str, css: str) -> Any:
    """The mounting command of the component *name* (``<project>.<component>`` of the manifest), its *js* and *css*
    files in *folder*; the components' styles are not isolated (they draw in the page's own theme)."""
    try:
        mount = st.components.v2.component(name, js=js, css=css, isolate_styles=False)
        SERVED.add(name)
        return mount
    except StreamlitAPIException:
        return st.components.v2.component(
            name,
            js=(folder / js).read_text(encoding="utf-8"),
            css=(folder / css).read_text(encoding="utf-8"),
            isolate_styles=False,
        )
