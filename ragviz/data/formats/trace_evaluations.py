"""A trace's existing evaluations (Phoenix's span, trace and document annotations of kind LLM, kept in the rows'
``source_evaluations`` column) as one judge label set per example: pure, no store, no network.

:func:`evaluation_labels` maps hallucination / faithfulness, correctness and relevance evaluations to one example's
label set (the mapping: its docstring); evaluations of other names stay read-only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.model import Example, Labels, SentenceSupport

__all__ = [
    "ADHERENCE_NAMES",
    "CORRECTNESS_NAMES",
    "RELEVANCE_NAMES",
    "VERSION_PREFIX",
    "EvaluationLabels",
    "evaluation_labels",
    "evaluator_key",
    "version_name",
]

VERSION_PREFIX = "phoenix-"
ADHERENCE_NAMES = frozenset({"hallucination", "hallucinations", "faithfulness", "groundedness"})
CORRECTNESS_NAMES = frozenset({"qa_correctness", "correctness"})
RELEVANCE_NAMES = frozenset({"relevance", "document_relevance", "retrieval_relevance"})
_SUPPORTED = {"factual": True, "faithful": True, "grounded": True, "supported": True,
              "hallucinated": False, "unfaithful": False, "ungrounded": False, "unsupported": False}  # fmt: skip
_CORRECT = {"correct": 5.0, "incorrect": 0.0}
_RELEVANT = {"relevant": True, "unrelated": False, "irrelevant": False, "not_relevant": False}
_NOT_KEY = re.compile(r"[^a-z0-9]+")


def evaluator_key(name: Any) -> str:
    """An evaluation's name as the mapping compares it: ``"QA Correctness"`` is ``qa_correctness``."""
    return _NOT_KEY.sub("_", str(name or "").lower()).strip("_")


def version_name(evaluators: Sequence[str]) -> str:
    """The judge version of a label set made from these evaluators: ``phoenix-hallucination_relevance``
    (at most 64 characters: a longer one ends in a hash of the whole)."""
    name = VERSION_PREFIX + "_".join(sorted(evaluator_key(e) for e in evaluators))
    if len(name) <= 64:
        return name
    return name[:51] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class EvaluationLabels:
    """One example's evaluations as labels: the evaluators used (their keys, sorted), the label set (provenance
    left to the caller) and the evaluation names left read-only."""

    evaluators: tuple[str, ...]
    labels: Labels
    unmapped: tuple[str, ...]


def _label(evaluation: Mapping[str, Any]) -> str:
    return evaluator_key(evaluation.get("label"))


def _relevant(evaluation: Mapping[str, Any]) -> bool | None:
    label = _label(evaluation)
    if label:
        return _RELEVANT.get(label)
    score = evaluation.get("score")
    return None if score is None else float(score) >= 0.5


def evaluation_labels(
    example: Example, evaluations: Sequence[Mapping[str, Any]], documents_span_id: str | None
) -> EvaluationLabels | None:
    """*example*'s label set from *evaluations* (entries of ``source_evaluations``: ``name``, ``label``,
    ``score``, ``explanation`` and ``document_position`` for a document's), ``None`` when none maps. Document
    evaluations count only on *documents_span_id* (the span the row's documents came from).

    The mapping (names and labels compared in lower case, runs of other characters than letters and digits as ``_``):

    ==========================================  ==========================================  ==============================
    evaluation                                  label (score only where it says)            the judge label set
    ==========================================  ==========================================  ==============================
    ``hallucination``, ``faithfulness``,        ``factual`` / ``faithful`` / ``grounded``   every response sentence
    ``groundedness`` on the root, response or   / ``supported``: supported;                 supported / unsupported (the
    LLM span, or on the trace                   ``hallucinated`` / ``unfaithful`` /         evaluator names no sentence);
                                                ``ungrounded`` / ``unsupported``:           ``overall_supported`` and its
                                                unsupported (no label: not mapped, a score  explanation
                                                has no agreed direction)
    ``qa_correctness``, ``correctness``         ``correct`` / ``incorrect``                 ``answer_similarity`` 5 / 0
                                                                                            (Tonic's 0-5 judge score
                                                                                            against the reference answer)
    ``relevance``, ``document_relevance``,      ``relevant`` / ``unrelated``,               every sentence key of a
    ``retrieval_relevance`` per document on     ``irrelevant``, ``not_relevant``; no label: relevant document is in
    the row's documents span                    score >= 0.5 is relevant                    ``relevant_keys`` (in document
                                                                                            order); a document without an
                                                                                            evaluation is not relevant
    ==========================================  ==========================================  ==============================

    A label set holds every label: what no evaluation gives is empty (no relevant or utilized sentence; without an
    adherence evaluation no sentence is marked, so every sentence counts as supported). Its figures mean something
    only for the labels its evaluators give. The first evaluation of a kind wins (root, response, LLM span, trace,
    then documents by position). Evaluations of other names stay read-only.
    """
    used: dict[str, None] = {}
    unmapped: dict[str, None] = {}
    supported: bool | None = None
    why = ""
    similarity: float | None = None
    relevant: dict[int, bool] = {}
    notes: dict[int, str] = {}
    for e in evaluations:
        key = evaluator_key(e.get("name"))
        position = e.get("document_position")
        if position is not None:
            verdict = _relevant(e) if key in RELEVANCE_NAMES else None
            if (
                verdict is None
                or e.get("span_id") != documents_span_id
                or not 0 <= int(position) < len(example.document_sentences)
            ):
                unmapped[str(e.get("name"))] = None
                continue
            relevant.setdefault(int(position), verdict)
            if e.get("explanation"):
                notes.setdefault(int(position), str(e["explanation"]))
        elif key in ADHERENCE_NAMES and _label(e) in _SUPPORTED:
            if supported is None:
                supported, why = _SUPPORTED[_label(e)], str(e.get("explanation") or "")
        elif key in CORRECTNESS_NAMES and _label(e) in _CORRECT:
            similarity = _CORRECT[_label(e)] if similarity is None else similarity
        else:
            unmapped[str(e.get("name"))] = None
            continue
        used[key] = None
    if not used:
        return None
    relevant_keys = tuple(
        s.key for d, sentences in enumerate(example.document_sentences) if relevant.get(d) for s in sentences
    )
    support = () if supported is None else tuple(SentenceSupport(s.key, supported) for s in example.response_sentences)
    labels = Labels(
        relevant_keys=relevant_keys,
        support=support,
        relevance_explanation="\n".join(f"document {d}: {text}" for d, text in sorted(notes.items())),
        overall_supported_explanation=why,
        overall_supported=supported,
        answer_similarity=similarity,
    )
    return EvaluationLabels(tuple(sorted(used)), labels, tuple(n for n in unmapped if evaluator_key(n) not in used))
