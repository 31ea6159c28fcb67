"""How the audit panels name whose labels are the truth: people's, or a judge version's (``judge:v2``), in the
headings, the estimates' names and the notes written of people's reviews."""

from __future__ import annotations

import re

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.ui.core.charts import ESTIMATORS

__all__ = ["estimator_names", "panel_title", "truth_name", "truth_words"]


def truth_words(text: str, against: LabelSelection) -> str:
    """*text* (the estimates' and comparison's notes, written of people's reviews) as said of *against*: against a
    judge version its labels are the audit, so ``too few reviewed`` / ``N reviewed answers`` / ``people reviewed``
    name that version (``too few labelled by judge version v2``); any other label set: *text* unchanged.

    >>> from ragviz.analysis.labelsets.selection import LabelSelection
    >>> truth_words("Too few reviewed to correct yet", LabelSelection.of_version("v2"))
    'Too few labelled by judge version v2 to correct yet'
    """
    if against.kind != "version":
        return text
    by = f"labelled by judge version {against.version}"
    for said, meant in (
        ("whose two answers people reviewed", f"whose two answers judge version {against.version} labelled"),
        ("reviewed by people", by),
        ("not reviewed yet: counted as judge-only until they are", f"not {by}: counted as judge-only"),
        (
            "(review them in the sample's order so the finished ones stay a random sample)",
            f"(run judge version {against.version} on them to count them)",
        ),
        ("Too few reviewed", f"Too few {by}"),
        ("too few reviewed", f"too few {by}"),
    ):
        text = text.replace(said, meant)
    return re.sub(r"(\d[\d,]*) reviewed (\w+)", lambda m: f"{m[1]} {m[2]} {by}", text)


def truth_name(against: LabelSelection) -> str:
    """Whose labels the audit's truth is, as the panel names them: ``people``, or ``judge version v2``."""
    return f"judge version {against.version}" if against.kind == "version" else "people"


def panel_title(against: LabelSelection) -> str:
    """The Dashboard panel's heading: ``What people would say``, ``What judge version v2 would say``."""
    return f"What {truth_name(against)} would say"


def estimator_names(against: LabelSelection) -> tuple[str, str, str]:
    """The three estimates' names in :data:`ragviz.ui.core.charts.ESTIMATORS`' order, the second one *against*'s."""
    judge, _, corrected = ESTIMATORS
    return judge, f"{truth_name(against)} only", corrected
