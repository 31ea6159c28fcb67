"""``ragviz export``: the corrected label set from the label store, as RAGBench rows, per-example metrics, or a
Ragas / DeepEval / RagChecker dataset. What to write and the writing are :mod:`ragviz.export.targets`; bad input
is raised as :class:`~ragviz.data.errors.BadInput` (printed by :mod:`ragviz.cli.main`, exit 2)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ragviz.analysis.labelsets.named import GOLD
from ragviz.cli.common import EXIT_OK, add_db_argument, open_store
from ragviz.cli.common import errors as errors_of
from ragviz.data.errors import BadInput
from ragviz.data.formats.ragchecker import RagCheckerFormatError, is_ragchecker_file
from ragviz.export.files import FORMATS
from ragviz.export.shapes import write_corrected_ragchecker
from ragviz.export.targets import TARGETS, Target, format_from_name, load_sources, write_target, write_target_streamed
from ragviz.store.label_store import EVERYONE, LabelStore

__all__ = ["COMMAND", "add_export_arguments", "add_target_arguments", "export_command", "run_export_command"]


COMMAND = "ragviz export"


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
    batch) and prints a one-line summary to stderr. With several annotators and none named (or
    ``--annotator '*'``) it is the team's export (:data:`~ragviz.store.label_store.EVERYONE`). With DATA
    and ``db=None`` (no store) the rows' own labels are exported. Returns 0; bad input (missing DB or data
    files, unknown annotator) raises :class:`BadInput`, which ``ragviz`` prints and exits 2 on.
    """
    from ragviz.store.postgres import is_url, mask_url

    fmt = fmt or format_from_name(out)
    if to not in TARGETS:
        raise BadInput(f"unknown target {to!r} (choose from {', '.join(TARGETS)})", path=COMMAND)
    if fmt not in FORMATS:
        raise BadInput(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", path=COMMAND)
    if db is None:
        if not data:
            raise BadInput("give data files or a label store (--db)", path=COMMAND)
        return _export_data(None, Target(out, fmt, to, card), None, data, "data files")
    store = open_store(db, command=COMMAND)
    db = mask_url(db) if is_url(db) else db  # messages below name the URL without its password
    with store:
        names = store.annotators()
        if annotator == GOLD:
            pass  # the team's gold labels (examples without any keep the judge's)
        elif annotator is None:
            # several people: the team's export (every annotator's latest decision, a reviewer per row)
            annotator = EVERYONE if len(names) > 1 else names[0] if names else None
        elif annotator == EVERYONE:
            pass
        elif annotator not in names:
            known = ", ".join(names) if names else "none yet"
            raise BadInput(f"annotator {annotator!r} has no labels in this store (annotators: {known})", path=db)
        if data:
            return _export_data(store, Target(out, fmt, to, card), annotator, data, "data files")
        sources = store.sources.registered()
        if not sources:
            raise BadInput(
                "no data files registered in this store; name them (ragviz export DATA ... --db DB) "
                "or open the data in the app first",
                path=db,
            )
        missing = [s for s in sources if not Path(s).exists()]
        if missing:
            *listed, last = [f"{s}: registered data file is missing" for s in missing]
            raise BadInput(last, listed=listed)
        return _export_data(store, Target(out, fmt, to, card), annotator, sources, "registered data files")


def _export_data(
    store: LabelStore | None, target: Target, annotator: str | None, sources: Sequence[str], what: str
) -> int:
    if target.to == "ragchecker" and sources and all(is_ragchecker_file(s) for s in sources):
        if annotator == EVERYONE:
            raise BadInput(
                "claim corrections of RagChecker checking outputs are exported per annotator: "
                "name one with --annotator NAME"
            )
        try:
            n_rows, n_human = write_corrected_ragchecker(sources, store, annotator, target.out)
        except RagCheckerFormatError as exc:
            raise BadInput(
                f"{errors_of(len(exc.problems))} in the {what}: nothing exported", listed=exc.problems
            ) from None
        who = annotator or "(no annotator)"
        print(
            f"exported {n_rows} RagChecker items to {target.out} (ragchecker); annotator {who}: "
            f"{n_human} with claim corrections or reviews",
            file=sys.stderr,
        )
        return EXIT_OK
    if target.to == "ragbench" and target.out != "-" and annotator != GOLD:  # gold: over the whole data at once
        streamed = write_target_streamed(store, annotator, sources, target, what)
        if streamed is not None:
            done, written = streamed
            _summary(written, target, annotator, done.n_rows, done.n_human, done.n_corrected)
            return EXIT_OK
    dataset, errors = load_sources(sources)
    if errors:
        raise BadInput(f"{errors_of(len(errors))} in the {what}: nothing exported", listed=errors)
    n_rows, n_human, written = write_target(dataset, store, annotator, target)
    n_corrected = len(store.corrected_uids(annotator) & set(dataset.uids)) if store is not None and annotator else 0
    _summary(written, target, annotator, n_rows, n_human, n_corrected)
    return EXIT_OK


def _summary(written: str, target: Target, annotator: str | None, n_rows: int, n_human: int, n_corrected: int) -> None:
    if annotator == GOLD:
        print(
            f"exported {n_rows} examples to {written} ({target.describe()}); gold labels: {n_human} agreed or"
            f" adjudicated, {n_rows - n_human} judge labels as they were (label_source llm)",
            file=sys.stderr,
        )
        return
    who = "every annotator (the team's export, a reviewer per row)" if annotator == EVERYONE else annotator
    who = who or "(no annotator)"
    print(
        f"exported {n_rows} examples to {written} ({target.describe()}); annotator {who}: {n_human} human-reviewed, "
        f"{n_corrected} corrected, {n_rows - n_human} judge labels as they were",
        file=sys.stderr,
    )


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ragviz export`` (the CLI module only wires the subparser)."""

    parser.add_argument(
        "data",
        nargs="*",
        metavar="DATA",
        help="data files or directories to export with the store's labels (default: the files registered in the store)",
    )
    add_db_argument(parser)
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
        help=f"whose labels to export (default: the one annotator with labels; with several, or '{EVERYONE}': "
        "the team's export, every annotator's latest decision per example with a reviewer per row and "
        "field_reviewers where several people decided)",
    )
    parser.add_argument(
        "--labels",
        metavar="gold|latest|ANNOTATOR",
        default=None,
        help="which label set to export: gold (per example the labels its annotators all agreed on, label_source "
        "'agreed', or an adjudicator settled, 'adjudicated', with reviewer = who settled it; the rest keep the "
        "judge's labels, label_source 'llm'), latest (every annotator's latest decision, as --annotator "
        f"'{EVERYONE}') or one annotator's name (as --annotator NAME)",
    )


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
    annotator = args.annotator
    if args.labels is not None:
        if annotator is not None:
            raise BadInput("give --labels or --annotator, not both", path=COMMAND)
        annotator = {"gold": GOLD, "latest": EVERYONE}.get(args.labels.strip(), args.labels.strip())
        if annotator == GOLD and db is None:
            raise BadInput("gold labels live in a label store: give --db DB", path=COMMAND, field="--labels gold")
    return export_command(db, args.output, args.format, annotator, args.data, args.to, args.card)
