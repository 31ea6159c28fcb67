"""``ragviz export``: the corrected label set from the label store, as RAGBench rows, per-example metrics, or a
Ragas / DeepEval / RagChecker dataset."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK
from ragviz.data.dataset import Dataset
from ragviz.data.formats.ragchecker import RagCheckerFormatError, is_ragchecker_file
from ragviz.data.load import load
from ragviz.export.card import CARD_NAME, DIRECTORY_PARQUET, card_path_for, write_card
from ragviz.export.files import FORMATS, metrics_records_csv, write_export
from ragviz.export.output import write_output
from ragviz.export.rows import metrics_records
from ragviz.export.shapes import SHAPES, write_corrected_ragchecker, write_shape
from ragviz.store.label_store import LabelStore

__all__ = [
    "FORMATS",
    "TARGETS",
    "Target",
    "add_export_arguments",
    "add_target_arguments",
    "export_command",
    "format_from_name",
    "load_sources",
    "run_export_command",
    "target_paths",
    "write_target",
]


def format_from_name(out: str) -> str:
    if out != "-" and (out.endswith(("/", os.sep)) or Path(out).is_dir()):
        return "parquet"  # a directory: Parquet with a dataset card
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


def export_command(
    db: str | None,
    out: str,
    fmt: str | None = None,
    annotator: str | None = None,
    data: Sequence[str] = (),
    to: str = "ragbench",
    card: bool = False,
) -> int:
    """``ragviz export [DATA ...] --db DB -o OUT [--format jsonl|parquet|csv] [--to ragbench|ragas|deepeval|ragchecker]
    [--card] [--annotator NAME]``.

    Rebuilds the examples from the DATA files and directories, else from the data files
    registered in the store, writes the annotator's current labels to OUT (streamed, batch by
    batch) and prints a one-line summary to stderr. With DATA and ``db=None`` (no store) the rows'
    own labels are exported. Exit 2 on bad input (missing DB or data files, several annotators
    and none named, unknown annotator).
    """
    from ragviz.store.label_store import StoreError
    from ragviz.store.postgres import is_url, mask_url

    fmt = fmt or format_from_name(out)
    if to not in TARGETS:
        print(f"ragviz export: unknown target {to!r} (choose from {', '.join(TARGETS)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    if fmt not in FORMATS:
        print(f"ragviz export: unknown format {fmt!r} (choose from {', '.join(FORMATS)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    if db is None:
        if not data:
            print("ragviz export: give data files or a label store (--db)", file=sys.stderr)
            return EXIT_BAD_INPUT
        return _export_data(None, Target(out, fmt, to, card), None, data, "data files")
    if not is_url(db) and not Path(db).expanduser().is_file():
        print(f"{db}: no label store here (give the file the app uses, default ~/.ragviz/ragviz.db)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        store = LabelStore(db)
    except StoreError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    db = mask_url(db) if is_url(db) else db  # messages below name the URL without its password
    with store:
        names = store.annotators()
        if annotator is None:
            if len(names) > 1:
                print(
                    f"{db}: {len(names)} annotators have labels ({', '.join(names)}); choose one with --annotator NAME",
                    file=sys.stderr,
                )
                return EXIT_BAD_INPUT
            annotator = names[0] if names else None
        elif annotator not in names:
            known = ", ".join(names) if names else "none yet"
            print(f"{db}: annotator {annotator!r} has no labels in this store (annotators: {known})", file=sys.stderr)
            return EXIT_BAD_INPUT
        if data:
            return _export_data(store, Target(out, fmt, to, card), annotator, data, "data files")
        sources = store.sources()
        if not sources:
            print(
                f"{db}: no data files registered in this store; name them (ragviz export DATA ... --db DB) "
                "or open the data in the app first",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        missing = [s for s in sources if not Path(s).exists()]
        if missing:
            for s in missing:
                print(f"{s}: registered data file is missing", file=sys.stderr)
            return EXIT_BAD_INPUT
        return _export_data(store, Target(out, fmt, to, card), annotator, sources, "registered data files")


def _export_data(
    store: LabelStore | None, target: Target, annotator: str | None, sources: Sequence[str], what: str
) -> int:
    if target.to == "ragchecker" and sources and all(is_ragchecker_file(s) for s in sources):
        try:
            n_rows, n_human = write_corrected_ragchecker(sources, store, annotator, target.out)
        except RagCheckerFormatError as exc:
            for p in exc.problems:
                print(str(p), file=sys.stderr)
            print(f"{len(exc.problems)} errors in the {what}: nothing exported", file=sys.stderr)
            return EXIT_BAD_INPUT
        who = annotator or "(no annotator)"
        print(
            f"exported {n_rows} RagChecker items to {target.out} (ragchecker); annotator {who}: "
            f"{n_human} with claim corrections or reviews",
            file=sys.stderr,
        )
        return EXIT_OK
    if target.to == "ragbench" and target.out != "-":
        streamed = _export_streamed(store, target, annotator, sources, what)
        if streamed is not None:
            return streamed
    dataset, errors = load_sources(sources)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        print(f"{len(errors)} errors in the {what}: nothing exported", file=sys.stderr)
        return EXIT_BAD_INPUT
    n_rows, n_human, written = write_target(dataset, store, annotator, target)
    n_corrected = len(store.corrected_uids(annotator) & set(dataset.uids)) if store is not None and annotator else 0
    _summary(written, target, annotator, n_rows, n_human, n_corrected)
    return EXIT_OK


class _BadInput(Exception):
    """Raised between batches of a streamed export when the data has errors: nothing is written."""


def _export_streamed(
    store: LabelStore | None, target: Target, annotator: str | None, sources: Sequence[str], what: str
) -> int | None:
    """The export of Parquet *sources* a record batch at a time (:mod:`ragviz.export.stream`);
    ``None`` when some source is not Parquet (the caller loads them whole). Bad rows are listed
    after the last batch and the output file is then left as it was."""
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
            raise _BadInput

    out, card = target_paths(target)
    try:
        done = write_export_stream(batches, store, annotator, target.fmt, out)
    except _BadInput:
        report.finish()
        for e in report.errors:
            print(str(e), file=sys.stderr)
        print(f"{len(report.errors)} errors in the {what}: nothing exported", file=sys.stderr)
        return EXIT_BAD_INPUT
    if card is not None:
        write_card(out, card)
    _summary(out, target, annotator, done.n_rows, done.n_human, done.n_corrected)
    return EXIT_OK


def _summary(written: str, target: Target, annotator: str | None, n_rows: int, n_human: int, n_corrected: int) -> None:
    who = annotator or "(no annotator)"
    print(
        f"exported {n_rows} examples to {written} ({target.describe()}); annotator {who}: {n_human} human-reviewed, "
        f"{n_corrected} corrected, {n_rows - n_human} judge labels as they were",
        file=sys.stderr,
    )


@dataclass(frozen=True)
class Target:
    """What to write: OUT, the RAGBench format (jsonl / parquet / csv), the tool shape, a dataset card."""

    out: str
    fmt: str
    to: str = "ragbench"
    card: bool = False

    def describe(self) -> str:
        return self.fmt if self.to == "ragbench" else self.to


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
        return len(records), sum(1 for r in records if r["label_source"] == "human"), target.out
    out, card = target_paths(target)
    n_rows, n_human = write_export(dataset, store, annotator, target.fmt, out)
    if card is not None:
        write_card(out, card)
    return n_rows, n_human, out


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ragviz export`` (the CLI module only wires the subparser)."""
    from ragviz.store.label_store import DB_ENV

    parser.add_argument(
        "data",
        nargs="*",
        metavar="DATA",
        help="data files or directories to export with the store's labels (default: the files registered in the store)",
    )
    parser.add_argument(
        "--db",
        metavar="DB",
        default=None,
        help=f"label store: an SQLite file or a postgresql://user@host/db URL (default: ${DB_ENV} or ~/.ragviz/ragviz.db)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        required=True,
        help="file to write ('-' for stdout; a directory: Parquet with a dataset card)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="jsonl or parquet: RAGBench rows with the current labels; csv: per-example metrics (default: from OUT's extension, else jsonl)",
    )
    add_target_arguments(parser)
    parser.add_argument(
        "--annotator",
        metavar="NAME",
        default=None,
        help="whose labels to export (required when several annotators exist)",
    )


TARGETS = ("ragbench", *SHAPES)


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """``--to`` and ``--card`` (shared with ``ragviz convert``)."""
    parser.add_argument(
        "--to",
        choices=TARGETS,
        default="ragbench",
        help="ragbench: RAGBench rows (--format); ragas: a Ragas dataset as JSON lines (EvaluationDataset.from_jsonl); "
        "deepeval: DeepEval test cases as a JSON list (a .csv OUT: DeepEval's CSV with |-joined lists); "
        'ragchecker: RagChecker JSON {"results": [...]} (default: ragbench)',
    )
    parser.add_argument(
        "--card",
        action="store_true",
        help="with a Parquet OUT file: also write its dataset card, <stem>.README.md, beside it "
        "(a Parquet OUT that is a directory always gets data-00000-of-00001.parquet and README.md)",
    )


def run_export_command(args: argparse.Namespace) -> int:
    from ragviz.store.label_store import default_db
    from ragviz.store.postgres import is_url

    db: str | None = str(args.db or default_db())
    if args.data and args.db is None and not is_url(str(db)) and not Path(str(db)).expanduser().is_file():
        db = None  # data named and no store yet: the rows' own labels
    return export_command(db, args.output, args.format, args.annotator, args.data, args.to, args.card)
