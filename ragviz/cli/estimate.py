"""``ragviz estimate``: each metric's mean over all judged examples, corrected by a random human audit (PPI++).

People's labels come from ``--human FILE`` (matched by dataset, id and generation model) or from a
ragviz export in DATA itself (``label_source == "human"`` rows; ``audit_sample`` picks the random
sample when present), or from a label store with ``--db`` (the reviewed members of an audit sample drawn
on the Review page; :func:`ragviz.analysis.estimates.pairing.pair_store`): see :mod:`ragviz.analysis.estimates.pairing`. The estimates are
:mod:`ragviz.analysis.estimates.ppi`'s. Exit 0, or 2 on bad input with one ``ragviz estimate: ...`` line.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_db_argument, first_problem, load_warnings_line, open_store
from ragviz.cli.estimate_table import format_table, write_report
from ragviz.data.errors import BadInput

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset

__all__ = [
    "FAMILY_CHOICES",
    "FORMATS",
    "INTERVALS",
    "add_estimate_arguments",
    "load_data",
    "pair_db",
    "run_estimate_command",
]


COMMAND = "ragviz estimate"


FORMATS = ("table", "json", "csv")
INTERVALS = ("t", "bootstrap-t", "normal")  # estimate.DEFAULT_INTERVAL first, then ppi.INTERVAL_METHODS (lazy import)
FAMILY_CHOICES = ("trace", "tonic", "retrieval", "all", "ragchecker")


def add_estimate_arguments(parser: argparse.ArgumentParser) -> None:
    from ragviz.analysis.estimates.report import INTERVAL_COVERAGE

    parser.add_argument(
        "paths",
        nargs="+",
        metavar="DATA",
        help="judge-labelled rows in any format ragviz reads (.parquet, .jsonl, .json, .csv, directories of shards); "
        "with --compare also two systems' data sets as A=PATH B=PATH",
    )
    parser.add_argument(
        "--human",
        metavar="FILE",
        help="people's labels of a uniformly random sample of DATA's examples, matched by dataset_name, id and "
        "generation_model_name (one row per example); every row in it counts as audited, except in a ragviz export, where only its "
        "label_source human rows do (the others are counted and left out) (default: the label_source human rows "
        "of a ragviz export in DATA)",
    )
    add_db_argument(
        parser,
        defaults_to_store=False,
        metavar="DB_OR_URL",
        purpose="people's labels and the audit sample: the reviewed members of the team's audit sample (an admin's "
        "choice; else the newest) drawn from DATA's examples count as audited",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="ID",
        help="with --db: the audit sample to use (default: the team's, else the newest)",
    )
    parser.add_argument(
        "--annotator",
        metavar="NAME",
        help="with --db: this annotator's labels (default: human, per example and label field every annotator's latest decision)",
    )
    parser.add_argument("--alpha", type=_alpha, default=0.05, help="1 - confidence level (default: 0.05)")
    parser.add_argument(
        "--interval",
        choices=INTERVALS,
        default=INTERVALS[0],
        help=(
            "the PPI++ interval: t (default; Student's t around the estimate with lambda cross-fitted, its standard "
            "error from the out-of-fold residuals and degrees of freedom from their kurtosis: covers "
            f"{INTERVAL_COVERAGE['t']} in benchmarks/bench_design_target.py and bench_designs.py; the bootstrap-t where the audit is too "
            "small to cross-fit, and with --compare), bootstrap-t (a studentized bootstrap that re-tunes lambda in each of "
            f"2,000 resamples, seed 0: covers {INTERVAL_COVERAGE['bootstrap-t']} in benchmarks/bench_ppi.py) or "
            f"normal (ppi_py's ppi_mean_ci: {INTERVAL_COVERAGE['normal']}); both kept within the metric's range "
            f"and never narrower than a small audit can rule out; under {MIN_AUDITED} audited examples no "
            "corrected figure is said in words"
        ).replace("%", "%%"),
    )
    parser.add_argument(
        "--by", choices=("dataset_name", "generation_model_name"), help="also estimate per subset (or model)"
    )
    parser.add_argument(
        "--family",
        choices=FAMILY_CHOICES,
        default="trace",
        help="metric family (default: trace); all = TRACe, Tonic and retrieval where present; ragchecker = "
        "RagChecker's 11 claim metrics of the checking outputs given as DATA, corrected by the audit sample "
        "drawn from their items on the Claims page (needs --db; --annotator when several people reviewed it)",
    )
    parser.add_argument(
        "--minutes-per-example",
        type=float,
        default=4.0,
        metavar="MIN",
        help="with a stratified or active sample (--db): a person's minutes per reviewed example, for the "
        "people-hours saved against a uniform audit of equal precision (default: 4)",
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of stdout")


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {value}")
    return value


def _fail(message: str) -> int:
    print(f"{COMMAND}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def load_data(paths: list[str], what: str, people: bool = False, said: list[str] | None = None) -> Dataset:
    """The loaded dataset; :class:`BadInput` naming the first problem when it does not load. *people*: the files
    are people's labels, where a second row for one example is refused too (the loader keeps the first). Its load
    warnings, in one line (:func:`~ragviz.cli.common.load_warnings_line`), are added to *said*: the command says
    them with its other warnings once its input is all good."""
    from ragviz.analysis.team.imports import one_row_per_example
    from ragviz.data.load import load

    result = load(paths)
    problems = [*result.errors, *(result.duplicates if people else [])]
    if problems:
        if problems[0] in result.duplicates:
            problems[0] = replace(problems[0], message=one_row_per_example(problems[0].message))
        raise BadInput(f"{what}: {first_problem(problems)}")
    if len(result.dataset) == 0:
        raise BadInput(f"{what}: {', '.join(paths)}: no rows")
    if said is not None and result.warnings:
        said.append(load_warnings_line(result.warnings))
    return result.dataset


def run_estimate_command(args: argparse.Namespace) -> int:
    """``ragviz estimate``: see the module docstring."""
    from ragviz.analysis.estimates.pairing import ESTIMATE_FAMILIES

    families = ESTIMATE_FAMILIES if args.family == "all" else (args.family,)
    try:
        if args.family == "ragchecker":
            pairing, design = _pair_claims(args), None
        else:
            pairing, design = _pair(args, families)
    except BadInput as exc:
        if exc.path is not None:
            raise  # it names its file or store already (ragviz.cli.main prints it)
        return _fail(str(exc))
    return _report(pairing, design, args)


def _pair(args: argparse.Namespace, families: Any) -> tuple[Any, Any]:
    """The pairing and, from a label store, its audit sample's design (``None`` otherwise)."""
    from ragviz.analysis.estimates.pairing import pair_export, pair_human

    said: list[str] = []  # the files' load warnings: said with the pairing's
    data = load_data(args.paths, "DATA", said=said)
    if args.human and args.db:
        raise BadInput("give people's labels with --human FILE or --db DB_OR_URL, not both")
    if args.human:
        pairing, design = pair_human(data, load_data([args.human], "--human", people=True, said=said), families), None
    elif args.db:
        pairing, design = pair_db(data, args.db, args.sample, args.annotator, families)
    else:
        pairing, design = pair_export(data, families), None
    pairing.warnings[:0] = said
    return pairing, design


def _pair_claims(args: argparse.Namespace) -> Any:
    """The items of every RagChecker checking output in DATA, each file corrected by its own audit sample."""
    from ragviz.analysis.estimates.claims import pair_claims_store
    from ragviz.analysis.estimates.pairing import Pairing

    if args.human or not args.db:
        raise BadInput(
            "--family ragchecker reads people's labels from a label store: give --db DB_OR_URL (not --human)"
        )
    if args.by is not None:
        raise BadInput("--family ragchecker: --by is not available (one checking output is one subset)")
    if args.sample is not None and len(args.paths) > 1:
        raise BadInput("--sample ID names one file's audit sample: give one checking output with it")
    with open_store(args.db, command=COMMAND) as store:
        parts = [pair_claims_store(path, store, args.sample, args.annotator) for path in args.paths]
    return Pairing([e for p in parts for e in p.examples], [w for p in parts for w in p.warnings])


def _report(pairing: Any, design: Any, args: argparse.Namespace) -> int:
    from ragviz.analysis.estimates.report import estimate_report

    for warning in [*pairing.warnings, *(design.warnings if design is not None else [])]:
        print(f"warning: {warning}", file=sys.stderr)
    where = args.human or _masked(args.db) or ", ".join(args.paths)
    if pairing.n_labeled == 0:
        hint = (
            ""
            if args.human
            else " (nobody reviewed a member of the audit sample yet)"
            if args.db
            else " (no label_source human row in the audit sample; or pass people's labels with --human FILE)"
        )
        return _fail(f"{where}: no audited rows{hint}")
    if pairing.n_labeled == 1:
        row = next(e.where for e in pairing.examples if e.audited)
        return _fail(f"{row}: the only audited row: an interval needs at least 2")
    if not pairing.metric_names():
        return _fail(f"{', '.join(args.paths)}: no {args.family} metric is defined on any example")
    if design is not None:
        from ragviz.analysis.audits.design_estimate import design_report

        report = design_report(pairing, design, args.alpha, args.by, args.interval, args.minutes_per_example)
    else:
        report = estimate_report(pairing, args.alpha, args.by, args.interval)
    write_report(report, args.format, args.output, format_table)
    return EXIT_OK


def _masked(db: str | None) -> str | None:
    from ragviz.store.postgres import is_url, mask_url

    return None if db is None else mask_url(db) if is_url(db) else db


def pair_db(data: Dataset, db: str, sample_id: int | None, annotator: str | None, families: Any) -> Any:
    """The pairing of :func:`ragviz.analysis.estimates.pairing.pair_store` over the label store *db* and the
    sample's design (:func:`ragviz.analysis.audits.design_estimate.design_info`); :class:`BadInput` when it does
    not open or holds no audit sample drawn from DATA's examples."""

    from ragviz.analysis.audits.sample_estimate import audited_members, design_of, pilot_of
    from ragviz.analysis.estimates.pairing import pair_store
    from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
    from ragviz.store.audit_samples import default_sample

    where = _masked(db)
    with open_store(db, command=COMMAND) as store:
        if annotator is not None and annotator not in store.annotators():
            known = ", ".join(store.annotators()) or "none"
            raise BadInput(f"{where}: annotator {annotator!r} has no labels in this store (annotators: {known})")
        drawn = store.audits.list_samples(data.uids)
        if sample_id is not None:
            sample = store.audits.get_sample(sample_id)
            if sample is None:
                raise BadInput(f"{where}: no audit sample {sample_id}")
            if sample not in drawn:
                raise BadInput(
                    f"{where}: audit sample {sample_id} was drawn from {sample.population_size:,} other examples "
                    f"than DATA's {len(set(data.uids)):,}: give the data it was drawn from"
                )
        elif not drawn:
            raise BadInput(
                f"{where}: no audit sample drawn from DATA's examples (draw one on the Review page, "
                "queue: Audit sample)"
            )
        else:
            choice = store.audits.team_choice()
            sample = default_sample(drawn, choice)
            assert sample is not None
            if choice is not None and choice.sample_id == sample.id:
                print(
                    f"using the team's audit sample {sample.id} (chosen by {choice.chosen_by} at {choice.chosen_at};"
                    " another with --sample ID)",
                    file=sys.stderr,
                )
            elif len(drawn) > 1:
                print(
                    f"warning: {len(drawn)} audit samples were drawn from these examples and no admin chose the team's;"
                    f" using the newest, {sample.id} (choose with --sample ID)",
                    file=sys.stderr,
                )
        pilot = pilot_of(store, sample)
        pairing = pair_store(
            data, store, audited_members(sample, pilot), LabelSelection.of(annotator) if annotator else HUMAN, families
        )
    from ragviz.analysis.audits.designs import DesignError

    try:
        return pairing, design_of(data, pairing, sample, pilot)
    except DesignError as exc:
        raise BadInput(f"{where}: {exc}") from None
