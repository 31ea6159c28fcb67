"""The Claims page: RagChecker's checked claims with their entailment labels, overridable, with the
11 per-item values and the file's aggregates recomputed live. ``pages/claims.py`` only calls
:func:`run_page`.

Overrides are label-store events like the Review page's: uid ``ragchecker:<file name>/<query_id>``,
field ``claim:<check>:<claim>`` / ``claim:retrieved2*:<chunk>:<claim>``, value the label string;
the current item is the file's item with the annotator's effective events folded in
(:func:`ragviz.data.claim_overrides.apply_claim_overrides`). Undo, reset and "mark reviewed" work as on
the Review page.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.claims import (
    GT_ANSWER,
    RESPONSE,
    SIDES,
    aggregate_table,
    item_label,
    item_table,
    label_options,
    matrix_changes,
    matrix_columns,
    matrix_rows,
    n_changed_labels,
    statuses_text,
)
from ragviz.data.checked_claims import CheckedItem
from ragviz.data.claim_overrides import apply_claim_overrides, claim_uid
from ragviz.data.formats.ragchecker import (
    RagCheckerFormatError,
    RagCheckerLoad,
    RagCheckerProblem,
    items_to_json,
    parse_ragchecker,
    read_ragchecker,
)
from ragviz.data.labels import RESET_FIELD, REVIEW_FIELD, REVIEWED, Change
from ragviz.ui import render, state
from ragviz.ui.present import is_present

EXAMPLE_FILE = Path(__file__).resolve().parents[2].parent / "shared" / "ragchecker" / "checking_outputs.json"
SOURCE = "claims.source"  # {"name": file name, "path": str | None, "digest": str | None}
UPLOADS = "claims.uploads"  # digest -> bytes (uploads live in the session only)
INDEX = "claims.index"


# -- loading -------------------------------------------------------------------------------------


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
    try:
        return parse_ragchecker(data, name, dataset=Path(name).stem)
    except RagCheckerFormatError as exc:
        return exc


def load_source(source: dict[str, Any]) -> RagCheckerLoad | RagCheckerFormatError:
    if source.get("path"):
        path = Path(source["path"]).expanduser()
        if not path.is_file():
            return RagCheckerFormatError([RagCheckerProblem(str(path), 0, "path", "no such file")])
        return _read_path(str(path), path.stat().st_mtime)
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
    _open_path(st.session_state.get("claims.path") or "")


def _open_upload() -> None:
    up = st.session_state.get("claims.upload")
    if up is None:
        return
    data = up.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:16]
    st.session_state.setdefault(UPLOADS, {})[digest] = data
    st.session_state[SOURCE] = {"name": up.name, "path": None, "digest": digest}
    st.session_state[INDEX] = 0


def source_controls(editable: bool) -> None:
    with st.expander("Open a RagChecker file", expanded=SOURCE not in st.session_state):
        cols = st.columns([0.55, 0.45])
        with cols[0]:
            st.text_input("Path of a RagChecker checking-output JSON", key="claims.path")
            row = st.container(horizontal=True)
            row.button("Open path", key="claims.open_path", on_click=_open_typed)
            if EXAMPLE_FILE.is_file():
                row.button(
                    "Open RagChecker's example",
                    key="claims.open_example",
                    on_click=_open_path,
                    args=(str(EXAMPLE_FILE),),
                    help="checking_outputs.json from the RagChecker repository (two items)",
                )
        with cols[1]:
            st.file_uploader("…or upload one", type=["json"], key="claims.upload", on_change=_open_upload)


# -- actions -------------------------------------------------------------------------------------


def _record(uid: str, changes: list[Change], action: str = "edit") -> None:
    state.record_decision(uid, changes, action)


def _undo(uid: str) -> None:
    state.undo_decision(uid, "Nothing to undo on this item.")


def _apply_pending(uid: str, item: CheckedItem) -> None:
    """Edits waiting in this item's matrix editors become one recorded decision."""
    changes: list[Change] = []
    for side in SIDES:
        key = editor_key(side, uid)
        edits = (st.session_state.get(key) or {}).get("edited_rows") or {}
        if edits:
            changes += matrix_changes(item, side, edits)
    _record(uid, changes)


def editor_key(side: str, uid: str) -> str:
    return f"claims.editor.{side}.{uid}.{state.label_version()}"


# -- current items -------------------------------------------------------------------------------


def current_items(items: list[CheckedItem], file_name: str, who: str) -> tuple[list[CheckedItem], list[str]]:
    """Every item with the annotator's overrides, and the problems of events that no longer fit."""
    store = state.store()
    touched = store.statuses(who)
    out, problems = [], []
    for it in items:
        uid = claim_uid(file_name, it.query_id)
        if uid not in touched:
            out.append(it)
            continue
        try:
            out.append(apply_claim_overrides(it, store.changes(uid, who)))
        except ValueError as exc:
            problems.append(f"{uid}: {exc}")
            out.append(it)
    return out, problems


def _cached_current(
    items: list[CheckedItem], file_name: str, who: str, source_key: str
) -> tuple[list[CheckedItem], list[str]]:
    key = (source_key, who, state.label_version())
    cached = st.session_state.get("claims.current_cache")
    if cached and cached[0] == key:
        return cached[1]
    value = current_items(items, file_name, who)
    st.session_state["claims.current_cache"] = (key, value)
    return value


# -- drawing -------------------------------------------------------------------------------------


def _scores_frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns)


def _matrix(item: CheckedItem, side: str, uid: str, editable: bool, title: str) -> None:
    st.markdown(f"**{title}**")
    rows = matrix_rows(item, side)
    if not rows:
        st.caption("No claims on this side.")
        return
    columns = matrix_columns(item, side)
    options = label_options(item)
    config: dict[str, Any] = {
        "#": st.column_config.NumberColumn("#", width="small"),
        "claim": st.column_config.TextColumn("claim", width="large"),
    }
    for col in columns[2:]:
        config[col] = st.column_config.SelectboxColumn(col, options=options, required=True, width="small")
    st.data_editor(
        pd.DataFrame(rows, columns=columns),
        key=editor_key(side, uid),
        hide_index=True,
        disabled=["#", "claim"] if editable else True,
        column_config=config,
        width="stretch",
        height=min(35 * (len(rows) + 1) + 3, 640),
    )


def run_page() -> None:
    present = is_present()
    editable = not present
    st.title("RagChecker claims")
    source_controls(editable)
    source = st.session_state.get(SOURCE)
    if not source:
        st.info(
            "Open a RagChecker checking-output JSON (path, upload or RagChecker's own example) to review its claims."
        )
        st.stop()

    loaded = load_source(source)
    if isinstance(loaded, RagCheckerFormatError):
        st.html(render.problems_html([str(p) for p in loaded.problems], "error"))
        st.stop()
    items = loaded.items
    if loaded.warnings:
        with st.expander(f"{len(loaded.warnings)} warnings in the file"):
            st.html(render.problems_html([str(p) for p in loaded.warnings]))
    if not items:
        st.info("The file has no items.")
        st.stop()

    file_name = source["name"]
    who = state.annotator()
    store = state.store()
    if not 0 <= st.session_state.get(INDEX, 0) < len(items):
        st.session_state[INDEX] = 0
    index = st.session_state.get(INDEX, 0)
    item = items[index]
    uid = claim_uid(file_name, item.query_id)
    if editable:
        _apply_pending(uid, _current_of(item, uid, who))

    currents, problems = _cached_current(items, file_name, who, f"{source.get('path') or source.get('digest')}")
    if problems:
        st.html(render.problems_html(problems, "error"))
    uids = [claim_uid(file_name, it.query_id) for it in items]
    reviewed, corrected = store.reviewed_uids(who), store.corrected_uids(who)

    # -- which item ---------------------------------------------------------------------------
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;color:#57606a">{render.esc(file_name)} · '
        f"{len(items)} items · {render.esc(statuses_text(uids, reviewed, corrected))}</div>"
    )

    def status(i: int) -> str:
        return "corrected" if uids[i] in corrected else "reviewed" if uids[i] in reviewed else ""

    st.selectbox("Item", range(len(items)), format_func=lambda i: item_label(items[i], status(i)), key=INDEX)
    current = currents[index]
    if editable:
        with st.container(horizontal=True):
            st.button(
                "Mark reviewed",
                key="claims.review",
                type="primary",
                on_click=_record,
                args=(uid, [Change(REVIEW_FIELD, None, REVIEWED)], "review"),
            )
            st.button("Undo", key="claims.undo", on_click=_undo, args=(uid,))
            st.button(
                "Reset to file",
                key="claims.reset",
                on_click=_record,
                args=(uid, [Change(RESET_FIELD, None, None)], "reset"),
                disabled=current == item,
            )

    left, right = st.columns(2, gap="medium")
    with left:
        st.html(render.text_block_html("Query", item.query))
        st.html(render.text_block_html("Ground-truth answer", item.gt_answer))
    with right:
        st.html(render.text_block_html("Response", item.response))
    with st.expander(f"Retrieved chunks ({item.n_chunks})", expanded=False):
        for c, chunk in enumerate(item.retrieved_context):
            st.html(render.text_block_html(f"chunk {c + 1} · {chunk.doc_id or 'no doc_id'}", chunk.text))

    changed = n_changed_labels(item, current)
    st.caption(
        "Labels: only “Entailment” counts as true. Pick a label in a cell to override it"
        + (f" — {changed} label(s) differ from the file." if changed else ".")
    )
    _matrix(current, RESPONSE, uid, editable, "Response claims — entailed by the ground-truth answer? by each chunk?")
    _matrix(current, GT_ANSWER, uid, editable, "Ground-truth answer claims — entailed by the response? by each chunk?")

    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**This item** — file's labels vs now")
        st.dataframe(
            _scores_frame(item_table(item, current), ["group", "metric", "file", "now", "delta"]),
            hide_index=True,
            width="stretch",
            column_config={
                "file": st.column_config.NumberColumn("file", format="%.4f"),
                "now": st.column_config.NumberColumn("now", format="%.4f"),
                "delta": st.column_config.NumberColumn("Δ", format="%+.4f"),
            },
            height=35 * 12 + 3,
        )
    with right:
        st.markdown(f"**All {len(items)} items** — mean (0..1) and as RagChecker prints it (×100, 1 decimal)")
        st.dataframe(
            _scores_frame(
                aggregate_table(items, currents), ["group", "metric", "file", "now", "file ×100", "now ×100"]
            ),
            hide_index=True,
            width="stretch",
            column_config={
                "file": st.column_config.NumberColumn("file", format="%.4f"),
                "now": st.column_config.NumberColumn("now", format="%.4f"),
                "file ×100": st.column_config.NumberColumn("file ×100", format="%.1f"),
                "now ×100": st.column_config.NumberColumn("now ×100", format="%.1f"),
            },
            height=35 * 12 + 3,
        )

    st.download_button(
        "Download corrected RagChecker JSON",
        data=json.dumps(items_to_json(currents), ensure_ascii=False, indent=1).encode("utf-8"),
        file_name=f"{Path(file_name).stem}-corrected.json",
        mime="application/json",
        key="claims.download",
    )


def _current_of(item: CheckedItem, uid: str, who: str) -> CheckedItem:
    """The item as shown to the annotator right now (before this run records anything)."""
    try:
        return apply_claim_overrides(item, state.store().changes(uid, who))
    except ValueError:
        return item
