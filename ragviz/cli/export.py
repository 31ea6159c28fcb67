"""``ragviz export``: the corrected label set from the label store, as RAGBench rows or per-example metrics."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK
from ragviz.data.dataset import Dataset
from ragviz.data.load import load
from ragviz.export.files import (
    FORMATS,
    metrics_records_csv,
    write_export,
    write_output,
)
from ragviz.export.rows import metrics_records
from ragviz.store.label_store import LabelStore


def _format_from_name(out: str) -> str:
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
) -> int:
    """``ragviz export [DATA ...] --db DB -o OUT [--format jsonl|parquet|csv] [--annotator NAME]``.

    Rebuilds the examples from the DATA files and directories, else from the data files
    registered in the store, writes the annotator's current labels to OUT (streamed, batch by
    batch) and prints a one-line summary to stderr. With DATA and ``db=None`` (no store) the rows'
    own labels are exported. Exit 2 on bad input (missing DB or data files, several annotators
    and none named, unknown annotator).
    """
    from ragviz.store.label_store import StoreError
    from ragviz.store.postgres import is_url, mask_url

    fmt = fmt or _format_from_name(out)
    if fmt not in FORMATS:
        print(f"ragviz export: unknown format {fmt!r} (choose from {', '.join(FORMATS)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    if db is None:
        if not data:
            print("ragviz export: give data files or a label store (--db)", file=sys.stderr)
            return EXIT_BAD_INPUT
        return _export_data(None, out, fmt, None, data, "data files")
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
            return _export_data(store, out, fmt, annotator, data, "data files")
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
        return _export_data(store, out, fmt, annotator, sources, "registered data files")


def _export_data(
    store: LabelStore | None, out: str, fmt: str, annotator: str | None, sources: Sequence[str], what: str
) -> int:
    if out != "-":
        streamed = _export_streamed(store, out, fmt, annotator, sources, what)
        if streamed is not None:
            return streamed
    dataset, errors = load_sources(sources)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        print(f"{len(errors)} errors in the {what}: nothing exported", file=sys.stderr)
        return EXIT_BAD_INPUT
    if fmt == "csv":
        records = metrics_records(dataset, store, annotator)
        n_human = sum(1 for r in records if r["label_source"] == "human")
        n_rows = len(records)
        write_output(metrics_records_csv(records).encode("utf-8"), out)
    else:
        n_rows, n_human = write_export(dataset, store, annotator, fmt, out)
    n_corrected = len(store.corrected_uids(annotator) & set(dataset.uids)) if store is not None and annotator else 0
    _summary(out, fmt, annotator, n_rows, n_human, n_corrected)
    return EXIT_OK


class _BadInput(Exception):
    """Raised between batches of a streamed export when the data has errors: nothing is written."""


def _export_streamed(
    store: LabelStore | None, out: str, fmt: str, annotator: str | None, sources: Sequence[str], what: str
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

    try:
        done = write_export_stream(batches, store, annotator, fmt, out)
    except _BadInput:
        report.finish()
        for e in report.errors:
            print(str(e), file=sys.stderr)
        print(f"{len(report.errors)} errors in the {what}: nothing exported", file=sys.stderr)
        return EXIT_BAD_INPUT
    _summary(out, fmt, annotator, done.n_rows, done.n_human, done.n_corrected)
    return EXIT_OK


def _summary(out: str, fmt: str, annotator: str | None, n_rows: int, n_human: int, n_corrected: int) -> None:
    who = annotator or "(no annotator)"
    print(
        f"exported {n_rows} examples to {out} ({fmt}); annotator {who}: {n_human} human-reviewed, "
        f"{n_corrected} corrected, {n_rows - n_human} judge labels as they were",
        file=sys.stderr,
    )


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
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="file to write ('-' for stdout)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="jsonl or parquet: RAGBench rows with the current labels; csv: per-example metrics (default: from OUT's extension, else jsonl)",
    )
    parser.add_argument(
        "--annotator",
        metavar="NAME",
        default=None,
        help="whose labels to export (required when several annotators exist)",
    )


def run_export_command(args: argparse.Namespace) -> int:
    from ragviz.store.label_store import default_db
    from ragviz.store.postgres import is_url

    db: str | None = str(args.db or default_db())
    if args.data and args.db is None and not is_url(str(db)) and not Path(str(db)).expanduser().is_file():
        db = None  # data named and no store yet: the rows' own labels
    return export_command(db, args.output, args.format, args.annotator, args.data)
