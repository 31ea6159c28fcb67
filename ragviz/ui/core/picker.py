"""Choosing one example out of many without sending every option to the browser on each rerun:
a window of rows around the current one, or the rows whose uid contains a search text."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_MATCHES", "WINDOW", "matching_rows", "picker_options", "window_rows"]


WINDOW = 50  # rows either side of the current one offered without a search
MAX_MATCHES = 100  # search matches offered at once


def window_rows(index: int, n: int, radius: int | None = None) -> list[int]:
    """Rows ``index - radius .. index + radius`` clipped to ``0 .. n - 1`` (radius: :data:`WINDOW`)."""
    radius = WINDOW if radius is None else radius
    return list(range(max(0, index - radius), min(n, index + radius + 1)))


def matching_rows(uids: Sequence[str], query: str, limit: int | None = None) -> tuple[list[int], int]:
    """The first *limit* rows (default :data:`MAX_MATCHES`) whose uid contains *query*, ignoring
    case and surrounding blanks, and how many rows match in all."""
    limit = MAX_MATCHES if limit is None else limit
    needle = query.strip().casefold()
    rows = [i for i, uid in enumerate(uids) if needle in uid.casefold()]
    return rows[:limit], len(rows)


def picker_options(index: int, n: int, matches: list[int] | None) -> list[int]:
    """What the picker offers: the search *matches* (``None``: no search) or the window around
    *index*; the current row always comes along so the picker can show it."""
    rows = window_rows(index, n) if matches is None else matches
    return rows if index in rows else [index, *rows]
