"""Agreement between label sets of the same examples: judge vs human, annotator vs annotator,
judge v1 vs judge v2. One label set is the *reference* (taken as the truth), the other the *candidate*; every
comparison is made on the binary decisions a label set makes at sentence level (:func:`decisions`).

The per-example scores always come from :func:`ragviz.metrics.trace.trace_scores`; this module only compares them.
Cohen's kappa and AUROC are :mod:`ragviz.analysis.stats`' (scikit-learn's figures, checked in tests).

The module reads best whole: the decisions, the one pass that collects them (figures and their intervals alike,
:mod:`ragviz.analysis.figure_intervals`) and the several-rater figures share one table of decisions.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.figure_intervals import FigureInterval, confusion_intervals, resample_sums, rmse_interval
from ragviz.analysis.stats import Confusion, cohen_kappa, confusion, fleiss_kappa, rmse
from ragviz.data.dataset import Dataset
from ragviz.data.keys import clean_key
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.trace import TraceScores, trace_scores
from ragviz.store.label_store import LabelStore

__all__ = [
    "ADHERENT",
    "Agreement",
    "AnnotatorAgreement",
    "BINARY_LABELS",
    "Decisions",
    "LabelAgreement",
    "MultiRaterKappa",
    "PairKappa",
    "RELEVANT",
    "SCORE_METRICS",
    "SENTENCE_LABELS",
    "SUPPORTED",
    "ScoreAgreement",
    "UTILIZED",
    "agreement",
    "annotator_label_sets",
    "decisions",
    "kappa_matrix",
    "multi_rater_kappas",
    "pairwise_kappas",
]


RELEVANT = "relevant"
UTILIZED = "utilized"
SUPPORTED = "supported"
ADHERENT = "adherent"
SENTENCE_LABELS = (RELEVANT, UTILIZED, SUPPORTED)
BINARY_LABELS = (*SENTENCE_LABELS, ADHERENT)
SCORE_METRICS = ("relevance", "utilization", "completeness")


# -- small statistics --------------------------------------------------------------------------------


# -- decisions of one label set ------------------------------------------------------------------------


@dataclass(frozen=True)
class Decisions:
    """The binary decisions one label set makes on one example, keyed by sentence key
    (``adherent`` under the key ``""``)."""

    relevant: dict[str, bool]
    utilized: dict[str, bool]
    supported: dict[str, bool]
    adherent: bool
    scores: TraceScores

    def of(self, label: str) -> dict[str, bool]:
        if label == ADHERENT:
            return {"": self.adherent}
        return getattr(self, label)


def decisions(example: Example, labels: Labels) -> Decisions:
    """Sentence-level decisions of *labels* on *example*:

    =============  ====================================================  ===========================
    label          one decision per                                      positive when
    =============  ====================================================  ===========================
    ``relevant``   context sentence of the example                       key in the relevant list
    ``utilized``   context sentence of the example                       key in the utilized list
    ``supported``  response sentence of the example                      key not counted unsupported
    ``adherent``   example                                               TRACe adherence is 1
    =============  ====================================================  ===========================

    Keys are matched after :func:`ragviz.data.keys.clean_key` (``"0b."`` counts as ``"0b"``); a key that names
    no sentence of the example makes no decision.
    """
    context = example.context_keys()
    relevant = {clean_key(k) for k in labels.relevant_keys}
    utilized = {clean_key(k) for k in labels.utilized_keys}
    unsupported = {clean_key(k) for k in unsupported_keys(labels)}
    scores = trace_scores(labels, example.n_context_sentences)
    return Decisions(
        relevant={k: k in relevant for k in context},
        utilized={k: k in utilized for k in context},
        supported={k: k not in unsupported for k in example.response_keys()},
        adherent=scores.adherence == 1.0,
        scores=scores,
    )


# -- agreement of two label sets -----------------------------------------------------------------------


@dataclass(frozen=True)
class LabelAgreement:
    """One binary label compared over every decision: confusion counts, Cohen's kappa, and the
    candidate's precision / recall / F1 against the reference."""

    label: str
    confusion: Confusion
    kappa: float | None
    #: Each figure's 95 % interval (:mod:`ragviz.analysis.figure_intervals`), by the keys of :meth:`as_dict`.
    intervals: dict[str, FigureInterval] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        c = self.confusion
        out: dict[str, Any] = {
            "n": c.n,
            "kappa": self.kappa,
            "precision": c.precision,
            "recall": c.recall,
            "f1": c.f1,
            "accuracy": c.accuracy,
            **c.as_dict(),
        }
        for name, fi in self.intervals.items():
            if name in out:
                out[f"{name}_low"], out[f"{name}_high"] = fi.low, fi.high
        return out


@dataclass(frozen=True)
class ScoreAgreement:
    """One per-example score compared over the examples where both sides define it."""

    metric: str
    n: int
    rmse: float | None
    reference_mean: float | None
    candidate_mean: float | None
    #: RMSE's 95 % interval (:func:`ragviz.analysis.figure_intervals.rmse_interval`).
    rmse_interval: FigureInterval = field(default_factory=lambda: FigureInterval(None))


@dataclass(frozen=True)
class Agreement:
    """Everything :func:`agreement` measures between a reference and a candidate label set."""

    n_examples: int
    n_skipped: int
    labels: dict[str, LabelAgreement]
    scores: dict[str, ScoreAgreement]
    #: Below this many compared examples no figure has an interval (:func:`too_few`).
    minimum: int = MIN_REVIEWED

    @property
    def too_few(self) -> str | None:
        """``"too few reviewed to say (6 of 10)"`` below :attr:`minimum` compared examples, else ``None``."""
        return too_few_words(self.n_examples, self.minimum) if self.n_examples < self.minimum else None

    @property
    def adherence_accuracy(self) -> float | None:
        """Share of examples whose adherence (0/1) is the same under both label sets."""
        return self.labels[ADHERENT].confusion.accuracy

    def as_dict(self) -> dict[str, Any]:
        """Flat JSON-ready figures: ``relevant_kappa``, ``supported_f1``, ``relevance_rmse``, ..."""
        out: dict[str, Any] = {"n": self.n_examples, "n_skipped": self.n_skipped, "too_few": self.too_few}
        for name, la in self.labels.items():
            for k, v in la.as_dict().items():
                out[f"{name}_{k}"] = v
        for name, sa in self.scores.items():
            out[f"{name}_rmse"] = sa.rmse
            out[f"{name}_rmse_low"], out[f"{name}_rmse_high"] = sa.rmse_interval.low, sa.rmse_interval.high
        out["adherence_accuracy"] = self.adherence_accuracy
        return out


@dataclass
class _Collector:
    reference: dict[str, list[bool]] = field(default_factory=lambda: {k: [] for k in BINARY_LABELS})
    candidate: dict[str, list[bool]] = field(default_factory=lambda: {k: [] for k in BINARY_LABELS})
    score_pairs: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: {m: [] for m in SCORE_METRICS})
    # per example: (tp, fp, fn, tn) of each label, and each score's error (NaN where undefined)
    counts: dict[str, list[tuple[int, int, int, int]]] = field(default_factory=lambda: {k: [] for k in BINARY_LABELS})
    errors: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in SCORE_METRICS})

    def add(self, ref: Decisions, cand: Decisions) -> None:
        for label in BINARY_LABELS:
            r, c = ref.of(label), cand.of(label)
            row = [0, 0, 0, 0]
            for key, value in r.items():
                said = c.get(key, False)
                self.reference[label].append(value)
                self.candidate[label].append(said)
                row[(0 if said else 2) if value else (1 if said else 3)] += 1
            self.counts[label].append((row[0], row[1], row[2], row[3]))
        for m in SCORE_METRICS:
            a, b = getattr(ref.scores, m), getattr(cand.scores, m)
            if a is not None and b is not None:
                self.score_pairs[m].append((a, b))
            self.errors[m].append(float("nan") if a is None or b is None else b - a)


def agreement(items: Iterable[tuple[Example, Labels | None, Labels | None]], minimum: int = MIN_REVIEWED) -> Agreement:
    """Compare the candidate label set with the reference over ``(example, reference, candidate)``
    triples; a triple with either side ``None`` (unlabeled) is skipped and counted. Every figure gets its
    95 % interval from *minimum* compared examples on (:mod:`ragviz.analysis.figure_intervals`), over the
    examples: their sentence decisions were made together."""
    col = _Collector()
    n = skipped = 0
    for example, ref, cand in items:
        if ref is None or cand is None:
            skipped += 1
            continue
        n += 1
        col.add(decisions(example, ref), decisions(example, cand))
    counts = {label: np.asarray(col.counts[label], dtype=float).reshape(-1, 4) for label in BINARY_LABELS}
    # one bootstrap draw for every label kind (their counts side by side), only where intervals are said
    drawn = resample_sums(np.hstack(list(counts.values()))) if n >= max(minimum, 3) else None
    labels = {
        label: LabelAgreement(
            label,
            confusion(col.reference[label], col.candidate[label]),
            cohen_kappa(col.reference[label], col.candidate[label]),
            confusion_intervals(
                counts[label], None, minimum, sums=None if drawn is None else drawn[:, 4 * k : 4 * k + 4]
            )
            if n
            else {},
        )
        for k, label in enumerate(BINARY_LABELS)
    }
    scores = {}
    for m, pairs in col.score_pairs.items():
        refs, cands = [a for a, _ in pairs], [b for _, b in pairs]
        scores[m] = ScoreAgreement(
            m,
            len(pairs),
            rmse(refs, cands),
            sum(refs) / len(refs) if refs else None,
            sum(cands) / len(cands) if cands else None,
            rmse_interval(col.errors[m], minimum),
        )
    return Agreement(n, skipped, labels, scores, minimum)


# -- several raters --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of two raters on one label, over the examples both labelled."""

    rater_a: str
    rater_b: str
    label: str
    n_examples: int
    n_decisions: int
    kappa: float | None


@dataclass(frozen=True)
class MultiRaterKappa:
    """Fleiss' kappa of every rater on one label, over the examples all of them labelled."""

    label: str
    n_raters: int
    n_examples: int
    n_decisions: int
    kappa: float | None


def _aligned(example: Example, sets: Sequence[Labels], label: str) -> list[list[bool]]:
    """Per rater, their decisions on *label* in the same key order."""
    per_rater = [decisions(example, labels).of(label) for labels in sets]
    keys = list(per_rater[0])
    return [[d.get(k, False) for k in keys] for d in per_rater]


def pairwise_kappas(
    examples: Sequence[Example], raters: Mapping[str, Mapping[str, Labels]], labels: Sequence[str] = BINARY_LABELS
) -> list[PairKappa]:
    """Cohen's kappa for every pair of raters and every label. *raters* maps a rater's name to
    ``{example uid: labels}`` for the examples that rater labelled."""
    out = []
    names = sorted(raters)
    for a, b in itertools.combinations(names, 2):
        common = [e for e in examples if e.uid in raters[a] and e.uid in raters[b]]
        for label in labels:
            ra: list[bool] = []
            rb: list[bool] = []
            for e in common:
                da, db = _aligned(e, [raters[a][e.uid], raters[b][e.uid]], label)
                ra += da
                rb += db
            out.append(PairKappa(a, b, label, len(common), len(ra), cohen_kappa(ra, rb)))
    return out


def multi_rater_kappas(
    examples: Sequence[Example], raters: Mapping[str, Mapping[str, Labels]], labels: Sequence[str] = BINARY_LABELS
) -> list[MultiRaterKappa]:
    """Fleiss' kappa per label over the examples every rater in *raters* labelled (each sentence
    decision is one item with two categories)."""
    names = sorted(raters)
    common = [e for e in examples if all(e.uid in raters[n] for n in names)]
    out = []
    for label in labels:
        counts: list[list[int]] = []
        for e in common:
            per_rater = _aligned(e, [raters[n][e.uid] for n in names], label)
            for item in zip(*per_rater):
                yes = sum(item)
                counts.append([yes, len(names) - yes])
        kappa = fleiss_kappa(counts) if len(names) >= 2 else None
        out.append(MultiRaterKappa(label, len(names), len(common), len(counts), kappa))
    return out


# -- intervals -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Agreement between the annotators of a label store: Cohen's kappa per pair and label (over
    the examples both decided on) and Fleiss' kappa per label (over the examples all decided on)."""

    annotators: tuple[str, ...]
    n_examples: dict[str, int]
    pairs: list[PairKappa]
    overall: list[MultiRaterKappa]
    # a team's round: per annotator, the decided examples left out (not assigned to them), shown apart
    left_out: dict[str, int] = field(default_factory=dict)

    @property
    def has_pairs(self) -> bool:
        """Do at least two annotators share an example?"""
        return any(p.n_examples for p in self.pairs)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: annotators with their example counts, ``pairs`` and ``overall`` (Fleiss)."""
        return {
            "annotators": {a: self.n_examples[a] for a in self.annotators},
            "pairs": [
                {
                    "a": p.rater_a,
                    "b": p.rater_b,
                    "label": p.label,
                    "n_examples": p.n_examples,
                    "n_decisions": p.n_decisions,
                    "cohen_kappa": p.kappa,
                }
                for p in self.pairs
            ],
            "overall": [
                {
                    "label": m.label,
                    "n_raters": m.n_raters,
                    "n_examples": m.n_examples,
                    "n_decisions": m.n_decisions,
                    "fleiss_kappa": m.kappa,
                }
                for m in self.overall
            ],
            **({"left_out": dict(self.left_out)} if self.left_out else {}),
        }


def annotator_label_sets(
    dataset: Dataset,
    examples: Mapping[int, Example] | None,
    store: LabelStore,
    assigned: Mapping[str, Sequence[str]] | None = None,
    left_out: dict[str, int] | None = None,
) -> dict[str, dict[str, Labels]]:
    """Per annotator with a decision in *store*: ``{uid: current labels}`` of the loaded examples
    they decided on (edited or marked reviewed). Only those examples are built (*examples*: any
    already built, by row index). With *assigned* (a team's round: uid -> its annotators) only each
    annotator's decisions on the examples assigned to them count; the others are counted per annotator
    into *left_out*."""
    from ragviz.data.dataset import examples_at

    decisions: list[tuple[str, str, int]] = []
    for who in store.annotators():
        for uid, status in store.statuses(who).items():
            i = dataset.index_of(uid)
            if status.reviewed and i is not None:
                if assigned is not None and who not in assigned.get(uid, ()):
                    if left_out is not None:
                        left_out[who] = left_out.get(who, 0) + 1
                    continue
                decisions.append((who, uid, i))
    built = examples_at(dataset, sorted({i for _, _, i in decisions}), examples)
    raters: dict[str, dict[str, Labels]] = {}
    for who, uid, i in decisions:
        labels = store.current_labels(built[i], who)
        if labels is not None:
            raters.setdefault(who, {})[uid] = labels
    return raters


def kappa_matrix(pairs: Sequence[PairKappa]) -> list[dict[str, Any]]:
    """The rows of a pairwise-kappa matrix: each pair in both orders, with κ (``"—"`` when
    undefined) and the shared examples behind it as display text."""
    rows = []
    for p in pairs:
        text = "—" if p.kappa is None else f"{p.kappa:.2f}"
        shared = f"n={p.n_examples} ex."
        for a, b in ((p.rater_a, p.rater_b), (p.rater_b, p.rater_a)):
            rows.append(
                {
                    "label": p.label,
                    "a": a,
                    "b": b,
                    "kappa": p.kappa,
                    "kappa_text": text,
                    "n_text": shared,
                    "n_examples": p.n_examples,
                    "n_decisions": p.n_decisions,
                }
            )
    return rows
