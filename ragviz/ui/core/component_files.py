"""A ``st.components.v2`` component whose script and styles are files shipped in the package (issue 38): Streamlit
serves them when it finds the component in the manifest ``ragviz/pyproject.toml``, so the browser fetches them once
instead of receiving them inline with every instance on every run; inline when Streamlit found no manifest (the
module imported outside a Streamlit run, or ragviz not installed as a package)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

__all__ = ["SERVED", "packed", "register_component"]

#: The components whose files Streamlit serves (under ``/_stcore/bidi-components/<name>/``); the others are inline.
SERVED: set[str] = set()


def register_component(name: str, folder: Path, js: str, css: str) -> Callable[..., Any]:
    """The mounting command of the component *name* (``<project>.<component>`` of the manifest), its *js* and *css*
    files in *folder*; the components' styles are not isolated (they draw in the page's own theme). Its ``data`` is
    sent as :func:`packed` makes it (its script decodes and parses bytes)."""
    try:
        mount = st.components.v2.component(name, js=js, css=css, isolate_styles=False)
        SERVED.add(name)
    except StreamlitAPIException:
        mount = st.components.v2.component(
            name,
            js=(folder / js).read_text(encoding="utf-8"),
            css=(folder / css).read_text(encoding="utf-8"),
            isolate_styles=False,
        )

    def mounted(*, data: Any = None, **kwargs: Any) -> Any:
        return mount(data=packed(data), **kwargs)

    return mounted


def packed(data: Any) -> Any:
    """*data* (a dict) as the bytes of one JSON text (ASCII, other characters escaped), which the component's script
    decodes and parses: Streamlit sends bytes as they are, where a dict costs it a search of every first-level value
    for dataframes, its JSON and a second, key-sorted JSON for the element's identity, and a string a test for
    dataframes, a JSON string of it (the browser then parses twice) and a second for the identity (issue 38).
    Anything else is passed as it is.

    >>> packed({"sentences": [["a", "x"]], "n": 1})
    b'{"sentences":[["a","x"]],"n":1}'
    """
    if not isinstance(data, dict):
        return data
    return json.dumps(data, separators=(",", ":")).encode("ascii")  # \u escapes: a lone surrogate from data is safe
