"""The judge's label sets in the label store: every set the LLM judge produced, appended; the latest per example is
the base people's edits apply to.

:class:`JudgeLabels` is a part composed into :class:`ragviz.store.label_store.LabelStore` as ``store.judge``; it owns
this SQL and reaches the database through the store's read / write interface (:mod:`ragviz.store.connection`).
:func:`latest_judge_labels` runs inside another transaction (a decision's stale check reads the base it edits).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragviz.data.model import Labels
from ragviz.store.connection import Query, SqlStore
from ragviz.store.events import labels_from_json, labels_to_json, now_iso

__all__ = ["JudgeLabels", "latest_judge_labels"]


def latest_judge_labels(q: Query, example_uid: str) -> Labels | None:
    """The latest judge label set stored for the example (inside a read or write), ``None`` when there is none."""
    row = q(
        "SELECT labels_json FROM judge_label_sets WHERE example_uid = ? ORDER BY id DESC LIMIT 1", (example_uid,)
    ).fetchone()
    return None if row is None else labels_from_json(row[0])


class JudgeLabels:
    """The judge's label sets of one label store (see the module docstring)."""

    def __init__(self, store: SqlStore):
        self._store = store

    def save(self, example_uid: str, labels: Labels) -> None:
        """Append a label set produced by the LLM judge; the latest per uid is the base for edits. Stored as
        given (:meth:`labels` returns an equal :class:`Labels`), with when it was saved."""
        self.save_many([(example_uid, labels)])

    def save_many(self, items: Sequence[tuple[str, Labels]]) -> None:
        """:meth:`save` for several examples in ONE durable transaction (the judge commits the answers that
        arrived together at once instead of one fsync per answer)."""
        if any(not uid for uid, _ in items):
            raise ValueError("example_uid must be a non-empty string")
        if not items:
            return
        ts = now_iso()
        rows = [
            (uid, ts, labels.provenance.name, labels.provenance.prompt_version, labels_to_json(labels))
            for uid, labels in items
        ]
        self._store.write(
            lambda q: q.many(
                "INSERT INTO judge_label_sets (example_uid, ts, judge, prompt_version, labels_json)"
                " VALUES (?, ?, ?, ?, ?)",
                rows,
            )
        )

    def labels(self, example_uid: str) -> Labels | None:
        """The latest judge label set stored for the example, ``None`` when there is none."""
        return self._store.read(lambda q: latest_judge_labels(q, example_uid))

    def judged_uids(self) -> set[str]:
        """Examples with at least one stored judge label set (one query)."""
        return {r[0] for r in self._store.query("SELECT DISTINCT example_uid FROM judge_label_sets")}

    def of_prompt(self, prompt_version: str) -> dict[str, Labels]:
        """example uid -> the latest judge label set recorded under *prompt_version* (one judge version's labels:
        :class:`~ragviz.analysis.labelsets.selection.LabelSelection` ``judge:NAME``), one query."""
        rows = self._store.query(
            "SELECT example_uid, labels_json FROM judge_label_sets WHERE prompt_version = ? ORDER BY id",
            (prompt_version,),
        )
        return {uid: labels_from_json(text) for uid, text in dict(rows).items()}  # the later row of a uid wins

    def prompt_versions(self) -> set[str]:
        """Every prompt version some stored judge label set records (one query)."""
        rows = self._store.query(
            "SELECT DISTINCT prompt_version FROM judge_label_sets WHERE prompt_version IS NOT NULL"
        )
        return {r[0] for r in rows}

    def set_counts(self) -> tuple[tuple[str, str, int], ...]:
        """``(judge, prompt version, label sets)`` for every judge and prompt that stored label sets, sorted
        (unnamed judges as ``"unnamed"``, a missing prompt version as ``"-"``): what a report's provenance lists."""
        rows = self._store.query(
            "SELECT judge, prompt_version, COUNT(*) FROM judge_label_sets GROUP BY judge, prompt_version"
        )
        return tuple(sorted((str(j or "unnamed"), str(v or "-"), int(n)) for j, v, n in rows))
