"""The Review page's text as its editor: one ``st.components.v2`` component (``sentence_editor/editor.js`` and
``editor.css``, shipped in the package, no build step) draws the context documents or the response by sentence, and
the page's navigation bar (:mod:`ragviz.ui.review.toolbar`: above the single view's text, or an element of its own).

* Context: a click (Enter / Space on a focused sentence; one Tab stop, arrow keys between sentences) moves its label
  one step round none -> relevant -> relevant+utilized -> utilized -> none. Documents fold to their labelled
  sentences with a little context ("show all" and the document list work in the browser alone).
* Response: a click selects a sentence, whose explanation, verdict, note and supporting keys are drawn under it
  (:mod:`ragviz.ui.review.sentence_panel`); Shift+click on a context sentence makes it support it, or takes it out.

Every node is built with ``textContent`` / ``setAttribute`` (no text from data is parsed as HTML). An action: the
trigger ``edit``, queued (:func:`queue_event`), carried out at the page's top (:func:`apply_events`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import streamlit as st

from ragviz.analysis.audits.judge_confidence import UnsureSentences, unsure_sentences
from ragviz.analysis.review.edits import NEITHER, ContextSpan, ResponseSpan, context_state
from ragviz.analysis.review.text import click_changes, fold_ranges, next_state, support_link_change
from ragviz.data.dataset import Dataset
from ragviz.data.model import Labels
from ragviz.store.judge_confidence import example_confidence
from ragviz.ui.core import render, state
from ragviz.ui.core.component_files import register_component
from ragviz.ui.core.keys import REVIEW_INDEX, UNSURE_MEMO
from ragviz.ui.core.keys import TEXT_CONTEXT_KEY as CONTEXT_KEY
from ragviz.ui.core.keys import TEXT_DRAWN as DRAWN
from ragviz.ui.core.keys import TEXT_EVENTS as EVENTS
from ragviz.ui.core.keys import TEXT_RESPONSE_KEY as RESPONSE_KEY
from ragviz.ui.core.keys import TEXT_TOUCHED as TOUCHED
from ragviz.ui.core.per_run import once_a_run
from ragviz.ui.review import sentence_panel
from ragviz.ui.review.editor_files import ASSETS, CSS, JS, NAME
from ragviz.ui.review.header import header_tree

__all__ = [
    "ASSETS",
    "CONTEXT_KEY",
    "DRAWN",
    "EVENTS",
    "HINT",
    "NAME",
    "NOTICE",
    "RESPONSE_KEY",
    "TOUCHED",
    "apply_events",
    "context_data",
    "context_editor",
    "context_payload",
    "has_events",
    "judge_unsure",
    "mount",
    "queue_event",
    "response_data",
    "response_editor",
    "response_heading_html",
    "selected_key",
    "take_events",
    "touch",
    "touched",
]


_component = register_component(NAME, ASSETS, JS, CSS)


def mount(key: str, data: dict, **callbacks: Callable[[], Any]) -> None:
    """Draw the component under *key* with *data*; *callbacks*: ``on_edit_change`` (the text's actions),
    ``on_press_change`` (the bar's presses)."""
    _component(key=key, data=data, **callbacks)


def queue_event(widget_key: str) -> None:
    """The component's callback: put the action it just sent at the end of the queue."""
    result = st.session_state.get(widget_key) or {}
    event = result.get("edit") if hasattr(result, "get") else None
    if isinstance(event, dict):
        st.session_state.setdefault(EVENTS, []).append(event)


def has_events() -> bool:
    """Whether actions are queued since the last run (:func:`take_events` would hand some out)."""
    return bool(st.session_state.get(EVENTS))


def take_events() -> list[dict[str, Any]]:
    """The actions queued since the last run, oldest first; each is handed out once."""
    return st.session_state.pop(EVENTS, None) or []


def touch(uid: str, key: str) -> None:
    """Remember that the person changed *key* on *uid*: it stays unfolded while they are there."""
    st.session_state.setdefault(TOUCHED, {}).setdefault(uid, set()).add(key)


def touched(uid: str) -> set[str]:
    return set(st.session_state.get(TOUCHED, {}).get(uid, ()))


def _styles(table: dict[str, tuple[str, str, str, str]]) -> dict[str, list[str]]:
    """Per state: highlight, border colour, marker, legend text, then the key chip's background and
    text colour (:data:`ragviz.ui.core.render.CHIP`, as the legend's chips)."""
    return {state: [*style, *render.CHIP.get(style[1], (style[1], "#fff"))] for state, style in table.items()}


def context_data(
    uid: str,
    documents: Sequence[Sequence[ContextSpan]],
    kept: Iterable[str],
    editable: bool,
    selected: str | None = None,
    unsure: Mapping[str, str] | None = None,
) -> dict:
    """What the context editor draws: per document its ``[key, text]`` sentences and the ranges shown
    folded (a sentence in *kept*, labelled, or supporting the *selected* response sentence, with
    context); the labels, the support links, the colours, whether clicks edit and the judge labels its samples
    disagreed on (*unsure*: key -> what they said, a faint marker)."""
    keep = set(kept)
    docs = []
    for d, whole in enumerate(documents):
        spans, left_out = render.within_budget(whole)  # a document over 1 MB is cut for display, never sent whole
        flags = [s.key in keep or s.state != NEITHER or s.linked for s in spans]
        docs.append(
            {
                "title": f"Document {d}",
                "s": [[s.key, s.text] for s in spans],
                "show": fold_ranges(flags),
                "cut": left_out,
            }
        )
    return {
        "kind": "context",
        "uid": uid,
        "editable": editable,
        "docs": docs,
        "states": {s.key: s.state for spans in documents for s in spans if s.state != NEITHER},
        "linked": [s.key for spans in documents for s in spans if s.linked],
        "selected": selected,
        "style": _styles(render.CONTEXT_STYLE),
        "unsure": dict(unsure or {}),
    }


def response_data(
    uid: str, spans: Sequence[ResponseSpan], selected: str | None, unsure: Mapping[str, str] | None = None
) -> dict:
    """What the response editor draws: ``[key, text, support status]`` per sentence, the selected key
    (*spans* already cut for display, :func:`ragviz.ui.core.render.within_budget`) and the judge's unsure labels."""
    return {
        "unsure": dict(unsure or {}),
        "kind": "response",
        "uid": uid,
        "selected": selected,
        "sentences": [[s.key, s.text, s.status] for s in spans],
        "style": _styles(render.SUPPORT_STYLE),
        "link_color": render.LINK_COLOR,
    }


def context_editor(
    uid: str,
    labels: Labels | None,
    documents: Sequence[Sequence[ContextSpan]],
    kept: Iterable[str],
    editable: bool,
    selected: str | None = None,
    view: str | None = None,
) -> None:
    """The context documents (drawn from *labels*) as the editor (see the module docstring);
    *kept* sentences stay unfolded; Shift+click links a sentence to the *selected* response sentence; a faint
    marker beside the judge labels its samples disagreed on (:func:`judge_unsure`). *view*: the documents' identity
    when it is not *uid*'s (a paired question: the scroll and the opened folds stay when the focus moves)."""
    data = context_payload(uid, labels, documents, kept, editable, selected, view)
    _component(key=CONTEXT_KEY, data=data, on_edit_change=partial(queue_event, CONTEXT_KEY))
    _cut_notes(data)


def _cut_notes(context: dict) -> None:
    for doc in context["docs"]:
        if doc["cut"]:
            st.html(f"<div>{render.esc(doc['title'])}:{render.cut_note_html(doc['cut'])}</div>")


def context_payload(
    uid: str,
    labels: Labels | None,
    documents: Sequence[Sequence[ContextSpan]],
    kept: Iterable[str],
    editable: bool,
    selected: str | None = None,
    view: str | None = None,
) -> dict:
    """What :func:`context_editor` draws (its arguments the same), for an editor of its own or under the response in
    the single view's (:func:`response_editor`'s *context*); the page now holds *labels* as drawn."""
    st.session_state[DRAWN] = (uid, labels)
    data = context_data(uid, documents, kept, editable, selected, judge_unsure(uid).context)
    if view is not None:
        data["view"] = view
    # a click refused or kept unsaved leaves the labels as drawn before: the count makes the data differ, so the
    # browser redraws the stored labels over its click (identical data would leave the clicked state drawn)
    data["drawn"] = state.redraw_count()
    notice = st.session_state.pop(NOTICE, None)
    if notice is not None and notice[0] == uid:  # a click refused on this run: said under its sentence
        data["notice"] = {"key": notice[1], "text": notice[2], "id": notice[3]}
    if editable:  # drawn under the documents by the editor: one element fewer to redraw on every move (issue 38)
        data["hint"] = HINT
    return data


HINT = (
    "Click a sentence (keys: Tab into the text, ← →, Enter) for its next label: none → R → R+U → U. "
    "Shift+click (Shift+Enter): it supports the selected response sentence, or no longer does."
)


def judge_unsure(uid: str) -> UnsureSentences:
    """The example's judge labels that the judge's own samples disagreed on (``ragviz label --samples``); read once a
    run (the context's and the response's payloads both ask)."""
    read = once_a_run(UNSURE_MEMO, dict)
    if uid not in read:
        read[uid] = unsure_sentences(example_confidence(state.store(), uid))
    return read[uid]


def response_editor(
    uid: str,
    spans: Sequence[ResponseSpan],
    selected: str | None,
    slot: str = "",
    focused: bool = True,
    explain: dict | None = None,
    controls: dict | None = None,
    header: Sequence[str] = (),
    context: dict | None = None,
    bar: dict | None = None,
    on_press: Callable[[str], Any] | None = None,
) -> None:
    """The response as clickable sentences (see the module docstring; the single view draws
    :func:`response_heading_html` above it in the page's header block); a paired view's *slot* (``"a"`` / ``"b"``)
    draws them under a key of its own, and a click on the answer not *focused* moves the focus there. Above the
    response: the *header*'s blocks (ragviz's own HTML, texts escaped; built node by node,
    :mod:`ragviz.ui.review.header`). Under
    the response: the selected sentence's explanation (*explain*) and, when editing, its controls (*controls*; both
    from :mod:`ragviz.ui.review.sentence_panel`), then the single view's documents (*context*, from
    :func:`context_payload`: one element for the example's text, one message and one redraw of the app fewer per J
    than two, issue 38; its clicks come back through this editor's queue). Above everything, the navigation *bar*
    (:func:`ragviz.ui.review.toolbar.bar_data`: one delta per J fewer again), its presses handed to *on_press* with
    this element's key (:func:`ragviz.ui.review.toolbar.queue_press`)."""
    shown, left_out = render.within_budget(spans)  # a response over 1 MB is cut for display, never sent whole
    key = f"{RESPONSE_KEY}.{slot}" if slot else RESPONSE_KEY
    data = response_data(uid, shown, selected, judge_unsure(uid).response)
    data["slot"], data["focused"] = slot, focused
    data["explain"], data["controls"] = explain, controls
    data["header"] = header_tree(*header) if header else None
    data["context"] = context
    data["drawn"] = state.redraw_count()  # a refused or unsaved change redraws the stored values over the click
    callbacks = {"on_edit_change": partial(queue_event, key)}
    if bar is not None and on_press is not None:
        data["bar"] = bar
        callbacks["on_press_change"] = partial(on_press, key)
    mount(key, data, **callbacks)
    if left_out:
        st.html(f"<div>Response:{render.cut_note_html(left_out)}</div>")
    if context is not None:
        _cut_notes(context)


def response_heading_html() -> str:
    """The colour legend and the "Response" heading above the single view's response (the header's last block)."""
    return (
        f'<div style="margin-top:1rem">{render.legend_html()}<p style="margin:1rem 0 0"><strong>Response</strong> — '
        "click a sentence to see its explanation and the context sentences that support it</p></div>"
    )


def selected_key(uid: str, response_keys: Sequence[str], default: str | None) -> str | None:
    """The response sentence selected on *uid*: the one the person clicked, else *default*, which
    then stays selected while the person is on *uid* (an edit that changes the default moves nothing)."""
    chosen = st.session_state.get(f"review.sentence.{uid}")
    if chosen not in response_keys:
        chosen = st.session_state[f"review.sentence.{uid}"] = default
    return chosen


NOTICE = "review.text.notice"  # (uid, key, text, id) of a click refused on this run, said under its sentence


def _refuse(what: str) -> None:
    """Refuse a click made on labels the page no longer holds: say so on the next run (as a refused
    stale edit is said, :func:`ragviz.ui.core.state.record_decision`) and redraw the stored labels."""
    state.bump_redraw_count()
    st.session_state[state.STALE_TEXT_KEY] = (
        f"Not saved: {what} (another tab or window?). The sentence shows the stored labels now;"
        " redo the edit if you still want it."
    )
    st.session_state[state.STALE_KEY] = "Not saved: " + render.md_escape(what)


def _notice_under(uid: str, key: str) -> None:
    """A click on *key* was just refused: its message goes under the sentence (the context editor shows it,
    in view) instead of at the top of the page, far above where the person clicked."""
    text = st.session_state.pop(state.STALE_TEXT_KEY, None)
    if text is None:
        return
    st.session_state.pop(state.STALE_KEY, None)
    n = st.session_state.get(NOTICE + ".n", 0) + 1
    st.session_state[NOTICE + ".n"] = n
    st.session_state[NOTICE] = (uid, key, text, n)


def apply_events(ds: Dataset, who: str) -> None:
    """Take the queued actions (:func:`take_events`) and carry them out, oldest first: a selection is
    kept in the session; a label goes to the store (:func:`ragviz.ui.core.state.record_decision`) as the
    change computed from the labels the page drew (:func:`ragviz.analysis.review.text.click_changes`:
    a click moves the sentence one step from the label drawn) — the store refuses it (``StaleEdit``,
    shown on the page) when either of the sentence's fields changed since, so no edit overwrites one
    the person did not see. A click whose sentence the browser showed with another label than the
    page drew is refused the same way."""
    for event in take_events():
        uid, key, kind = event.get("uid"), event.get("key"), event.get("kind")
        row = ds.index_of(uid) if isinstance(uid, str) else None
        if row is None or not isinstance(key, str):
            continue
        if kind in sentence_panel.KINDS:  # the verdict, the keys, the note: the callbacks the panel was drawn with
            before = state.redraw_count()
            if sentence_panel.apply(event) and state.redraw_count() == before:  # kept unsaved: draw the stored
                state.bump_redraw_count()
            continue
        if kind == "select":
            st.session_state[f"review.sentence.{uid}"] = key
            if event.get("slot") and row != st.session_state.get(REVIEW_INDEX):  # the other answer of a pair
                st.session_state[REVIEW_INDEX] = row
                state.save_position(ds.uids[row])
            continue
        example = ds.example(row)
        drawn_uid, drawn = st.session_state.get(DRAWN, (None, None))
        seen = drawn if drawn_uid == example.uid else state.store().current_labels(example, who)
        of = event.get("of")
        if kind == "label" and key in example.context_keys():
            was = context_state(key, set(seen.relevant_keys if seen else ()), set(seen.utilized_keys if seen else ()))
            if event.get("seen", was) != was:
                _refuse(f"sentence {key} was shown as {event.get('seen')}, the labels say {was}")
                _notice_under(example.uid, key)
                continue
            changes = click_changes(example, seen, key, next_state(was))
        elif kind == "link" and of in example.response_keys() and key in example.context_keys():
            changes = [support_link_change(seen, of, key, bool(event.get("linked")))]
        else:
            continue
        touch(example.uid, key)
        if state.record_decision(example.uid, changes):
            st.session_state[DRAWN] = (example.uid, state.store().current_labels(example, who))
        else:  # refused or kept unsaved: the text redraws the stored labels, not the browser's click
            state.bump_redraw_count()
            _notice_under(example.uid, key)
