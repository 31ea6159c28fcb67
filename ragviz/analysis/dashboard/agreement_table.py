"""The Dashboard's judge-vs-people table: one row per label kind, κ, precision, recall, F1 and accuracy each followed
by its 95 % interval (or why there is none: :mod:`ragviz.analysis.figure_intervals`)."""

from __future__ import annotations

from typing import Any

from ragviz.analysis.agreement import Agreement
from ragviz.analysis.figure_intervals import FigureInterval

__all__ = ["AGREEMENT_COLUMNS", "INTERVAL_COLUMNS", "agreement_rows", "interval_text"]


# LabelAgreement.as_dict() key -> the Dashboard's column title
AGREEMENT_COLUMNS = {
    "n": "decisions",
    "kappa": "Cohen's κ",
    "precision": "precision",
    "recall": "recall",
    "f1": "F1",
    "accuracy": "accuracy",
    "tp": "TP",
    "fp": "FP",
    "fn": "FN",
    "tn": "TN",
}


#: The figures whose 95 % interval the Dashboard's table shows, in a text column after the figure.
INTERVAL_COLUMNS = {
    "kappa": "κ 95%",
    "precision": "precision 95%",
    "recall": "recall 95%",
    "f1": "F1 95%",
    "accuracy": "accuracy 95%",
}


def interval_text(fi: FigureInterval | None, digits: int = 2) -> str:
    """A figure's interval as the Dashboard writes it: ``"0.71 – 0.93"``, or why there is none
    (``"too few reviewed to say (6 of 10)"``); ``"—"`` where the figure itself is undefined.

    >>> interval_text(FigureInterval(0.8, 0.7, 0.9, "bootstrap")), interval_text(FigureInterval(1.0, state='too few reviewed to say (6 of 10)'))
    ('0.70 – 0.90', 'too few reviewed to say (6 of 10)')
    """
    if fi is None or fi.value is None:
        return "—"
    if fi.low is None or fi.high is None:
        return fi.state or "no interval"
    return f"{fi.low:.{digits}f} – {fi.high:.{digits}f}".replace("-", "−")


def agreement_rows(agreement: Agreement) -> list[dict[str, Any]]:
    """One row per binary label (:data:`ragviz.analysis.agreement.BINARY_LABELS`): the figures of
    :meth:`ragviz.analysis.agreement.LabelAgreement.as_dict` under the Dashboard's column titles, each figure of
    :data:`INTERVAL_COLUMNS` followed by its 95 % interval (:func:`interval_text`)."""
    rows = []
    for label, la in agreement.labels.items():
        figures = la.as_dict()
        row: dict[str, Any] = {"label": label}
        for key, title in AGREEMENT_COLUMNS.items():
            row[title] = figures[key]
            if key in INTERVAL_COLUMNS:
                row[INTERVAL_COLUMNS[key]] = interval_text(la.intervals.get(key))
        rows.append(row)
    return rows
