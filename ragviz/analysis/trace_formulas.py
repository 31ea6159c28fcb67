"""Each TRACe formula of one example's labels with the sentence keys it counts: the Explainer's cards and the
stakeholder report's worked examples draw the same terms.

The values are :func:`ragviz.metrics.trace.trace_scores`'; the key lists only say *which* sentences make up the
numerator and the denominator of that value.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.trace import trace_scores

__all__ = ["FormulaTerm", "filled_formula", "formula_terms"]


@dataclass(frozen=True)
class FormulaTerm:
    """One metric: its value, the formula, and the keys counted above and below the line."""

    metric: str
    value: float | None
    formula: str
    numerator: tuple[str, ...]
    denominator: tuple[str, ...]
    note: str = ""


def formula_terms(example: Example, labels: Labels | None) -> list[FormulaTerm]:
    """The four TRACe formulas of *labels* on *example*, with the keys each counts (as stored:
    a duplicate key counts twice, as in the scores)."""
    if labels is None:
        return []
    scores = trace_scores(labels, example.n_context_sentences)
    every = tuple(example.context_keys())
    r, u = labels.relevant_keys, labels.utilized_keys
    both = tuple(k for k in dict.fromkeys(r) if k in set(u))
    unsupported = unsupported_keys(labels)
    return [
        FormulaTerm(
            "relevance", scores.relevance, "|R| / N", r, every, "R = relevant sentences, N = all context sentences"
        ),
        FormulaTerm("utilization", scores.utilization, "|U| / N", u, every, "U = sentences the response used"),
        FormulaTerm(
            "completeness",
            scores.completeness,
            "|R ∩ U| / |R|",
            both,
            r,
            "share of the relevant sentences the response used" + ("; 1 when nothing is relevant" if not r else ""),
        ),
        FormulaTerm(
            "adherence",
            scores.adherence,
            "0 if any response sentence is unsupported, else 1",
            unsupported,
            tuple(example.response_keys()),
            "above the line: unsupported response sentences; below: all response sentences",
        ),
    ]


def filled_formula(term: FormulaTerm, format_value: str) -> str:
    """The formula with the counts put in, e.g. ``4 / 12 = 0.333`` (*format_value*: the value as shown)."""
    if term.metric == "adherence":
        return f"{len(term.numerator)} unsupported of {len(term.denominator)} → {format_value}"
    if term.metric == "completeness" and not term.denominator:
        return f"no relevant sentence → {format_value}"
    return f"{len(term.numerator)} / {len(term.denominator)} = {format_value}"
