"""Export targets: what ``ragviz export`` and ``ragviz convert`` write, and writing it.

A :class:`Target` is OUT (a file, a directory for Parquet with a dataset card, or ``-``), the RAGBench
format (jsonl / parquet / csv = per-example metrics) and the tool shape (RAGBench rows, Ragas,
DeepEval, RagChecker). :func:`write_target` writes a loaded dataset to it; :func:`write_target_streamed`
writes Parquet sources a record batch at a time (memory independent of the number of rows).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.load import load
from ragviz.export.card import CARD_NAME, DIRECTORY_PARQUET, card_path_for, write_card
from ragviz.export.files import metrics_records_csv, write_export
from ragviz.export.output import write_output
from ragviz.export.rows import metrics_records
from ragviz.export.shapes import SHAPES, write_shape
from ragviz.export.stream import StreamedExport
from ragviz.store.label_store import LabelStore

__all__ = [
    "TARGETS",
    "Target",
    "format_from_name",
    "load_sources",
    "target_paths",
    "write_target",
    "write_target_streamed",
]


TARGETS = ("ragbench", *SHAPES)


@dataclass(frozen=True)
class Target:
    """What to write: OUT, the RAGBench format (jsonl / parquet / csv), the tool shape, a dataset card."""

    out: str
    fmt: str
    to: str = "ragbench"
    card: bool = False

    def describe(self) -> str:
        return self.fmt if self.to == "ragbench" else self.to


def format_from_name(out: str) -> str:
    """The RAGBench format OUT's name asks for: a directory is Parquet (with a dataset card), else by
    extension (``.parquet``, ``.csv``), else jsonl."""
    if out != "-" and (out.endswith(("/", os.sep)) or Path(out).is_dir()):
        return "parquet"
    name = out.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".csv"):
        return "csv"
    return "jsonl"


def load_sources(paths: Sequence[str]) -> tuple[Dataset, list[str]]:
    """The examples in *paths* and the load errors (``PATH:ROW: field: problem`` strings)."""
    result = load(list(paths))
    return result.dataset, [str(p) for p in result.errors]


def target_paths(target: Target) -> tuple[str, Path | None]:
    """The file a RAGBench-format *target* writes and where its dataset card goes (``None``: no card).
    A Parquet OUT that is a directory (or ends in ``/``) gets ``data-00000-of-00001.parquet`` and a
    ``README.md`` card in it; ``target.card`` puts ``<stem>.README.md`` beside a Parquet file. Makes
    the directory."""
    out = target.out
    if target.fmt != "parquet" or out == "-":
        return out, None
    if out.endswith(("/", os.sep)) or Path(out).is_dir():
        Path(out).mkdir(parents=True, exist_ok=True)
        return str(Path(out) / DIRECTORY_PARQUET), Path(out) / CARD_NAME
    return out, card_path_for(out) if target.card else None


def write_target(
    dataset: Dataset, store: LabelStore | None, annotator: str | None, target: Target
) -> tuple[int, int, str]:
    """Write *dataset*'s export to *target*; returns (rows, human-reviewed rows, the file written);
    the paths as :func:`target_paths` says."""
    if target.to != "ragbench":
        n_rows, n_human = write_shape(dataset, store, annotator, target.to, target.out)
        return n_rows, n_human, target.out
    if target.fmt == "csv":
        records = metrics_records(dataset, store, annotator)
        write_output(metrics_records_csv(records).encode("utf-8"), target.out)
        return (
            len(records),
            sum(1 for r in records if r["label_source"] in ("human", "agreed", "adjudicated")),
            target.out,
        )
    out, card = target_paths(target)
    n_rows, n_human = write_export(dataset, store, annotator, target.fmt, out)
    if card is not None:
        write_card(out, card)
    return n_rows, n_human, out


class _RowsHadErrors(Exception):
    """Raised between batches of a streamed export when the data has errors: nothing is written."""


def write_target_streamed(
    store: LabelStore | None, annotator: str | None, sources: Sequence[str], target: Target, what: str
) -> tuple[StreamedExport, str] | None:
    """The RAGBench-format export of Parquet *sources* to *target* a record batch at a time
    (:mod:`ragviz.export.stream`): what was written and the file written; ``None`` when some source is
    not Parquet (the caller loads them whole). Bad rows raise :class:`BadInput` listing every one
    (*what* names the sources in its message) after the last batch, and OUT is then left as it was."""
    from ragviz.data.problems import Report
    from ragviz.data.stream import parquet_batches, parquet_only
    from ragviz.export.stream import write_export_stream

    report = Report()
    files = parquet_only(sources, report)
    if files is None:
        return None

    def batches() -> Iterator[Dataset]:
        yield from parquet_batches(files, report)
        if report.errors:  # every problem is listed; the output file is left as it was
            raise _RowsHadErrors

    out, card = target_paths(target)
    try:
        done = write_export_stream(batches, store, annotator, target.fmt, out)
    except _RowsHadErrors:
        report.finish()
        raise BadInput(f"{len(report.errors)} errors in the {what}: nothing exported", listed=report.errors) from None
    if card is not None:
        write_card(out, card)
    return done, out
