"""What a label store keeps besides people's decisions: the judge's label sets (the latest per example is
the base people's edits apply to) and where each annotator was.

:class:`JudgeLabelSets` is a part of :class:`ragviz.store.label_store.LabelStore` (a mixin): its writes run in
the store's write transactions, under its lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragviz.data.model import Labels
from ragviz.store.events import labels_from_json, labels_to_json, now_iso
from ragviz.store.roles import identity_name

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

__all__ = ["JudgeLabelSets"]


class JudgeLabelSets:
    """The judge's label sets and annotators' positions of one label store (see the module docstring)."""

    _lock: threading.RLock

    if TYPE_CHECKING:  # provided by LabelStore

        def _q(self, statement: str, params: Sequence[Any] = ()) -> Any: ...

        def _write(self) -> AbstractContextManager[Any]: ...

        @staticmethod
        def _check_ids(example_uid: str, annotator: str) -> None: ...

    # -- where each annotator was ------------------------------------------------------------
    def save_position(self, annotator: str, example_uid: str) -> None:
        self._check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        with self._write():
            self._q(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)"
                " ON CONFLICT (annotator) DO UPDATE SET example_uid = excluded.example_uid, ts = excluded.ts",
                (annotator, example_uid, now_iso()),
            )

    def position(self, annotator: str) -> str | None:
        with self._lock:
            row = self._q(
                "SELECT example_uid FROM annotator_positions WHERE annotator = ?", (identity_name(annotator),)
            ).fetchone()
        return None if row is None else row[0]

    # -- judge label sets -------------------------------------------------------------------
    def save_judge_labels(self, example_uid: str, labels: Labels) -> None:
        """Append a label set produced by the LLM judge; the latest per uid is the base for edits. Stored as
        given (:meth:`judge_labels` returns an equal :class:`Labels`), with when it was saved."""
        self.save_judge_labels_many([(example_uid, labels)])

    def save_judge_labels_many(self, items: Sequence[tuple[str, Labels]]) -> None:
        """:meth:`save_judge_labels` for several examples in ONE durable transaction (the judge
        commits the answers that arrived together at once instead of one fsync per answer)."""
        if any(not uid for uid, _ in items):
            raise ValueError("example_uid must be a non-empty string")
        if not items:
            return
        ts = now_iso()
        with self._write():
            for example_uid, labels in items:
                p = labels.provenance
                self._q(
                    "INSERT INTO judge_label_sets (example_uid, ts, judge, prompt_version, labels_json) VALUES (?, ?, ?, ?, ?)",
                    (example_uid, ts, p.name, p.prompt_version, labels_to_json(labels)),
                )

    def judge_labels(self, example_uid: str) -> Labels | None:
        """The latest judge label set stored for the example, ``None`` when there is none."""
        with self._lock:
            return self._judge_labels(example_uid)

    def _judge_labels(self, example_uid: str) -> Labels | None:
        row = self._q(
            "SELECT labels_json FROM judge_label_sets WHERE example_uid = ? ORDER BY id DESC LIMIT 1",
            (example_uid,),
        ).fetchone()
        return None if row is None else labels_from_json(row[0])

    def judged_uids(self) -> set[str]:
        """Examples with at least one stored judge label set (one query)."""
        with self._lock:
            return {r[0] for r in self._q("SELECT DISTINCT example_uid FROM judge_label_sets")}
