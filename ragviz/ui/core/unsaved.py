"""Writes the database did not take: kept in the session, named on the page, retried once by the person.

A click that meets an unavailable database (:class:`~ragviz.store.errors.StoreUnavailable`: PostgreSQL
restarting or gone, the network dropped, SQLite locked or its disk full) is kept here with the id made
for that click (:attr:`UnsavedWrite.client_id`), and every page says :data:`NOT_SAVED` with a Retry
button (:mod:`ragviz.ui.core.retry`). The store takes a click id once, so a retry after an unknown
outcome never stores it twice. What the driver said goes to the server's log, never to the browser."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ragviz.data.model import Example
from ragviz.store.label_store import LabelStore

__all__ = [
    "LOG",
    "NOT_SAVED",
    "OUTAGE",
    "UNSAVED_KEY",
    "UnsavedWrite",
    "drop",
    "keep",
    "log_fault",
    "new_click_id",
    "pending",
    "perform",
]


NOT_SAVED = "Not saved: the database is unavailable — your change is kept on this page, retry"
OUTAGE = (
    "The label database is unavailable just now (restarting, or the network to it is down). This page "
    "works again as soon as it is back, usually within seconds; nothing already saved is lost."
)
UNSAVED_KEY = "ragviz.unsaved_writes"
LOG = logging.getLogger("ragviz.store")


@dataclass(frozen=True)
class UnsavedWrite:
    """One click the store did not take. *kind*: ``record`` (a decision: *changes*, *action*), ``undo``
    (the annotator's last action on *uid*) or ``undo_action`` (the action *undo_of*)."""

    kind: str
    uid: str
    annotator: str
    client_id: str
    action: str = "edit"
    changes: tuple[Any, ...] = ()
    undo_of: int | None = None

    @property
    def described(self) -> str:
        what = {"record": self.action, "undo": "undo", "undo_action": "undo"}.get(self.kind, self.kind)
        return f"{what} on {self.uid}"


def new_click_id() -> str:
    """A new id for one click (stored with its action; unique)."""
    return uuid.uuid4().hex


def log_fault(exc: BaseException, doing: str) -> None:
    """The driver's message and traceback to the server's log (the browser is told only :data:`NOT_SAVED`
    or :data:`OUTAGE`)."""
    LOG.warning("ragviz: %s: %s", doing, exc, exc_info=exc)


def pending() -> list[UnsavedWrite]:
    """This session's writes the database did not take, oldest first."""
    return list(st.session_state.get(UNSAVED_KEY, []))


def keep(write: UnsavedWrite, exc: BaseException) -> None:
    """Keep *write* for a retry (once: a write already kept under its click id is not added again)."""
    log_fault(exc, f"not saved ({write.described} by {write.annotator}, click {write.client_id})")
    kept = pending()
    if all(w.client_id != write.client_id for w in kept):
        st.session_state[UNSAVED_KEY] = [*kept, write]


def drop(write: UnsavedWrite) -> None:
    """Forget *write* (stored now, or refused for good)."""
    st.session_state[UNSAVED_KEY] = [w for w in pending() if w.client_id != write.client_id]


def perform(write: UnsavedWrite, store: LabelStore, example: Example | None) -> bool:
    """Store *write* in *store* under its click id; True when something was (or had been) stored. Raises
    what the store raises (:class:`~ragviz.store.errors.StaleEdit`, ``StoreUnavailable``)."""
    if write.kind == "undo":
        return store.undo(write.uid, write.annotator, client_id=write.client_id)
    if write.kind == "undo_action":
        return store.undo_action(write.uid, write.annotator, int(write.undo_of or 0))
    stored = store.record(
        write.uid, write.annotator, list(write.changes), write.action, example=example, client_id=write.client_id
    )
    return stored is not None
