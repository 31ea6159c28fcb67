"""The Review page's navigation bar, drawn by the text editor's component (``sentence_editor/editor.js``, its
``mountBar``; styles in ``editor.css``, files served through the manifest ``ragviz/pyproject.toml``): native buttons with
Streamlit's labels, disabled states, help and shortcuts (K / J / N / A / Z), and the line saying what Z will undo. In
the single view the bar's data rides in the text's own element (:func:`bar_data`, the response editor's *bar*): a J
sends one delta where the bar and the text were two (issue 38); elsewhere it is an element of its own
(:func:`toolbar`). A press comes back as the trigger ``press``, queued (:func:`queue_press`) and carried out before
the page draws (:func:`apply_presses`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit import file_util

from ragviz.analysis.quality.issues import MECHANICAL_KINDS
from ragviz.data.problems import Problem
from ragviz.ui.core.component_files import SERVED
from ragviz.ui.core.index_page import lazy_chunks
from ragviz.ui.core.page_nav import page_href
from ragviz.ui.review import sentence_editor

__all__ = [
    "ACTIONS",
    "EVENTS",
    "KEY",
    "NAME",
    "ToolbarButton",
    "apply_presses",
    "bar_data",
    "early_html",
    "listen_early",
    "loader_chunks",
    "queue_press",
    "tab_title",
    "toolbar",
    "toolbar_data",
]

NAME = sentence_editor.NAME  # the component that draws the bar (<project>.<component> of the manifest)
KEY = "review.toolbar"
EVENTS = "review.toolbar.events"  # the buttons pressed since the last run, oldest first
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


def toolbar_data(
    buttons: Sequence[ToolbarButton],
    hint: str | None,
    title: str | None = None,
    url_uid: str | None = None,
) -> dict:
    """What the bar draws: its buttons in order and the line under them (``None``: no line); *title*: the browser
    tab's title its script sets (``None``: left as it is); *url_uid*: the example its script puts in the URL's
    ``uid`` as a new history entry (``None``: the URL is left as it is). The script sets both once the example is
    drawn, not while the server draws it: each costs the browser's own process work (the tab strip, the location
    bar, the history), which on the server's machine would slow the server's run (issue 38)."""
    # a button's fields are flat (texts, flags): a copy of its __dict__ is asdict's without its deep copy, per J
    data: dict[str, Any] = {
        "kind": "toolbar",
        "buttons": [dict(vars(b)) for b in buttons],
        "hint": hint,
        "title": title,
    }
    return data | {"uid": url_uid} if url_uid is not None else data


def tab_title(where: str) -> str:
    """The browser tab's title on the Review page, *where* the person is (its position line).

    >>> tab_title("Example 3 of 22")
    'Example 3 of 22 · Review · ragviz'
    """
    return f"{where} · Review · ragviz"


def queue_press(widget_key: str = KEY) -> None:
    """The callback of the element drawing the bar (*widget_key*): put the button it just sent at the end of the
    queue."""
    result = st.session_state.get(widget_key) or {}
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


def early_html(editable: bool, base_path: str, preload: Sequence[str] = ()) -> str:
    """The page's first element (issue 38): an inline script that Streamlit runs as soon as it draws the element,
    long before it mounts the bar. It asks the browser for the bar's script (the editor's ``editor.js``, served under
    *base_path*) and for *preload* (paths under the app's root: the editor's styles, the chunks of Streamlit's
    component loader), which Streamlit would fetch only after the run, one after another. The bar's script, once
    there, listens for the bar's shortcuts (K / J, and N / A / Z when *editable*, as the element's
    ``data-shortcuts`` says), queues those pressed before the bar is drawn and presses them once it is. Constant text
    of ragviz's own (nothing from data); the element is hidden."""
    root = page_href("", base_path)  # the app's root under the server's base path, as the page list's links
    script = f"{root}_stcore/bidi-components/{NAME}/editor.js"
    files = [f for f in (f"{root}{p}" for p in preload) if f != script]  # the script itself: asked for below
    code = (
        f"(() => {{ const files = {json.dumps(files)}; "
        'for (const href of files) { if (document.querySelector(`link[href="${href}"]`)) continue; '
        "const link = document.createElement('link'); "
        "if (href.endsWith('.css')) { link.rel = 'preload'; link.as = 'style'; } else link.rel = 'modulepreload'; "
        "link.href = href; document.head.append(link); } "
        f"const bar = document.createElement('script'); bar.type = 'module'; bar.src = {json.dumps(script)}; "
        "document.head.append(bar); })();"
    ).replace("</", "<\\/")
    shortcuts = "KJNAZ" if editable else "KJ"
    # the element is hidden by a rule of fixed depth (child combinators): a :has() that looked at every descendant
    # would be re-checked on every element container for each node a redraw inserts (19 style invalidations a J)
    return (
        f'<script data-rv-early data-shortcuts="{shortcuts}">{code}</script>'
        '<style>[data-testid="stElementContainer"]:has(> .stHtml > script[data-rv-early]){display:none}</style>'
    )


def loader_chunks() -> tuple[str, ...]:
    """Streamlit's component loader (``static/js/BidiComponent.<hash>.js``) and the chunks it imports that its page
    does not load already, as paths under the app's root, read from the Streamlit installed (none when its build is
    laid out otherwise)."""
    return tuple(f"static/js/{name}" for name in lazy_chunks(Path(file_util.get_static_dir()), ("BidiComponent",)))


def listen_early(editable: bool = True, preload: Sequence[str] = (), also: str = "") -> str | None:
    """Draw :func:`early_html` (first on the page, before its slow part) followed by *also* (app.py's constant
    markup: one hidden element, not two) and return the early markup, when Streamlit serves the bar's files (else
    there is no file to load early and the bar listens once drawn: ``None``, nothing drawn)."""
    if NAME not in SERVED:
        return None
    markup = early_html(editable, str(st.get_option("server.baseUrlPath") or ""), [*preload, *loader_chunks()])
    st.html(markup + also, unsafe_allow_javascript=True)  # constant, ragviz's own: no text from data
    return markup


def toolbar(data: dict) -> None:
    """Draw the bar *data* (:func:`bar_data`) as an element of its own: where something is drawn between the bar and
    the text (the paired view, an audit's progress line, the guidelines, a trace's link, a re-judge's outcome)."""
    sentence_editor.mount(KEY, data, on_press_change=partial(queue_press, KEY))


def _bar(
    buttons: Sequence[ToolbarButton],
    actions: Mapping[str, Callable[[], Any]],
    hint: str | None,
    title: str | None = None,
    url_uid: str | None = None,
) -> dict:
    """The bar's data: *buttons* in order, *hint* the line under them, *title* the browser tab's title and *url_uid*
    the URL's example (both set by the bar's script: no ``page_config_changed`` or ``page_info_changed`` message on a
    move, issue 38); *actions*, what each enabled button does, are kept for the presses to come."""
    st.session_state[ACTIONS] = {b.id: actions[b.id] for b in buttons if not b.disabled and b.id in actions}
    return toolbar_data(buttons, hint, title, url_uid)


def bar_data(
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
    title: str | None = None,
    url_uid: str | None = None,
) -> dict:
    """The Review page's bar, to draw (:func:`toolbar`, or the single view's response editor's *bar*): Previous / Next / Next unreviewed / Accept / Undo / Reset with their shortcuts (K, J,
    N, A, Z), then what Z will undo (*undo_hint*, ``None``: nothing). *changed*: the person's labels differ from where
    they started (else there is nothing to reset). With label-quality *flags* and *on_normalize*, "Normalize labels"
    (disabled when none of the flags has a mechanical fix); with *rejudge_help* (an admin) and *on_rejudge*,
    "Re-judge this example". Without *editable* (presentation mode) only the moves are drawn, so no editing button
    and no editing shortcut exists. *title*: the browser tab's title, *url_uid*: the URL's example (``None``: left),
    both set by the bar's script once the example is drawn (:func:`toolbar_data`)."""
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
    line = (f"Z: undo {undo_hint}" if undo_hint else "Z: nothing to undo") if editable else None
    return _bar(buttons, actions, line, title, url_uid)


ACCEPT_HELP = "I reviewed this: the labels as shown now are right (your corrections stay). Marks the example reviewed."
RESET_HELP = "This example has no judge labels: reset returns to the labels the file carried."
NORMALIZE_HELP = (
    "Strip trailing dots, drop duplicate keys and keys that name no sentence — one correction, undoable. "
    "The other flags need your judgement."
)
