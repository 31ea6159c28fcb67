"""The Review page's queue in audit mode: a sample's members in draw order, where the page stands in it, and for a
paired sample (``--design paired``) the two answers of each question, walked question by question.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragviz.analysis.audits.designs import PAIRED
from ragviz.analysis.estimates.audit_progress import AuditProgress
from ragviz.analysis.review.queue import (
    audit_position_text,
    order_neighbours,
    pair_neighbours,
    pair_rows,
    paired_position_text,
)
from ragviz.store.audit_samples import AuditSample

__all__ = ["AuditQueue"]


@dataclass(frozen=True)
class AuditQueue:
    """The Review page in audit mode: the sample, its loaded rows in draw order, where it stands and
    the row of the next member to review in that order."""

    sample: AuditSample
    order: list[int]
    progress: AuditProgress
    next_row: int | None

    @property
    def key(self) -> tuple[int, int]:
        return self.sample.id, self.sample.size

    @property
    def rows(self) -> list[int]:
        """The member rows, sorted."""
        return sorted(self.order)

    @property
    def paired(self) -> bool:
        """Both systems' answers of each drawn question, side by side on Review (``--design paired``)."""
        return self.sample.design == PAIRED

    def pair(self, row: int) -> tuple[int, int] | None:
        """A paired sample's two rows of *row*'s question (system A's answer, then B's); ``None`` otherwise."""
        return pair_rows(self.order, row) if self.paired else None

    def systems(self) -> tuple[str, str]:
        """The paired sample's two systems, A then B."""
        a, b = self.sample.params.get("systems", ("A", "B"))
        return str(a), str(b)

    def neighbours(self, row: int) -> tuple[int | None, int | None]:
        """The rows Previous (K) and Next (J) open: the members before and after *row* in draw order (a paired
        sample's questions: the first answer of the one before and after)."""
        return pair_neighbours(self.order, row) if self.paired else order_neighbours(self.order, row)

    def where(self, row: int, show_reviewed: bool = True) -> str:
        """``"Audit sample #3: member 49 of 100, 6 reviewed"`` for the example at *row* (without the review
        count when not *show_reviewed*: a presentation hides how many were reviewed)."""
        member = self.order.index(row) if row in self.order else None
        reviewed = self.progress.reviewed if show_reviewed else None
        text = paired_position_text if self.paired else audit_position_text
        return text(self.sample.id, member, self.progress.size, reviewed)
