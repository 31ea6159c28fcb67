"""What the label store raises: a store that cannot be opened or used, a database that is unavailable for a
while (the server restarted, the network dropped, the disk is full), and an edit refused as stale."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.errors import RagvizError

__all__ = ["Conflict", "StaleEdit", "StoreError", "StoreUnavailable"]


class StoreError(RagvizError):
    """A label store that cannot be opened or used; the message names the file and the problem."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or written just now: PostgreSQL restarting or gone, the network
    between dropped, SQLite's file locked for longer than the busy timeout, its disk full. Nothing of the
    failed statement's transaction was kept, except when :attr:`outcome_unknown` (the connection broke
    during ``COMMIT``: it may or may not be stored; a retry under the same action id stores it once).
    The message names the store (URL password masked) and the driver's one-line reason: for logs, not
    for a browser."""

    def __init__(self, message: str, outcome_unknown: bool = False):
        super().__init__(message)
        self.outcome_unknown = outcome_unknown


@dataclass(frozen=True)
class Conflict:
    """One field of a refused edit: the value the person saw and the value stored now."""

    field: str
    seen: Any
    stored: Any


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class StaleEdit(StoreError):
    """An edit refused because a field it changes no longer holds the value the person saw: someone
    (the same annotator in another tab, replica or process) changed it since. Nothing of the edit
    was written; :attr:`conflicts` lists each such field with the value seen and the value stored."""

    def __init__(self, example_uid: str, annotator: str, conflicts: Sequence[Conflict]):
        self.example_uid = example_uid
        self.annotator = annotator
        self.conflicts = list(conflicts)
        fields = ", ".join(f"{c.field}: saw {_shown(c.seen)}, now {_shown(c.stored)}" for c in self.conflicts)
        super().__init__(f"{example_uid}: not saved, {annotator}'s labels changed since they were shown ({fields})")
