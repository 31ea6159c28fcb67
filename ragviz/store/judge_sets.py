"""What a label store keeps besides people's decisions: the judge's label sets (the latest per example is
the base people's edits apply to) and where each annotator was.

:class:`JudgeLabelSets` is a part of :class:`ragviz.store.label_store.LabelStore` (a mixin): its writes run in
the store's write transactions, under its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ragviz.data.model import Labels
from ragviz.data.roles import identity_name
from ragviz.store.connection import Query
from ragviz.store.events import labels_from_json, labels_to_json, now_iso
from ragviz.store.label_events import check_ids

__all__ = ["JudgeLabelSets", "latest_judge_labels"]

T = TypeVar("T")


def latest_judge_labels(q: Query, example_uid: str) -> Labels | None:
    """The latest judge label set stored for the example (inside a read or write), ``None`` when there is none."""
    row = q(
        "SELECT labels_json FROM judge_label_sets WHERE example_uid = ? ORDER BY id DESC LIMIT 1", (example_uid,)
    ).fetchone()
    return None if row is None else labels_from_json(row[0])


class JudgeLabelSets:
    """The judge's label sets and annotators' positions of one label store (see the module docstring)."""

    if TYPE_CHECKING:  # provided by LabelStore (ragviz.store.connection's interface)

        def read(self, fn: Callable[[Query], T]) -> T: ...

        def write(self, fn: Callable[[Query], T]) -> T: ...

        def query(self, statement: str, params: Sequence[Any] = ()) -> list[Any]: ...

    # -- where each annotator was ------------------------------------------------------------
    def save_position(self, annotator: str, example_uid: str) -> None:
        check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        self.write(
            lambda q: q(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)"
                " ON CONFLICT (annotator) DO UPDATE SET example_uid = excluded.example_uid, ts = excluded.ts",
                (annotator, example_uid, now_iso()),
            )
        )

    def position(self, annotator: str) -> str | None:
        rows = self.query(
            "SELECT example_uid FROM annotator_positions WHERE annotator = ?", (identity_name(annotator),)
        )
        return rows[0][0] if rows else None

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
        rows = [
            (uid, ts, labels.provenance.name, labels.provenance.prompt_version, labels_to_json(labels))
            for uid, labels in items
        ]

        def save(q: Query) -> None:
            for row in rows:
                q(
                    "INSERT INTO judge_label_sets (example_uid, ts, judge, prompt_version, labels_json) VALUES (?, ?, ?, ?, ?)",
                    row,
                )

        self.write(save)

    def judge_labels(self, example_uid: str) -> Labels | None:
        """The latest judge label set stored for the example, ``None`` when there is none."""
        return self.read(lambda q: latest_judge_labels(q, example_uid))

    def judged_uids(self) -> set[str]:
        """Examples with at least one stored judge label set (one query)."""
        return {r[0] for r in self.query("SELECT DISTINCT example_uid FROM judge_label_sets")}

    def judge_set_counts(self) -> tuple[tuple[str, str, int], ...]:
        """``(judge, prompt version, label sets)`` for every judge and prompt that stored label sets, sorted
        (unnamed judges as ``"unnamed"``, a missing prompt version as ``"-"``): what a report's provenance lists."""
        rows = self.query("SELECT judge, prompt_version, COUNT(*) FROM judge_label_sets GROUP BY judge, prompt_version")
        return tuple(sorted((str(j or "unnamed"), str(v or "-"), int(n)) for j, v, n in rows))
