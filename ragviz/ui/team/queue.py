"""What a team's round adds to the Review page: "My assignments" first in the sidebar's Queue, and the labelling
guidelines in a panel (shortcut G), rendered as Markdown with raw HTML and math left as text."""

from __future__ import annotations

import re
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.store.label_store import LabelStore
from ragviz.store.team.guidelines import Guidelines
from ragviz.ui.core import disclosure, render, state
from ragviz.ui.core.keys import TEAM_GUIDE_OPEN, TEAM_MINE, TEAM_MINE_MEMO
from ragviz.ui.core.per_run import once_a_run
from ragviz.ui.core.present import is_present

__all__ = [
    "accept_within",
    "all_reviewed",
    "blind_for_me",
    "blind_label_sets",
    "guidelines_markdown",
    "guidelines_panel",
    "mine_words",
    "my_assignments",
    "names_shown",
    "walk_key",
]


@st.cache_data(show_spinner=False, max_entries=8)
def _my_rows(paths: tuple[str, ...], who: str, version: int, _ds: Dataset, _store: LabelStore) -> list[int]:
    mine = [uid for uid, names in _store.team.assignments.assigned().items() if who in names]
    return sorted(i for i in map(_ds.index_of, mine) if i is not None)


def _mine(ds: Dataset, store: LabelStore, who: str, reviewed: set[str]) -> tuple[list[int], int]:
    """The person's assigned rows among the loaded examples and how many of them are open (none while presenting),
    looked up once a run (the Queue button and the toggle in its panel both ask)."""
    if is_present():  # presentation mode: no one's queue
        return [], 0

    def lookup() -> tuple[list[int], int]:
        rows = _my_rows(state.current_paths(), who, store.team.assignments.assignment_version(), ds, store)
        return rows, sum(1 for i in rows if ds.uids[i] not in reviewed)

    return once_a_run(TEAM_MINE_MEMO, lookup)


def mine_words(ds: Dataset, store: LabelStore, who: str, reviewed: set[str]) -> str | None:
    """What the Queue button says while "My assignments" is on (``None``: off, or nothing assigned to *who*), e.g.
    "my assignments, 2 open": the toggle waits in the Queue's closed panel (:func:`my_assignments`)."""
    rows, n_open = _mine(ds, store, who, reviewed)
    if not rows or not st.session_state.get(TEAM_MINE, True):
        return None
    return f"my assignments, {n_open:,} open"  # of how many: in the toggle (the button stays two lines)


def my_assignments(
    ds: Dataset,
    store: LabelStore,
    who: str,
    allowed: list[int] | None,
    reviewed: set[str],
    queue: DeltaGenerator | None,
) -> list[int] | None:
    """The "My assignments" toggle in the sidebar's open *queue* panel (``None``: the Queue closed, the toggle not
    drawn and its kept value used; on by default for someone with assignments among the loaded examples; the Queue
    button says it, :func:`mine_words`): the rows the person walks become their assigned examples (within the
    filters), the open ones counted. *allowed*: the filters' rows (``None``: no filter). Returns the rows to walk."""
    rows, n_open = _mine(ds, store, who, reviewed)
    if not rows:
        return allowed
    if queue is None:  # on until turned off (set, not only read: walk_key and accept_within read it too)
        on = bool(st.session_state.setdefault(TEAM_MINE, True))
    else:
        with queue:
            on = st.toggle(
                f"My assignments ({n_open:,} open of {len(rows):,})",
                value=True,
                key=TEAM_MINE,
                help="Walk the examples assigned to you (Next unreviewed opens your next open one). Off: every example.",
                persist_state=disclosure.KEEP_WHILE_CLOSED,
            )
    if not on:
        return allowed
    if allowed is None:
        return rows
    keep = set(allowed)
    return [i for i in rows if i in keep]


def blind_for_me(store: LabelStore) -> bool:
    """Whether this person works blind: a blind round is on and they are no admin (admins see everyone's labels)."""
    from ragviz.ui.core.access import access

    return store.team.assignments.is_blind() and not access().can_see_others


def names_shown(store: LabelStore, who: str) -> list[str]:
    """The annotators with saved work a reviewer may see named (the Data page's list): everyone, or only
    themselves while they work blind (:func:`blind_for_me`)."""
    names = store.annotators()
    return [n for n in names if n == who] if blind_for_me(store) else names


def blind_label_sets(names: list[LabelSelection], store: LabelStore, who: str) -> list[LabelSelection]:
    """*names* (label sets a picker offers) without anyone else's labels while a blind round is on and the
    person is no admin: the judge's (any version's) and their own stay (their own even before their first
    decision), and the gold labels only once the round is closed
    (:meth:`~ragviz.store.team.assignments.Assignments.round_open`): until then whether an example of theirs has
    gold would tell them whether their partner agreed."""
    from ragviz.analysis.labelsets.selection import GOLD

    if not blind_for_me(store):
        return names
    gold = not store.team.assignments.round_open()
    mine = LabelSelection.of(who)
    judges = ("judge", "version")  # the judge's labels, any version's: nobody's decisions
    kept = [n for n in names if n.kind in judges or n == mine or (gold and n == GOLD)]
    return kept if any(n.kind not in judges for n in kept) else [*kept, mine]


def walk_key(flt: Any) -> tuple[Any, Any]:
    """What moves the Review page to the nearest matching example when it changes: the filter and the
    "My assignments" toggle."""
    return flt, st.session_state.get(TEAM_MINE)


def accept_within(allowed: list[int] | None) -> list[int] | None:
    """The rows "Accept" moves on within: the person's assignments while "My assignments" is on, else all."""
    return allowed if st.session_state.get(TEAM_MINE) else None


def all_reviewed(within: list[int] | None) -> str:
    return "Every example is reviewed." if within is None else "Every example assigned to you is reviewed."


def guidelines_markdown(text: str) -> str:
    """The guidelines as Markdown that shows as written: raw HTML is never rendered by ``st.markdown`` (its
    default), ``$`` is escaped so a price is not read as math, and an image (``![alt](url)``, ``![alt][ref]``)
    becomes a link: every reader's browser would fetch it from wherever it points (a tracking pixel, another
    host); a person may still open it.

    >>> guidelines_markdown("Costs $5 <b>x</b>")
    'Costs \\\\$5 <b>x</b>'
    >>> guidelines_markdown("See ![the chart](https://elsewhere.example/p.png)")
    'See \\\\![the chart](https://elsewhere.example/p.png)'
    """
    return re.sub(r"(?<!\\)!\[", r"\\![", text.replace("$", "\\$"))


def _toggle() -> None:
    st.session_state[TEAM_GUIDE_OPEN] = not st.session_state.get(TEAM_GUIDE_OPEN, False)


def guidelines_panel(now: Guidelines | None) -> Guidelines | None:
    """The guidelines button (shortcut G) and, when open, *now*, the version in force (the page reads it once a run:
    it also decides where the navigation bar goes); nothing before an admin wrote any."""
    if now is None:
        return None
    opened = st.session_state.get(TEAM_GUIDE_OPEN, False)
    st.button(
        ("Hide guidelines" if opened else "Guidelines") + f" (v{now.version:d})",
        key="team.guidelines_button",
        shortcut="G",
        on_click=_toggle,
        help="The team's labelling guidelines; each decision you make records the version in force.",
    )
    if opened:
        with st.container(border=True, key="team-guidelines"):
            st.caption(
                render.md_escape(
                    f"Guidelines version {now.version}, by {now.author}, {now.ts[:16].replace('T', ' ')} UTC"
                )
            )
            st.markdown(guidelines_markdown(now.text))  # md: ours — the guidelines are Markdown by design (no HTML)
    return now
