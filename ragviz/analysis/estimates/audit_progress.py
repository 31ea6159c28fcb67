"""Where an audit sample stands (:func:`audit_progress`): what the Audit and Review pages say about a sample's
progress, apart from pairing its labels (:mod:`ragviz.analysis.estimates.pairing`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["AuditProgress", "OUTSIDE_REASON", "audit_progress"]


OUTSIDE_REASON = "triage, a filter or a person picked them, so they are not a random sample"


@dataclass(frozen=True)
class AuditProgress:
    """Where an audit sample stands: its size, how many members people reviewed, the reviewed
    examples outside it (left out of the estimate), and the next member to review in draw order."""

    sample_id: int
    size: int
    reviewed: int
    outside: int
    next_uid: str | None

    def line(self) -> str:
        """``"Audit sample 2: 12 of 50 reviewed · 3 reviewed examples outside it are not in the estimate"``."""
        text = f"Audit sample {self.sample_id}: {self.reviewed:,} of {self.size:,} reviewed"
        if self.outside:
            text += f" · {self.outside:,} reviewed examples outside it are not in the estimate ({OUTSIDE_REASON})"
        return text


def audit_progress(members: Sequence[str], reviewed: set[str] | frozenset[str], sample_id: int = 0) -> AuditProgress:
    """:class:`AuditProgress` of a sample whose *members* are in draw order, given the uids people
    reviewed (by anyone: a sample is shared, each member needs one review).

    >>> p = audit_progress(["c", "a", "d"], {"a", "b"}, 1)
    >>> p.reviewed, p.outside, p.next_uid
    (1, 1, 'c')
    """
    member_set = set(members)
    done = sum(1 for uid in members if uid in reviewed)
    outside = sum(1 for uid in reviewed if uid not in member_set)
    next_uid = next((uid for uid in members if uid not in reviewed), None)
    return AuditProgress(sample_id, len(members), done, outside, next_uid)
