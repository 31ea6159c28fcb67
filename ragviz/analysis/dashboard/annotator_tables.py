"""The Dashboard's tables of agreement between annotators: Fleiss' kappa per label over the examples every annotator
decided on, Cohen's kappa per pair (the figures from :mod:`ragviz.analysis.agreement`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragviz.analysis.agreement import MultiRaterKappa, PairKappa

__all__ = ["fleiss_rows", "fleiss_shown", "pair_rows"]


def fleiss_rows(overall: Sequence[MultiRaterKappa]) -> list[dict[str, Any]]:
    """One row per label: Fleiss' kappa over the examples every annotator decided on."""
    return [
        {
            "label": m.label,
            "annotators": m.n_raters,
            "shared examples": m.n_examples,
            "decisions": m.n_decisions,
            "Fleiss' κ": m.kappa,
        }
        for m in overall
    ]


def fleiss_shown(overall: Sequence[MultiRaterKappa]) -> list[dict[str, Any]]:
    """:func:`fleiss_rows` as a table shows them: κ with three decimals, or ``—`` and why there is none (with
    overlap 2 in a team of three no example is decided by everyone).

    >>> fleiss_shown([MultiRaterKappa("relevant", 3, 0, 0, None)])[0]["why no κ"]
    'no example was decided by all 3 annotators'
    >>> fleiss_shown([MultiRaterKappa("relevant", 3, 4, 20, 0.5)])[0]["Fleiss' κ"]
    '0.500'
    """
    out = []
    for row, m in zip(fleiss_rows(overall), overall, strict=True):
        why = ""
        if m.kappa is None:
            why = (
                f"no example was decided by all {m.n_raters} annotators"
                if m.n_examples == 0
                else "undefined: every decision on the shared examples is the same"
            )
        out.append({**row, "Fleiss' κ": "—" if m.kappa is None else f"{m.kappa:.3f}", "why no κ": why})
    if not any(r["why no κ"] for r in out):
        out = [{k: v for k, v in r.items() if k != "why no κ"} for r in out]
    return out


def pair_rows(pairs: Sequence[PairKappa]) -> list[dict[str, Any]]:
    """One row per annotator pair and label: Cohen's kappa over the examples both decided on."""
    return [
        {
            "annotator A": p.rater_a,
            "annotator B": p.rater_b,
            "label": p.label,
            "shared examples": p.n_examples,
            "decisions": p.n_decisions,
            "Cohen's κ": p.kappa,
        }
        for p in pairs
    ]
