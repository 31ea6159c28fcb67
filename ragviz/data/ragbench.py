"""The RAGBench row schema: conversion between rows (dicts as published) and the data model.

A *row* is a dict with RAGBench's field names. Every loader turns its input into such rows (raw
formats are sentence-split first), so this module is the one place that knows the schema. Exports
write rows back with the same names plus ``llm_``-prefixed copies of the judge's labels.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragviz.data.dotted_keys import dotted_key_match, match_response_keys
from ragviz.data.model import (
    Example,
    Labels,
    Provenance,
    RowRef,
    Sentence,
    SentenceSupport,
)

__all__ = [
    "BASELINE_SCORE_FIELDS",
    "CORE_FIELDS",
    "FAMILY_INPUT_FIELDS",
    "LABEL_FIELDS",
    "LLM_PREFIX",
    "OVERALL_EXPLANATION",
    "OVERALL_SUPPORTED",
    "OVERRIDE_FIELDS",
    "PROVENANCE_FIELDS",
    "RELEVANCE_EXPLANATION",
    "RELEVANT",
    "ROW_LABEL_FIELDS",
    "STORED_SCORE_FIELDS",
    "SUPPORT",
    "UNSUPPORTED",
    "UTILIZED",
    "example_from_row",
    "has_dotted_response_key",
    "has_labels",
    "labels_from_row",
    "labels_to_row",
    "match_row_keys",
    "overrides_from_row",
    "response_keys_of",
    "row_label_sets",
    "support_from_row",
    "support_to_row",
    "unsupported_keys",
]


RELEVANT = "all_relevant_sentence_keys"
UTILIZED = "all_utilized_sentence_keys"
SUPPORT = "sentence_support_information"
UNSUPPORTED = "unsupported_response_sentence_keys"
RELEVANCE_EXPLANATION = "relevance_explanation"
OVERALL_EXPLANATION = "overall_supported_explanation"
OVERALL_SUPPORTED = "overall_supported"

LABEL_FIELDS = (
    RELEVANT,
    UTILIZED,
    SUPPORT,
    UNSUPPORTED,
    RELEVANCE_EXPLANATION,
    OVERALL_EXPLANATION,
    OVERALL_SUPPORTED,
)
LLM_PREFIX = "llm_"

STORED_SCORE_FIELDS = ("relevance_score", "utilization_score", "completeness_score", "adherence_score")
BASELINE_SCORE_FIELDS = (
    "trulens_groundedness",
    "trulens_context_relevance",
    "ragas_faithfulness",
    "ragas_context_relevance",
    "gpt3_adherence",
    "gpt3_context_relevance",
    "gpt35_utilization",
)
# Optional per-example inputs of the other metric families (ragviz.metrics.tonic / retrieval), kept in
# Example.extra so the single-example functions see what the columnar path sees.
FAMILY_INPUT_FIELDS = (
    "retrieved_ids_by_system",
    "relevant_grades",
    "chunk_relevant",
    "chunk_utilized",
    "answer_similarity",
)
# Human overrides of those inputs carried by a label set (Labels.relevant_ids ...). An exported row
# writes the current overrides under the plain names (they ARE the row's inputs from then on) and
# the judge side's values under llm_ names; labels_from_row reads them for a prefixed label set only.
OVERRIDE_FIELDS = ("relevant_ids", "answer_similarity", "chunk_relevant", "chunk_utilized")
PROVENANCE_FIELDS = ("label_source", "reviewer", "reviewed_at", "annotating_model_name")

CORE_FIELDS = (
    "id",
    "question",
    "documents",
    "response",
    "generation_model_name",
    "dataset_name",
    "documents_sentences",
    "response_sentences",
    "reference_answer",
    "retrieved_ids",
    "relevant_ids",
)


def _keys(value: Any) -> tuple[str, ...]:
    return tuple(str(k) for k in value) if value is not None else ()


def support_from_row(entry: Mapping[str, Any]) -> SentenceSupport:
    return SentenceSupport(
        key=str(entry.get("response_sentence_key") or ""),
        supported=entry.get("fully_supported"),
        supporting_keys=_keys(entry.get("supporting_sentence_keys")),
        explanation=entry.get("explanation") or "",
    )


def support_to_row(support: SentenceSupport) -> dict[str, Any]:
    return {
        "explanation": support.explanation,
        "fully_supported": support.supported,
        "response_sentence_key": support.key,
        "supporting_sentence_keys": list(support.supporting_keys),
    }


def has_labels(row: Mapping[str, Any], prefix: str = "") -> bool:
    """A row is labeled when any label field carries a value (an empty list counts as a value)."""
    return any(row.get(prefix + f) is not None for f in LABEL_FIELDS)


def _override(name: str, value: Any) -> Any:
    """One override field's value from a row, ``None`` when absent or not of the right shape."""
    if value is None:
        return None
    try:
        if name == "answer_similarity":
            if isinstance(value, bool):
                return None
            number = float(value)
            return number if number == number else None
        if isinstance(value, str):  # a loader keeps mixed-type columns as JSON text
            value = json.loads(value)
        if name == "relevant_ids":
            return tuple(str(v) for v in value)
        return tuple(bool(v) for v in value)
    except (TypeError, ValueError):
        return None


def overrides_from_row(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The :data:`OVERRIDE_FIELDS` set in *row* under *prefix*, as :class:`Labels` keyword arguments."""
    out = {}
    for name in OVERRIDE_FIELDS:
        value = _override(name, row.get(prefix + name))
        if value is not None:
            out[name] = value
    return out


def labels_from_row(
    row: Mapping[str, Any], prefix: str = "", provenance: Provenance | None = None, overrides: bool | None = None
) -> Labels | None:
    """The label set stored in *row* under field names with *prefix*; ``None`` when unlabeled.

    With *overrides* (default: only for a non-empty *prefix*) the :data:`OVERRIDE_FIELDS` are read
    into the label set too; a plain row's ``relevant_ids`` etc. are the example's inputs, so the
    label set leaves them ``None`` (= use the example's)."""
    if not has_labels(row, prefix):
        return None
    unsupported = row.get(prefix + UNSUPPORTED)
    extra = overrides_from_row(row, prefix) if (bool(prefix) if overrides is None else overrides) else {}
    return Labels(
        relevant_keys=_keys(row.get(prefix + RELEVANT)),
        utilized_keys=_keys(row.get(prefix + UTILIZED)),
        support=tuple(support_from_row(e) for e in (row.get(prefix + SUPPORT) or ())),
        unsupported_keys=_keys(unsupported) if unsupported is not None else None,
        relevance_explanation=row.get(prefix + RELEVANCE_EXPLANATION) or "",
        overall_supported_explanation=row.get(prefix + OVERALL_EXPLANATION) or "",
        overall_supported=row.get(prefix + OVERALL_SUPPORTED),
        provenance=provenance or Provenance(),
        **extra,
    )


def labels_to_row(labels: Labels | None, prefix: str = "") -> dict[str, Any]:
    """The RAGBench label fields for *labels* (all ``None`` when unlabeled)."""
    if labels is None:
        return {prefix + f: None for f in LABEL_FIELDS}
    overrides = {
        prefix + name: _override_to_row(getattr(labels, name))
        for name in OVERRIDE_FIELDS
        if getattr(labels, name) is not None
    }
    return {
        **overrides,
        prefix + RELEVANT: list(labels.relevant_keys),
        prefix + UTILIZED: list(labels.utilized_keys),
        prefix + SUPPORT: [support_to_row(s) for s in labels.support],
        prefix + UNSUPPORTED: list(unsupported_keys(labels)),
        prefix + RELEVANCE_EXPLANATION: labels.relevance_explanation,
        prefix + OVERALL_EXPLANATION: labels.overall_supported_explanation,
        prefix + OVERALL_SUPPORTED: labels.overall_supported,
    }


def _override_to_row(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _sentences(pairs: Any) -> tuple[Sentence, ...]:
    return tuple(Sentence(str(k), str(t)) for k, t in (pairs or ()))


def _optional_ids(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def _reference(value: Any) -> str | tuple[str, ...] | None:
    if value is None or isinstance(value, str):
        return value
    return tuple(str(v) for v in value)


#: The fields :func:`row_label_sets` reads: what a row's two label sets are made of (never its texts).
ROW_LABEL_FIELDS = (
    *LABEL_FIELDS,
    *(LLM_PREFIX + f for f in (*LABEL_FIELDS, *OVERRIDE_FIELDS)),
    "annotating_model_name",
    "label_source",
    "reviewer",
    "reviewed_at",
)


def row_label_sets(row: Mapping[str, Any], match: bool = True) -> tuple[Labels | None, Labels | None]:
    """The row's current labels and the judge's, as :func:`example_from_row` sets
    :attr:`Example.labels` and :attr:`Example.judge_labels` (it reads only :data:`ROW_LABEL_FIELDS`
    and ``response_sentences``: with *match*, keys written ``"a."`` are matched to sentence ``"a"``,
    :func:`match_response_keys`).

    The current labels are the plain fields, made by a person when ``label_source`` is ``human``;
    the judge's are the ``llm_`` copy when the row carries one, else the plain labels unless a
    person made them."""
    judge_name = row.get("annotating_model_name") or ""
    source_kind = row.get("label_source") or "llm"
    if source_kind == "human":
        current_provenance = Provenance("human", row.get("reviewer") or "", row.get("reviewed_at"))
    else:
        current_provenance = Provenance("llm", judge_name)
    labels = labels_from_row(row, provenance=current_provenance)
    if has_labels(row, LLM_PREFIX):
        judge_labels = labels_from_row(row, LLM_PREFIX, Provenance("llm", judge_name))
    else:
        judge_labels = labels if current_provenance.source == "llm" else None
    if not match or row.get("response_sentences") is None:
        return labels, judge_labels
    response_keys = response_keys_of(row)
    matched = match_response_keys(labels, response_keys)
    return matched, matched if judge_labels is labels else match_response_keys(judge_labels, response_keys)


def has_dotted_response_key(row: Mapping[str, Any]) -> bool:
    """Whether a response-sentence key of *row*'s labels (a support entry's or the unsupported
    list's, the ``llm_`` copies too) ends in a dot: loading may match it to its sentence."""

    def value(name: str) -> Any:
        got = row.get(name)
        if isinstance(got, str):  # a loader keeps mixed-type columns as JSON text
            try:
                return json.loads(got)
            except ValueError:
                return None
        return got

    for prefix in ("", LLM_PREFIX):
        entries = value(prefix + SUPPORT)
        if isinstance(entries, (list, tuple)) and any(
            isinstance(e, Mapping) and str(e.get("response_sentence_key") or "").endswith(".") for e in entries
        ):
            return True
        listed = value(prefix + UNSUPPORTED)
        if isinstance(listed, (list, tuple)) and any(str(k).endswith(".") for k in listed):
            return True
    return False


def response_keys_of(row: Mapping[str, Any]) -> set[str]:
    """The keys of *row*'s response sentences."""
    return {s.key for s in _sentences(row.get("response_sentences"))}


def match_row_keys(row: Mapping[str, Any]) -> dict[str, Any]:
    """*row*'s support entries and unsupported list (RAGBench fields, as lists) with the keys written
    with a trailing dot matched to their response sentence, as :func:`match_response_keys` matches
    them in a label set (the same rule, :func:`dotted_key_match`); the other fields as they are."""
    response_keys = response_keys_of(row)
    out = dict(row)
    entries = row.get(SUPPORT)
    if isinstance(entries, list):
        keyed = {str(e.get("response_sentence_key")) for e in entries if isinstance(e, Mapping)}
        matched = []
        for e in entries:
            key = e.get("response_sentence_key") if isinstance(e, Mapping) else None
            bare = dotted_key_match(key, response_keys, keyed) if isinstance(key, str) else None
            if bare is not None:
                keyed.add(bare)
                e = {**e, "response_sentence_key": bare}
            matched.append(e)
        out[SUPPORT] = matched
    listed = row.get(UNSUPPORTED)
    if isinstance(listed, list):
        known = set(listed)
        out[UNSUPPORTED] = [
            (dotted_key_match(k, response_keys, known) or k) if isinstance(k, str) else k for k in listed
        ]
    return out


def example_from_row(row: Mapping[str, Any], subset: str = "", source: RowRef | None = None) -> Example:
    """Build an :class:`Example` from a canonical RAGBench row.

    ``dataset`` is the row's ``dataset_name`` when present, else *subset* (the file's subset name).
    When the row carries ``llm_``-prefixed label fields (a reviewed export), those are the judge's
    labels and the plain fields the current (human) labels. Response-sentence keys written with a
    trailing dot (``"a."``) are matched to their sentence (:func:`match_response_keys`).
    """
    labels, judge_labels = row_label_sets(row)
    response_sentences = _sentences(row.get("response_sentences"))
    extra = {
        k: row[k]
        for k in (*STORED_SCORE_FIELDS, *BASELINE_SCORE_FIELDS, *FAMILY_INPUT_FIELDS, "annotating_model_name")
        if row.get(k) is not None
    }
    return Example(
        id=str(row.get("id") or ""),
        dataset=str(row.get("dataset_name") or subset or ""),
        question=row.get("question") or "",
        documents=tuple(row.get("documents") or ()),
        document_sentences=tuple(_sentences(doc) for doc in (row.get("documents_sentences") or ())),
        response=row.get("response") or "",
        response_sentences=response_sentences,
        generation_model=str(row.get("generation_model_name") or ""),
        labels=labels,
        judge_labels=judge_labels,
        reference_answer=_reference(row.get("reference_answer")),
        retrieved_ids=_optional_ids(row.get("retrieved_ids")),
        relevant_ids=_optional_ids(row.get("relevant_ids")),
        extra=extra,
        source=source,
    )


def unsupported_keys(labels: Labels) -> tuple[str, ...]:
    """The response sentences counted as unsupported.

    The row's stored ``unsupported_response_sentence_keys`` when it has one; otherwise derived
    from the per-sentence support: unsupported when ``supported`` is ``False``, or when it is
    ``None`` and the sentence has no supporting keys. A human edit of any sentence's support clears
    the stored list (``ragviz.data.labels``), so from then on the per-sentence labels decide.
    """
    if labels.unsupported_keys is not None:
        return labels.unsupported_keys
    return tuple(
        s.key for s in labels.support if s.supported is False or (s.supported is None and not s.supporting_keys)
    )
