"""``ragviz estimate --compare [A B]``: two systems on the same questions, B − A per TRACe metric and subset, the
judge corrected by people (:mod:`ragviz.analysis.compare_systems`).

The systems are the values of ``--system COLUMN`` (default ``generation_model_name``) in DATA, or two data sets given
as ``A=PATH B=PATH`` (each a ragviz export carrying its people's labels); answers pair by ``--pair-by COLUMN``
(default ``id``). People's labels come as for ``ragviz estimate``: ``--human FILE``, a ragviz export, or ``--db``
(default there: the newest paired sample drawn from DATA, ``ragviz audit draw --design paired``). Output: a table,
JSON or CSV; the pairing's notes and the planner's line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = [
    "add_compare_arguments",
    "add_estimate_and_compare_arguments",
    "run_compare",
    "run_estimate_or_compare",
]


def add_estimate_and_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """``ragviz estimate``'s arguments (:func:`ragviz.cli.estimate.add_estimate_arguments`) and ``--compare``'s."""
    from ragviz.cli.estimate import add_estimate_arguments

    add_estimate_arguments(parser)
    add_compare_arguments(parser)


def run_estimate_or_compare(args: argparse.Namespace) -> int:
    """``ragviz estimate``: :func:`run_compare` with ``--compare``, else
    :func:`ragviz.cli.estimate.run_estimate_command`."""
    if getattr(args, "compare", None) is not None:
        return run_compare(args)
    from ragviz.cli.estimate import run_estimate_command

    return run_estimate_command(args)


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--compare",
        nargs="*",
        metavar="SYSTEM",
        help="compare two systems on the same questions: B - A per metric and subset (judge-only, people-only on the "
        "questions whose two answers were reviewed, and PPI++ corrected with its interval); give the two values of "
        "--system (A first), or none for the two the data has, or DATA as A=PATH B=PATH",
    )
    parser.add_argument(
        "--system",
        default="generation_model_name",
        metavar="COLUMN",
        help="with --compare: the column whose values are the systems (default: generation_model_name)",
    )
    parser.add_argument(
        "--pair-by",
        default="id",
        metavar="COLUMN",
        help="with --compare: the column naming the question within its subset (default: id); answers of one "
        "system only, or two of one system to a question, are listed and left out",
    )


def _named(paths: list[str]) -> list[tuple[str, str]] | None:
    """``[(NAME, PATH)]`` when every DATA is ``NAME=PATH``; ``None`` when none is."""
    named = [p.split("=", 1) for p in paths if "=" in p]
    if not named:
        return None
    from ragviz.data.errors import BadInput

    if len(named) != len(paths) or len(named) != 2 or any(not n or not p for n, p in named):
        raise BadInput(
            "give DATA as two NAME=PATH (A=PATH B=PATH) or as plain paths, not a mix", path="ragviz estimate"
        )
    return [(n, p) for n, p in named]


def run_compare(args: argparse.Namespace) -> int:
    """``ragviz estimate --compare``: see the module docstring."""
    from ragviz.analysis.compare_systems.difference import compare_report
    from ragviz.analysis.compare_systems.pairs import FILE_SYSTEMS, column_answers, file_answers, pair_systems
    from ragviz.analysis.compare_systems.words import plan_questions, plan_questions_text
    from ragviz.cli.estimate import load_data
    from ragviz.cli.estimate_table import compare_table, write_report
    from ragviz.data.errors import BadInput

    chosen = args.compare or []
    if len(chosen) not in (0, 2):
        raise BadInput(f"give two systems (A B) or none, got {len(chosen)}", field="--compare")
    if args.family != "trace" or args.by is not None:
        raise BadInput("compares the TRACe metrics, per subset already: leave out --family and --by", field="--compare")
    named = _named(args.paths)
    warnings: list[str] = []
    if named is not None:
        if args.human or args.db:
            raise BadInput(
                "with A=PATH B=PATH give each system's ragviz export (people's labels in its label_source human rows), "
                "not --human or --db",
                path="ragviz estimate",
            )
        from ragviz.analysis.estimates.pairing import pair_export

        parts = []
        for name, path in named:
            said: list[str] = []
            data = load_data([path], name, said=said)
            pairing = pair_export(data)
            warnings += [f"{name}: {w}" for w in [*said, *pairing.warnings]]
            parts.append((name, data, pairing))
        a, b = chosen or [named[0][0], named[1][0]]
        pairs = pair_systems(file_answers(parts, args.pair_by), a, b, FILE_SYSTEMS, args.pair_by)
    else:
        pairing, data = _pair_data(args)
        warnings += pairing.warnings
        a, b = chosen or [None, None]
        pairs = pair_systems(column_answers(data, pairing, args.system, args.pair_by), a, b, args.system, args.pair_by)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    # the difference's coverage was measured with the bootstrap-t (BENCHMARKS.md, issue 39), not yet with the t
    report = compare_report(pairs, args.alpha, "bootstrap-t" if args.interval == "t" else args.interval)
    write_report(report, args.format, args.output, compare_table)
    print(f"note: {plan_questions_text(plan_questions(pairs.pairs, 'adherence', 0.03, args.alpha))}", file=sys.stderr)
    return 0


def _pair_data(args: argparse.Namespace) -> tuple[Any, Any]:
    """The pairing of DATA with people's labels (as ``ragviz estimate``'s) and DATA itself."""
    from ragviz.analysis.estimates.pairing import pair_export, pair_human
    from ragviz.cli.estimate import load_data, pair_db
    from ragviz.data.errors import BadInput

    said: list[str] = []  # the files' load warnings: said with the pairing's
    data = load_data(args.paths, "DATA", said=said)
    if args.human and args.db:
        raise BadInput("give people's labels with --human FILE or --db DB_OR_URL, not both", path="ragviz estimate")
    if args.human:
        pairing = pair_human(data, load_data([args.human], "--human", people=True, said=said))
    elif args.db:
        sample = args.sample if args.sample is not None else _newest_paired(data, args.db)
        pairing, design = pair_db(data, args.db, sample, args.annotator, ("trace",))  # design: per-answer figures
        if design.name not in ("uniform", "paired"):
            pairing.warnings.append(_not_uniform(design.sample_id, design.name))
    else:
        pairing = pair_export(data)
    pairing.warnings[:0] = said
    return pairing, data


def _not_uniform(sample_id: int | None, design: str) -> str:
    return (
        f"audit sample {sample_id} is {design}: its reviewed pairs are read as a uniform sample of questions, which "
        "they are not; draw a paired sample for a comparison (ragviz audit draw --design paired)"
    )


def _newest_paired(data: Any, db: str) -> int | None:
    """The newest paired sample drawn from DATA's examples in *db* (``None``: none; the usual choice then)."""
    from ragviz.cli.common import open_store

    with open_store(db, command="ragviz estimate") as store:
        paired = [s for s in store.audits.list_samples(data.uids) if s.design == "paired"]
    return max(s.id for s in paired) if paired else None
