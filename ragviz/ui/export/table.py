"""The Export page's per-example metrics table: a page of rows at a time, the id pinned and the columns a person
picks (the CSV download, :mod:`ragviz.ui.export.page`'s, holds every row and column)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
import streamlit as st

from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core.render import NUMBER_WIDTH

__all__ = [
    "ID_COLUMN_MAX_PX",
    "ID_COLUMN_MIN_PX",
    "PREVIEW_COLUMNS",
    "TABLE_PAGE_ROWS",
    "TABLE_SHOWN_UP_TO",
    "id_column_width",
    "metrics_table",
    "preview_column_order",
    "show_table_toggle",
]

TABLE_SHOWN_UP_TO = 500  # examples: larger data shows the metrics table only on request


def show_table_toggle(n_examples: int) -> bool:
    """Whether the person wants the per-example metrics table (on by default for small data)."""
    return st.toggle("Show the table", value=n_examples <= TABLE_SHOWN_UP_TO, key="export.show_table")


#: Rows of the metrics table sent to the browser at a time.
TABLE_PAGE_ROWS = 1000


#: The metrics table's columns shown at first beside the pinned id: the model (an id names one question, answered by
#: each model) and the scores, which fit a 1280 px window without scrolling sideways even beside RAGBench's
#: 24-character ids. The subset and the label source are a click away in "Columns"; the CSV holds every column.
PREVIEW_COLUMNS = ("generation_model", *TRACE_METRICS, "trace_mean")
ID_COLUMN_MIN_PX, ID_COLUMN_MAX_PX = 60, 320  # the id column's width, from its header to a long hash


def preview_column_order(columns: Sequence[str], chosen: Sequence[str]) -> list[str]:
    """The columns the metrics table shows, in the table's order: the id always, then those of *chosen*.

    >>> preview_column_order(["id", "dataset", "relevance", "label_source"], ["label_source", "relevance"])
    ['id', 'relevance', 'label_source']
    """
    return [c for c in columns if c == "id" or c in chosen]


def id_column_width(ids: Iterable[object]) -> int:
    """Pixels that show the longest of *ids* whole in the metrics table (at most :data:`ID_COLUMN_MAX_PX`).

    >>> id_column_width(["1421", "hagrid_1205"]), id_column_width(["x" * 100])
    (112, 320)
    """
    longest = max((len(str(i)) for i in ids), default=0)
    return min(ID_COLUMN_MAX_PX, max(ID_COLUMN_MIN_PX, 8 * longest + 24))


def _shown_columns(columns: Sequence[str]) -> list[str]:
    optional = [c for c in columns if c != "id"]
    chosen = st.pills(
        "Columns",
        optional,
        selection_mode="multi",
        default=[c for c in PREVIEW_COLUMNS if c in optional],
        key="export.table_columns",
        help="The id always shows. The CSV download holds every column.",
    )  # md: ours (the table's column names)
    return preview_column_order(columns, chosen)


def metrics_table(table: pd.DataFrame) -> None:
    """The per-example metrics, a page of :data:`TABLE_PAGE_ROWS` rows at a time (the CSV download
    holds them all), the id pinned and the columns a person picks (:data:`PREVIEW_COLUMNS` at first)."""
    order = _shown_columns(list(table.columns))
    pages = max(1, -(-len(table) // TABLE_PAGE_ROWS))
    shown = table
    if pages > 1:
        page = st.number_input(
            f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, key="export.table_page", width=NUMBER_WIDTH
        )
        first = (int(page) - 1) * TABLE_PAGE_ROWS
        shown = table.iloc[first : first + TABLE_PAGE_ROWS]
        st.caption(f"Examples {first + 1:,}–{first + len(shown):,} of {len(table):,}; the CSV download has them all.")
    # sized to the page's ids: the grid keeps page 1's widths when the page changes, and cut longer ids there
    pinned = {"id": st.column_config.TextColumn("id", pinned=True, width=id_column_width(shown["id"]))}
    st.dataframe(shown, hide_index=True, width="stretch", column_order=order, column_config=pinned)
