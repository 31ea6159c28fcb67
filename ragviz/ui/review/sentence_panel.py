"""The selected response sentence's explanation and controls, drawn by the response editor under the response (issue
38): the explanation, the verdict (supported / unsupported), the reviewer's note on a flipped verdict and the
supporting context keys. Before, these were an ``st.html`` block, a ``segmented_control``, a ``text_input`` and a
``multiselect`` (the heaviest widget of the page, a script of its own the browser fetched): four more elements to
redraw on every J.

The data here is what the editor's script (``sentence_editor/editor.js``) draws with ``textContent``; an action comes
back through the editor's event queue (:func:`ragviz.ui.review.sentence_editor.apply_events`), which hands it to
:func:`apply` with the callbacks the last drawn panel registered (:func:`register`): the same core functions the
widgets called (:mod:`ragviz.ui.review.moves`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from ragviz.analysis.review.edits import SUPPORTED, UNSUPPORTED, ResponseSpan
from ragviz.ui.core import render

__all__ = [
    "KINDS",
    "PANELS",
    "SUPPORT_CHOICE_LABELS",
    "apply",
    "controls_data",
    "explanation_data",
    "register",
]

SUPPORT_CHOICE_LABELS = {SUPPORTED: "✓ supported", UNSUPPORTED: "✗ unsupported"}
PANELS = "review.text.panels"  # uid -> the selected sentence's controls as last drawn (key, values, callbacks)
KINDS = ("verdict", "keys", "note")  # the editor's events this module carries out


def explanation_data(span: ResponseSpan) -> dict:
    """What the explanation box shows for *span*: its verdict (marker, label, chip colours), its supporting keys and
    the judge's explanation, or for a verdict the reviewer flipped their note with the judge's text for the other
    verdict folded under it."""
    _, border, marker, label = render.SUPPORT_STYLE[span.status]
    chip_bg, chip_text = render.CHIP.get(border, (border, "#fff"))
    return {
        "key": span.key,
        "status": span.status,
        "verdict": f"{marker} {label}",
        "chip": [chip_bg, chip_text],
        "keys": ", ".join(span.supporting_keys) or "none",
        "text": span.explanation,
        "by_reviewer": span.by_reviewer,
        "replaced": span.replaced if span.by_reviewer else "",
    }


def controls_data(span: ResponseSpan, options: Sequence[str]) -> dict:
    """What the controls under the explanation draw for *span*: the verdict chosen (``None``: undecided) with the two
    choices' labels, the note field (only for a verdict the reviewer flipped: ``None`` otherwise), the supporting keys
    and the keys a person can pick (*options*: every context key, then the keys the labels name that no context
    sentence has, so they can be seen and removed)."""
    supporting = list(dict.fromkeys(span.supporting_keys))
    return {
        "key": span.key,
        "status": span.status if span.status in (SUPPORTED, UNSUPPORTED) else None,
        "choices": [[s, SUPPORT_CHOICE_LABELS[s]] for s in (SUPPORTED, UNSUPPORTED)],
        "verdict_label": f"Sentence {span.key} is",
        "note": span.explanation if span.by_reviewer else None,
        "note_label": f"Your note on {span.key} (optional; replaces the judge's explanation)",
        "note_placeholder": "Why this verdict? Press Enter to keep it.",
        "keys": supporting,
        "options": [*options, *(k for k in supporting if k not in options)],
        "keys_label": f"Context sentences supporting {span.key}",
    }


def register(
    uid: str,
    controls: Mapping[str, Any],
    on_status: Callable[[str], Any],
    on_keys: Callable[[list[str]], Any],
    on_note: Callable[[str], Any],
) -> None:
    """Remember what the panel of *uid* was drawn with (*controls*, :func:`controls_data`) and what each action does:
    an event is carried out against the panel the person saw."""
    st.session_state.setdefault(PANELS, {})[uid] = {
        "key": controls["key"],
        "status": controls["status"],
        "keys": list(controls["keys"]),
        "options": list(controls["options"]),
        "note": controls["note"],
        "verdict": on_status,
        "on_keys": on_keys,
        "on_note": on_note,
    }


def apply(event: Mapping[str, Any]) -> bool:
    """Carry out one of the panel's events (*event*'s ``kind`` in :data:`KINDS`) with the callbacks of the panel last
    drawn for its example; True when a callback ran. An event for a sentence other than the one drawn, a click on
    the verdict already chosen, a key no context sentence has, a note on a verdict not flipped or a value equal to
    the one drawn does nothing (as the widgets did: a change only)."""
    panel = (st.session_state.get(PANELS) or {}).get(event.get("uid"))
    if panel is None or event.get("key") != panel["key"]:
        return False
    kind = event.get("kind")
    if kind == "verdict":
        status = event.get("status")
        if status not in (SUPPORTED, UNSUPPORTED) or status == panel["status"]:
            return False
        panel["verdict"](status)
        return True
    if kind == "keys":
        sent = event.get("keys")
        if not isinstance(sent, list):
            return False
        keys = list(dict.fromkeys(k for k in sent if isinstance(k, str) and k in panel["options"]))
        if keys == panel["keys"]:
            return False
        panel["on_keys"](keys)
        return True
    if kind == "note":
        note = event.get("note")
        if panel["note"] is None or not isinstance(note, str) or note == panel["note"]:
            return False
        panel["on_note"](note)
        return True
    return False
