"""``ragviz audit``: draw an audit sample (uniform, stratified, active or paired) and see how far its review is.

``ragviz audit draw DATA... --db DB --size N [--design uniform|stratified|active|paired] [--by COLUMN] [--allocation
proportional|neyman] [--pilot ID] [--seed S]`` draws (paired: *N* questions, both systems' answers of each, with
:func:`ragviz.analysis.compare_systems.audit.draw_paired`, and the plan for a 3-point difference)
with :func:`ragviz.analysis.audits.samples.draw_design` — the function the Review page's "Draw sample" calls, so the
same seed gives the same members — and prints the sample's id and members; ``--grow ID`` grows a sample instead.
``ragviz audit status --db DB [--sample ID]`` prints each sample's design, size and reviewed members. Exit 0, or 2
on bad input with one ``ragviz audit: ...`` line.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_db_argument, first_problem, login_name, open_store, warn_load

__all__ = ["add_audit_arguments", "run_audit_command"]


COMMAND = "ragviz audit"

DESIGN_CHOICES = ("uniform", "stratified", "active", "paired")  # designs.DESIGNS and PAIRED (lazy import)


def add_audit_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="audit_command", metavar="ACTION")
    sub.required = True
    draw = sub.add_parser(
        "draw",
        help="draw (or grow) an audit sample and print its id and members",
        description="Draw an audit sample of DATA's examples into the label store (the same draw as the Review "
        "page's for the same seed) and print its id and members in review order, each with its stratum and "
        "inclusion probability.",
    )
    draw.add_argument("paths", nargs="+", metavar="DATA", help="the judged rows the sample is drawn from")
    add_db_argument(draw, required=True, metavar="DB_OR_URL", purpose="the sample is stored here")
    draw.add_argument("--size", required=True, type=int, metavar="N", help="examples to audit (active: on average)")
    draw.add_argument(
        "--design",
        choices=DESIGN_CHOICES,
        default="uniform",
        help="uniform (every example alike), stratified (a share per value of --by), active (examples the "
        "judge is unsure of more often, from --confidence) or paired (--size questions drawn alike, both systems' "
        "answers of each: the audit of ragviz estimate --compare) (default: uniform)",
    )
    draw.add_argument(
        "--by", metavar="COLUMN", help="stratified: the column whose values are the strata (e.g. dataset_name)"
    )
    draw.add_argument(
        "--allocation",
        choices=("proportional", "neyman"),
        default="proportional",
        help="stratified: proportional to the strata's sizes, or Neyman (more where the judge is unsure, from "
        "--confidence) (default: proportional)",
    )
    draw.add_argument(
        "--pilot",
        type=int,
        metavar="ID",
        help="stratified, neyman: take each stratum's spread from the reviewed members of audit sample ID (the "
        "judge's error on --pilot-metric there) instead of from --confidence; active: calibrate --confidence on "
        "them (how far people's TRACe metrics strayed from the judge's at each confidence and judge value; at least "
        "10 reviewed; a uniform pilot's reviews also join the estimate, and the sample tops up the pilot's chance "
        "of each example instead of adding to it), so a confidence that predicts nothing draws a near-uniform sample",
    )
    draw.add_argument(
        "--pilot-metric",
        default="adherence",
        metavar="METRIC",
        help="with --pilot, stratified: the metric whose judge error sets the spreads (default: adherence; an "
        "active design calibrates on every TRACe metric)",
    )
    draw.add_argument(
        "--confidence",
        default="judge_confidence",
        metavar="COLUMN",
        help="the column with the judge's confidence per row, 0-1 (default: judge_confidence)",
    )
    draw.add_argument(
        "--floor",
        type=float,
        default=None,
        help="active: the share of the draw spread evenly over all examples, so each can be drawn (default: with "
        "--pilot, the one the pilot's reviews say draws least variably, 0.05-1; without, 0.5)",
    )
    draw.add_argument(
        "--system",
        default="generation_model_name",
        metavar="COLUMN",
        help="paired: the column whose values are the systems (default: generation_model_name)",
    )
    draw.add_argument(
        "--pair-by",
        default="id",
        metavar="COLUMN",
        help="paired: the column naming the question within its subset (default: id)",
    )
    draw.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="paired: the two systems (default: the two the data has)",
    )
    draw.add_argument(
        "--plan-difference",
        type=float,
        default=3.0,
        metavar="POINTS",
        help="paired: the difference in points the printed plan is for (default: 3)",
    )
    draw.add_argument("--seed", type=int, help="the seed (default: a fresh one, printed)")
    draw.add_argument("--grow", type=int, metavar="ID", help="grow sample ID to --size with its own design and seed")
    draw.add_argument("--annotator", metavar="NAME", help="who draws it (default: $RAGVIZ_ANNOTATOR or the login name)")
    draw.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    status = sub.add_parser(
        "status",
        help="each audit sample's design, size and review progress",
        description="Print each audit sample in the label store (or one with --sample): its design, size, seed and "
        "how many members anyone reviewed, per stratum for a stratified sample.",
    )
    add_db_argument(status, required=True, metavar="DB_OR_URL")
    status.add_argument("--sample", type=int, metavar="ID", help="only this sample")
    status.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")


def _fail(message: str) -> int:
    print(f"{COMMAND}: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_audit_command(args: argparse.Namespace) -> int:
    from ragviz.analysis.audits.designs import DesignError
    from ragviz.store.audit_samples import AuditSampleError
    from ragviz.store.label_store import StoreError

    try:
        if args.audit_command == "draw":
            return _draw(args)
        return _status(args)
    except (DesignError, AuditSampleError, StoreError, ValueError) as exc:
        return _fail(str(exc))


def _draw(args: argparse.Namespace) -> int:
    from ragviz.analysis.audits.samples import draw_design, grow_design
    from ragviz.analysis.audits.seed_notes import seed_notes
    from ragviz.data.load import load

    result = load(args.paths)
    if not result.ok:
        return _fail(f"DATA: {first_problem(result.errors)}")
    warn_load(result.warnings)
    dataset = result.dataset
    who = args.annotator or login_name()
    plan = None
    with open_store(args.db, command=COMMAND, create=True) as store:
        if args.grow is not None:
            found = store.audits.get_sample(args.grow)
            if found is None:
                return _fail(f"{args.db}: no audit sample {args.grow}")
            if found.design == "paired":
                from ragviz.analysis.compare_systems.audit import grow_paired

                sample = grow_paired(store, dataset, found, args.size, who)
                plan = _paired_plan(store, dataset, sample, args.plan_difference)
            else:
                sample = grow_design(store, dataset, found, args.size, who)
        elif args.design == "paired":
            from ragviz.analysis.compare_systems.audit import draw_paired

            sample = draw_paired(store, dataset, args.size, who, args.seed, args.system, args.pair_by, args.compare)
            plan = _paired_plan(store, dataset, sample, args.plan_difference)
        else:
            pilot = None
            if args.pilot is not None:
                pilot = store.audits.get_sample(args.pilot)
                if pilot is None:
                    return _fail(f"{args.db}: no audit sample {args.pilot} to take the pilot from")
            sample = draw_design(
                store,
                dataset,
                args.design,
                args.size,
                who,
                args.seed,
                args.by,
                args.allocation,
                args.confidence,
                args.floor,
                pilot,
                args.pilot_metric,
            )
        notes = [] if args.grow is not None else seed_notes(store, sample)
    members = [
        {"position": i + 1, "uid": m.uid, "stratum": m.stratum, "inclusion_probability": m.inclusion_probability}
        for i, m in enumerate(sample.member_details())
    ]
    out = {
        "sample": sample.id,
        "design": sample.design,
        "seed": sample.seed,
        "size": sample.size,
        "params": sample.params,
        "members": members,
    }
    if plan is not None:
        out["plan"] = plan
    if notes:
        out["notes"] = notes
    if args.format == "json":
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return EXIT_OK
    if sample.design == "paired":
        a, b = sample.params["systems"]
        print(
            f"audit sample {sample.id}: paired, {sample.params['questions']:,} questions of "
            f"{sample.params['population_questions']:,} ({a} and {b}: {sample.size:,} answers), seed {sample.seed}"
        )
        if plan is not None:
            print(plan)
    else:
        print(f"audit sample {sample.id}: {sample.design}, {sample.size:,} examples, seed {sample.seed}")
    for note in notes:
        print(f"note: {note}")
    for m in members:
        stratum = f"  [{m['stratum']}]" if m["stratum"] else ""
        print(f"{m['position']:>5}  {m['uid']}  p={m['inclusion_probability']:.4f}{stratum}")
    return EXIT_OK


def _paired_plan(store: Any, dataset: Any, sample: Any, points: float) -> str | None:
    """The planner's line for a paired *sample*: how many questions tell a difference of *points* apart on adherence,
    from its reviewed pairs (else the judge's differences); ``None`` when the judge labelled no pair."""
    from ragviz.analysis.compare_systems.pairs import CompareError, column_answers, pair_systems
    from ragviz.analysis.compare_systems.words import plan_questions, plan_questions_text
    from ragviz.analysis.estimates.pairing import pair_store

    p = sample.params
    try:
        pairs = pair_systems(
            column_answers(dataset, pair_store(dataset, store, sample.members), p["system"], p["pair_by"]),
            p["systems"][0],
            p["systems"][1],
            p["system"],
            p["pair_by"],
        )
    except CompareError:
        return None
    return plan_questions_text(plan_questions(pairs.pairs, "adherence", points / 100.0))


def _status(args: argparse.Namespace) -> int:
    with open_store(args.db, command=COMMAND) as store:
        if args.sample is not None:
            one = store.audits.get_sample(args.sample)
            if one is None:
                return _fail(f"{args.db}: no audit sample {args.sample}")
            samples = [one]
        else:
            samples = store.audits.list_samples()
        reviewed: set[str] = set()
        for who in store.annotators():
            reviewed |= store.reviewed_uids(who)
    rows = []
    for s in samples:
        done = [u for u in s.members if u in reviewed]
        row: dict[str, Any] = {
            "sample": s.id,
            "design": s.design,
            "size": s.size,
            "reviewed": len(done),
            "seed": s.seed,
            "drawn_by": s.created_by,
            "drawn_at": s.created_at,
        }
        strata: dict[str, list[int]] = {}
        for m in s.member_details():
            if m.stratum is not None:
                strata.setdefault(m.stratum, [0, 0])[0] += 1
                strata[m.stratum][1] += m.uid in reviewed
        if strata:
            row["strata"] = {h: {"size": a, "reviewed": b} for h, (a, b) in sorted(strata.items())}
        rows.append(row)
    if args.format == "json":
        sys.stdout.write(json.dumps({"samples": rows}, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        print("no audit sample in this store (draw one: ragviz audit draw DATA --db DB --size N)")
    for r in rows:
        print(f"sample {r['sample']}: {r['design']}, {r['reviewed']:,} of {r['size']:,} reviewed (seed {r['seed']})")
        for h, c in (r.get("strata") or {}).items():
            print(f"    {h}: {c['reviewed']:,} of {c['size']:,} reviewed")
    return EXIT_OK
