"""A labelling team's round in the label store (issue 26): ``store.team``, a part composed into the store.

:class:`Team` holds the round's three parts, each owning its SQL: ``store.team.assignments`` (who labels which
example, :mod:`~ragviz.store.team.assignments`), ``store.team.adjudications`` (settled disagreements,
:mod:`~ragviz.store.team.adjudications`), ``store.team.guidelines`` (their versions,
:mod:`~ragviz.store.team.guidelines`). The team builds on the core's public interface and statuses
(:class:`~ragviz.store.team.assignments.TeamCore`); it never imports the core that composes it.
"""

from ragviz.store.team.adjudications import Adjudications
from ragviz.store.team.assignments import Assignments, TeamCore
from ragviz.store.team.guidelines import TeamGuidelines

__all__ = ["Team"]


class Team:
    """The team's parts of one label store (see the package docstring)."""

    def __init__(self, store: TeamCore):
        self.assignments = Assignments(store)
        self.adjudications = Adjudications(store)
        self.guidelines = TeamGuidelines(store)
        self._store = store

    def decided(self) -> dict[str, dict[str, str | None]]:
        """uid -> the annotators who decided it (edited it or marked it reviewed) -> when they last did: one
        query over the statuses (a round's whole table of decisions, without filling each annotator's cache)."""
        out: dict[str, dict[str, str | None]] = {}
        for uid, who, ts in self._store.query(
            "SELECT example_uid, annotator, last_ts FROM example_status WHERE reviewed = 1"
        ):
            out.setdefault(uid, {})[who] = ts
        return out

    def round_version(self) -> tuple[int, int, int, int]:
        """Changes whenever anything a round's figures read changes, by anyone on any replica: a label event
        (a decision, an undo), a stored judge label set, an assignment, an adjudication (the largest id of each
        append-only table, one query). A cache key for the round (:mod:`ragviz.analysis.team.table`)."""
        row = self._store.query(
            "SELECT (SELECT MAX(id) FROM label_events), (SELECT MAX(id) FROM judge_label_sets),"
            " (SELECT MAX(id) FROM team_assignments), (SELECT MAX(id) FROM team_adjudications)"
        )[0]
        events, judged, assigned, settled = (int(v or 0) for v in row)
        return events, judged, assigned, settled
