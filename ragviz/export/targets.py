"""Export targets: what ``ragviz export``, ``ragviz convert`` and the Export page write, and writing it.

A :class:`Target` is OUT (a file, a directory for Parquet with a dataset card, ``-``, or an open binary file),
the RAGBench format (jsonl / parquet / csv = per-example metrics) and the tool shape (RAGBench rows, Ragas,
DeepEval, RagChecker). :func:`export` is the one dispatcher ``ragviz export`` and the Export page call: whose
labels (a :class:`~ragviz.analysis.labelsets.selection.LabelSelection`), from which sources, to which target.
Under it :func:`write_target` writes a loaded dataset; :func:`write_target_streamed` writes Parquet sources a
record batch at a time (memory independent of the number of rows).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from ragviz.analysis.labelsets.selection import GOLD, LabelSelection, Whose, as_selection, corrected_uids
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.formats.ragchecker import is_ragchecker_file
from ragviz.data.load import load
from ragviz.export.card import CARD_NAME, DIRECTORY_PARQUET, card_path_for, write_card
from ragviz.export.files import metrics_records_csv, write_export
from ragviz.export.output import write_output
from ragviz.export.rows import RowsDone, metrics_table
from ragviz.export.shapes import SHAPES, write_shape
from ragviz.export.stream import StreamedExport
from ragviz.store.label_store import LabelStore

__all__ = [
    "TARGETS",
    "Exported",
    "Target",
    "export",
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

    out: str | IO[bytes]
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


def load_sources(paths: Sequence[str]) -> tuple[Dataset, list[str], list[str]]:
    """The examples in *paths*, the load errors and the load warnings (``PATH:ROW: field: problem`` strings)."""
    result = load(list(paths))
    return result.dataset, [str(p) for p in result.errors], [str(p) for p in result.warnings]


def target_paths(target: Target) -> tuple[str, Path | None]:
    """The file a RAGBench-format *target* writes and where its dataset card goes (``None``: no card).
    A Parquet OUT that is a directory (or ends in ``/``) gets ``data-00000-of-00001.parquet`` and a
    ``README.md`` card in it; ``target.card`` puts ``<stem>.README.md`` beside a Parquet file. Makes
    the directory."""
    out = target.out
    if not isinstance(out, str):  # an open file (the Export page's download): no card
        return "", None
    if target.fmt != "parquet" or out == "-":
        return out, None
    if out.endswith(("/", os.sep)) or Path(out).is_dir():
        Path(out).mkdir(parents=True, exist_ok=True)
        return str(Path(out) / DIRECTORY_PARQUET), Path(out) / CARD_NAME
    return out, card_path_for(out) if target.card else None


def write_target(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    target: Target,
    progress: RowsDone | None = None,
) -> tuple[int, int, str]:
    """Write *dataset*'s export to *target*; returns (rows, human-reviewed rows, the file written: ``""`` for an
    open file); the paths as :func:`target_paths` says. *progress* hears ``(what, rows done, total)``."""
    shown = target.out if isinstance(target.out, str) else ""
    if target.to != "ragbench":
        n_rows, n_human = write_shape(dataset, store, whose, target.to, target.out, progress=progress)
        return n_rows, n_human, shown
    if target.fmt == "csv":
        records = metrics_table(dataset, store, whose, progress=progress).to_pylist()
        write_output(metrics_records_csv(records).encode("utf-8"), target.out)
        return len(records), sum(1 for r in records if r["label_source"] in _DECIDED), shown
    out, card = target_paths(target)
    n_rows, n_human = write_export(dataset, store, whose, target.fmt, out or target.out, progress=progress)
    if card is not None:
        write_card(out, card)
    return n_rows, n_human, out


_DECIDED = ("human", "agreed", "adjudicated")  # label_source of a row whose labels a person decided


class _RowsHadErrors(Exception):
    """Raised between batches of a streamed export when the data has errors: nothing is written."""


def write_target_streamed(
    store: LabelStore | None, whose: Whose, sources: Sequence[str], target: Target, what: str
) -> tuple[StreamedExport, str, list[str]] | None:
    """The RAGBench-format export of Parquet *sources* to *target* a record batch at a time
    (:mod:`ragviz.export.stream`): what was written, the file written and the load warnings; ``None`` when some source is
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
        done = write_export_stream(batches, store, whose, target.fmt, out)
    except _RowsHadErrors:
        report.finish()
        raise BadInput(f"{len(report.errors)} errors in the {what}: nothing exported", listed=report.errors) from None
    if card is not None:
        write_card(out, card)
    report.finish()
    return done, out, [str(w) for w in report.warnings]


@dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote: the file (``-``; ``""`` for an open file), the rows, those whose labels people
    decided (reviewed, agreed or adjudicated; for RagChecker items: with claim corrections or reviews), those
    *whose* people corrected, and whether the sources were RagChecker checking outputs (claim corrections)."""

    written: str
    n_rows: int
    n_human: int
    n_corrected: int = 0
    ragchecker: bool = False
    load_warnings: tuple[str, ...] = ()  # the data's (a row skipped as a repeat, a value ignored): said, not silent


def export(
    store: LabelStore | None,
    whose: Whose,
    sources: Sequence[str] | Dataset,
    target: Target,
    *,
    what: str = "data files",
    progress: RowsDone | None = None,
) -> Exported:
    """Write *whose* labels of *sources* to *target*: the one export ``ragviz export`` and the Export page run.

    *sources* are data files (RagChecker checking outputs to a ``ragchecker`` target get one annotator's claim
    corrections; Parquet files to a RAGBench file are written a record batch at a time; anything else is loaded
    whole) or a loaded :class:`~ragviz.data.dataset.Dataset` (the app's). *whose* ``None``: the labels as loaded.
    Bad input (rows with errors, named as *what*; corrections of checking outputs for anyone but one annotator)
    raises :class:`BadInput`, and OUT is then left as it was; the data files' load warnings are in what it returns."""
    whose = as_selection(whose)
    if isinstance(sources, Dataset):
        return _written(sources, store, whose, target, progress)
    if target.to == "ragchecker" and sources and all(is_ragchecker_file(s) for s in sources):
        return _ragchecker(store, whose, sources, target, what)
    if target.to == "ragbench" and isinstance(target.out, str) and target.out != "-" and whose != GOLD:
        streamed = write_target_streamed(store, whose, sources, target, what)  # gold: over the whole data at once
        if streamed is not None:
            done, written, warnings = streamed
            return Exported(written, done.n_rows, done.n_human, done.n_corrected, load_warnings=tuple(warnings))
    dataset, errors, warnings = load_sources(sources)
    if errors:
        raise BadInput(f"{_errors(len(errors))} in the {what}: nothing exported", listed=errors)
    return replace(_written(dataset, store, whose, target, progress), load_warnings=tuple(warnings))


def _written(
    dataset: Dataset,
    store: LabelStore | None,
    whose: LabelSelection | None,
    target: Target,
    progress: RowsDone | None,
) -> Exported:
    n_rows, n_human, written = write_target(dataset, store, whose, target, progress)
    return Exported(written, n_rows, n_human, len(corrected_uids(store, whose) & set(dataset.uids)))


def _ragchecker(
    store: LabelStore | None, whose: LabelSelection | None, sources: Sequence[str], target: Target, what: str
) -> Exported:
    """RagChecker checking outputs with one annotator's claim corrections folded in."""
    from ragviz.data.formats.ragchecker import RagCheckerFormatError
    from ragviz.export.shapes import write_corrected_ragchecker

    if whose is not None and whose.kind in ("human", "gold", "version"):
        raise BadInput(
            "claim corrections of RagChecker checking outputs are exported per annotator: "
            "name one with --annotator NAME"
        )
    person = whose.annotator if whose is not None and whose.is_person else None
    try:
        n_rows, n_human = write_corrected_ragchecker(sources, store, person, target.out)
    except RagCheckerFormatError as exc:
        raise BadInput(f"{_errors(len(exc.problems))} in the {what}: nothing exported", listed=exc.problems) from None
    return Exported(target.out if isinstance(target.out, str) else "", n_rows, n_human, ragchecker=True)


def _errors(n: int) -> str:
    return f"{n:,} error" + ("" if n == 1 else "s")
