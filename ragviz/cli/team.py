"""``ragviz team``: a labelling team's round from the command line: ``assign`` (overlap over a pool),
``reassign`` (an annotator leaves), ``status`` (progress per annotator and example; the adjudication queue is the Team page's).
The work is :mod:`ragviz.store.team` and :mod:`ragviz.analysis.team`; bad input raises
:class:`~ragviz.data.errors.BadInput` (printed by :mod:`ragviz.cli.main`, exit 2)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ragviz.cli.common import EXIT_OK, add_db_argument, errors, open_store, warn_load
from ragviz.data.errors import BadInput

__all__ = ["COMMAND", "add_team_arguments", "run_team_command"]


COMMAND = "ragviz team"


def add_team_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="team_command", metavar="ACTION")
    sub.required = True
    a = sub.add_parser(
        "assign",
        help="give every example of DATA (or of an audit sample) K annotators from the pool",
        description="Assign each example of DATA (or only the members of audit sample --sample ID) to K different "
        "annotators of the pool, balancing the queues (sizes differ by at most one); examples already assigned "
        "keep their annotators and are topped up to K. Someone with open assignments left out of the pool is "
        "refused: use `ragviz team reassign --leave NAME`. Exit 2 on bad input, with nothing stored.",
    )
    a.add_argument(
        "data", nargs="*", metavar="DATA", help="data files or directories (default: the files registered in the store)"
    )
    add_db_argument(a)
    a.add_argument(
        "--overlap", metavar="K", type=int, required=True, help="how many annotators label each example (1-5)"
    )
    a.add_argument("--pool", metavar="NAME,NAME...", required=True, help="the annotators who label, comma-separated")
    a.add_argument(
        "--sample", metavar="ID", type=int, default=None, help="assign only the members of this audit sample"
    )
    a.add_argument("--by", metavar="NAME", default="cli", help="who makes the assignment, as recorded (default: cli)")
    r = sub.add_parser(
        "reassign",
        help="an annotator leaves: their open examples go to the others",
        description="Take back every example NAME was assigned and has not decided, and give each to the "
        "least-loaded other pool member not already on it (one action; what NAME decided stays theirs). "
        "Refused, with nothing changed, when an example would have nobody left to take it.",
    )
    add_db_argument(r)
    r.add_argument("--leave", metavar="NAME", required=True, help="the annotator who leaves")
    r.add_argument("--by", metavar="NAME", default="cli", help="who makes the change, as recorded (default: cli)")
    s = sub.add_parser(
        "status",
        help="progress per annotator (assigned, done) and per example (assigned to, done by)",
        description="Print per annotator how many examples they are assigned and have done, and per assigned "
        "example who it is assigned to and who of them decided it (on stderr: the spellings of one e-mail address "
        "that migration 020 folded into one person). "
        '--format json prints {"annotators": {NAME: '
        '{"assigned": n, "done": n}}, "examples": {UID: [NAME, ...]}} (the annotators each example is assigned to).',
    )
    add_db_argument(s)
    s.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")


_NO_DATA = (
    "no data: name DATA files (the store registers what the app's Data page opens, not the data it was started with)"
)


def _data_uids(store: Any, data: Sequence[str]) -> list[str]:
    from ragviz.data.load import load

    paths = list(data) or store.sources.registered()
    if not paths:
        raise BadInput(_NO_DATA, path=f"{COMMAND} assign")
    result = load(paths)
    if not result.ok:
        raise BadInput(f"{errors(len(result.errors))} in the data: nothing assigned", listed=result.errors)
    warn_load(result.warnings)
    return list(result.dataset.uids)


def _assign(args: argparse.Namespace) -> int:
    from ragviz.store.team.assignments import AssignmentError

    pool = [n for n in args.pool.split(",") if n.strip()]
    with open_store(args.db, command=f"{COMMAND} assign", create=bool(args.data)) as store:
        if not args.data and not store.sources.registered() and args.sample is None:
            raise BadInput(_NO_DATA, path=f"{COMMAND} assign")
        uids = _data_uids(store, args.data) if args.data or args.sample is None else None
        if args.sample is not None:
            sample = store.audits.get_sample(args.sample)
            if sample is None:
                raise BadInput(f"no audit sample {args.sample} in this store", path=store.location, field="--sample")
            loaded = set(uids) if uids is not None else None
            uids = [u for u in sample.members if loaded is None or u in loaded]
        try:
            made = store.team.assignments.assign(uids or [], args.overlap, pool, args.by, args.sample)
        except AssignmentError as exc:
            raise BadInput(str(exc), path=f"{COMMAND} assign") from None
    print(
        f"round {made.id}: {made.added:,} assignments added over {len(uids or []):,} examples, overlap {made.overlap},"
        f" pool {', '.join(made.pool)}",
        file=sys.stderr,
    )
    return EXIT_OK


def _reassign(args: argparse.Namespace) -> int:
    from ragviz.store.team.assignments import AssignmentError

    with open_store(args.db, command=COMMAND) as store:
        try:
            made = store.team.assignments.reassign_leaver(args.leave.strip(), args.by)
        except AssignmentError as exc:
            raise BadInput(str(exc), path=f"{COMMAND} reassign", field="--leave") from None
    print(f"round {made.id}: {args.leave}'s open examples handed out ({made.added:,} assignments)", file=sys.stderr)
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    from ragviz.analysis.team.progress import team_progress
    from ragviz.store.identity_folds import identity_folds

    with open_store(args.db, command=COMMAND) as store:
        progress = team_progress(store)
        folds = store.read(identity_folds)
    for fold in folds:  # what migration 020 folded: one person under two spellings became one
        print(f"note: one person, one name: folded {fold.describe()} ({fold.ts})", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(progress.as_dict(), ensure_ascii=False))
        return EXIT_OK
    if not progress.examples:
        print("no assignments yet (ragviz team assign DATA --overlap K --pool NAME,NAME)")
        return EXIT_OK
    width = max(len(n) for n in progress.annotators)
    print(f"{'annotator':<{width}}  assigned  done  open")
    for name, a in sorted(progress.annotators.items()):
        print(f"{name:<{width}}  {a.assigned:>8,}  {a.done:>4,}  {a.open:>4,}")
    print()
    print("example\tdone\tassigned to\tdone by")
    for uid, (who, done) in progress.examples.items():
        print(f"{uid}\t{progress.example_text(uid)}\t{', '.join(who)}\t{', '.join(done) or '-'}")
    return EXIT_OK


def run_team_command(args: argparse.Namespace) -> int:
    return {"assign": _assign, "reassign": _reassign, "status": _status}[args.team_command](args)
