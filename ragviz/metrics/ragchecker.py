"""RagChecker's 11 claim-level metrics, recomputed from the checked claims of an item (:class:`ClaimChecks` gives
the notation every formula here uses).

Every formula and every edge case is RagChecker's (``ragchecker/computation.py``, v0.1.9): a metric
whose inputs are empty (no claims on a side it needs, or no chunks) is 0.0, never undefined. The
aggregate of a metric is the mean over items; RagChecker reports it x100 rounded to one decimal
(:func:`reported`).

References: Ru et al., "RAGChecker: A Fine-grained Framework for Diagnosing Retrieval-Augmented
Generation", NeurIPS 2024 Datasets and Benchmarks (arXiv:2408.08067).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ragviz.data.checked_claims import ENTAILMENT, CheckedItem

__all__ = [
    "ClaimChecks",
    "METRIC_GROUPS",
    "Matrix",
    "RAGCHECKER_METRICS",
    "RagCheckerScores",
    "Vector",
    "aggregate",
    "aggregate_reported",
    "checks_of",
    "claim_recall",
    "context_precision",
    "context_utilization",
    "f1",
    "faithfulness",
    "family_records",
    "hallucination",
    "item_scores",
    "noise_sensitivity",
    "noise_sensitivity_in_irrelevant",
    "noise_sensitivity_in_relevant",
    "precision",
    "ragchecker_scores",
    "recall",
    "relevant_chunks",
    "reported",
    "self_knowledge",
    "unfaithfulness",
]


RAGCHECKER_METRICS = (
    "precision",
    "recall",
    "f1",
    "claim_recall",
    "context_precision",
    "context_utilization",
    "noise_sensitivity_in_relevant",
    "noise_sensitivity_in_irrelevant",
    "hallucination",
    "self_knowledge",
    "faithfulness",
)
METRIC_GROUPS = {
    "overall": ("precision", "recall", "f1"),
    "retriever": ("claim_recall", "context_precision"),
    "generator": RAGCHECKER_METRICS[5:],
}

Vector = Sequence[bool]
Matrix = Sequence[Sequence[bool]]


def _mean(flags: Iterable[bool], n: int) -> float:
    return sum(flags) / n


def precision(a2r: Vector) -> float:
    """Share of response claims that the gt answer entails.

    .. math:: \\mathrm{precision} = \\frac{1}{R}\\sum_i a2r_i

    Notes: 0.0 when there is no response claim.

    >>> precision([True, True, False, True])
    0.75
    >>> precision([])
    0.0
    """
    return _mean(a2r, len(a2r)) if a2r else 0.0


def recall(r2a: Vector) -> float:
    """Share of gt claims that the response entails.

    .. math:: \\mathrm{recall} = \\frac{1}{G}\\sum_j r2a_j

    Notes: 0.0 when there is no gt claim.

    >>> recall([True, False])
    0.5
    """
    return _mean(r2a, len(r2a)) if r2a else 0.0


def f1(precision_value: float, recall_value: float) -> float:
    """Harmonic mean of precision and recall.

    .. math:: F_1 = \\frac{2 P R}{P + R}

    Notes: 0.0 unless both are positive.

    >>> f1(0.8, 0.75)
    0.7741935483870969
    >>> f1(0.0, 1.0)
    0.0
    """
    if precision_value > 0 and recall_value > 0:
        return 2 * precision_value * recall_value / (precision_value + recall_value)
    return 0.0


def claim_recall(c2a: Matrix, n_chunks: int) -> float:
    """Share of gt claims entailed by at least one retrieved chunk.

    .. math:: \\mathrm{claim\\_recall} = \\frac{1}{G}\\sum_j \\max_c c2a_{jc}

    Notes: 0.0 when there is no gt claim or no chunk.

    >>> claim_recall([[True, False], [False, False]], 2)
    0.5
    """
    if not c2a or n_chunks == 0:
        return 0.0
    return _mean((any(row) for row in c2a), len(c2a))


def relevant_chunks(c2a: Matrix, n_chunks: int) -> list[bool]:
    """Per chunk: does it entail at least one gt claim (:math:`\\max_j c2a_{jc}`)?"""
    return [any(row[c] for row in c2a) for c in range(n_chunks)]


def context_precision(c2a: Matrix, n_chunks: int) -> float:
    """Share of retrieved chunks that entail at least one gt claim.

    .. math:: \\mathrm{context\\_precision} = \\frac{1}{C}\\sum_c \\max_j c2a_{jc}

    Notes: 0.0 when there is no gt claim or no chunk.

    >>> context_precision([[True, False, False], [True, False, True]], 3)
    0.6666666666666666
    """
    if not c2a or n_chunks == 0:
        return 0.0
    return _mean(relevant_chunks(c2a, n_chunks), n_chunks)


def context_utilization(c2a: Matrix, r2a: Vector, n_chunks: int) -> float:
    """Of the gt claims that retrieval recalled, the share the response also covers.

    .. math:: \\mathrm{context\\_utilization} =
        \\frac{\\sum_j (\\max_c c2a_{jc}) \\wedge r2a_j}{\\sum_j \\max_c c2a_{jc}}

    Notes: 0.0 when there is no gt claim, no chunk, or no recalled claim.

    >>> context_utilization([[True], [True], [False]], [True, False, True], 1)
    0.5
    """
    if not c2a or n_chunks == 0:
        return 0.0
    recalled = [any(row) for row in c2a]
    n_recalled = sum(recalled)
    if n_recalled == 0:
        return 0.0
    return sum(rc and used for rc, used in zip(recalled, r2a)) / n_recalled


def noise_sensitivity(c2r: Matrix, a2r: Vector, c2a: Matrix, n_chunks: int) -> tuple[float, float]:
    """Shares of response claims that are incorrect yet entailed by a relevant chunk (*in relevant*)
    or, exclusively, only by irrelevant chunks (*in irrelevant*).

    .. math::
        \\mathrm{rel}_c = \\max_j c2a_{jc}, \\quad
        f^{rel}_i = \\max_c (\\mathrm{rel}_c \\wedge c2r_{ic}), \\quad
        f^{irr}_i = \\max_c (\\neg\\mathrm{rel}_c \\wedge c2r_{ic}) \\wedge \\neg f^{rel}_i

        \\mathrm{NS}_{rel} = \\frac{1}{R}\\sum_i f^{rel}_i \\wedge \\neg a2r_i, \\quad
        \\mathrm{NS}_{irr} = \\frac{1}{R}\\sum_i f^{irr}_i \\wedge \\neg a2r_i

    Notes: both 0.0 when there is no response claim, no gt claim or no chunk.

    >>> noise_sensitivity([[True, False], [False, True]], [False, False], [[True, False]], 2)
    (0.5, 0.5)
    """
    if not a2r or n_chunks == 0 or not c2a:
        return 0.0, 0.0
    relevant = relevant_chunks(c2a, n_chunks)
    in_relevant = in_irrelevant = 0
    for row, correct in zip(c2r, a2r):
        if correct:
            continue
        if any(e and rel for e, rel in zip(row, relevant)):
            in_relevant += 1
        elif any(e and not rel for e, rel in zip(row, relevant)):
            in_irrelevant += 1
    n = len(a2r)
    return in_relevant / n, in_irrelevant / n


def noise_sensitivity_in_relevant(c2r: Matrix, a2r: Vector, c2a: Matrix, n_chunks: int) -> float:
    """:math:`\\mathrm{NS}_{rel}` of :func:`noise_sensitivity`.

    >>> noise_sensitivity_in_relevant([[True]], [False], [[True]], 1)
    1.0
    """
    return noise_sensitivity(c2r, a2r, c2a, n_chunks)[0]


def noise_sensitivity_in_irrelevant(c2r: Matrix, a2r: Vector, c2a: Matrix, n_chunks: int) -> float:
    """:math:`\\mathrm{NS}_{irr}` of :func:`noise_sensitivity`.

    >>> noise_sensitivity_in_irrelevant([[True]], [False], [[False]], 1)
    1.0
    """
    return noise_sensitivity(c2r, a2r, c2a, n_chunks)[1]


def unfaithfulness(c2r: Matrix, a2r: Vector, n_chunks: int) -> tuple[float, float]:
    """Shares of response claims entailed by no chunk that are incorrect (*hallucination*) or
    correct (*self-knowledge*).

    .. math::
        u_i = \\neg \\max_c c2r_{ic}, \\quad
        \\mathrm{hallucination} = \\frac{1}{R}\\sum_i u_i \\wedge \\neg a2r_i, \\quad
        \\mathrm{self\\_knowledge} = \\frac{1}{R}\\sum_i u_i \\wedge a2r_i

    Notes: both 0.0 when there is no response claim or no chunk.

    >>> unfaithfulness([[False], [False], [True]], [False, True, False], 1)
    (0.3333333333333333, 0.3333333333333333)
    """
    if not a2r or n_chunks == 0:
        return 0.0, 0.0
    hallucinated = known = 0
    for row, correct in zip(c2r, a2r):
        if not any(row):
            if correct:
                known += 1
            else:
                hallucinated += 1
    n = len(a2r)
    return hallucinated / n, known / n


def hallucination(c2r: Matrix, a2r: Vector, n_chunks: int) -> float:
    """First value of :func:`unfaithfulness`.

    >>> hallucination([[False]], [False], 1)
    1.0
    """
    return unfaithfulness(c2r, a2r, n_chunks)[0]


def self_knowledge(c2r: Matrix, a2r: Vector, n_chunks: int) -> float:
    """Second value of :func:`unfaithfulness`.

    >>> self_knowledge([[False]], [True], 1)
    1.0
    """
    return unfaithfulness(c2r, a2r, n_chunks)[1]


def faithfulness(c2r: Matrix, n_chunks: int) -> float:
    """Share of response claims entailed by at least one chunk.

    .. math:: \\mathrm{faithfulness} = \\frac{1}{R}\\sum_i \\max_c c2r_{ic}

    Notes: 0.0 when there is no response claim or no chunk.

    >>> faithfulness([[True, False], [False, False]], 2)
    0.5
    """
    if not c2r or n_chunks == 0:
        return 0.0
    return _mean((any(row) for row in c2r), len(c2r))


@dataclass(frozen=True)
class ClaimChecks:
    """The four checks of one item as booleans.

    Notation for one item, with every label already turned into a boolean (only ``"Entailment"`` is
    true): *R* response claims, *G* reference-answer (gt) claims, *C* retrieved chunks;

    * ``a2r[i]``   — response claim *i* is entailed by the gt answer (the claim is *correct*);
    * ``r2a[j]``   — gt claim *j* is entailed by the response;
    * ``c2r[i][c]`` — response claim *i* is entailed by chunk *c*;
    * ``c2a[j][c]`` — gt claim *j* is entailed by chunk *c*.

    Derived: a gt claim is *recalled* by retrieval when some chunk entails it; a chunk is *relevant*
    when it entails some gt claim; a response claim is *faithful* when some chunk entails it.
    """

    a2r: tuple[bool, ...]
    r2a: tuple[bool, ...]
    c2r: tuple[tuple[bool, ...], ...]
    c2a: tuple[tuple[bool, ...], ...]
    n_chunks: int


def checks_of(item: CheckedItem) -> ClaimChecks:
    """Labels -> booleans: exactly ``"Entailment"`` is true (``"entailment"`` or ``"Neutral"`` are not)."""
    e = ENTAILMENT
    return ClaimChecks(
        a2r=tuple(label == e for label in item.answer2response),
        r2a=tuple(label == e for label in item.response2answer),
        c2r=tuple(tuple(label == e for label in row) for row in item.retrieved2response),
        c2a=tuple(tuple(label == e for label in row) for row in item.retrieved2answer),
        n_chunks=item.n_chunks,
    )


@dataclass(frozen=True)
class RagCheckerScores:
    precision: float
    recall: float
    f1: float
    claim_recall: float
    context_precision: float
    context_utilization: float
    noise_sensitivity_in_relevant: float
    noise_sensitivity_in_irrelevant: float
    hallucination: float
    self_knowledge: float
    faithfulness: float

    def as_dict(self) -> dict[str, float]:
        return dict(vars(self))


def ragchecker_scores(checks: ClaimChecks) -> RagCheckerScores:
    """All 11 values of one item (the single per-item source; aggregates average these)."""
    p = precision(checks.a2r)
    r = recall(checks.r2a)
    ns_rel, ns_irr = noise_sensitivity(checks.c2r, checks.a2r, checks.c2a, checks.n_chunks)
    hallu, known = unfaithfulness(checks.c2r, checks.a2r, checks.n_chunks)
    return RagCheckerScores(
        precision=p,
        recall=r,
        f1=f1(p, r),
        claim_recall=claim_recall(checks.c2a, checks.n_chunks),
        context_precision=context_precision(checks.c2a, checks.n_chunks),
        context_utilization=context_utilization(checks.c2a, checks.r2a, checks.n_chunks),
        noise_sensitivity_in_relevant=ns_rel,
        noise_sensitivity_in_irrelevant=ns_irr,
        hallucination=hallu,
        self_knowledge=known,
        faithfulness=faithfulness(checks.c2r, checks.n_chunks),
    )


def item_scores(item: CheckedItem) -> RagCheckerScores:
    """The 11 values of a checked item, recomputed from its labels."""
    return ragchecker_scores(checks_of(item))


def reported(value: float) -> float:
    """RagChecker's display of an aggregate: x100, rounded to one decimal the way NumPy does
    (``rint(x * 10) / 10``, ties to even), so ragviz prints the same digits.

    >>> reported(0.7636363636363637), reported(0.0)
    (76.4, 0.0)
    """
    return round(value * 100 * 10) / 10


def aggregate(scores: Sequence[RagCheckerScores]) -> dict[str, float]:
    """Mean of each metric over items (0.0 for no item). Sums with :func:`math.fsum`.

    .. math:: \\bar m = \\frac{1}{n}\\sum_k m_k
    """
    if not scores:
        return {name: 0.0 for name in RAGCHECKER_METRICS}
    n = len(scores)
    return {name: math.fsum(getattr(s, name) for s in scores) / n for name in RAGCHECKER_METRICS}


def aggregate_reported(scores: Sequence[RagCheckerScores]) -> dict[str, float]:
    """The aggregate the way RagChecker prints it (x100, one decimal)."""
    return {name: reported(value) for name, value in aggregate(scores).items()}


def family_records(items: Iterable[CheckedItem]) -> Iterator[dict]:
    """One record per item: ``id`` (query_id), ``dataset`` (file stem) and the 11 values."""
    for item in items:
        yield {"id": item.query_id, "dataset": item.dataset, **item_scores(item).as_dict()}
