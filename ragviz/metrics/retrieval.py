"""Retrieval ranking metrics for one or more named retrieval systems (dense / sparse / RRF ...).

Inputs per example: a ranked list of retrieved ids per system and the gold judgements, a mapping
``id -> grade``; grade >= 1 is relevant (trec_eval's default ``relevance_level`` of 1), grades above
1 only weigh more in nDCG. Plain ``relevant_ids`` are grade 1; an optional parallel
``relevant_grades`` list grades them.

Semantics are trec_eval's (as served by ``ir-measures``; the tests use it as the oracle), written with each metric's
function and, for the whole ranking, in :func:`retrieval_scores`. References: Järvelin & Kekäläinen, "Cumulated
gain-based evaluation of IR techniques", TOIS 2002; Voorhees, "The TREC-8 Question Answering Track Report", 1999 (MRR).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ragviz.data.model import Example, Labels

__all__ = [
    "BY_SYSTEM_FIELD",
    "DEFAULT_KS",
    "DEFAULT_SYSTEM",
    "GRADES_FIELD",
    "Gold",
    "ROW_COLUMNS",
    "compare_systems",
    "example_gold",
    "example_retrieval",
    "family_records",
    "first_occurrences",
    "gold_grades",
    "hit_at_k",
    "hits_at_k",
    "mark_relevant",
    "metric_names",
    "n_relevant",
    "ndcg_at_k",
    "parse_ks",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "retrieval_scores",
    "systems_of",
]


DEFAULT_KS = (1, 3, 5, 10)
DEFAULT_SYSTEM = "default"
BY_SYSTEM_FIELD = "retrieved_ids_by_system"
GRADES_FIELD = "relevant_grades"

Gold = Mapping[str, int]


def metric_names(ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    """Record field names: ``mrr`` then ``recall@k``, ``precision@k``, ``hit@k``, ``ndcg@k`` per k.

    >>> metric_names((1, 3))
    ['mrr', 'recall@1', 'precision@1', 'hit@1', 'ndcg@1', 'recall@3', 'precision@3', 'hit@3', 'ndcg@3']
    """
    names = ["mrr"]
    for k in ks:
        names += [f"recall@{k}", f"precision@{k}", f"hit@{k}", f"ndcg@{k}"]
    return names


def parse_ks(text: str) -> tuple[int, ...]:
    """``"1,3,5,10"`` -> ``(1, 3, 5, 10)``; raises ``ValueError`` naming the bad part.

    >>> parse_ks("10, 1,3")
    (1, 3, 10)
    """
    ks = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"--k: {part!r} is not a positive integer (expected e.g. 1,3,5,10)")
        ks.append(int(part))
    return tuple(sorted(set(ks)))


def gold_grades(relevant_ids: Iterable[Any] | None, grades: Sequence[Any] | None = None) -> dict[str, int] | None:
    """Gold judgements ``{id: grade}``; grade 1 for each id when *grades* is absent.

    >>> gold_grades(["d1", "d2"], [2, 0])
    {'d1': 2, 'd2': 0}
    >>> gold_grades(None) is None
    True
    """
    if relevant_ids is None:
        return None
    ids = [str(i) for i in relevant_ids]
    if grades is None:
        return dict.fromkeys(ids, 1)
    if len(grades) != len(ids):
        raise ValueError(f"{GRADES_FIELD}: has {len(grades)} grades for {len(ids)} relevant ids")
    if not all(isinstance(g, (int, float)) and not isinstance(g, bool) and g >= 0 for g in grades):
        raise ValueError(f"{GRADES_FIELD}: grades must be non-negative integers")
    return {i: int(g) for i, g in zip(ids, grades)}


def first_occurrences(ranked: Iterable[Any]) -> list[str]:
    """The ranking with repeated ids dropped (an id counts once, at its best rank).

    >>> first_occurrences(["a", "b", "a", "c"])
    ['a', 'b', 'c']
    """
    return list(dict.fromkeys(str(r) for r in ranked))


def n_relevant(gold: Gold) -> int:
    return sum(1 for g in gold.values() if g > 0)


def reciprocal_rank(ranked: Sequence[str], gold: Gold) -> float:
    """Reciprocal rank of the first relevant id.

    .. math:: \\mathrm{RR} = 1 / \\min\\{r : \\mathrm{grade}(d_r) \\ge 1\\}

    Notes: 0.0 when no relevant id is retrieved. The mean over examples is MRR.

    >>> reciprocal_rank(["x", "d2", "d1"], {"d1": 1, "d2": 1})
    0.5
    """
    for rank, doc in enumerate(ranked, start=1):
        if gold.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def hits_at_k(ranked: Sequence[str], gold: Gold, k: int) -> int:
    return sum(1 for doc in ranked[:k] if gold.get(doc, 0) > 0)


_LOG2: list[float] = [0.0]  # _LOG2[r] = log2(r + 1), grown on demand


def _log2_rank(r: int) -> float:
    while len(_LOG2) <= r:
        _LOG2.append(math.log2(len(_LOG2) + 1))
    return _LOG2[r]


def _dcg_prefix(grades: Iterable[int]) -> list[float]:
    """``out[k]`` = DCG of the first *k* grades (linear gain, log2(rank+1) discount), summed in rank order."""
    out = [0.0]
    total = 0.0
    for r, g in enumerate(grades, start=1):
        if g > 0:
            total += g / _log2_rank(r)
        out.append(total)
    return out


def _ideal_grades(gold: Gold) -> list[int]:
    return sorted((g for g in gold.values() if g > 0), reverse=True)


def _ndcg(dcg_prefix: list[float], ideal_prefix: list[float], k: int) -> float:
    idcg = ideal_prefix[min(k, len(ideal_prefix) - 1)]
    if idcg == 0:
        return 0.0
    return dcg_prefix[min(k, len(dcg_prefix) - 1)] / idcg


def recall_at_k(ranked: Sequence[str], gold: Gold, k: int) -> float:
    """Share of all relevant ids found in the top *k*.

    .. math:: \\mathrm{Recall@}k = |\\mathrm{top}_k \\cap \\mathrm{Rel}| / |\\mathrm{Rel}|

    Notes: 0.0 when nothing is relevant.

    >>> recall_at_k(["d1", "x", "d2"], {"d1": 1, "d2": 1, "d3": 1}, 2)
    0.3333333333333333
    """
    n = n_relevant(gold)
    return hits_at_k(ranked, gold, k) / n if n else 0.0


def precision_at_k(ranked: Sequence[str], gold: Gold, k: int) -> float:
    """Relevant ids in the top *k* over *k* (always *k*, even when fewer ids were retrieved).

    .. math:: \\mathrm{P@}k = |\\mathrm{top}_k \\cap \\mathrm{Rel}| / k

    >>> precision_at_k(["d1"], {"d1": 1}, 5)
    0.2
    """
    return hits_at_k(ranked, gold, k) / k


def hit_at_k(ranked: Sequence[str], gold: Gold, k: int) -> float:
    """1.0 when at least one relevant id is in the top *k* (trec_eval ``success_k``).

    .. math:: \\mathrm{Hit@}k = [\\,|\\mathrm{top}_k \\cap \\mathrm{Rel}| > 0\\,]

    >>> hit_at_k(["x", "d1"], {"d1": 1}, 1), hit_at_k(["x", "d1"], {"d1": 1}, 2)
    (0.0, 1.0)
    """
    return 1.0 if hits_at_k(ranked, gold, k) else 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Gold, k: int) -> float:
    """Normalised discounted cumulative gain at *k* with linear gain.

    .. math::
        \\mathrm{DCG@}k = \\sum_{r=1}^{k} \\frac{\\mathrm{grade}(d_r)}{\\log_2(r+1)}, \\quad
        \\mathrm{nDCG@}k = \\mathrm{DCG@}k / \\mathrm{IDCG@}k

    IDCG@k is the DCG@k of all relevant ids sorted by grade. Notes: 0.0 when nothing is relevant.

    >>> round(ndcg_at_k(["x", "d1"], {"d1": 1}, 2), 6)
    0.63093
    """
    ideal = _dcg_prefix(_ideal_grades(gold)[:k])
    return _ndcg(_dcg_prefix(gold.get(doc, 0) for doc in ranked[:k]), ideal, k)


def retrieval_scores(
    ranked: Iterable[Any], gold: Gold | None, ks: Sequence[int] = DEFAULT_KS
) -> dict[str, float | None]:
    """Every metric of :func:`metric_names` for one ranking; all ``None`` when *gold* is ``None``.

    A retrieved id listed twice counts once, at its first rank; an example with an empty gold list scores 0
    everywhere, one with no gold field (``None``) is not scored.

    >>> retrieval_scores(["a", "b"], {"b": 1}, (1,))
    {'mrr': 0.5, 'recall@1': 0.0, 'precision@1': 0.0, 'hit@1': 0.0, 'ndcg@1': 0.0}
    """
    if gold is None:
        return dict.fromkeys(metric_names(ks))
    docs = first_occurrences(ranked)
    # One pass over the ranking for every k: the same sums as the single-metric functions above.
    depth = max(ks, default=0)
    grades = [gold.get(doc, 0) for doc in docs[:depth]]
    hits_prefix = [0]
    for g in grades:
        hits_prefix.append(hits_prefix[-1] + (g > 0))
    dcg = _dcg_prefix(grades)
    ideal_grades = _ideal_grades(gold)
    ideal = _dcg_prefix(ideal_grades[:depth])
    n_rel = len(ideal_grades)
    out: dict[str, float | None] = {"mrr": reciprocal_rank(docs, gold)}
    for k in ks:
        hits = hits_prefix[min(k, len(hits_prefix) - 1)]
        out[f"recall@{k}"] = hits / n_rel if n_rel else 0.0
        out[f"precision@{k}"] = hits / k
        out[f"hit@{k}"] = 1.0 if hits else 0.0
        out[f"ndcg@{k}"] = _ndcg(dcg, ideal, k)
    return out


def mark_relevant(relevant_ids: Sequence[str] | None, doc_id: str, relevant: bool) -> tuple[str, ...]:
    """A person's judgement of one retrieved chunk, folded into the gold list (order kept).

    >>> mark_relevant(("d1",), "d2", True), mark_relevant(("d1", "d2"), "d1", False)
    (('d1', 'd2'), ('d2',))
    """
    current = tuple(relevant_ids or ())
    if relevant:
        return current if doc_id in current else current + (doc_id,)
    return tuple(d for d in current if d != doc_id)


def _by_system(value: Any) -> dict[str, list[str]]:
    if isinstance(value, str):  # a loader keeps mixed-type columns as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if not isinstance(value, Mapping):
        return {}
    return {str(name): [str(d) for d in ids] for name, ids in value.items() if ids is not None}


def systems_of(retrieved_ids: Sequence[Any] | None, by_system: Any = None) -> dict[str, list[str]]:
    """The named rankings of one example: ``retrieved_ids_by_system`` when given, else
    ``retrieved_ids`` under the name ``default``.

    >>> systems_of(["a"], {"bm25": ["b"], "dense": None})
    {'bm25': ['b']}
    >>> systems_of(["a"])
    {'default': ['a']}
    """
    systems = _by_system(by_system)
    if systems:
        return systems
    return {} if retrieved_ids is None else {DEFAULT_SYSTEM: [str(d) for d in retrieved_ids]}


def example_gold(example: Example, labels: Labels | None = None) -> dict[str, int] | None:
    """The gold judgements of *example* under *labels* (default: its own labels).

    Without an override (``labels.relevant_ids is None``): ``relevant_ids`` with the ``extra``
    grades. With one, the person's list is the relevant set: an id keeps its graded weight when it
    had one >= 1, else grade 1; ids left out are not relevant.

    >>> from ragviz.data.model import Example as E
    >>> ex = E("q", "d", "", (), (), "", (), relevant_ids=("a", "b"), extra={"relevant_grades": [2, 0]})
    >>> example_gold(ex, Labels(relevant_ids=("b", "c", "a")))
    {'b': 1, 'c': 1, 'a': 2}
    """
    labels = example.labels if labels is None else labels
    original = gold_grades(example.relevant_ids, example.extra.get(GRADES_FIELD))
    override = labels.relevant_ids if labels is not None else None
    if override is None:
        return original
    known = original or {}
    return {str(d): max(known.get(str(d), 1), 1) for d in override}


def example_retrieval(
    example: Example, ks: Sequence[int] = DEFAULT_KS, labels: Labels | None = None
) -> dict[str, dict[str, float | None]]:
    """Scores per system for one example, gold from :func:`example_gold` (*labels* default: its own)."""
    gold = example_gold(example, labels)
    systems = systems_of(example.retrieved_ids, example.extra.get(BY_SYSTEM_FIELD))
    return {name: retrieval_scores(ranked, gold, ks) for name, ranked in systems.items()}


ROW_COLUMNS = ("id", "retrieved_ids", "relevant_ids", GRADES_FIELD, BY_SYSTEM_FIELD, "dataset_name", "_path", "_row")


def family_records(
    rows: Iterable[Mapping[str, Any]], datasets: Sequence[str] | None = None, ks: Sequence[int] = DEFAULT_KS
) -> Iterator[dict]:
    """One record per (example, system): ``id``, ``dataset``, ``system`` and :func:`metric_names`.

    Rows without any retrieved ranking yield nothing (there is no system to score). Grades that do
    not match the gold ids raise ``ValueError`` as ``PATH:ROW: relevant_grades: problem``."""
    for i, row in enumerate(rows):
        dataset = datasets[i] if datasets is not None else str(row.get("dataset_name") or "")
        try:
            gold = gold_grades(row.get("relevant_ids"), row.get(GRADES_FIELD))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{row.get('_path', '')}:{row.get('_row', i + 1)}: {exc}") from None
        for system, ranked in systems_of(row.get("retrieved_ids"), row.get(BY_SYSTEM_FIELD)).items():
            yield {
                "id": "" if row.get("id") is None else str(row["id"]),
                "dataset": dataset,
                "system": system,
                **retrieval_scores(ranked, gold, ks),
            }


def compare_systems(records: Iterable[Mapping[str, Any]], ks: Sequence[int] = DEFAULT_KS) -> list[dict[str, Any]]:
    """Side-by-side table: one row per system (sorted by name) with ``n`` scored examples and the
    mean of each metric over the examples it scored (unscored examples, gold ``None``, left out).

    .. math:: \\bar m_s = \\frac{1}{n_s} \\sum_{e \\text{ scored by } s} m_{s,e}
    """
    from ragviz.metrics.summary import summarize

    names = metric_names(ks)
    groups = summarize(records, names, group_by="system")
    return [
        {"system": g.group, "n": g.n - g.n_unlabeled, **{n: g.mean(n) for n in names}}
        for g in groups[:-1]  # the last group is summarize's overall "ALL"
        if g.n > g.n_unlabeled
    ]
