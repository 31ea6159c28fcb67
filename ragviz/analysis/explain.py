"""The Explainer's view of the other metric families on one example: every value with the inputs
it was computed from and its formula filled with the counts.

Pure data shaping (no Streamlit). Values always come from the families' own functions
(:func:`ragviz.metrics.tonic.tonic_scores` via :func:`ragviz.metrics.tonic.example_inputs`,
:func:`ragviz.metrics.retrieval.retrieval_scores` via :func:`ragviz.metrics.retrieval.example_gold`,
:func:`ragviz.metrics.answer.answer_scores`); the counts shown beside them only say *which* chunks,
ids or tokens make up the numerator and denominator of that value.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ragviz.data.keys import clean_key, parse_context_key
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.answer import (
    AnswerScores,
    answer_scores,
    golds_of,
    normalize_answer,
    set_tokens,
)
from ragviz.metrics.retrieval import (
    BY_SYSTEM_FIELD,
    example_gold,
    first_occurrences,
    retrieval_scores,
    systems_of,
)
from ragviz.metrics.tonic import (
    CHUNK_RELEVANT_FIELD,
    CHUNK_USED_FIELD,
    SIMILARITY_FIELD,
    SIMILARITY_MAX,
    TonicScores,
    example_inputs,
    tonic_scores,
)

__all__ = [
    "AnswerExplanation",
    "BY_JUDGE_SET",
    "BY_PERSON",
    "ChunkInput",
    "FROM_DATA",
    "FROM_SENTENCES",
    "Filled",
    "GoldComparison",
    "NO_OVERRIDES",
    "RankedId",
    "RetrievalExplanation",
    "TonicExplanation",
    "answer_explanation",
    "retrieval_explanations",
    "tonic_explanation",
]


FROM_SENTENCES = "from sentences"
FROM_DATA = "set in the data"
BY_PERSON = "set by a person"
BY_JUDGE_SET = "set in the judge's labels"
NO_OVERRIDES = Labels()


@dataclass(frozen=True)
class Filled:
    """One metric: its value (from the family's function), the formula and the formula with the
    counts put in (e.g. ``2 / 4``)."""

    metric: str
    value: float | None
    formula: str
    filled: str


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


# -- Tonic Validate ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkInput:
    """One retrieved document (Tonic's chunk): is it relevant / used, and why."""

    document: int
    relevant: bool
    used: bool
    relevant_why: str
    used_why: str


@dataclass(frozen=True)
class TonicExplanation:
    scores: TonicScores
    chunks: tuple[ChunkInput, ...]
    relevant_source: str
    used_source: str
    supported: tuple[str, ...]
    unsupported: tuple[str, ...]
    similarity_source: str
    terms: tuple[Filled, ...]


def _source(labels: Labels, override: object, example: Example, field: str) -> str:
    if override is not None:
        return BY_PERSON if labels.provenance.source == "human" else BY_JUDGE_SET
    if example.extra.get(field) is not None:
        return FROM_DATA
    return FROM_SENTENCES


def _keys_by_document(keys: Sequence[str], n_documents: int) -> list[list[str]]:
    out: list[list[str]] = [[] for _ in range(n_documents)]
    for key in dict.fromkeys(clean_key(k) for k in keys):
        parsed = parse_context_key(key)
        if parsed is not None and parsed[0] < n_documents:
            out[parsed[0]].append(key)
    return out


def _why(source: str, keys: list[str], what: str) -> str:
    if source != FROM_SENTENCES:
        return source
    if keys:
        return f"{what} sentence{'s' if len(keys) > 1 else ''} {' '.join(keys)}"
    return f"no {what} sentence"


def tonic_explanation(example: Example, labels: Labels | None) -> TonicExplanation | None:
    """Tonic's values of *labels* on *example* with their inputs; ``None`` when unlabeled."""
    if labels is None:
        return None
    relevant_direct, used_direct, similarity = example_inputs(example, labels)
    n_documents = len(example.document_sentences)
    scores = tonic_scores(labels, n_documents, example.response_keys(), relevant_direct, used_direct, similarity)
    rel_source = _source(labels, labels.chunk_relevant, example, CHUNK_RELEVANT_FIELD)
    used_source = _source(labels, labels.chunk_utilized, example, CHUNK_USED_FIELD)
    rel_keys = _keys_by_document(labels.relevant_keys, n_documents)
    used_keys = _keys_by_document(labels.utilized_keys, n_documents)
    relevant = relevant_direct if relevant_direct is not None else [bool(k) for k in rel_keys]
    used = used_direct if used_direct is not None else [bool(k) for k in used_keys]
    chunks = tuple(
        ChunkInput(
            d,
            relevant[d],
            used[d],
            _why(rel_source, rel_keys[d], "relevant"),
            _why(used_source, used_keys[d], "utilized"),
        )
        for d in range(n_documents)
    )
    bad = {clean_key(k) for k in unsupported_keys(labels)}
    response = example.response_keys()
    supported = tuple(k for k in response if k not in bad)
    unsupported = tuple(k for k in response if k in bad)
    sim_source = "none" if similarity is None else _source(labels, labels.answer_similarity, example, SIMILARITY_FIELD)
    n_rel, n_used = sum(relevant), sum(used)
    n_both = sum(r and u for r, u in zip(relevant, used))
    c, s = n_documents, len(response)
    parts = [
        v
        for v in (
            scores.retrieval_precision,
            scores.augmentation_accuracy,
            scores.augmentation_precision,
            scores.answer_consistency,
            scores.answer_consistency_binary,
        )
        if v is not None
    ]
    overall_parts = [_fmt(v) for v in parts] + (
        [f"{_fmt(similarity)}/{SIMILARITY_MAX:g}"] if similarity is not None else []
    )
    terms = (
        Filled("retrieval_precision", scores.retrieval_precision, "relevant chunks / chunks", f"{n_rel} / {c}"),
        Filled("augmentation_accuracy", scores.augmentation_accuracy, "used chunks / chunks", f"{n_used} / {c}"),
        Filled(
            "augmentation_precision",
            scores.augmentation_precision,
            "|relevant ∩ used| / |relevant|",
            f"{n_both} / {n_rel}" if n_rel else "no relevant chunk → 0",
        ),
        Filled(
            "answer_consistency",
            scores.answer_consistency,
            "supported sentences / response sentences",
            f"{len(supported)} / {s}",
        ),
        Filled(
            "answer_consistency_binary",
            scores.answer_consistency_binary,
            "1 if every response sentence is supported, else 0",
            f"{len(unsupported)} unsupported of {s}",
        ),
        Filled(
            "answer_similarity",
            scores.answer_similarity,
            "judge score against the reference answer (0–5)",
            "not scored" if similarity is None else f"{similarity:g} ({sim_source})",
        ),
        Filled(
            "overall",
            scores.overall,
            "mean of the values above, answer_similarity / 5",
            f"({' + '.join(overall_parts)}) / {len(overall_parts)}" if overall_parts else "nothing computed",
        ),
    )
    return TonicExplanation(scores, chunks, rel_source, used_source, supported, unsupported, sim_source, terms)


# -- retrieval -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankedId:
    rank: int
    doc_id: str
    grade: int
    in_top_k: bool

    @property
    def relevant(self) -> bool:
        return self.grade > 0


@dataclass(frozen=True)
class RetrievalExplanation:
    """One system's ranking under a gold list, at cut-off *k*."""

    system: str
    k: int
    ranking: tuple[RankedId, ...]
    gold: dict[str, int]
    not_retrieved: tuple[str, ...]
    scores: dict[str, float | None]
    terms: tuple[Filled, ...]


def _dcg_terms(grades: Sequence[int]) -> list[str]:
    return [f"{g}/log2({r + 1})" for r, g in enumerate(grades, start=1) if g > 0]


def retrieval_explanations(example: Example, labels: Labels | None, k: int) -> list[RetrievalExplanation]:
    """Per retrieval system: the ranked ids marked relevant (grade ≥ 1) or not, and MRR,
    Recall@k, Precision@k and nDCG@k with their formulas filled in. Empty when the example has
    no ranking or no gold list (it is not scored)."""
    gold = example_gold(example, labels or NO_OVERRIDES)
    if gold is None:
        return []
    out = []
    ideal = sorted((g for g in gold.values() if g > 0), reverse=True)
    n_rel = len(ideal)
    for system, ranked in systems_of(example.retrieved_ids, example.extra.get(BY_SYSTEM_FIELD)).items():
        docs = first_occurrences(ranked)
        scores = retrieval_scores(ranked, gold, (k,))
        ranking = tuple(RankedId(r, d, gold.get(d, 0), r <= k) for r, d in enumerate(docs, start=1))
        first = next((x.rank for x in ranking if x.relevant), None)
        hits = sum(1 for x in ranking if x.in_top_k and x.relevant)
        dcg = _dcg_terms([x.grade for x in ranking[:k]])
        idcg = _dcg_terms(ideal[:k])
        dcg_value = sum(x.grade / math.log2(x.rank + 1) for x in ranking[:k])
        idcg_value = sum(g / math.log2(r + 1) for r, g in enumerate(ideal[:k], start=1))
        terms = (
            Filled(
                "mrr",
                scores["mrr"],
                "1 / rank of the first relevant id",
                f"1 / {first}" if first else "no relevant id retrieved → 0",
            ),
            Filled(
                f"recall@{k}",
                scores[f"recall@{k}"],
                f"relevant in top {k} / all relevant",
                f"{hits} / {n_rel}" if n_rel else "nothing relevant → 0",
            ),
            Filled(f"precision@{k}", scores[f"precision@{k}"], f"relevant in top {k} / {k}", f"{hits} / {k}"),
            Filled(
                f"ndcg@{k}",
                scores[f"ndcg@{k}"],
                f"DCG@{k} / IDCG@{k}, DCG = Σ grade / log2(rank + 1)",
                (f"({' + '.join(dcg) or '0'}) / ({' + '.join(idcg)}) = {dcg_value:.3f} / {idcg_value:.3f}")
                if idcg
                else "nothing relevant → 0",
            ),
        )
        not_retrieved = tuple(d for d, g in gold.items() if g > 0 and d not in set(docs))
        out.append(RetrievalExplanation(system, k, ranking, dict(gold), not_retrieved, scores, terms))
    return out


# -- answer ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldComparison:
    """The response against one reference answer: the normalised tokens of both sides and the
    shared ones, for EM / F1 (SQuAD multiset) and F1-set."""

    gold: str
    gold_normalized: str
    gold_tokens: tuple[str, ...]
    gold_set: tuple[str, ...]
    shared_tokens: tuple[str, ...]
    shared_set: tuple[str, ...]
    em: float
    f1: float
    f1_set: float


@dataclass(frozen=True)
class AnswerExplanation:
    scores: AnswerScores
    prediction_normalized: str
    prediction_tokens: tuple[str, ...]
    prediction_set: tuple[str, ...]
    golds: tuple[GoldComparison, ...]
    terms: tuple[Filled, ...]


def _shared_multiset(pred: Sequence[str], gold: Sequence[str]) -> tuple[str, ...]:
    """The response tokens matched by a gold token, each gold token matching once (as F1 counts)."""
    left = Counter(gold)
    shared = []
    for token in pred:
        if left[token] > 0:
            left[token] -= 1
            shared.append(token)
    return tuple(shared)


def _f1_text(shared: int, n_pred: int, n_gold: int) -> str:
    if not shared:
        return f"nothing shared ({n_pred} vs {n_gold} tokens) → 0"
    return f"P = {shared}/{n_pred}, R = {shared}/{n_gold}, F1 = 2PR / (P + R)"


def answer_explanation(example: Example) -> AnswerExplanation | None:
    """EM / F1 / F1-set of the response against each reference answer with the normalised
    tokens compared; ``None`` without a reference answer. (The best gold gives each value.)"""
    golds = golds_of(example.reference_answer)
    if not golds:
        return None
    scores = answer_scores(example.response, example.reference_answer)
    pred_norm = normalize_answer(example.response)
    pred_tokens = tuple(pred_norm.split())
    pred_set = tuple(sorted(set_tokens(example.response)))
    comparisons = []
    for gold in golds:
        single = answer_scores(example.response, gold)
        gold_norm = normalize_answer(gold)
        gold_tokens = tuple(gold_norm.split())
        gold_set = tuple(sorted(set_tokens(gold)))
        comparisons.append(
            GoldComparison(
                gold,
                gold_norm,
                gold_tokens,
                gold_set,
                _shared_multiset(pred_tokens, gold_tokens),
                tuple(sorted(set(pred_set) & set(gold_set))),
                single.em or 0.0,
                single.f1 or 0.0,
                single.f1_set or 0.0,
            )
        )
    best = max(comparisons, key=lambda g: g.f1)
    best_set = max(comparisons, key=lambda g: g.f1_set)
    terms = (
        Filled("em", scores.em, "normalised response = normalised reference", "equal" if scores.em else "not equal"),
        Filled(
            "f1",
            scores.f1,
            "token F1 over multisets (SQuAD v1.1)",
            _f1_text(len(best.shared_tokens), len(pred_tokens), len(best.gold_tokens)),
        ),
        Filled(
            "f1_set",
            scores.f1_set,
            "token F1 over sets",
            _f1_text(len(best_set.shared_set), len(pred_set), len(best_set.gold_set)),
        ),
    )
    return AnswerExplanation(scores, pred_norm, pred_tokens, pred_set, tuple(comparisons), terms)
