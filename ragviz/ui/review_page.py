"""The Review page: one example at a time — see the judge's labels on the text, override them, watch
TRACe move. ``pages/review.py`` only calls :func:`render`; the code lives here so Streamlit does not
recompile it on every rerun (a page script is parsed again for each run, an imported module is not).
"""

from __future__ import annotations

import bisect

import pandas as pd
import streamlit as st

from ragviz.analysis.quality import MECHANICAL_KINDS, label_issues, normalize
from ragviz.analysis.review import (
    SUPPORTED,
    UNSUPPORTED,
    context_edit_changes,
    context_table,
    document_spans,
    response_spans,
    support_value,
)
from ragviz.analysis.review_metrics import compare_metrics, override_effects
from ragviz.analysis.review_queue import ReviewFilter, filter_indices, link_row, next_unreviewed, progress, step
from ragviz.data.dataset import Dataset
from ragviz.data.labels import (
    RESET_FIELD,
    REVIEW_FIELD,
    REVIEWED,
    Change,
    diff_labels,
    field_value,
    support_field,
)
from ragviz.ui import render, state
from ragviz.ui.families import render_families_panel
from ragviz.ui.present import hide_review_editing

INDEX = "review.index"
LINK = "review.applied_link"
EDITOR = "review.editor"
FILTER_CACHE = "review.filter_cache"  # ((filter, paths, annotator, label version), row indices)

# Callbacks run in the session's context before the next run: they read the session's data set,
# store and annotator afresh (never module globals: one server process serves many sessions).


# -- actions (callbacks: run before the script, then the page redraws) ---------------------------


def record(uid: str, changes: list, action: str = "edit") -> None:
    state.record_decision(uid, changes, action)


def go(index: int | None, message: str = "") -> None:
    if index is None:
        if message:
            st.toast(message)
        return
    st.session_state[INDEX] = index
    state.store().save_position(state.annotator(), state.dataset().uids[index])


def accept(uid: str, current, judge, advance: bool) -> None:
    changes = [Change(RESET_FIELD, None, None)] if current != judge and current is not None else []
    record(uid, changes + [Change(REVIEW_FIELD, None, REVIEWED)], "accept")
    if advance:
        go(
            next_unreviewed(
                state.dataset().uids, state.store().reviewed_uids(state.annotator()), st.session_state[INDEX]
            ),
            "Every example is reviewed.",
        )


def undo(uid: str) -> None:
    state.undo_decision(uid, "Nothing to undo on this example.")


def reset(uid: str) -> None:
    record(uid, [Change(RESET_FIELD, None, None)], "reset")


def set_support(uid: str, labels, response_key: str, widget_key: str, what: str) -> None:
    value = st.session_state[widget_key]
    if what == "status":
        new = support_value(labels, response_key, supported={SUPPORTED: True, UNSUPPORTED: False}.get(value))
    else:
        new = support_value(labels, response_key, supporting_keys=value)
    field = support_field(response_key)
    record(uid, [Change(field, field_value(labels, field), new)])


def normalize_labels(uid: str, example, labels) -> None:
    record(uid, diff_labels(labels, normalize(labels, example)), "normalize")


def apply_editor_edits() -> None:
    """Turn pending context-editor ticks into one recorded decision (works in the browser and AppTest)."""
    pending = st.session_state.get(EDITOR)
    if not pending:
        return
    key, index = pending
    edits = (st.session_state.get(key) or {}).get("edited_rows") or {}
    if not edits:
        return
    st.session_state[EDITOR] = None
    ex = state.dataset().example(index)
    current = state.store().current_labels(ex, state.annotator())
    changes = context_edit_changes(ex, current, edits)
    record(ex.uid, [Change(f, field_value(current, f), new) for f, new in changes])


def filter_rows(ds: Dataset, flt: ReviewFilter, who: str, reviewed: set[str], corrected: set[str]) -> list[int] | None:
    """Rows that pass *flt* (``None`` when no filter is on), cached per filter, data, annotator and
    label version. The last active filter is remembered for :func:`active_filter_rows`."""
    if not flt.active:
        st.session_state.pop(FILTER_CACHE, None)
        return None
    cache_key = (flt, state.current_paths(), who, state.label_version())
    cached = st.session_state.get(FILTER_CACHE)
    if cached and cached[0] == cache_key:
        return cached[1]
    adh = state.current_adherence(ds, who, corrected) if flt.adherence_zero else None
    allowed = filter_indices(state.row_columns(), flt, reviewed, corrected, adh)
    st.session_state[FILTER_CACHE] = (cache_key, allowed)
    return allowed


def active_filter_rows() -> list[int] | None:
    """For other pages (Label): the rows of the filter the Review page has on for the loaded data,
    under the current labels; ``None`` when no filter is on."""
    cached = st.session_state.get(FILTER_CACHE)
    if not cached or cached[0][1] != state.current_paths():
        return None
    who = state.annotator()
    s = state.store()
    return filter_rows(state.dataset(), cached[0][0], who, s.reviewed_uids(who), s.corrected_uids(who))


def run_page() -> None:
    """Draw the Review page (called by pages/review.py on every rerun)."""
    page = state.require_data()
    ds, store, who = page.dataset, page.store, page.annotator
    hide_review_editing()  # presentation mode (?present=1): no editing controls
    apply_editor_edits()

    # -- filters, progress -----------------------------------------------------------------------------
    reviewed = store.reviewed_uids(who)
    corrected = store.corrected_uids(who)
    with st.sidebar:
        prog = progress(state.uid_set(), reviewed, corrected)
        st.progress(prog.fraction, text=str(prog))
        st.caption("Filters")
        flt = ReviewFilter(
            unreviewed=st.toggle("Unreviewed only", key="review.f_unreviewed"),
            corrected=st.toggle("Corrected only", key="review.f_corrected"),
            adherence_zero=st.toggle("Adherence 0", key="review.f_adherence0"),
            has_flags=st.toggle("Has label-quality flags", key="review.f_flags"),
            subsets=tuple(st.multiselect("Subset", ds.subset_names, key="review.f_subsets")),
        )
        advance_after_accept = st.toggle("Accept moves to the next unreviewed", value=True, key="review.advance")

    allowed = filter_rows(ds, flt, who, reviewed, corrected)

    # -- which example --------------------------------------------------------------------------------
    if st.session_state.get("review.last_filter") != flt:
        # a filter just changed: if the current example no longer matches, move to the nearest match
        st.session_state["review.last_filter"] = flt
        here = st.session_state.get(INDEX, 0)
        if allowed and here not in allowed:
            go(step(allowed, here, 1) if step(allowed, here, 1) is not None else allowed[0])
    link = st.query_params.get("uid") or st.query_params.get("id")
    if link and link != st.session_state.get(LINK):
        st.session_state[LINK] = link
        row = link_row(ds, uid=st.query_params.get("uid"), example_id=st.query_params.get("id"))
        if row is None:
            st.warning(f"No loaded example has the id or uid in the link: {link!r}")
        else:
            go(row)
    if INDEX not in st.session_state or not 0 <= st.session_state[INDEX] < len(ds):
        resume = store.position(who)
        st.session_state[INDEX] = (ds.index_of(resume) if resume else None) or 0
    index = st.session_state[INDEX]
    current_ex = state.example_labels(ds, index, who)
    ex, judge, current = current_ex.example, current_ex.judge, current_ex.current
    uid = ex.uid
    if st.query_params.get("uid") != uid:
        st.query_params["uid"] = uid
    if "id" in st.query_params:
        del st.query_params["id"]
    st.session_state[LINK] = uid

    # -- navigation bar ---------------------------------------------------------------------------------
    walk = allowed if allowed is not None else range(len(ds))
    prev_row = step(walk, index, -1)
    next_row = step(walk, index, 1)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            "◀ Previous", key="review.prev", shortcut="K", disabled=prev_row is None, on_click=go, args=(prev_row,)
        )
        st.button("Next ▶", key="review.next", shortcut="J", disabled=next_row is None, on_click=go, args=(next_row,))
        st.button(
            "Next unreviewed",
            key="review.next_unreviewed",
            shortcut="N",
            on_click=lambda: go(next_unreviewed(ds.uids, reviewed, index, allowed), "No unreviewed example left here."),
        )
        st.button(
            "Accept judge labels",
            key="review.accept",
            shortcut="A",
            type="primary",
            disabled=judge is None,
            on_click=accept,
            args=(uid, current, judge, advance_after_accept),
        )
        st.button("Undo", key="review.undo", shortcut="Z", on_click=undo, args=(uid,))
        st.button(
            "Reset to judge" if judge is not None else "Reset to loaded labels",
            key="review.reset",
            on_click=reset,
            args=(uid,),
            disabled=current == judge,
            help=None
            if judge is not None
            else "This example has no judge labels: reset returns to the labels the file carried.",
        )

    where = f"Example {index + 1:,} of {len(ds):,}"
    if allowed is not None:
        pos = bisect.bisect_left(allowed, index)
        matched = pos < len(allowed) and allowed[pos] == index
        where += f" · filter: {pos + 1 if matched else '–'} of {len(allowed):,} match"
    status = "corrected" if uid in corrected else "reviewed" if uid in reviewed else "not reviewed yet"
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;color:#57606a">{render.esc(where)} · '
        f"<b>{render.esc(status)}</b> · {render.esc(ex.dataset)} · id {render.esc(ex.id)} · "
        f"model {render.esc(ex.generation_model or '—')}</div>"
    )
    st.html(render.text_block_html("Question", ex.question))

    # -- live metrics -----------------------------------------------------------------------------------
    comparison = compare_metrics(ex, judge, current)
    cols = st.columns(4)
    for col, m in zip(cols, comparison):
        with col:
            st.metric(
                m.name.capitalize(),
                render.format_score(m.current),
                delta=render.format_delta(m.delta),
                delta_color="off" if m.name in ("relevance", "utilization") else "normal",
                help="Current labels; the delta is against the judge's labels.",
                border=True,
            )
            st.html(
                f'<div class="rv-formula" style="font-family:ui-monospace,monospace;font-size:0.75rem;color:#57606a">'
                f"{render.esc(m.formula)}<br>judge {render.format_score(m.judge)} → now {render.format_score(m.current)}</div>"
            )

    effects = override_effects(ex, current_ex.base, current_ex.changes)
    if effects:
        with st.expander(f"What each override changed ({len(effects)})", expanded=False):
            st.dataframe(
                pd.DataFrame(
                    [
                        {"step": e.step, "change": e.description, **{f"Δ {k}": v for k, v in e.deltas.items()}}
                        for e in effects
                    ]
                ),
                hide_index=True,
                width="stretch",
            )

    # -- the text ---------------------------------------------------------------------------------------
    left, right = st.columns([0.58, 0.42], gap="medium")
    response_keys = ex.response_keys()
    with right:
        st.markdown("**Response**")
        spans_now = response_spans(ex, current)
        first_unsupported = next((s.key for s in spans_now if s.status == UNSUPPORTED), None)
        selected = None
        if response_keys:
            selected = st.segmented_control(
                "Response sentence (its supporting context sentences light up)",
                response_keys,
                default=first_unsupported or response_keys[0],
                required=True,
                key=f"review.sentence.{uid}",
            )
        spans = response_spans(ex, current, selected)
        st.html(render.response_html(spans))
        chosen = next((s for s in spans if s.key == selected), None)
        if chosen is not None:
            st.html(render.explanation_html(chosen))
            status_key = f"review.support.{uid}.{chosen.key}.{state.label_version()}"
            keys_key = f"review.keys.{uid}.{chosen.key}.{state.label_version()}"
            st.segmented_control(
                f"Sentence {chosen.key} is",
                [SUPPORTED, UNSUPPORTED],
                format_func={SUPPORTED: "✓ supported", UNSUPPORTED: "✗ unsupported"}.get,
                default=chosen.status if chosen.status in (SUPPORTED, UNSUPPORTED) else None,
                key=status_key,
                on_change=set_support,
                args=(uid, current, chosen.key, status_key, "status"),
            )
            context_keys = ex.context_keys()
            st.multiselect(
                f"Context sentences supporting {chosen.key}",
                context_keys + [k for k in chosen.supporting_keys if k not in context_keys],
                default=list(dict.fromkeys(chosen.supporting_keys)),
                key=keys_key,
                on_change=set_support,
                args=(uid, current, chosen.key, keys_key, "keys"),
            )

        issues = label_issues(ex, current) if current is not None else []
        st.markdown(f"**Label-quality flags: {len(issues)}**")
        if issues:
            st.html(render.problems_html([f"{p.field}: {p.message}" for p in issues]))
            mechanical = sum(1 for p in issues if p.kind in MECHANICAL_KINDS)
            st.button(
                f"Normalize labels ({mechanical} mechanical fix{'es' if mechanical != 1 else ''})",
                key="review.normalize",
                disabled=not mechanical,
                help="Strip trailing dots, drop duplicate keys and keys that name no sentence — one correction, undoable. "
                "The other flags need your judgement.",
                on_click=normalize_labels,
                args=(uid, ex, current),
            )
        if not page.present:
            from ragviz.ui.label import (
                rejudge_control,  # imports the openai client only on this page
            )

            rejudge_control(ex)

    with left:
        st.html(render.legend_html())
        for d, doc_spans in enumerate(document_spans(ex, current, selected)):
            st.html(render.document_html(d, doc_spans))
        st.markdown("**Relevant / utilized** — tick to override")
        editor_key = f"review.context.{uid}.{state.label_version()}"
        st.session_state[EDITOR] = (editor_key, index)
        table = pd.DataFrame(context_table(ex, current), columns=["document", "key", "text", "relevant", "utilized"])
        st.data_editor(
            table,
            key=editor_key,
            hide_index=True,
            disabled=["document", "key", "text"],
            column_order=("key", "relevant", "utilized", "text"),
            column_config={
                "key": st.column_config.TextColumn("key", width="small"),
                "text": st.column_config.TextColumn("sentence", width="large"),
                "relevant": st.column_config.CheckboxColumn("relevant", width="small"),
                "utilized": st.column_config.CheckboxColumn("utilized", width="small"),
            },
            height=min(36 * (len(table) + 1) + 4, 420),
            width="stretch",
        )
        st.caption("Shortcuts: J next · K previous · N next unreviewed · A accept · Z undo")

    with st.expander("Other metric families", expanded=False):
        render_families_panel(
            ex,
            judge,
            current,
            lambda changes: record(uid, changes),
            version=state.label_version(),
            editable=not page.present,
        )
