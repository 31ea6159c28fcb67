"""How far N samples of the judge agree with the label set kept (the first answer, at the run's own temperature).

Per sentence label: the share of the N samples (the kept one included) whose label of that sentence equals the
kept one: relevant and utilized for each context sentence, supported for each response sentence. Per TRACe
metric: ``1 - 2 * sd`` of the metric over the N samples (population sd). A metric in 0-1 has an sd of at most
0.5, so the confidence lies in 0-1: 1 when every sample gives the same value, 0 when half say 0 and half say 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.trace import TRACE_METRICS, trace_scores
from ragviz.store.judge_confidence import ExampleConfidence

__all__ = ["metric_confidence", "sample_confidence", "sentence_agreement"]


def metric_confidence(values: Sequence[float | None]) -> float | None:
    """``1 - 2 * sd`` of the values that are not ``None`` (``None`` when none is).

    >>> metric_confidence([1.0, 1.0, 1.0]), metric_confidence([1.0, 0.0]), metric_confidence([None, None])
    (1.0, 0.0, None)
    """
    present = [v for v in values if v is not None]
    if not present:
        return None
    return float(min(1.0, max(0.0, 1.0 - 2.0 * float(np.std(present)))))


def _share(kept: bool, others: Sequence[bool]) -> float:
    return (1 + sum(1 for o in others if o == kept)) / (1 + len(others))


def sentence_agreement(
    kept: Labels, others: Sequence[Labels], context_keys: Sequence[str], response_keys: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Per label kind, sentence key -> share of all samples (*kept* and *others*) agreeing with *kept*."""
    unsupported = [set(unsupported_keys(s)) for s in others]
    kept_unsupported = set(unsupported_keys(kept))
    return {
        "relevant": {k: _share(k in kept.relevant_keys, [k in s.relevant_keys for s in others]) for k in context_keys},
        "utilized": {k: _share(k in kept.utilized_keys, [k in s.utilized_keys for s in others]) for k in context_keys},
        "supported": {k: _share(k not in kept_unsupported, [k not in u for u in unsupported]) for k in response_keys},
    }


def sample_confidence(example: Example, kept: Labels, others: Sequence[Labels]) -> ExampleConfidence:
    """What *kept* and the *others* samples say of *example*: sentence agreement and each TRACe metric's confidence."""
    n = example.n_context_sentences
    scores = [trace_scores(s, n) for s in (kept, *others)]
    return ExampleConfidence(
        example.uid,
        1 + len(others),
        {m: metric_confidence([getattr(s, m) for s in scores]) for m in TRACE_METRICS},
        sentence_agreement(kept, others, example.context_keys(), example.response_keys()),
    )
