"""RagChecker claims for review (no Streamlit): the two label matrices as table rows, the store
changes an edit of them means, every item as the annotator sees it now (the file's item with their
overrides folded in), the per-item / aggregate tables (file's labels vs now), the items' statuses and
the corrected file.

Matrices: the *response* matrix has one row per response claim with its label against the gt
answer (``answer2response``) and against each retrieved chunk (``retrieved2response``); the
*gt answer* matrix one row per gt-answer claim against the response (``response2answer``) and each
chunk (``retrieved2answer``). Every value comes from :mod:`ragviz.metrics.ragchecker`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from ragviz.data.checked_claims import KNOWN_LABELS, CheckedItem, claim_text
from ragviz.data.claim_overrides import apply_claim_overrides, claim_field, claim_uid, current_label
from ragviz.data.dataset import PATH_COL, Dataset
from ragviz.data.formats.ragchecker import items_to_json
from ragviz.data.formats.ragchecker_rows import CLAIM_FIELDS
from ragviz.data.labels import RESET_FIELD, REVIEW_FIELD, REVIEWED, Change
from ragviz.metrics.ragchecker import (
    METRIC_GROUPS,
    RAGCHECKER_METRICS,
    aggregate,
    item_scores,
    reported,
)
from ragviz.metrics.summary import score_delta
from ragviz.store.label_store import LabelStore

__all__ = [
    "GROUP_OF",
    "GT_ANSWER",
    "RESPONSE",
    "SIDES",
    "aggregate_table",
    "checking_output_files",
    "chunk_column",
    "corrected_file",
    "corrected_file_name",
    "current_items",
    "item_label",
    "item_statuses",
    "item_table",
    "item_uids",
    "item_with_overrides",
    "label_options",
    "matrix_changes",
    "matrix_columns",
    "matrix_rows",
    "n_changed_labels",
    "pending_changes",
    "reset_changes",
    "review_changes",
    "statuses_text",
]


RESPONSE = "response"
GT_ANSWER = "gt_answer"
SIDES = (RESPONSE, GT_ANSWER)
# side -> (column of the whole-text check, its check, the per-chunk check)
_SIDE_CHECKS = {
    RESPONSE: ("vs gt answer", "answer2response", "retrieved2response"),
    GT_ANSWER: ("vs response", "response2answer", "retrieved2answer"),
}
GROUP_OF = {m: g for g, names in METRIC_GROUPS.items() for m in names}


def chunk_column(chunk: int) -> str:
    """Column name of chunk *chunk* (0-based) in a matrix: ``chunk 1`` ..."""
    return f"chunk {chunk + 1}"


def matrix_columns(item: CheckedItem, side: str) -> list[str]:
    whole, _, _ = _SIDE_CHECKS[side]
    return ["#", "claim", whole, *(chunk_column(c) for c in range(item.n_chunks))]


def matrix_rows(item: CheckedItem, side: str) -> list[dict[str, Any]]:
    """One row per claim of *side*: ``#`` (1-based), ``claim`` text, the whole-text label and one
    label per chunk."""
    whole, check, chunk_check = _SIDE_CHECKS[side]
    claims = item.response_claims if side == RESPONSE else item.gt_answer_claims
    rows = []
    for i, claim in enumerate(claims):
        row: dict[str, Any] = {"#": i + 1, "claim": claim_text(claim), whole: getattr(item, check)[i]}
        for c in range(item.n_chunks):
            row[chunk_column(c)] = getattr(item, chunk_check)[i][c]
        rows.append(row)
    return rows


def label_options(item: CheckedItem) -> list[str]:
    """The labels an editor offers: RagChecker's three, then any other label the file uses."""
    seen = dict.fromkeys(KNOWN_LABELS)
    for value in (*item.answer2response, *item.response2answer):
        seen.setdefault(value)
    for row in (*item.retrieved2response, *item.retrieved2answer):
        for value in row:
            seen.setdefault(value)
    return list(seen)


def matrix_changes(item: CheckedItem, side: str, edited_rows: Mapping[Any, Mapping[str, Any]]) -> list[Change]:
    """The claim-label changes meant by *edited_rows* (``{row: {column: label}}``, as Streamlit's
    editor reports them) of *side*'s matrix of *item* (the labels shown); unchanged cells, unknown
    columns and empty labels are skipped."""
    whole, check, chunk_check = _SIDE_CHECKS[side]
    n = len(item.response_claims if side == RESPONSE else item.gt_answer_claims)
    changes = []
    for row, edit in sorted(edited_rows.items(), key=lambda kv: int(kv[0])):
        i = int(row)
        if not 0 <= i < n:
            continue
        for column, value in edit.items():
            if not isinstance(value, str) or not value:
                continue
            if column == whole:
                target, chunk = check, None
            elif column.startswith("chunk ") and column[6:].isdigit() and 0 < int(column[6:]) <= item.n_chunks:
                target, chunk = chunk_check, int(column[6:]) - 1
            else:
                continue
            old = current_label(item, target, i, chunk)
            if old != value:
                changes.append(Change(claim_field(target, i, chunk), old, value))
    return changes


def pending_changes(
    item: CheckedItem, edited_rows_by_side: Mapping[str, Mapping[Any, Mapping[str, Any]]]
) -> list[Change]:
    """The claim-label changes meant by the edits waiting in *item*'s two matrix editors
    (``{side: edited_rows}``, *item* as the editors showed it), the response matrix's first."""
    changes: list[Change] = []
    for side in SIDES:
        edits = edited_rows_by_side.get(side)
        if edits:
            changes += matrix_changes(item, side, edits)
    return changes


def review_changes() -> list[Change]:
    """Marking an item reviewed: the person accepts its labels as they are now."""
    return [Change(REVIEW_FIELD, None, REVIEWED)]


def reset_changes() -> list[Change]:
    """Resetting an item: back to the file's labels (an undo re-applies the overrides)."""
    return [Change(RESET_FIELD, None, None)]


# -- the items as the annotator sees them --------------------------------------------------------


def item_uids(items: Iterable[CheckedItem], file_name: str) -> list[str]:
    """The label-store uid of every item of the file named *file_name*."""
    return [claim_uid(file_name, it.query_id) for it in items]


def item_with_overrides(item: CheckedItem, changes: Iterable[tuple[str, Any]]) -> CheckedItem:
    """*item* with the annotator's effective ``(field, label)`` changes folded in; *item* as in the
    file when they no longer fit it (the file changed since; :func:`current_items` reports those)."""
    try:
        return apply_claim_overrides(item, changes)
    except ValueError:
        return item


def current_items(
    items: Sequence[CheckedItem], file_name: str, store: LabelStore, who: str
) -> tuple[list[CheckedItem], list[str]]:
    """Every item with annotator *who*'s overrides from *store* folded in, and one problem line
    (``uid: reason``) per item whose overrides no longer fit it (that item stays as in the file).
    Only items the annotator has decided on are read from the store."""
    touched = store.statuses(who)
    out, problems = [], []
    for it in items:
        uid = claim_uid(file_name, it.query_id)
        if uid not in touched:
            out.append(it)
            continue
        try:
            out.append(apply_claim_overrides(it, store.changes(uid, who)))
        except ValueError as exc:
            problems.append(f"{uid}: {exc}")
            out.append(it)
    return out, problems


def item_table(original: CheckedItem, current: CheckedItem) -> list[dict[str, Any]]:
    """``{group, metric, file, now, delta}`` for the 11 values of one item."""
    before, after = item_scores(original).as_dict(), item_scores(current).as_dict()
    return [
        {
            "group": GROUP_OF[m],
            "metric": m,
            "file": before[m],
            "now": after[m],
            "delta": score_delta(before[m], after[m]),
        }
        for m in RAGCHECKER_METRICS
    ]


def aggregate_table(originals: Sequence[CheckedItem], currents: Sequence[CheckedItem]) -> list[dict[str, Any]]:
    """The dataset aggregates, file's labels vs now, as means (0..1) and as RagChecker prints them
    (x100, one decimal)."""
    before = aggregate([item_scores(it) for it in originals])
    after = aggregate([item_scores(it) for it in currents])
    return [
        {
            "group": GROUP_OF[m],
            "metric": m,
            "file": before[m],
            "now": after[m],
            "file ×100": reported(before[m]),
            "now ×100": reported(after[m]),
        }
        for m in RAGCHECKER_METRICS
    ]


def n_changed_labels(original: CheckedItem, current: CheckedItem) -> int:
    """How many labels of *current* differ from *original*."""
    count = sum(a != b for a, b in zip(original.answer2response, current.answer2response))
    count += sum(a != b for a, b in zip(original.response2answer, current.response2answer))
    for rows_a, rows_b in (
        (original.retrieved2response, current.retrieved2response),
        (original.retrieved2answer, current.retrieved2answer),
    ):
        count += sum(a != b for ra, rb in zip(rows_a, rows_b) for a, b in zip(ra, rb))
    return count


def item_label(item: CheckedItem, status: str = "", width: int = 70) -> str:
    """A one-line name for a picker: ``query_id · query`` (shortened), with a status."""
    query = " ".join(item.query.split())
    if len(query) > width:
        query = query[: width - 1] + "…"
    return f"{item.query_id} · {query}" + (f"  [{status}]" if status else "")


def item_statuses(uids: Iterable[str], reviewed: set[str], corrected: set[str]) -> list[str]:
    """Each item's status for the picker: ``corrected``, else ``reviewed``, else ``""``."""
    return ["corrected" if u in corrected else "reviewed" if u in reviewed else "" for u in uids]


def statuses_text(uids: Iterable[str], reviewed: set[str], corrected: set[str]) -> str:
    """``N of M items reviewed · K corrected`` over the file's item *uids*."""
    uids = list(uids)
    n_rev = sum(1 for u in uids if u in reviewed)
    n_cor = sum(1 for u in uids if u in corrected)
    return f"{n_rev} of {len(uids)} items reviewed · {n_cor} corrected"


def corrected_file(items: Iterable[CheckedItem]) -> bytes:
    """*items* (the current ones) as a RagChecker checking-output JSON file, UTF-8."""
    return json.dumps(items_to_json(items), ensure_ascii=False, indent=1).encode("utf-8")


def corrected_file_name(file_name: str) -> str:
    """The download name of the corrected *file_name*: ``<stem>-corrected.json``."""
    return f"{Path(file_name).stem}-corrected.json"


def checking_output_files(dataset: Dataset) -> list[str]:
    """The RagChecker checking outputs among the loaded data: the files of the rows that carry claims, in
    load order. People who may not open files review these (an admin loaded them, or ``RAGVIZ_DATA``).

    >>> import pyarrow as pa
    >>> checking_output_files(Dataset(pa.table({"_subset": ["a", "b"], "_path": ["a.json", "b.jsonl"],
    ...     "_row": [1, 1], "response_claims": [[["x", "y", "z"]], None]})))
    ['a.json']
    """
    table = dataset.table
    present = [n for n in CLAIM_FIELDS[:2] if n in table.column_names]
    if not present:
        return []
    has = pc.is_valid(table.column(present[0]))
    for name in present[1:]:
        has = pc.or_(has, pc.is_valid(table.column(name)))
    return list(dict.fromkeys(p for p in table.column(PATH_COL).filter(has).to_pylist() if p))
