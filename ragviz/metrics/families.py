"""The other metric families on one example, for the Review page's "Other metric families" panel.

Pure data shaping (no Streamlit): the judge-vs-current score table over Tonic, retrieval (per
system) and answer EM/F1, the editable tables (retrieved chunks with gold relevance, per-document
chunk labels), and the label-store changes an edit of them means (an edit back to what the example gives is
no override: :func:`chunk_changes`). Every value comes from the family's own per-example function
(:func:`ragviz.metrics.tonic.example_tonic`, :func:`ragviz.metrics.retrieval.example_retrieval`,
:func:`ragviz.metrics.answer.example_answer`); this module only chooses the label set and lays the numbers out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragviz.data.labels import (
    CHUNK_RELEVANT_FIELD,
    CHUNK_UTILIZED_FIELD,
    RELEVANT_IDS_FIELD,
    SIMILARITY_FIELD,
    Change,
    field_value,
)
from ragviz.data.model import Example, Labels
from ragviz.metrics.answer import ANSWER_METRICS, example_answer
from ragviz.metrics.retrieval import (
    BY_SYSTEM_FIELD,
    DEFAULT_KS,
    example_gold,
    example_retrieval,
    mark_relevant,
    systems_of,
)
from ragviz.metrics.summary import score_delta
from ragviz.metrics.tonic import (
    TONIC_METRICS,
    chunk_flags,
    example_inputs,
    example_tonic,
)

__all__ = [
    "NO_OVERRIDES",
    "chunk_changes",
    "chunk_rows",
    "gold_ids",
    "relevance_change",
    "retrieved_rows",
    "score_rows",
    "similarity_change",
    "similarity_value",
    "systems_table",
    "unretrieved_gold",
]


NO_OVERRIDES = Labels()


def score_rows(
    example: Example, judge: Labels | None, current: Labels | None, ks: Sequence[int] = DEFAULT_KS
) -> list[dict[str, Any]]:
    """``{family, metric, judge, now, delta}`` per value: Tonic, retrieval per system, answer.

    The judge column uses the judge's labels and the example's own retrieval gold / similarity;
    *now* the current labels with their overrides. Answer EM/F1 compare the response with the
    reference answer and do not depend on labels (same value in both columns).
    """
    rows: list[dict[str, Any]] = []
    if judge is not None or current is not None:
        before = example_tonic(example, judge).as_dict() if judge is not None else {}
        after = example_tonic(example, current).as_dict() if current is not None else {}
        for m in TONIC_METRICS:
            j, n = before.get(m), after.get(m)
            rows.append({"family": "tonic", "metric": m, "judge": j, "now": n, "delta": score_delta(j, n)})
    before_r = example_retrieval(example, ks, judge or NO_OVERRIDES)
    after_r = example_retrieval(example, ks, current or NO_OVERRIDES)
    for system, values in before_r.items():
        for m, j in values.items():
            n = after_r.get(system, {}).get(m)
            rows.append(
                {"family": f"retrieval · {system}", "metric": m, "judge": j, "now": n, "delta": score_delta(j, n)}
            )
    answer = example_answer(example)
    if answer.em is not None:
        for m in ANSWER_METRICS:
            v = getattr(answer, m)
            rows.append({"family": "answer", "metric": m, "judge": v, "now": v, "delta": score_delta(v, v)})
    return rows


def systems_table(example: Example, labels: Labels | None, ks: Sequence[int] = DEFAULT_KS) -> list[dict[str, Any]]:
    """Retrieval systems side by side under *labels*: one row per metric, one column per system."""
    scores = example_retrieval(example, ks, labels or NO_OVERRIDES)
    if not scores:
        return []
    metrics = list(next(iter(scores.values())))
    return [{"metric": m, **{system: values[m] for system, values in scores.items()}} for m in metrics]


def gold_ids(example: Example, labels: Labels | None) -> list[str] | None:
    """The ids counted relevant (grade >= 1) under *labels*, in gold order; ``None``: no gold."""
    gold = example_gold(example, labels or NO_OVERRIDES)
    return None if gold is None else [d for d, g in gold.items() if g > 0]


def retrieved_rows(example: Example, labels: Labels | None) -> list[dict[str, Any]]:
    """``{system, rank, doc_id, relevant}`` per retrieved id and system (first occurrence only,
    as the metrics count it)."""
    relevant = set(gold_ids(example, labels) or ())
    rows = []
    for system, ranked in systems_of(example.retrieved_ids, example.extra.get(BY_SYSTEM_FIELD)).items():
        for rank, doc in enumerate(dict.fromkeys(ranked), start=1):
            rows.append({"system": system, "rank": rank, "doc_id": doc, "relevant": doc in relevant})
    return rows


def unretrieved_gold(example: Example, labels: Labels | None) -> list[str]:
    """Gold ids no system retrieved (they still count in Recall@k's denominator)."""
    retrieved = {r["doc_id"] for r in retrieved_rows(example, labels)}
    return [d for d in gold_ids(example, labels) or () if d not in retrieved]


def relevance_change(
    example: Example,
    labels: Labels | None,
    rows: Sequence[Mapping[str, Any]],
    edited_rows: Mapping[Any, Mapping[str, Any]],
) -> Change | None:
    """The ``relevant_ids`` change meant by ticks in the retrieved-chunks editor (*rows* as shown,
    *edited_rows* as Streamlit reports them: ``{row index: {"relevant": bool}}``); ``None`` when
    nothing changes."""
    ids = tuple(gold_ids(example, labels) or ())
    for index, edit in sorted(edited_rows.items(), key=lambda kv: int(kv[0])):
        if "relevant" in edit and 0 <= int(index) < len(rows):
            ids = mark_relevant(ids, str(rows[int(index)]["doc_id"]), bool(edit["relevant"]))
    original = gold_ids(example, NO_OVERRIDES)
    new: list[str] | None = list(ids)
    if original is not None and set(ids) == set(original):
        new = None  # back to the example's own gold
    old = field_value(labels, RELEVANT_IDS_FIELD)
    return None if old == new else Change(RELEVANT_IDS_FIELD, old, new)


def similarity_value(example: Example, labels: Labels | None) -> float | None:
    """answer_similarity under *labels*: the override, else the example's score."""
    return example_inputs(example, labels or NO_OVERRIDES)[2]


def similarity_change(example: Example, labels: Labels | None, value: float | None) -> Change | None:
    """The ``answer_similarity`` change for a new *value* (``None`` clears the override)."""
    original = similarity_value(example, NO_OVERRIDES)
    new = None if value is None or (original is not None and float(value) == original) else float(value)
    old = field_value(labels, SIMILARITY_FIELD)
    return None if old == new else Change(SIMILARITY_FIELD, old, new)


def _fallback_flags(example: Example, labels: Labels | None, field: str) -> list[bool]:
    """Chunk flags without an override of *field*: the example's direct labels, else the sentences'."""
    n = len(example.document_sentences)
    base = (labels or NO_OVERRIDES).replace(**{field: None})
    relevant, used, _ = example_inputs(example, base)
    direct = relevant if field == CHUNK_RELEVANT_FIELD else used
    if direct is not None:
        return direct
    keys = base.relevant_keys if field == CHUNK_RELEVANT_FIELD else base.utilized_keys
    return chunk_flags(keys, n)


def chunk_rows(example: Example, labels: Labels | None) -> list[dict[str, Any]]:
    """``{document, text, relevant, used, source}`` per retrieved document (Tonic's chunks).

    ``source`` says where the flags come from: ``set here`` (an override), ``set in the data``
    (direct chunk labels of the example) or ``from sentences``."""
    lab = labels or NO_OVERRIDES
    relevant = (
        list(lab.chunk_relevant)
        if lab.chunk_relevant is not None
        else _fallback_flags(example, labels, CHUNK_RELEVANT_FIELD)
    )
    used = (
        list(lab.chunk_utilized)
        if lab.chunk_utilized is not None
        else _fallback_flags(example, labels, CHUNK_UTILIZED_FIELD)
    )
    in_data = example.extra.get(CHUNK_RELEVANT_FIELD) is not None or example.extra.get(CHUNK_UTILIZED_FIELD) is not None
    source = (
        "set here"
        if (lab.chunk_relevant is not None or lab.chunk_utilized is not None)
        else "set in the data"
        if in_data
        else "from sentences"
    )
    rows = []
    for d, doc in enumerate(example.document_sentences):
        text = " ".join(s.text for s in doc)
        rows.append({"document": d, "text": text, "relevant": relevant[d], "used": used[d], "source": source})
    return rows


def chunk_changes(
    example: Example, labels: Labels | None, edited_rows: Mapping[Any, Mapping[str, Any]]
) -> list[Change]:
    """``chunk_relevant`` / ``chunk_utilized`` changes meant by ticks in the chunk editor.

    An override equal to what the example gives without it is recorded as ``None`` (= not set), here as in
    :func:`relevance_change` and :func:`similarity_change`, so undoing a change by hand leaves the example
    uncorrected and later sentence edits keep flowing into derived chunk labels."""
    rows = chunk_rows(example, labels)
    changes = []
    for field, column in ((CHUNK_RELEVANT_FIELD, "relevant"), (CHUNK_UTILIZED_FIELD, "used")):
        flags = [bool(r[column]) for r in rows]
        touched = False
        for index, edit in edited_rows.items():
            if column in edit and 0 <= int(index) < len(flags):
                flags[int(index)] = bool(edit[column])
                touched = True
        if not touched:
            continue
        new = None if flags == _fallback_flags(example, labels, field) else flags
        old = field_value(labels, field)
        if old != new:
            changes.append(Change(field, old, new))
    return changes
