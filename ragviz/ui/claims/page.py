"""The Claims page's renderers and its claims-specific state (``pages/claims.py`` is the glue): the file being
reviewed, which item, the items as the annotator sees them (one item's texts, matrices and scores are
:mod:`ragviz.ui.claims.item`).

The file being reviewed is ``claims.source`` in the session (a path, or an upload kept in the session
by digest); it is read once per process (``st.cache_resource``). The items as the annotator sees them
are cached per file, annotator and label version. Every text from the file reaches the page escaped
(:mod:`ragviz.ui.core.render`) or inside a table widget.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from ragviz.analysis.claims import (
    current_items,
    item_label,
)
from ragviz.data.checked_claims import CheckedItem
from ragviz.data.formats.ragchecker import (
    RagCheckerFormatError,
    RagCheckerLoad,
    RagCheckerProblem,
    parse_ragchecker,
    read_ragchecker,
)
from ragviz.data.limits import too_big
from ragviz.ui.core import render, served, state
from ragviz.ui.core.keys import CLAIMS_CURRENT_CACHE as CURRENT_CACHE
from ragviz.ui.core.keys import CLAIMS_INDEX as INDEX
from ragviz.ui.core.keys import CLAIMS_LOADED, CLAIMS_PATH, CLAIMS_UPLOAD
from ragviz.ui.core.keys import CLAIMS_PATH_REFUSED as PATH_REFUSED
from ragviz.ui.core.keys import CLAIMS_SOURCE as SOURCE
from ragviz.ui.core.keys import CLAIMS_UPLOADS as UPLOADS
from ragviz.ui.data import upload_limit

__all__ = [
    "CURRENT_CACHE",
    "EXAMPLE_FILE",
    "NO_EXAMPLE",
    "INDEX",
    "PATH_REFUSED",
    "SOURCE",
    "UPLOADS",
    "cached_current_items",
    "error_lines",
    "file_problems",
    "file_summary",
    "file_warnings",
    "item_actions",
    "item_picker",
    "load_source",
    "loaded_files",
    "no_file_notice",
    "no_items_notice",
    "opened_source",
    "selected_index",
    "source_controls",
    "source_key",
]


EXAMPLE_FILE = Path(__file__).resolve().parents[3].parent / "shared" / "ragchecker" / "checking_outputs.json"
NO_EXAMPLE = "RagChecker's example (its repository's examples/checking_outputs.json) is not here: open or upload it."


# -- the file ------------------------------------------------------------------------------------


@st.cache_resource(show_spinner="Reading RagChecker file…", max_entries=8)
def _read_path(path: str, mtime: float) -> RagCheckerLoad | RagCheckerFormatError:
    try:
        return read_ragchecker(path)
    except RagCheckerFormatError as exc:
        return exc


@st.cache_resource(show_spinner=False, max_entries=8)
def _read_bytes(name: str, digest: str, _data: bytes) -> RagCheckerLoad | RagCheckerFormatError:
    try:
        data = json.loads(_data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return RagCheckerFormatError([RagCheckerProblem(name, 0, "encoding", f"not UTF-8 text: {exc.reason}")])
    except json.JSONDecodeError as exc:
        return RagCheckerFormatError(
            [RagCheckerProblem(name, exc.lineno, "json", f"not valid JSON: {exc.msg} (column {exc.colno})")]
        )
    except RecursionError:
        return RagCheckerFormatError([RagCheckerProblem(name, 0, "json", "nested too deep to read")])
    try:
        return parse_ragchecker(data, name, dataset=Path(name).stem)
    except RagCheckerFormatError as exc:
        return exc


def opened_source() -> dict[str, Any] | None:
    """The file the person opened (``name``, ``path`` or upload ``digest``), or ``None``."""
    return st.session_state.get(SOURCE)


def source_key(source: dict[str, Any]) -> str:
    """What tells two opened files apart: the path, else the upload's digest."""
    return f"{source.get('path') or source.get('digest')}"


def load_source(source: dict[str, Any]) -> RagCheckerLoad | RagCheckerFormatError:
    """The opened file's items and warnings, or every problem that keeps it from loading."""
    if source.get("path"):
        path = Path(source["path"]).expanduser()
        try:
            if not path.is_file():
                return RagCheckerFormatError([RagCheckerProblem(str(path), 0, "path", "no such file")])
            mtime = path.stat().st_mtime
        except OSError as exc:
            return RagCheckerFormatError(
                [RagCheckerProblem(str(path), 0, "path", f"cannot read: {exc.strerror or exc}")]
            )
        return _read_path(str(path), mtime)
    data = st.session_state.get(UPLOADS, {}).get(source.get("digest"))
    if data is None:
        return RagCheckerFormatError(
            [
                RagCheckerProblem(
                    source.get("name", "upload"), 0, "upload", "the upload is gone (new session): upload it again"
                )
            ]
        )
    return _read_bytes(source["name"], source["digest"], data)


def _open_path(path: str) -> None:
    path = path.strip()
    if path:
        st.session_state[SOURCE] = {"name": Path(path).name, "path": path, "digest": None}
        st.session_state[INDEX] = 0


def _open_typed() -> None:
    """Open the typed path, or keep the refusal (served mode: only under the data folder) to show."""
    typed = (st.session_state.get(CLAIMS_PATH) or "").strip()
    st.session_state[PATH_REFUSED] = None
    if not typed:
        return
    try:
        _open_path(str(served.open_typed_path(typed)))
    except served.PathRefused as refused:
        st.session_state[PATH_REFUSED] = str(refused)


def _open_upload() -> None:
    up = st.session_state.get(CLAIMS_UPLOAD)
    if up is None:
        return
    if (refused := too_big(up.name, up.size, upload_limit())) is not None:
        st.session_state[PATH_REFUSED] = refused
        return
    data = up.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    st.session_state.setdefault(UPLOADS, {})[digest] = data
    st.session_state[SOURCE] = {"name": up.name, "path": None, "digest": digest}
    st.session_state[INDEX] = 0


def source_controls() -> None:
    """Path, RagChecker's example, upload: opening a file makes it the source and selects its first item."""
    with st.expander("Open a RagChecker file", expanded=SOURCE not in st.session_state):
        cols = st.columns([0.55, 0.45])
        with cols[0]:
            off = served.path_typing_off()
            st.text_input("Path of a RagChecker checking-output JSON", key="claims.path", disabled=off is not None)
            if off is not None:
                st.caption(off)  # md: ours
            if st.session_state.get(PATH_REFUSED):
                error_lines([st.session_state[PATH_REFUSED]])
            row = st.container(horizontal=True)
            row.button("Open path", key="claims.open_path", on_click=_open_typed, disabled=off is not None)
            if EXAMPLE_FILE.is_file():
                row.button(
                    "Open RagChecker's example",
                    key="claims.open_example",
                    on_click=_open_path,
                    args=(str(EXAMPLE_FILE),),
                    help="checking_outputs.json from the RagChecker repository (two items)",
                )
            else:
                st.caption(NO_EXAMPLE)  # md: ours
        with cols[1]:
            limit = upload_limit()
            st.file_uploader(
                "…or upload one",
                type=["json"],
                key="claims.upload",
                on_change=_open_upload,
                max_upload_size=limit,
                help=f"Up to {limit} MB (server.maxUploadSize / RAGVIZ_MAX_UPLOAD_MB).",
            )


def loaded_files(files: Sequence[str]) -> None:
    """The RagChecker checking outputs among the loaded data (*files*), picked by file name: how a person
    who may not open files (served: everyone but admins) reaches the files an admin loaded."""
    if not files:
        return
    current = (opened_source() or {}).get("path")
    st.selectbox(
        "RagChecker files among the loaded data",
        range(len(files)),
        index=files.index(current) if current in files else None,
        format_func=lambda i: Path(files[i]).name,  # plain text
        placeholder="Pick a file to review its claims",
        key="claims.loaded",
        on_change=lambda: _open_path(files[st.session_state[CLAIMS_LOADED]]),
    )


def no_file_notice(can_open: bool) -> None:
    """What to do with no file open: open one (RagChecker's example named only where it is), or pick a loaded one."""
    if can_open:
        example = " or RagChecker's own example" if EXAMPLE_FILE.is_file() else ""
        opening = f"Open a RagChecker checking-output JSON (a path, an upload{example}) to review its claims."
        st.info(opening)  # md: ours
    else:
        st.info("No RagChecker checking output is open: pick one among the loaded data, or ask an admin to load one.")


def file_problems(problems: Sequence[RagCheckerProblem]) -> None:
    """Why the file does not load, one located line each."""
    error_lines([str(p) for p in problems])


def file_warnings(warnings: Sequence[RagCheckerProblem]) -> None:
    """The file's warnings (labels RagChecker does not know), folded away."""
    with st.expander(f"{len(warnings)} warnings in the file"):
        st.html(render.problems_html([str(p) for p in warnings]))


def error_lines(lines: Sequence[str]) -> None:
    """Problem lines (from the file or from overrides that no longer fit it), escaped, in red."""
    st.html(render.problems_html(lines, "error"))


def no_items_notice() -> None:
    st.info("The file has no items.")


# -- which item ----------------------------------------------------------------------------------


def selected_index(n_items: int) -> int:
    """The item picked (0 when none is, or the pick is past the end of the file)."""
    if not 0 <= st.session_state.get(INDEX, 0) < n_items:
        st.session_state[INDEX] = 0
    return st.session_state.get(INDEX, 0)


def file_summary(file_name: str, n_items: int, statuses: str) -> None:
    """One grey line: the file's name, its number of items and how many are reviewed and corrected
    (*statuses*; ``""`` while presenting without corrections)."""
    tail = f" · {render.esc(statuses)}" if statuses else ""
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;{render.MUTED}">{render.esc(file_name)} · '
        f"{n_items} items{tail}</div>"
    )


def item_picker(items: Sequence[CheckedItem], statuses: Sequence[str]) -> None:
    """The item picker; the pick is read by :func:`selected_index` on the run it causes."""
    st.selectbox("Item", range(len(items)), format_func=lambda i: item_label(items[i], statuses[i]), key=INDEX)


def item_actions(
    on_review: Callable[[], Any], on_undo: Callable[[], Any], on_reset: Callable[[], Any], can_reset: bool
) -> None:
    """Mark reviewed, Undo, Reset to file: each button calls its handler (result ignored) before the page reruns."""
    with st.container(horizontal=True):
        st.button("Mark reviewed", key="claims.review", type="primary", on_click=on_review)
        st.button("Undo", key="claims.undo", on_click=on_undo)
        st.button("Reset to file", key="claims.reset", on_click=on_reset, disabled=not can_reset)


# -- the items as the annotator sees them --------------------------------------------------------


def cached_current_items(
    items: list[CheckedItem], file_name: str, who: str, source: str
) -> tuple[list[CheckedItem], list[str]]:
    """:func:`ragviz.analysis.claims.current_items`, kept in the session until the file (*source*,
    see :func:`source_key`), the annotator or the label version changes."""
    key = (source, who, state.redraw_count())
    cached = st.session_state.get(CURRENT_CACHE)
    if cached and cached[0] == key:
        return cached[1]
    value = current_items(items, file_name, state.store(), who)
    st.session_state[CURRENT_CACHE] = (key, value)
    return value
