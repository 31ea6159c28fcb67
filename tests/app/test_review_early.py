"""The Review page's first element (issue 38, ``ragviz.ui.review.toolbar.early_html``): what it asks the browser for
early, read from the Streamlit installed, and that it is constant text of ragviz's own."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragviz.ui.review import toolbar


def test_the_component_loader_and_its_chunks_are_files_streamlit_serves():
    chunks = toolbar.loader_chunks()
    static = Path(st.__file__).parent / "static"
    assert chunks and chunks[0].startswith("static/js/BidiComponent.")
    assert all((static / c).is_file() for c in chunks), [c for c in chunks if not (static / c).is_file()]
    assert len(set(chunks)) == len(chunks)


def test_the_early_element_is_constant_and_served_under_the_base_path():
    a = toolbar.early_html(True, "", ["_stcore/x/editor.js", "static/js/A.js"])
    assert a == toolbar.early_html(True, "", ["_stcore/x/editor.js", "static/js/A.js"])
    assert '"/_stcore/x/editor.js"' in a and '"/static/js/A.js"' in a
    assert '"/_stcore/bidi-components/ragviz.sentence_editor/editor.js"' in a  # the editor's script draws the bar
    script = "_stcore/bidi-components/ragviz.sentence_editor/editor.js"
    assert toolbar.early_html(True, "", [script, "static/js/A.js"]).count(script) == 1  # asked for once, not preloaded
    b = toolbar.early_html(True, "/team/ragviz/", ["static/js/A.js"])
    assert '"/team/ragviz/static/js/A.js"' in b and '"/team/ragviz/_stcore/bidi-components/' in b
    assert a.count("<script") == 1 and "</script" in a.split("<script", 1)[1]  # one script, closed once
    # presentation mode: only the moves wait for the bar, no key can ask for an editing action
    assert 'data-shortcuts="KJ"' in toolbar.early_html(False, "", [])
    assert 'data-shortcuts="KJNAZ"' in a
