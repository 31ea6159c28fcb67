"""The Dashboard's subset means in words: the caption under the chart (the means drawn as rings: too few examples, or
all equal) and the table under it, each mean with its interval or what it says instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ragviz.analysis.coverage import MIN_EXAMPLES
from ragviz.ui.core import render

__all__ = ["means_table", "no_interval_words"]


def _no_interval(row: Mapping[str, Any]) -> bool:
    return row.get("mean") is not None and row.get("low") is None


def no_interval_words(rows: Sequence[Mapping[str, Any]]) -> str:
    """What the rings of the subset-means chart say (the means without an interval), ``""`` when every mean has one.

    >>> no_interval_words([{"dataset": "med", "metric": "relevance", "mean": 0.5, "low": None, "n": 25}])
    'Ring: no interval. Every example of the subset has the same value, and resampling equal values says nothing: med relevance (25 examples, all 0.500).'
    >>> no_interval_words([{"dataset": "med", "metric": "relevance", "mean": 0.4, "low": None, "n": 5,
    ...                     "too_few": "too few examples to say (5 of 20)"}])
    'Ring: no interval. Too few examples to say (an interval from 20): med (5 examples).'
    """
    few = [r for r in rows if _no_interval(r) and r.get("too_few")]
    equal = [r for r in rows if _no_interval(r) and not r.get("too_few")]
    parts = []
    if few:
        metrics_of: dict[str, list[str]] = {}
        for r in rows:
            metrics_of.setdefault(str(r["dataset"]), []).append(str(r["metric"]))
        groups: dict[tuple[str, Any], list[str]] = {}
        for r in few:
            groups.setdefault((str(r["dataset"]), r.get("n")), []).append(str(r["metric"]))
        said = [
            render.md_escape(name if metrics == metrics_of[name] else f"{name} {', '.join(metrics)}")
            + f" ({n} example{'' if n == 1 else 's'})"
            for (name, n), metrics in groups.items()
        ]
        parts.append(f"Too few examples to say (an interval from {MIN_EXAMPLES}): {'; '.join(said)}.")
    if equal:
        shown = [
            f"{render.md_escape(str(r['dataset']))} {render.md_escape(str(r['metric']))} "
            + (f"(1 example, {r['mean']:.3f})" if r.get("n") == 1 else f"({r.get('n')} examples, all {r['mean']:.3f})")
            for r in equal
        ]
        parts.append(
            "Every example of the subset has the same value, and resampling equal values says nothing: "
            f"{'; '.join(shown)}."
        )
    return "Ring: no interval. " + " ".join(parts) if parts else ""


def means_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The subset means as the table under the chart shows them: the interval in words (``"none: all 5 equal"``
    where there is none, never ``None``)."""

    def interval(r: Mapping[str, Any]) -> str:
        if r.get("mean") is None:
            return "no values"
        if _no_interval(r) and r.get("too_few"):
            return str(r["too_few"])
        if _no_interval(r):
            return "none: one example" if r.get("n") == 1 else f"none: all {r.get('n')} equal"
        return f"{r['low']:.3f} – {r['high']:.3f}"

    return pd.DataFrame(
        [
            {"subset": r["dataset"], "metric": r["metric"], "n": r.get("n"), "mean": r.get("mean"),
             "95% interval": interval(r)}
            for r in rows
        ],
        columns=["subset", "metric", "n", "mean", "95% interval"],
    )  # fmt: skip
