"""Data page: a person sets the annotator name their labels are kept under, loads the sample data,
uploads a file or opens a path, and reads the validation and label-quality report of what is loaded."""

import streamlit as st

from ragviz.data.load import load, load_bytes
from ragviz.ui import access, served, state
from ragviz.ui import data as ui
from ragviz.ui.state import FILTER_CACHE

state.require_app_shell()

LAST_PROBLEM = "data.rejected"  # (what, error lines) of the last load that was refused

st.title("Data")


def set_annotator() -> None:
    name = (st.session_state.get(ui.ANNOTATOR_INPUT) or "").strip()
    if name:
        st.session_state[state.ANNOTATOR_KEY] = name
        st.session_state.pop("review.index", None)  # resume where this annotator was


def use_paths(paths: list[str], add: bool) -> None:
    """Switch to *paths* (or add them) only when they load without errors; else keep what is loaded."""
    wanted = tuple(dict.fromkeys([*(state.current_paths() if add else ()), *paths]))
    result = load(list(paths))
    if not result.ok:
        st.session_state[LAST_PROBLEM] = (", ".join(paths), [str(p) for p in result.errors])
        return
    st.session_state[LAST_PROBLEM] = None
    state.set_paths(wanted)
    st.session_state.pop("review.index", None)
    st.session_state.pop(FILTER_CACHE, None)


def use_upload(name: str, data: bytes, add: bool) -> None:
    """Keep an uploaded file next to the label store and switch to it, only when it loads without errors."""
    checked = load_bytes(name, data)
    if not checked.ok:
        st.session_state[LAST_PROBLEM] = (name, [str(p) for p in checked.errors])
    else:
        use_paths([str(state.store().save_upload(name, data))], add)


granted = access.access()
ui.annotator_box(
    state.annotator(),
    state.store().annotators(),
    on_change=set_annotator,
    sign_in=served.sign_in_configured(),
    verified=served.signed_in() is not None,
)
if granted.can_load:
    request = ui.load_box(state.SAMPLE_DATA.name, served.path_typing_off())
else:
    st.info(granted.why, icon=":material/lock:")
    request = ui.LoadRequest(False, False, None, None)
if request.sample:
    use_paths([str(state.SAMPLE_DATA)], request.add)
if request.upload is not None:
    use_upload(request.upload.name, request.upload.getvalue(), request.add)
if request.path:
    try:
        use_paths([str(served.open_typed_path(request.path))], request.add)
    except served.PathRefused as refused:
        st.session_state[LAST_PROBLEM] = (request.path, [str(refused)])
ui.rejected_notice(st.session_state.get(LAST_PROBLEM))

paths = state.current_paths()
with st.container(border=True):
    st.subheader("What is loaded")
    if not paths:
        st.info("Nothing loaded yet.")
        st.stop()
    result = state.load_result(paths)
    ui.loaded_report(paths, result)
with st.container(border=True):
    ui.quality_heading()
    ui.quality_report(state.quality_report(), len(result.dataset), state.MAX_DETAILED)
