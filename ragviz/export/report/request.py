"""What a stakeholder report is asked for: the data, the label store, its title, grouping, date and format."""

from __future__ import annotations

from dataclasses import dataclass

from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.errors import BadInput

__all__ = ["ReportError", "ReportRequest"]


class ReportError(BadInput, ValueError):
    """A report that cannot be built, in one line."""


@dataclass(frozen=True)
class ReportRequest:
    """What the report is of and how it is titled: *paths* and *db* as the person gave them (only their
    names reach the report), *date* ``YYYY-MM-DD``, *by* ``dataset_name`` or ``generation_model_name``,
    *against* the people's label set (``human`` = every annotator's latest decision per field), *sample_id* the audit sample
    (``None``: the team's, chosen by an admin, else the newest drawn from these examples); *names* ``False``
    leaves out people's names (the app's rule for viewers, :func:`ragviz.ui.core.access.names_shown`)."""

    paths: tuple[str, ...]
    db: str | None = None
    title: str = "RAG evaluation report"
    by: str = "dataset_name"
    date: str = ""
    against: LabelSelection = HUMAN
    sample_id: int | None = None
    output: str = "report.html"
    format: str = "html"
    names: bool = True  # False: no one's identity (the app's viewers): annotators numbered, no sample's drawer
    store_shown: bool = True  # False: where the store is stays out (the app's non-admins: Access.can_see_store)
