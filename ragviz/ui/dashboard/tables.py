"""The Dashboard's figure tables shaped to fit the page at 1280 px beside the sidebar (818 px): one row per figure or
per judge instead of a column per figure and label kind. Pure functions: no Streamlit."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ragviz.analysis.dashboard.baselines import BASELINE_JUDGES
from ragviz.analysis.dashboard.figures import AGREEMENT_COLUMNS, INTERVAL_COLUMNS

__all__ = ["BASELINE_FIGURES", "baselines_by_judge", "trust_table"]


_COUNTS = ("decisions", "TP", "FP", "FN", "TN")


def _figure_text(value: Any, figure: str) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    return f"{int(value):,}" if figure in _COUNTS else f"{value:.3f}"


def trust_table(rows: list[dict[str, Any]], intervals: bool = True) -> pd.DataFrame:
    """The judge-vs-people figures (:func:`ragviz.analysis.dashboard.figures.agreement_rows`, one row per label kind)
    one row per figure, a column per label kind, each followed by its 95 % interval when *intervals*: 16 columns side
    by side ran ~280 px past the page at 1280 px; four label kinds fit.

    >>> rows = [{"label": "relevant", "decisions": 12, "Cohen's κ": 0.5, "κ 95%": "0.10 – 0.80", "TP": 3}]
    >>> trust_table(rows).to_dict("records")[:2]
    [{'Figure': 'decisions', 'relevant': '12', 'relevant 95%': ''}, {'Figure': "Cohen's κ", 'relevant': '0.500', 'relevant 95%': '0.10 – 0.80'}]
    """
    of_figure = {AGREEMENT_COLUMNS[key]: title for key, title in INTERVAL_COLUMNS.items()}
    figures = [f for f in AGREEMENT_COLUMNS.values() if any(f in r for r in rows)]
    out = []
    for figure in figures:
        line: dict[str, Any] = {"Figure": figure}
        for r in rows:
            line[r["label"]] = _figure_text(r.get(figure), figure)
            if intervals:
                line[f"{r['label']} 95%"] = r.get(of_figure[figure], "") if figure in of_figure else ""
        out.append(line)
    return pd.DataFrame(out)


#: A baseline judge's figures: the key after ``<judge>_`` in :func:`ragviz.analysis.dashboard.figures.baseline_rows`
#: -> the column title.
BASELINE_FIGURES = {
    "hallucination_auroc": "hallucination AUROC",
    "relevance_rmse": "relevance RMSE",
    "utilization_rmse": "utilization RMSE",
}


def baselines_by_judge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The baseline-judge table (one row per subset, ``<judge>_<figure>`` columns: 11 ran ~480 px past the page) one
    row per subset and judge, a column per figure (``None`` where the judge has none).

    >>> baselines_by_judge([{"dataset": "covidqa_test", "n": 3, "ragas_hallucination_auroc": 0.6,
    ...     "ragas_relevance_rmse": 0.2}])
    [{'dataset': 'covidqa_test', 'n': 3, 'judge': 'RAGAS', 'hallucination AUROC': 0.6, 'relevance RMSE': 0.2, 'utilization RMSE': None}]
    """
    out = []
    for row in rows:
        for judge in BASELINE_JUDGES:
            if not any(k.startswith(f"{judge.key}_") for k in row):
                continue
            line: dict[str, Any] = {"dataset": row["dataset"], "n": row["n"], "judge": judge.title}
            for key, title in BASELINE_FIGURES.items():
                line[title] = row.get(f"{judge.key}_{key}")
            out.append(line)
    return out
