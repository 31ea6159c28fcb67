"""The Review page's navigation bar as one ``st.components.v2`` component (``toolbar/toolbar.js``, ``toolbar.css``,
served as files through the manifest ``ragviz/pyproject.toml``): native buttons with Streamlit's labels, disabled
states, help and shortcuts (K / J / N / A / Z), and the line saying what Z will undo; one element to redraw per J where
six ``st.button``s, their row and the hint were eight (issue 38). A press comes back as the trigger ``press``, queued
(:func:`queue_press`) and carried out before the page draws (:func:`apply_presses`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st

from ragviz.analysis.quality.issues import MECHANICAL_KINDS
from ragviz.data.problems import Problem
from ragviz.ui.core.component_files import register_component

__all__ = [
    "ACTIONS",
    "ASSETS",
    "EVENTS",
    "KEY",
    "NAME",
    "ToolbarButton",
    "KEYS_KEY",
    "apply_presses",
    "listen_early",
    "navigation_bar",
    "queue_press",
    "toolbar",
    "toolbar_data",
]

ASSETS = Path(__file__).with_name("toolbar")
NAME = "ragviz.review_toolbar"  # <project>.<component> of the manifest ragviz/pyproject.toml
KEY = "review.toolbar"
EVENTS = "review.toolbar.events"  # the buttons pressed since the last run, oldest first
KEYS_KEY = (
    "review.toolbar.keys"  # the hidden element that listens before the bar is drawn (class st-key-review-toolbar-keys)
)
ACTIONS = "review.toolbar.actions"  # button id -> what it does, as the last drawn bar said (enabled buttons only)


@dataclass(frozen=True)
class ToolbarButton:
    """One button of the bar: *id* names it in a press, *shortcut* is its key (``None``: none); *aside*: an action
    used now and then, drawn at the row's right end; *short*: the words it shows where the bar is narrow (its name
    stays *label*)."""

    id: str
    label: str
    shortcut: str | None = None
    disabled: bool = False
    primary: bool = False
    help: str | None = None
    aside: bool = False
    short: str | None = None


_component = register_component(NAME, ASSETS, "toolbar.js", "toolbar.css")


def toolbar_data(buttons: Sequence[ToolbarButton], hint: str | None) -> dict:
    """What the bar draws: its buttons in order and the line under them (``None``: no line)."""
    return {"kind": "toolbar", "buttons": [asdict(b) for b in buttons], "hint": hint}


def queue_press() -> None:
    """The component's callback: put the button it just sent at the end of the queue."""
    result = st.session_state.get(KEY) or {}
    event = result.get("press") if hasattr(result, "get") else None
    if isinstance(event, dict) and isinstance(event.get("id"), str):
        st.session_state.setdefault(EVENTS, []).append(event["id"])


def apply_presses() -> None:
    """Carry out the buttons pressed since the last run, oldest first, each with the action of the bar last drawn;
    a press of a button that was disabled or not drawn (presentation mode) does nothing."""
    for name in st.session_state.pop(EVENTS, None) or []:
        action = (st.session_state.get(ACTIONS) or {}).get(name)
        if action is not None:
            action()


def listen_early(editable: bool = True, preload: Sequence[str] = ()) -> None:
    """The bar's script, hidden, at the top of the page (before its slow part): it listens for the bar's shortcuts
    before the bar is drawn and presses the ones pressed meanwhile once it is (a J pressed as the page opens is not
    lost), and asks the browser early for *preload* (files served under ``/_stcore/bidi-components/``, e.g.
    ``ragviz.sentence_editor/editor.js``): the components' scripts are fetched while the server still works on the
    page instead of after it (issue 38). Without *editable* only K and J are shortcuts, as on the bar."""
    shortcuts = ["K", "J", "N", "A", "Z"] if editable else ["K", "J"]
    _component(key=KEYS_KEY, data={"kind": "keys", "shortcuts": shortcuts, "preload": list(preload)})


def toolbar(buttons: Sequence[ToolbarButton], actions: Mapping[str, Callable[[], Any]], hint: str | None) -> None:
    """Draw the bar: *buttons* in order, *actions* what each enabled one does, *hint* the line under them."""
    st.session_state[ACTIONS] = {b.id: actions[b.id] for b in buttons if not b.disabled and b.id in actions}
    _component(key=KEY, data=toolbar_data(buttons, hint), on_press_change=queue_press)


def navigation_bar(
    prev_row: int | None,
    next_row: int | None,
    *,
    has_judge: bool,
    changed: bool,
    on_go: Callable[[int | None], Any],
    on_next_unreviewed: Callable[[], Any],
    on_accept: Callable[[], Any],
    on_undo: Callable[[], Any],
    on_reset: Callable[[], Any],
    undo_hint: str | None = None,
    editable: bool = True,
    flags: Sequence[Problem] = (),
    on_normalize: Callable[[], Any] | None = None,
    rejudge_help: str | None = None,
    on_rejudge: Callable[[], Any] | None = None,
) -> None:
    """The Review page's bar: Previous / Next / Next unreviewed / Accept / Undo / Reset with their shortcuts (K, J,
    N, A, Z), then what Z will undo (*undo_hint*, ``None``: nothing). *changed*: the person's labels differ from where
    they started (else there is nothing to reset). With label-quality *flags* and *on_normalize*, "Normalize labels"
    (disabled when none of the flags has a mechanical fix); with *rejudge_help* (an admin) and *on_rejudge*,
    "Re-judge this example". Without *editable* (presentation mode) only the moves are drawn, so no editing button
    and no editing shortcut exists."""
    buttons = [
        ToolbarButton("prev", "◀ Previous", "K", disabled=prev_row is None),
        ToolbarButton("next", "Next ▶", "J", disabled=next_row is None),
    ]
    actions: dict[str, Callable[[], Any]] = {"prev": partial(on_go, prev_row), "next": partial(on_go, next_row)}
    if editable:
        hint = f"Undo your last action: {undo_hint}" if undo_hint else "Nothing to undo."
        buttons += [
            ToolbarButton("next_unreviewed", "Next unreviewed", "N"),
            ToolbarButton("accept", "Accept as shown", "A", primary=True, help=ACCEPT_HELP),
            ToolbarButton("undo", "Undo", "Z", disabled=undo_hint is None, help=hint),
            ToolbarButton(
                "reset",
                "Reset to judge" if has_judge else "Reset to loaded labels",
                disabled=not changed,
                help=None if has_judge else RESET_HELP,
            ),
        ]
        actions |= {"next_unreviewed": on_next_unreviewed, "accept": on_accept, "undo": on_undo, "reset": on_reset}
        if flags and on_normalize is not None:
            n = sum(1 for p in flags if p.kind in MECHANICAL_KINDS)
            label = f"Normalize labels ({n} mechanical fix{'es' if n != 1 else ''})"
            short = f"Normalize ({n})"
            buttons.append(
                ToolbarButton("normalize", label, disabled=not n, help=NORMALIZE_HELP, aside=True, short=short)
            )
            actions["normalize"] = on_normalize
    if rejudge_help is not None and on_rejudge is not None:
        buttons.append(
            ToolbarButton("rejudge", "Re-judge this example", help=rejudge_help, aside=True, short="Re-judge")
        )
        actions["rejudge"] = on_rejudge
    toolbar(buttons, actions, (f"Z: undo {undo_hint}" if undo_hint else "Z: nothing to undo") if editable else None)


ACCEPT_HELP = "I reviewed this: the labels as shown now are right (your corrections stay). Marks the example reviewed."
RESET_HELP = "This example has no judge labels: reset returns to the labels the file carried."
NORMALIZE_HELP = (
    "Strip trailing dots, drop duplicate keys and keys that name no sentence — one correction, undoable. "
    "The other flags need your judgement."
)
