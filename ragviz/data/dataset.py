"""A columnar collection of examples.

:class:`Dataset` holds canonical RAGBench rows in one ``pyarrow.Table`` and builds an
:class:`~ragviz.data.model.Example` only when asked for one, so opening 100k rows costs one Arrow read and
navigating costs O(1) per example. Three bookkeeping columns travel with the rows:
``_subset`` (the file's subset name), ``_path`` and ``_row`` (where the row came from).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache, partial
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.model import Example, RowRef
from ragviz.data.ragbench import example_from_row

__all__ = ["BOOKKEEPING", "Dataset", "PATH_COL", "ROW_COL", "SUBSET_COL", "examples_at", "iter_examples"]


SUBSET_COL = "_subset"
PATH_COL = "_path"
ROW_COL = "_row"
BOOKKEEPING = (SUBSET_COL, PATH_COL, ROW_COL)


class Dataset:
    """Examples backed by an Arrow table of canonical RAGBench rows."""

    def __init__(self, table: pa.Table):
        for col in BOOKKEEPING:
            if col not in table.column_names:
                raise ValueError(f"dataset table lacks bookkeeping column {col!r}")
        self.table = table
        # over the table, not a bound method: a Dataset is then no reference cycle, and a streamed batch's rows are
        # freed as soon as the next batch replaces it (without the cycle collector)
        self._example = lru_cache(maxsize=256)(partial(_example_of, table))

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, table: pa.Table, subset: str, path: str, first_row: int = 1) -> Dataset:
        """Wrap a table read from one file; rows are numbered from *first_row*."""
        n = table.num_rows
        table = table.append_column(SUBSET_COL, pa.array([subset] * n, pa.string()))
        table = table.append_column(PATH_COL, pa.array([path] * n, pa.string()))
        table = table.append_column(ROW_COL, pa.array(range(first_row, first_row + n), pa.int64()))
        return cls(table)

    @classmethod
    def from_rows(
        cls, rows: Sequence[Mapping[str, Any]], subset: str, path: str, row_numbers: Sequence[int] | None = None
    ) -> Dataset:
        """Build from canonical row dicts (raw formats, JSON, CSV); *row_numbers* default 1..n."""
        numbers = list(row_numbers) if row_numbers is not None else list(range(1, len(rows) + 1))
        full = [{**r, SUBSET_COL: subset, PATH_COL: path, ROW_COL: n} for r, n in zip(rows, numbers)]
        if not full:
            return cls.empty()
        return cls(pa.Table.from_pylist(full))

    @classmethod
    def empty(cls) -> Dataset:
        return cls(
            pa.table(
                {
                    SUBSET_COL: pa.array([], pa.string()),
                    PATH_COL: pa.array([], pa.string()),
                    ROW_COL: pa.array([], pa.int64()),
                }
            )
        )

    @classmethod
    def concat(cls, parts: Iterable[Dataset]) -> Dataset:
        tables = [p.table for p in parts if p.table.num_rows]
        if not tables:
            return cls.empty()
        if len(tables) == 1:
            return cls(tables[0])
        return cls(pa.concat_tables(tables, promote_options="permissive"))

    # -- access ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.table.num_rows

    def row(self, i: int) -> dict[str, Any]:
        """Canonical row *i* as a dict (bookkeeping columns included)."""
        return self.table.slice(i, 1).to_pylist()[0]

    def example(self, i: int) -> Example:
        """Example *i* (built on first access, a few hundred kept cached)."""
        if not 0 <= i < len(self):
            raise IndexError(f"example {i} out of range 0..{len(self) - 1}")
        return self._example(i)

    def __iter__(self) -> Iterator[Example]:
        for i in range(len(self)):
            yield self.example(i)

    def iter_rows(self, columns: Sequence[str] | None = None, batch_size: int = 4096) -> Iterator[dict[str, Any]]:
        """Rows as dicts, batch by batch; *columns* limits what is converted to Python."""
        table = self.table
        if columns is not None:
            table = table.select([c for c in columns if c in table.column_names])
        for batch in table.to_batches(max_chunksize=batch_size):
            yield from batch.to_pylist()

    def rows_at(self, rows: Sequence[int], columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Rows *rows* (in that order) as dicts, *columns* only when given. Taken batch by batch
        (``Table.take`` would first join the chunks of every nested column: a copy of the data)."""
        table = (
            self.table if columns is None else self.table.select([c for c in columns if c in self.table.column_names])
        )
        if not len(rows):
            return []
        if not table.num_columns:
            return [{} for _ in rows]
        batches = table.to_batches()
        starts = np.cumsum([0, *(b.num_rows for b in batches)])
        wanted = np.asarray(rows, np.int64)
        which = np.searchsorted(starts, wanted, side="right") - 1
        out: list[dict[str, Any]] = [{}] * len(wanted)
        for b in np.unique(which).tolist():
            at = np.flatnonzero(which == b)
            for k, row in zip(at.tolist(), batches[b].take(pa.array(wanted[at] - starts[b])).to_pylist()):
                out[k] = row
        return out

    # -- columnar views (computed once per dataset, never per rerun) -----------------------------
    @cached_property
    def _dataset_column(self) -> pa.ChunkedArray:
        """Per row: ``dataset_name`` when present and not empty, else the subset name (``""`` when null)."""
        subsets = self._text_column(SUBSET_COL)
        if "dataset_name" not in self.table.column_names:
            return subsets
        names = self._text_column("dataset_name")
        return cast(pa.ChunkedArray, pc.if_else(pc.not_equal(names, pa.scalar("")), names, subsets))

    def _text_column(self, name: str) -> pa.ChunkedArray:
        """Column *name* as text, ``""`` for null or absent (``str(v) if v is not None else ""``)."""
        if name not in self.table.column_names:
            return pa.chunked_array([pa.array([""] * len(self), pa.string())])
        column = self.table.column(name)
        if not pa.types.is_string(column.type):
            column = pa.chunked_array([pa.array([None if v is None else str(v) for v in column.to_pylist()])])
        return cast(pa.ChunkedArray, pc.fill_null(column, pa.scalar("")))

    @staticmethod
    def _texts(column: pa.ChunkedArray) -> list[str]:
        return cast("list[str]", column.to_pylist())  # no null left: filled with ""

    @cached_property
    def datasets(self) -> list[str]:
        """Per row: ``dataset_name`` when present, else the subset name."""
        return self._texts(self._dataset_column)

    @cached_property
    def dataset_codes(self) -> tuple[tuple[str, ...], np.ndarray]:
        """:attr:`datasets` as codes: the distinct names, sorted, and per row the index of its name
        among them (``int64``), from the column's dictionary (no Python value per row)."""
        column = self._dataset_column
        if not len(column):
            return (), np.zeros(0, np.int64)
        encoded = cast(pa.DictionaryArray, pc.dictionary_encode(column.combine_chunks()))
        found = cast("list[str]", encoded.dictionary.to_pylist())  # no null: filled with ""
        rank = np.empty(len(found), np.int64)
        rank[sorted(range(len(found)), key=found.__getitem__)] = np.arange(len(found))
        return tuple(sorted(found)), rank[np.asarray(encoded.indices, np.int64)]

    @cached_property
    def ids(self) -> list[str]:
        return self._texts(self._text_column("id"))

    @cached_property
    def generation_models(self) -> list[str]:
        return self._texts(self._text_column("generation_model_name"))

    @cached_property
    def uids(self) -> list[str]:
        """Per row, :attr:`~ragviz.data.model.Example.uid` (``dataset/id/model``), joined on the columns."""
        dataset, ident, model = (
            self._dataset_column,
            self._text_column("id"),
            self._text_column("generation_model_name"),
        )
        joined = pc.binary_join_element_wise(dataset, ident, model, "/")  # type: ignore[call-overload]  # stubs: Expressions only
        return self._texts(cast(pa.ChunkedArray, joined))

    @cached_property
    def _uid_index(self) -> dict[str, int]:
        """uid -> its first row: built from the last row back, so an earlier row of a repeated uid wins."""
        uids = self.uids
        return dict(zip(reversed(uids), range(len(uids) - 1, -1, -1)))

    def index_of(self, uid: str) -> int | None:
        """Row index of the example whose :attr:`Example.uid` is *uid*."""
        return self._uid_index.get(uid)

    def indices_of_id(self, example_id: str) -> list[int]:
        """Rows whose plain ``id`` is *example_id* (several when two models answered)."""
        return [i for i, v in enumerate(self.ids) if v == example_id]

    @cached_property
    def n_context_sentences(self) -> list[int]:
        """Per row: number of sentences over all documents (N in the TRACe formulas)."""
        if "documents_sentences" not in self.table.column_names:
            return [0] * len(self)
        col = self.table.column("documents_sentences")
        if pa.types.is_null(col.type):
            return [0] * len(self)
        counts = []
        for chunk in cast(
            "list[pa.ListArray]", col.chunks
        ):  # per row: its documents' running total at its end - at its start
            offsets = np.asarray(chunk.offsets, np.int64)
            per_doc = np.asarray(pc.fill_null(pc.list_value_length(chunk.values), pa.scalar(0)), np.int64)
            total = np.concatenate([[0], np.cumsum(per_doc, dtype=np.int64)])
            valid = np.asarray(chunk.is_valid().to_numpy(zero_copy_only=False), bool)
            counts.append(np.where(valid, total[offsets[1:]] - total[offsets[:-1]], 0))
        return np.concatenate(counts).tolist() if counts else []

    @cached_property
    def subset_names(self) -> list[str]:
        return sorted(set(self.datasets))


def iter_examples(dataset: Dataset, indices: Sequence[int] | None = None) -> Iterator[tuple[int, Example]]:
    """``(row index, example)`` for every row (batch conversion: much cheaper than one slice per
    row), or for *indices* only."""

    def build(i: int, row: dict) -> Example:
        return example_from_row(
            row, row.get(SUBSET_COL) or "", RowRef(row.get(PATH_COL) or "", row.get(ROW_COL) or i + 1)
        )

    if indices is not None:
        rows = list(indices)
        if len(rows) <= 16:  # a few: the dataset's own cache of recent examples
            for i in rows:
                yield i, dataset.example(i)
            return
        for start in range(0, len(rows), 1024):
            part = rows[start : start + 1024]
            for i, row in zip(part, dataset.rows_at(part)):
                yield i, build(i, row)
        return
    for i, row in enumerate(dataset.iter_rows()):
        yield i, build(i, row)


def examples_at(
    dataset: Dataset, rows: Sequence[int], examples: Mapping[int, Example] | None = None
) -> dict[int, Example]:
    """Row index -> Example for *rows*: taken from *examples* (already built) where it has them,
    the others built a batch at a time (:func:`iter_examples`)."""
    have = examples if examples is not None else {}
    out = dict(iter_examples(dataset, [i for i in rows if i not in have]))
    out.update((i, have[i]) for i in rows if i in have)
    return out


def _example_of(table: pa.Table, i: int) -> Example:
    """Example *i* of a dataset's *table* (what :meth:`Dataset.example` caches)."""
    row = table.slice(i, 1).to_pylist()[0]
    return example_from_row(row, row[SUBSET_COL] or "", RowRef(row[PATH_COL], row[ROW_COL]))
