"""Progress of long work (building every example, the first Dashboard) as rows done / total.

The bar is created and emptied inside the cached function that does the work, so a cache hit
replays nothing visible (Streamlit replays a cached function's elements, and refuses elements
called on a block created outside it)."""

from __future__ import annotations

import time
from typing import Any, TypeVar

import streamlit as st

__all__ = ["DELAY_S", "RowProgress", "T"]

#: Work shorter than this draws no bar (Streamlit's spinner waits as long): a small file's load shows none, and the
#: first page fetches no progress-bar script for it (issue 38).
DELAY_S = 0.5


T = TypeVar("T")


class RowProgress:
    """A progress bar reading ``WHAT: done / total rows``, redrawn about 50 times over the work;
    callable as ``progress(what, done, total)`` (the signature of the analysis functions' and the
    loaders' callbacks). *total* 0: not known yet (each call names its own; loading, file by file). The bar appears
    at the first call after :data:`DELAY_S`."""

    def __init__(self, what: str, total: int) -> None:
        self.bar: Any = None  # drawn once the work has taken DELAY_S (:meth:`__call__`)
        self.opened = time.monotonic()
        self.step = max(1, total // 50)
        self.shown: tuple[str, int] = (what, 0)

    def __call__(self, what: str, done: int, total: int) -> None:
        # redrawn at the end, when the step changes and every ~2 % (work reported by batches included)
        if done == total or what != self.shown[0] or done - self.shown[1] >= self.step:
            self.shown = (what, done)
            if self.bar is None:
                if time.monotonic() - self.opened < DELAY_S:
                    return
                self.bar = st.progress(0.0)
            self.bar.progress(min(1.0, done / max(total, 1)), text=f"{what}: {done:,} / {total:,} rows")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.empty()
