"""A page's session: the label store, the loaded data, the annotator, the decisions they record and the redraw
counter (the Review filters over the loaded data are :mod:`ragviz.ui.core.filters`).

Loading is paid once: a load result is cached per tuple of paths (``st.cache_resource``). Per rerun a page
touches only the current example and a few indexed store queries.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st

from ragviz.analysis.labelsets.named import judge_labels_of
from ragviz.data.dataset import Dataset, iter_examples
from ragviz.data.model import Example, Labels
from ragviz.data.problems import Problem
from ragviz.store.events import base_labels, fold_labels
from ragviz.store.label_store import DB_ENV, LabelStore, StaleEdit, StoreUnavailable, default_db
from ragviz.store.roles import identity_name
from ragviz.store.sources import ChosenData
from ragviz.ui.core import served, unsaved
from ragviz.ui.core.keys import (
    ANNOTATOR_KEY,
    CHOSEN_DATA_MEMO,
    PATHS_KEY,
    POSITION_PENDING,
    REDRAW_COUNT_KEY,
    STALE_KEY,
    STORE_MEMO,
)
from ragviz.ui.core.load_notice import load_errors_notice
from ragviz.ui.core.per_run import forget, once_a_run
from ragviz.ui.core.present import FORCED_KEY, is_present
from ragviz.ui.core.shell import require_app_shell  # pages call state.require_app_shell()
from ragviz.ui.core.stale import stale_message, stale_text

__all__ = [
    "ANNOTATOR_ENV",
    "ANNOTATOR_KEY",
    "DATA_ENV",
    "ExampleLabels",
    "NOBODY",
    "NO_DATA_MESSAGE",
    "PATHS_KEY",
    "PageContext",
    "SAMPLE_DATA",
    "STALE_KEY",
    "STALE_TEXT_KEY",
    "TEAM_SCOPE",
    "REDRAW_COUNT_KEY",
    "annotator",
    "bump_redraw_count",
    "chosen_data",
    "current_paths",
    "data_scope",
    "dataset",
    "example_labels",
    "examples_at",
    "initial_paths",
    "keep_position",
    "redraw_count",
    "load_errors",
    "load_result",
    "record_decision",
    "require_app_shell",
    "require_data",
    "save_pending_position",
    "save_position",
    "set_paths",
    "stale_message",
    "stale_text",
    "store",
    "store_write",
    "uid_set",
    "undo_decision",
]

STALE_TEXT_KEY = "ragviz.stale_edit_text"  # the refused edit's message as plain text, until shown


DATA_ENV = "RAGVIZ_DATA"
ANNOTATOR_ENV = "RAGVIZ_ANNOTATOR"
SAMPLE_DATA = Path(__file__).resolve().parents[3] / "sample_data"


@st.cache_resource(show_spinner=False)
def _store(path: str) -> LabelStore:
    return LabelStore(path)


# The stores opened, by what names their place: ``$RAGVIZ_DB`` and ``$HOME`` as they are (issue 38: a J's first lookup
# spent 0.19 ms of its fragment run's ~3.7 in resolving the path and the cached resource's argument hashing).
_OPENED: dict[tuple[str | None, str | None], LabelStore] = {}


def store() -> LabelStore:
    """The label store at ``$RAGVIZ_DB`` (a file or a ``postgresql://`` URL) or ``~/.ragviz/ragviz.db``
    (opened once per process; looked up once a run: a J asked for it seven times)."""
    return once_a_run(STORE_MEMO, _store_named_now)


def _store_named_now() -> LabelStore:
    where = (os.environ.get(DB_ENV), os.environ.get("HOME"))
    if (opened := _OPENED.get(where)) is None:
        opened = _OPENED[where] = _store(str(default_db()))
    return opened


@st.cache_resource(show_spinner="Loading data…", max_entries=8)
def _load(paths: tuple[str, ...]) -> Any:
    from ragviz.data.load import load
    from ragviz.ui.core.progress import RowProgress
    from ragviz.ui.core.served import confining_root

    progress = RowProgress("Loading", 0)
    try:
        return load(list(paths), progress=progress, within=confining_root())
    finally:
        progress.close()


# The last loads, read without calling the cached loader: a call that hits Streamlit's cache replays the progress bar
# drawn inside it (two websocket messages on every run of every page, and on every J of the Review page: issue 38).
_LAST_LOADS: dict[tuple[str, ...], Any] = {}
_LAST_KEPT = 2


def load_result(paths: tuple[str, ...], keep: bool = True) -> Any:
    """``ragviz.data.load.LoadResult`` for *paths*, loaded once per process (not kept unless *keep* or ok)."""
    key = tuple(paths)
    if (last := _LAST_LOADS.get(key)) is not None:
        return last
    result = _load(key)
    if not (keep or result.ok):
        _load.clear(key)  # a refused load is read again next time (the file may be fixed)
        return result
    while len(_LAST_LOADS) >= _LAST_KEPT:
        _LAST_LOADS.pop(next(iter(_LAST_LOADS)), None)
    _LAST_LOADS[key] = result
    return result


def initial_paths() -> tuple[str, ...]:
    """The data named by ``$RAGVIZ_DATA`` (``os.pathsep``-separated), else nothing: the server's start-up data."""
    value = os.environ.get(DATA_ENV, "").strip()
    return tuple(p for p in value.split(os.pathsep) if p.strip())


TEAM_SCOPE = "team"  # served: one open data for everyone


def data_scope() -> str:
    """Whose open data this session shows: served, the team's (an admin chooses it for every session and
    replica); on one machine, this annotator's own."""
    return TEAM_SCOPE if served.served() else f"annotator:{annotator()}"


def chosen_data() -> ChosenData | None:
    """The data last opened on the Data page for :func:`data_scope` (kept in the label store), if any. On
    one machine a choice made under other start-up data does not count: ``ragviz app DATA`` is newer. Read once
    a run per scope (:func:`set_paths` forgets it): another session's choice shows from the next run."""
    scope = data_scope()
    return once_a_run(CHOSEN_DATA_MEMO + scope, partial(_chosen_data, scope))


def _chosen_data(scope: str) -> ChosenData | None:
    choice = store().sources.chosen_data(scope)
    return None if choice is None or (not served.served() and choice.startup != initial_paths()) else choice


def current_paths() -> tuple[str, ...]:
    """The files of the open data: :func:`chosen_data` (an upload a PostgreSQL store holds is written here
    first), else the start-up data; read from the store once a run (:func:`chosen_data`), so a reload, a new tab,
    a deep link and every replica show what was opened last from their next run."""
    choice = chosen_data()
    paths = tuple(store().sources.local_path(p) for p in choice.sources) if choice is not None else initial_paths()
    st.session_state[PATHS_KEY] = paths
    return paths


def set_paths(paths: tuple[str, ...] | list[str]) -> None:
    """Open *paths* for :func:`data_scope`: kept in the store with who chose them and when, and registered
    as data sources (an upload by its content, :meth:`LabelStore.source_of`)."""
    store().sources.choose_data(data_scope(), list(paths), annotator(), initial_paths())
    forget(CHOSEN_DATA_MEMO + data_scope())
    st.session_state[PATHS_KEY] = tuple(paths)


def dataset() -> Dataset:
    """The loaded data set (empty when nothing is loaded)."""
    paths = current_paths()
    if not paths:
        return Dataset.empty()
    return load_result(paths).dataset


def load_errors() -> list[Problem]:
    """The errors of loading the open data (none when nothing is open)."""
    paths = current_paths()
    return list(load_result(paths).errors) if paths else []


NO_DATA_MESSAGE = "No data loaded yet. Open the Data page to load the sample data, upload a file or open a path."


@dataclass(frozen=True)
class PageContext:
    """What every data page starts from: the loaded data, the label store, the annotator and
    whether presentation mode is on."""

    dataset: Dataset
    store: LabelStore
    annotator: str
    present: bool


def require_data() -> PageContext:
    """The shared start of a data page: show the message of an edit the store just refused (see
    :func:`record_decision`); with nothing loaded, say so (or name the errors of open data that loaded nothing:
    :mod:`ragviz.ui.core.load_notice`), link to the Data page and stop the run;
    else the page's :class:`PageContext`."""
    st.session_state.pop(STALE_TEXT_KEY, None)  # its plain twin, for the Review page's text editor
    if (refused := st.session_state.pop(STALE_KEY, None)) is not None:
        st.warning(refused, icon=":material/sync_problem:")  # md: ours (stale_message escapes)
    ds = dataset()
    if len(ds) == 0:
        if errors := load_errors():
            load_errors_notice(errors, 0)
        else:
            st.info(NO_DATA_MESSAGE)
        st.page_link("pages/data.py", label="Go to Data", icon=":material/folder_open:")
        st.stop()
    return PageContext(ds, store(), annotator(), is_present())


@st.cache_resource(show_spinner=False, max_entries=8)
def _examples_at(paths: tuple[str, ...], rows: tuple[int, ...]) -> list[Example]:
    return [ex for _, ex in iter_examples(load_result(paths).dataset, rows)]


def examples_at(rows: list[int] | tuple[int, ...]) -> list[Example]:
    """The loaded data's examples at row indices *rows*, in that order; built once per selection
    (a page that shows a selection on every rerun does not rebuild it each time). Read-only."""
    return _examples_at(current_paths(), tuple(rows))


NOBODY = "(not signed in)"  # whose labels a visitor's session reads: no one's (never a name, never the OS user)


def annotator() -> str:
    """Whose labels this session shows and records: the signed-in user when sign-in is configured
    (it cannot be typed then; :data:`NOBODY` until someone is signed in), else the name typed on the
    Data page (``$RAGVIZ_ANNOTATOR`` at first; locally the OS user, served ``"anonymous"``: the server's
    OS user is nobody's name)."""
    if served.sign_in_configured():  # first: without sign-in there is no one to look up in the store
        who = served.signed_in(store())
        return NOBODY if who is None else who.names[0]
    if ANNOTATOR_KEY not in st.session_state:
        st.session_state[ANNOTATOR_KEY] = os.environ.get(ANNOTATOR_ENV) or _default_user()
    return identity_name(st.session_state[ANNOTATOR_KEY]) or st.session_state[ANNOTATOR_KEY]


def _default_user() -> str:
    if served.served():
        return "anonymous"
    try:
        return getpass.getuser() or "annotator"
    except Exception:  # no user database entry (some containers)
        return "annotator"


def record_decision(uid: str, changes: list, action: str = "edit") -> bool:
    """Store one decision of the annotator on *uid* and bump the label version; nothing is stored
    in presentation mode or without changes. True when a decision was stored.

    Each change carries the value the person saw; when the stored value changed since (the same
    annotator in another tab or replica), the store refuses the whole decision (:class:`StaleEdit`):
    a warning names each field with the newer value, and the label version is bumped so the page
    redraws with the newer labels. Nothing is lost: the other edit stays, this one can be redone.

    When the database is unavailable (:class:`StoreUnavailable`) the decision is kept in the session
    under this click's id and the page says it is not saved, with a Retry (:mod:`ragviz.ui.core.retry`)."""
    if is_present() or not changes:  # a person who may only view is always in presentation mode
        return False
    write = unsaved.UnsavedWrite("record", uid, annotator(), unsaved.new_click_id(), action, tuple(changes))
    try:
        return store_write(write)
    except StoreUnavailable as exc:
        unsaved.keep(write, exc)
        return False


def store_write(write: unsaved.UnsavedWrite) -> bool:
    """Store *write* under its click id (a retry of one stored already stores nothing more); True when
    something was stored. A refused stale decision is announced (see :func:`record_decision`), not raised."""
    ds = dataset()
    row = ds.index_of(write.uid)
    try:
        done = unsaved.perform(write, store(), ds.example(row) if row is not None else None)
    except StaleEdit as exc:
        done = False
        st.session_state[STALE_KEY] = stale_message(exc)  # shown by the next require_data()
        st.session_state[STALE_TEXT_KEY] = stale_text(exc)  # or under the sentence clicked (the Review page's text)
    if done or STALE_KEY in st.session_state:
        bump_redraw_count()  # redraw what is stored now
    return done


def undo_decision(uid: str, nothing_to_undo: str) -> None:
    """Undo the annotator's last decision on *uid* (a toast says *nothing_to_undo* when there is
    none); nothing in presentation mode. Kept for a retry when the database is unavailable."""
    if is_present():
        return
    write = unsaved.UnsavedWrite("undo", uid, annotator(), unsaved.new_click_id(), "undo")
    try:
        done = store_write(write)
    except StoreUnavailable as exc:
        unsaved.keep(write, exc)
        return
    if not done:
        st.toast(nothing_to_undo)  # md: ours


def save_position(uid: str) -> None:
    """Keep *uid* as where the annotator is (not for a person who may only view: they record nothing).
    Not kept while the database is unavailable (logged): the next step saves it again."""
    if not st.session_state.get(FORCED_KEY):
        try:
            store().save_position(annotator(), uid)
        except StoreUnavailable as exc:
            unsaved.log_fault(exc, "position not saved")


def keep_position(row: int) -> None:
    """Keep *row* of the open data as where the annotator is, written by :func:`save_pending_position` (the Review
    page's example calls it once drawn: a J's text leaves the server before the write and the open data's read)."""
    st.session_state[POSITION_PENDING] = row


def save_pending_position(drawn: Dataset | None = None) -> None:
    """Write the position :func:`keep_position` kept, if any (:func:`save_position`): a row of *drawn*, the data the
    page drew its example from (a fragment's run draws from its whole run's; its read of the open data, a store
    statement after the example's delta, is saved then), else of the open data."""
    row = st.session_state.pop(POSITION_PENDING, None)
    if row is not None and 0 <= row < len(ds := dataset() if drawn is None else drawn):
        save_position(ds.uids[row])


def redraw_count() -> int:
    """How many times this session has redrawn after recording a decision (bumped after each one, undo and
    reset too); it keys caches and editor widgets so they show what is stored now."""
    return st.session_state.get(REDRAW_COUNT_KEY, 0)


def bump_redraw_count() -> None:
    st.session_state[REDRAW_COUNT_KEY] = redraw_count() + 1


@dataclass(frozen=True)
class ExampleLabels:
    """The current example with its judge labels, the store's base, the annotator's current labels
    and the effective ``(field, new value)`` changes that lead from base to current."""

    example: Example
    judge: Labels | None
    base: Labels | None
    current: Labels | None
    changes: list[tuple[str, Any]]


def example_labels(ds: Dataset, index: int, who: str) -> ExampleLabels:
    """Everything the Review page needs about one example, in three indexed store reads."""
    s = store()
    ex = ds.example(index)
    stored_judge = s.judge.labels(ex.uid)
    base = base_labels(ex, stored_judge)
    effective = s.effective(ex.uid, who)
    current = fold_labels(base, effective, ex, who)
    judge = judge_labels_of(ex, stored_judge)
    return ExampleLabels(ex, judge, base, current, [(e.field, e.new) for e in effective])


@st.cache_resource(show_spinner=False, max_entries=8)
def _uid_set(paths: tuple[str, ...]) -> frozenset[str]:
    return frozenset(load_result(paths).dataset.uids)


def uid_set() -> frozenset[str]:
    return _uid_set(current_paths()) if current_paths() else frozenset()
