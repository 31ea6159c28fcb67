"""The Review page's moves that reach beyond the example on screen: Undo and deep links.

Undo (Z) undoes the annotator's last action wherever it was made, and the page says beforehand what
that is ("Z: undo 'relevant 0b' on example 4 (tech-003 · gpt-4o-mini)"). The action is looked up
once per run (:func:`undo_target`, one indexed store query) among the examples that are loaded;
pressing Z undoes exactly the action the page named, then goes to its example when it is another
one and says what was undone.

A deep link (:func:`follow_link`) opens the one example ``?uid=`` or ``?id=`` names; an ``?id=``
that repeats (several subsets or generation models) opens none silently: the page lists the
matches and the person chooses (``&dataset=`` / ``&model=`` narrow the id to one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import streamlit as st

from ragviz.analysis.review.edits import describe_action
from ragviz.analysis.review.queue import link_matches, nearest_match, resume_row
from ragviz.data.dataset import Dataset
from ragviz.store.events import StoredAction
from ragviz.store.label_store import LabelStore, StoreUnavailable
from ragviz.ui.audit.sample import AUDIT, audit_query
from ragviz.ui.core import queue_settings, render, state, unsaved
from ragviz.ui.core.keys import LAST_FILTER, QUEUE_CHOICE, REVIEW_INDEX, SAMPLE_KEY, UNDO_MEMO
from ragviz.ui.core.keys import LINK_CHOICES as CHOICES
from ragviz.ui.core.keys import REVIEW_LINK as LINK
from ragviz.ui.core.present import is_present
from ragviz.ui.review import fragment as review_fragment
from ragviz.ui.review import page as review

__all__ = [
    "CHOICES",
    "LINK",
    "UndoTarget",
    "follow_link",
    "link_followed",
    "moves_by_script",
    "return_query",
    "shown_row",
    "undo_last",
    "undo_target",
]


@dataclass(frozen=True)
class UndoTarget:
    """The action Z undoes: its id, example (uid and row), a short description and where it was."""

    action_id: int
    uid: str
    row: int
    what: str
    where: str

    @property
    def hint(self) -> str:
        """``'relevant 0b' on this example`` / ``'accept' on example 4 (tech-003 · gpt-4o-mini)``."""
        return f"'{self.what}' on {self.where}"


def undo_target(ds: Dataset, store: LabelStore, who: str, current_row: int) -> UndoTarget | None:
    """The annotator's last not-undone action on a loaded example, ``None`` when there is none."""
    action = _last_action(ds, store, who)
    if action is None:
        return None
    row = ds.index_of(action.example_uid)
    if row is None:
        return None
    what = describe_action(action.kind, [(e.field, e.old, e.new) for e in action.events])
    if row == current_row:
        where = "this example"
    else:
        model = ds.generation_models[row]
        where = f"example {row + 1} ({ds.ids[row]}{' · ' + model if model else ''})"
    return UndoTarget(action.action_id, action.example_uid, row, what, where)


def _last_action(ds: Dataset, store: LabelStore, who: str) -> StoredAction | None:
    """``store.last_action`` on the loaded examples, read again only once the annotator's newest event changed (a J
    writes none; the walk decodes up to 200 events a run for someone with a history, ~1 ms) or other data is open."""
    version = (store.location, who, store.last_event_id(who), id(ds), len(ds))
    memo = st.session_state.get(UNDO_MEMO)
    if memo is not None and memo[0] == version:
        return memo[1]
    action = store.last_action(who, where=lambda uid: ds.index_of(uid) is not None)
    st.session_state[UNDO_MEMO] = (version, action)
    return action


def undo_last(target: UndoTarget | None, go: Callable[[int | None], Any], current_row: int) -> None:
    """Undo *target* (the action the page named); when it was on another example, go there. A toast
    says what was undone (or that there was nothing to undo). Nothing in presentation mode."""
    if is_present():
        return
    if target is None:
        review_fragment.toast("Nothing to undo.")
        return
    write = unsaved.UnsavedWrite(
        "undo_action", target.uid, state.annotator(), unsaved.new_click_id(), "undo", (), target.action_id
    )
    try:
        done = state.store().undo_action(target.uid, write.annotator, target.action_id)
    except StoreUnavailable as exc:
        unsaved.keep(write, exc)  # the page says "Not saved ..." with a Retry
        return
    if not done:
        state.bump_redraw_count()  # undone meanwhile (another tab): redraw what is stored now
        review_fragment.toast(f"Already undone: '{render.md_escape(target.what)}' (another tab or window?).")
        return
    state.bump_redraw_count()
    if target.row != current_row:
        go(target.row)
    review_fragment.toast(f"Undid '{render.md_escape(target.what)}' on {render.md_escape(target.where)}.")


def _history_navigation() -> bool:
    """Whether this run is the browser's Back or Forward (Streamlit reruns the page with the URL it went to)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return bool(getattr(get_script_run_ctx(), "is_history_navigation", False))


def _shown_uid(ds: Dataset) -> str | None:
    row = st.session_state.get(REVIEW_INDEX)
    return ds.uids[row] if isinstance(row, int) and 0 <= row < len(ds) else None


def follow_link(ds: Dataset, go: Callable[[int | None], Any]) -> bool:
    """Follow a new deep link in the query (once per link; on Back / Forward, the URL's example when another is
    shown: a move made by the navigation bar's script put it in the browser's history, :func:`link_followed`): one
    match opens it (*go*), none says so, several list the matches to choose from, and the run stops there until one
    is chosen. True when the link names nothing loaded: the URL then keeps it (the page must not rewrite it to the
    example shown)."""
    qp = st.query_params
    link = qp.get("uid") or qp.get("id")
    unknown = False
    if link and (link != st.session_state.get(LINK) or (_history_navigation() and link != _shown_uid(ds))):
        st.session_state[LINK] = link
        linked = link_matches(ds, qp.get("uid"), qp.get("id"), qp.get("dataset"), qp.get("model"))
        if not linked:
            unknown = True
            st.warning(
                f"No loaded example has the id or uid in the link: {render.md_escape(repr(link))}. "
                "The link stays in the address bar; below is where you were."
            )
        elif len(linked) > 1:  # the id repeats: the person chooses, nothing opens silently
            st.session_state[CHOICES] = (link, linked)
        else:
            go(linked[0])
    if (pending := st.session_state.get(CHOICES)) is not None:
        models = ds.generation_models
        matches = [(i, f"{ds.datasets[i]} · {models[i] or '—'} · {ds.uids[i]}") for i in pending[1]]
        review.choose_link_match(pending[0], matches, partial(_choose, go))
        st.stop()
    return unknown


def _choose(go: Callable[[int | None], Any], row: int) -> None:
    st.session_state.pop(CHOICES, None)
    go(row)


def return_query() -> dict[str, str | list[str]]:
    """The query the Review page opens with from the page list: the example this session shows there (its uid), the
    audit queue once chosen (``queue``, ``sample``) and the Queue's filters and Accept's choice as left
    (:func:`ragviz.ui.core.queue_settings.kept_query`), as the page itself would put them in the URL. The page then
    leaves the URL alone, and the switch is one history entry. Streamlit made two (the page's URL, then its query)
    whenever the query arrived after the switch, and Back then stayed on Review."""
    query: dict[str, str | list[str]] = {}
    if (row := st.session_state.get(REVIEW_INDEX)) is not None and 0 <= row < len(ds := state.dataset()):
        query["uid"] = ds.uids[row]
    query |= queue_settings.kept_query()
    if st.session_state.get(QUEUE_CHOICE) == AUDIT:
        sample = st.session_state.get(SAMPLE_KEY)
        query |= audit_query(sample if isinstance(sample, int) else None)
    return query


def moves_by_script() -> bool:
    """Whether a move (the example's fragment run alone) puts its example in the URL through the bar's script
    (:func:`link_followed`): no ``id``, ``dataset`` or ``model`` is left in the URL for Python to take out."""
    return not any(param in st.query_params for param in ("id", "dataset", "model"))


def link_followed(uid: str, keep: bool = False, by_script: bool = False) -> str | None:
    """The example *uid* is on screen: the URL names it by uid (a copied link opens it exactly) and
    counts as followed; *keep*: the URL's link named nothing loaded and stays as the person typed it.

    *by_script* (a move: the example's fragment ran alone): the navigation bar's script puts *uid* in the browser's
    URL, as a new history entry (returned, for the bar's data); Streamlit's own query parameters, and the link
    counted as followed, stay as the whole page last set them. A query-parameter change from Python costs a
    message and a redraw of the whole app on every J (issue 38); Back / Forward rerun the whole page with the URL
    they went to, which :func:`follow_link` opens."""
    if keep:
        return None
    if by_script and moves_by_script():
        return uid
    if st.query_params.get("uid") != uid:
        st.query_params["uid"] = uid
    for param in ("id", "dataset", "model"):
        if param in st.query_params:
            del st.query_params[param]
    st.session_state[LINK] = uid
    return None


def shown_row(
    ds: Dataset, store: LabelStore, who: str, walk: Any, allowed: list[int] | None, go: Callable[..., None]
) -> tuple[int, bool]:
    """The row the Review page shows, kept in the session: where the annotator was (read before a filter moves
    it: the first run's "My assignments" would go to the nearest assigned row and overwrite it), the nearest match
    when the filter (its *walk* key) changed, a new deep link's row; and whether a new link named nothing loaded
    (:func:`follow_link`)."""
    if REVIEW_INDEX not in st.session_state:
        st.session_state[REVIEW_INDEX] = resume_row(ds, store.position(who))
    if st.session_state.get(LAST_FILTER) != walk:  # a filter or "My assignments"
        st.session_state[LAST_FILTER] = walk
        go(nearest_match(allowed, st.session_state.get(REVIEW_INDEX, 0)))
    unknown = follow_link(ds, go)  # a new deep link: its example, or the matches to choose from
    if REVIEW_INDEX not in st.session_state or not 0 <= st.session_state[REVIEW_INDEX] < len(ds):
        st.session_state[REVIEW_INDEX] = resume_row(ds, store.position(who))
    return int(st.session_state[REVIEW_INDEX]), unknown
