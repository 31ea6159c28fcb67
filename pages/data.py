"""Data page: a person sets the annotator name their labels are kept under, loads the sample data,
uploads a file or opens a path, and reads the validation and label-quality report of what is loaded."""

from pathlib import Path

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from ragviz.data.limits import too_big, upload_decoded_limit
from ragviz.data.load import refused_for_size
from ragviz.ui import data as ui
from ragviz.ui import phoenix as phoenix_ui
from ragviz.ui.core import access, filters, render, served, state
from ragviz.ui.core.keys import FILTER_CACHE, REVIEW_INDEX
from ragviz.ui.core.present import is_present
from ragviz.ui.team import queue as team_queue

state.require_app_shell()

LAST_PROBLEM = "data.rejected"  # (what, error lines) of the last load that was refused

st.title("Data")


def set_annotator() -> None:
    name = (st.session_state.get(ui.ANNOTATOR_INPUT) or "").strip()
    if name:
        st.session_state[state.ANNOTATOR_KEY] = name
        st.session_state.pop(REVIEW_INDEX, None)  # resume where this annotator was


def use_paths(paths: list[str], add: bool, checked: bool = False) -> None:
    """Switch to *paths* (or add them) only when they load without errors (*checked*: they did); else
    keep what is loaded."""
    wanted = tuple(dict.fromkeys([*(state.current_paths() if add else ()), *paths]))
    result = None if checked else state.load_result(tuple(paths), keep=False)  # the page then shows it, cached
    if result is not None and not result.ok:
        st.session_state[LAST_PROBLEM] = (", ".join(paths), [str(p) for p in result.errors])
        return
    st.session_state[LAST_PROBLEM] = None
    state.set_paths(wanted)
    st.session_state.pop(REVIEW_INDEX, None)
    st.session_state.pop(FILTER_CACHE, None)
    st.rerun()  # the sidebar, drawn before this page, shows the new data's count at once


def use_upload(upload: UploadedFile, add: bool) -> None:
    """Keep an uploaded file (streamed to disk, deduplicated by content) and switch to it, only when it
    is under the cap and loads without errors; a refused upload is not kept."""
    if (refused := too_big(upload.name, upload.size, ui.upload_limit())) is not None:
        st.session_state[LAST_PROBLEM] = (upload.name, [refused])
        return
    store = state.store()
    kept = store.sources.keep_upload(upload.name, upload)
    if (refused := refused_for_size(kept, kept.name, upload_decoded_limit(ui.upload_limit()))) is not None:
        if kept not in store.sources.uploads():
            store.sources.remove_upload(kept)
        st.session_state[LAST_PROBLEM] = (upload.name, [f"{upload.name}: file: {refused}"])
        return
    result = state.load_result((str(kept),))  # loaded once: the page shows this same cached result
    if not result.ok:
        if kept not in store.sources.uploads():
            store.sources.remove_upload(kept)
        st.session_state[LAST_PROBLEM] = (upload.name, [str(p).replace(str(kept), upload.name) for p in result.errors])
        return
    store.sources.register_upload(kept)
    use_paths([str(kept)], add, checked=True)


def remove_upload(path: str) -> None:
    open_before = state.current_paths()
    state.store().sources.remove_upload(Path(path))
    if path in open_before:
        state.set_paths(tuple(p for p in open_before if p != path))


granted = access.access()
present = is_present()  # presentation mode (always for viewers): no name, nothing that loads or writes
if present:
    st.caption("Presentation mode: the annotator and loading are hidden.")
else:
    ui.annotator_box(
        state.annotator(),
        team_queue.names_shown(state.store(), state.annotator()) if granted.can_review else [],  # viewers: nobody's
        on_change=set_annotator,
        sign_in=served.sign_in_configured(),
        verified=served.signed_in(state.store()) is not None,
    )
if granted.can_load and not present:
    sample_loaded = [Path(p).resolve() for p in state.current_paths()] == [state.SAMPLE_DATA.resolve()]
    request = ui.load_box(state.SAMPLE_DATA.name, served.path_typing_off(), sample_loaded, state.SAMPLE_DATA.is_dir())
else:
    if not present:
        st.info(granted.why, icon=":material/lock:")  # md: ours
    request = ui.LoadRequest(False, False, None, None)
if request.sample:
    use_paths([str(state.SAMPLE_DATA)], request.add)
if request.upload is not None:
    use_upload(request.upload, request.add)
if request.phoenix is not None and (kept := phoenix_ui.open_phoenix(request.phoenix, state.store(), LAST_PROBLEM)):
    use_paths([kept], request.add, checked=True)
if request.path:
    try:
        use_paths([str(served.open_typed_path(request.path))], request.add)
    except served.PathRefused as refused:
        st.session_state[LAST_PROBLEM] = (request.path, [str(refused)])
ui.rejected_notice(st.session_state.get(LAST_PROBLEM))
phoenix_ui.skipped_traces()
if granted.can_load and not present:
    ui.uploads_box(state.store().sources.uploads(), on_remove=remove_upload)

paths = state.current_paths()
with st.container(border=True):
    st.subheader("What is loaded")
    if not paths:
        st.info("Nothing loaded yet.")
        st.stop()
    st.caption(render.md_escape(access.open_data_note(show_who=access.names_shown()), None))
    result = state.load_result(paths)
    ui.loaded_report(paths, result, full_paths=granted.can_see_store and not present)
with st.container(border=True):
    ui.quality_heading()
    ui.quality_report(filters.quality_report(), len(result.dataset), filters.MAX_DETAILED)
