"""The root of every exception ragviz raises on purpose, and the one for input a person must fix.

:class:`RagvizError` is the root: a front end catches it once (``ragviz`` in :mod:`ragviz.cli.main`) and shows
its message, never a traceback. :class:`BadInput` is the input a person must fix; the domain errors of the
floors (a design that cannot be drawn, a sample, an assignment, guidelines, a judge setting, ...) are kinds of
it, and failures of a service (the label store, a judge endpoint, a Batch API) are kinds of :class:`RagvizError`.
This module sits under every floor (like :mod:`ragviz.version`) so each of them can raise these.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["BadInput", "RagvizError"]


class RagvizError(Exception):
    """Anything ragviz refuses or cannot do, said in one line (``str()``) a person can act on."""


class BadInput(RagvizError):
    """A problem with the input: ``str()`` gives ``PATH:ROW: field: problem`` with the parts known.

    *path* is the file, store or URL at fault, or the command (``ragviz export``) when the fault is in its
    options; *row* is 1-based; *listed* are earlier problems (each shown as ``str()`` gives it, e.g. a
    :class:`~ragviz.data.problems.Problem`) printed before this one. ``ragviz`` prints :meth:`lines` to stderr and
    exits 2."""

    def __init__(
        self,
        problem: str,
        *,
        path: str | None = None,
        row: int | None = None,
        field: str | None = None,
        listed: Sequence[object] = (),
    ):
        self.problem = problem
        self.path = path
        self.row = row
        self.field = field
        self.listed = [str(p) for p in listed]
        super().__init__(self.where_and_what())

    def where_and_what(self) -> str:
        """``PATH:ROW: field: problem``, leaving out the parts not known.

        >>> BadInput("not a number", path="rows.csv", row=3, field="score").where_and_what()
        'rows.csv:3: score: not a number'
        >>> BadInput("give data files", path="ragviz export").where_and_what()
        'ragviz export: give data files'
        >>> BadInput("must be >= 0, got -1", field="--limit").where_and_what()
        '--limit: must be >= 0, got -1'
        """
        where = "" if self.path is None else self.path if self.row is None else f"{self.path}:{self.row}"
        parts = [p for p in (where, self.field) if p]
        return ": ".join([*parts, self.problem])

    def lines(self) -> list[str]:
        """What a front end shows: the listed problems, then this one."""
        return [*self.listed, self.where_and_what()]
