"""``ragviz judge list|show|create|compare|promote``: judge versions, from people's corrections to the team's judge.

``list``: every version (``v1`` is the shipped prompt), the team's judge marked. ``show NAME``: the exact system
message NAME sends (its settings go to stderr). ``create NAME DATA…``: a new version from another (default the
team's judge) with people's labelled examples as few-shot and the rubric notes of a file (what it refuses:
:func:`_create`). ``compare NAME… DATA…``: each version on the test set (the reviewed members of an audit sample,
default the team's, or the labels in a file), cached, against people: agreement per label kind and bias per TRACe
metric with 95 % intervals. ``promote NAME``: NAME becomes the judge of the Label page and ``ragviz label``.

All take ``--db DB``. Bad input exits 2 with one clear line (:class:`ragviz.data.errors.BadInput`).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ragviz.cli.common import EXIT_OK, add_db_argument, errors, login_name, open_store, warn_load
from ragviz.data.errors import BadInput

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.judge.versions.compare import Comparison
    from ragviz.store.label_store import LabelStore

__all__ = ["add_judge_arguments", "comparison_json", "comparison_table", "run_judge_command"]


COMMAND = "ragviz judge"


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="judge_command", metavar="ACTION")
    sub.required = True
    p = sub.add_parser(
        "list", help="every judge version; the team's judge is marked", description="List judge versions."
    )
    add_db_argument(p)
    p = sub.add_parser(
        "show",
        help="the exact prompt a version sends",
        description="Print NAME's exact system message (settings to stderr).",
    )
    p.add_argument("name", metavar="NAME")
    add_db_argument(p)
    p = sub.add_parser(
        "create",
        help="a new version from people's corrections",
        description="Create judge version NAME from another (--from, default the team's judge): the examples given by "
        "--example are shown as few-shot examples with the people's labels and notes (they must be reviewed and lie "
        "outside every audit sample); --rubric FILE's text replaces the rubric notes. Versions never change.",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("paths", nargs="+", metavar="DATA", help="the data files holding the few-shot examples")
    p.add_argument("--from", dest="parent", default=None, metavar="NAME", help="start from this version")
    p.add_argument("--example", action="append", default=[], metavar="UID", help="show this example (repeatable)")
    p.add_argument("--rubric", default=None, metavar="FILE", help="a text file of rubric notes")
    p.add_argument("--model", default=None, help="the version's model (default: the one it starts from, else any)")
    p.add_argument("--base-url", default=None, metavar="URL", help="the version's server URL (never a key)")
    p.add_argument(
        "--by", default=None, metavar="WHO", help="who creates it (default: $RAGVIZ_ANNOTATOR or the login name)"
    )
    add_db_argument(p)
    p = sub.add_parser(
        "compare",
        help="versions side by side on a test set the prompts never saw",
        description="Run each version on the test set (cached: only missing answers are requested) and print its "
        "agreement with people per label kind (Cohen's kappa, precision/recall/F1 of the positive label, true-negative "
        "rate) and its bias per TRACe metric (judge mean - people mean), each with a 95 % bootstrap interval. The test "
        "set is the reviewed members of audit sample --sample (default: the team's), or the labelled examples of "
        "--human FILE. A version whose few-shot examples lie in the test set is refused.",
    )
    p.usage = "ragviz judge compare NAME... [DATA...] [--sample ID | --human FILE] [--format table|json] [options]"
    p.add_argument(
        "args", nargs="+", metavar="NAME... DATA...", help="version names, then the data files (none with --human)"
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--sample", type=int, default=None, metavar="ID", help="the audit sample to compare on")
    group.add_argument(
        "--human", default=None, metavar="FILE", help="compare against the labels in FILE (one row per example) instead"
    )
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    p.add_argument("--model", default=None, help="model for versions that name none")
    p.add_argument("--base-url", default=None, metavar="URL", help="server for versions that name none")
    p.add_argument("--concurrency", type=int, default=8, help="calls in flight at once (default: 8)")
    p.add_argument(
        "--response-format",
        choices=("auto", "json_schema", "json_object", "text"),
        default="auto",
        help="for versions that fix none, as `ragviz label --response-format` (default: auto)",
    )
    add_db_argument(p)
    p = sub.add_parser(
        "promote",
        help="make a version the team's judge",
        description="Make NAME the judge of the Label page and `ragviz label` (every promotion is kept).",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument(
        "--by", default=None, metavar="WHO", help="who promotes it (default: $RAGVIZ_ANNOTATOR or the login name)"
    )
    add_db_argument(p)


def _load(paths: list[str], people: bool = False) -> Dataset:
    """The files loaded; *people*: they are people's labels, where a second row for one example is refused too."""
    from ragviz.analysis.team.imports import one_row_per_example
    from ragviz.data.load import load

    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise BadInput("no such file", path=missing[0])
    result = load(paths)
    repeats = [replace(d, message=one_row_per_example(d.message)) for d in result.duplicates] if people else []
    if not result.ok or repeats:
        listed = [*result.errors, *repeats]
        raise BadInput(f"{errors(len(listed))}: nothing done (run `ragviz validate`)", listed=listed)
    warn_load(result.warnings)
    return result.dataset


def _who(args: argparse.Namespace) -> str:
    return args.by or login_name()


def run_judge_command(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    # create, compare (its cached answers) and promote write; list and show only read
    store = open_store(args.db, command=COMMAND, create=args.judge_command in ("create", "compare", "promote"))
    try:
        return {"list": _list, "show": _show, "create": _create, "compare": _compare, "promote": _promote}[
            args.judge_command
        ](args, store, out, err)
    finally:
        store.close()


def _list(args: argparse.Namespace, store: LabelStore, out: TextIO, err: TextIO) -> int:
    from ragviz.judge.versions.registry import current_version, list_versions

    team, _ = current_version(store)
    for v in list_versions(store):
        mark = "*" if v.name == team.name else " "
        print(
            f"{mark} {v.name}\tfrom {v.parent or '-'}\tmodel {v.model or 'any'}\t{len(v.few_shot)} few-shot\t"
            f"rubric {'yes' if v.rubric.strip() else 'no'}\t{v.created_by} {v.created_at}".rstrip(),
            file=out,
        )
    print("* the team's judge (Label page, ragviz label)", file=err)
    return EXIT_OK


def _show(args: argparse.Namespace, store: LabelStore, out: TextIO, err: TextIO) -> int:
    from ragviz.judge.versions.prompt import version_prompt
    from ragviz.judge.versions.registry import get_version

    version = get_version(store, args.name)
    prompt = version_prompt(version, ())
    print(
        f"{version.name}: prompt version {prompt.version}; model {version.model or 'any'}; endpoint "
        f"{version.base_url or 'any'}; temperature {version.temperature if version.temperature is not None else 'default'};"
        f" response format {version.response_format}; {len(version.few_shot)} few-shot examples"
        f" ({', '.join(version.shot_uids) or 'none'}); about {len(prompt.system) // 4 + 1:,} tokens of system message",
        file=err,
    )
    out.write(prompt.system)
    return EXIT_OK


def _create(args: argparse.Namespace, store: LabelStore, out: TextIO, err: TextIO) -> int:
    """``ragviz judge create NAME DATA… [--from NAME] [--example UID]… [--rubric FILE] [--model M] [--base-url URL]``.

    Refused, nothing stored, for a taken name, an example in an audit sample, an example without people's labels,
    or a prompt beyond the model's context."""
    from ragviz.judge.versions.registry import create_version

    rubric = None
    if args.rubric is not None:
        try:
            rubric = Path(args.rubric).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(
                f"cannot read the rubric: not UTF-8 (byte offset {exc.start}); save it as UTF-8", path=args.rubric
            ) from None
        except OSError as exc:
            raise BadInput(f"cannot read the rubric: {exc.strerror or exc}", path=args.rubric) from None
    dataset = _load(args.paths)
    version = create_version(
        store,
        dataset,
        args.name,
        parent=args.parent,
        example_uids=args.example,
        rubric=rubric,
        model=args.model,
        base_url=args.base_url,
        created_by=_who(args),
        check_on=[dataset.example(i) for i in range(len(dataset))],
    )
    print(
        f"created judge version {version.name} from {version.parent}: {len(version.few_shot)} few-shot examples, "
        f"rubric {'set' if version.rubric.strip() else 'empty'}; `ragviz judge show {version.name}` prints its prompt",
        file=err,
    )
    return EXIT_OK


def _promote(args: argparse.Namespace, store: LabelStore, out: TextIO, err: TextIO) -> int:
    from ragviz.judge.versions.registry import promote

    done = promote(store, args.name, _who(args))
    print(
        f"{done.version_name} is the team's judge now (Label page, ragviz label), promoted by {done.promoted_by}",
        file=err,
    )
    return EXIT_OK


def _split_names(store: LabelStore, items: list[str]) -> tuple[list[str], list[str]]:
    from ragviz.judge.versions.registry import list_versions

    known = {v.name for v in list_versions(store)}
    names: list[str] = []
    for i, item in enumerate(items):
        if item in known and not Path(item).exists():
            names.append(item)
            continue
        if not names:
            raise BadInput(f"{item!r} names no judge version (known: {', '.join(sorted(known))})", field="NAME")
        return names, items[i:]
    return names, []


def _compare(args: argparse.Namespace, store: LabelStore, out: TextIO, err: TextIO) -> int:
    """``ragviz judge compare NAME… DATA… [--sample ID | --human FILE] [--format table|json]``."""
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.run import RunProgress
    from ragviz.judge.settings import JudgeConfigError, JudgeSettings
    from ragviz.judge.versions.compare import audit_test_set, compare_versions, file_test_set
    from ragviz.judge.versions.registry import get_version, shots_now
    from ragviz.store.audit_samples import default_sample

    names, paths = _split_names(store, args.args)
    versions = [get_version(store, n) for n in names]
    dataset = _load(paths) if paths else None
    if args.human:
        test_set = file_test_set(_load([args.human], people=True), args.human)
    else:
        if dataset is None:
            raise BadInput("give the data files after the version names (or --human FILE)", path=COMMAND)
        sample_id = args.sample
        if sample_id is None:
            chosen = default_sample(store.audits.list_samples(dataset.uids), store.audits.team_choice())
            if chosen is None:
                raise BadInput(
                    "no audit sample of these examples: draw one (`ragviz audit draw`, or on the Review page) or give --human FILE",
                    path=COMMAND,
                )
            sample_id = chosen.id
        test_set = audit_test_set(dataset, store, sample_id)
    model = args.model or next((v.model for v in versions if v.model), None)
    if model is None:
        raise BadInput("no version names a model: give --model", path=COMMAND)
    settings = JudgeSettings(
        model=model, base_url=args.base_url, concurrency=args.concurrency, response_format=args.response_format
    )
    for v in versions:
        if not (v.model or args.model):
            print(f"{v.name} names no model: it runs on {model}", file=err)
    try:
        settings.check()
        settings.resolved_api_key()
    except JudgeConfigError as exc:
        raise BadInput(str(exc), path=COMMAND) from None

    def progress(name: str, p: RunProgress) -> None:
        if p.done == p.total:
            print(f"{name}: {p.done}/{p.total} (cached {p.n_cached}, new {p.n_judged}, failed {p.n_failed})", file=err)

    with JudgeCache(store.reopen_database()) as cache:
        now = shots_now(versions, dataset)
        comparison = compare_versions(versions, test_set, store, settings, cache, on_progress=progress, now=now)
    print(f"test set: {test_set.what}", file=err)
    if args.format == "json":
        json.dump(comparison_json(comparison), out, indent=1)
        out.write("\n")
    else:
        out.write(comparison_table(comparison))
    return EXIT_OK


def _fmt(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def comparison_table(comparison: Comparison) -> str:
    """The comparison as plain text: per label kind and figure one line, one column per version."""
    from ragviz.analysis.judge_compare.figures import FIGURES, KINDS, TRACE_METRICS

    runs = comparison.runs
    width = 24
    lines = ["kind        figure     " + "".join(f"{r.version.name:<{width}}" for r in runs)]
    for kind in KINDS:
        for name in FIGURES:
            cells = []
            for r in runs:
                k = r.figures.kinds[kind]
                cells.append(f"{_fmt(k.point[name])} [{_fmt(k.low[name])}, {_fmt(k.high[name])}]")
            lines.append(f"{kind:<12}{name:<11}" + "".join(f"{c:<{width}}" for c in cells))
    for metric in TRACE_METRICS:
        cells = [
            f"{_fmt(b.bias, 3)} [{_fmt(b.low, 3)}, {_fmt(b.high, 3)}]" for b in (r.figures.bias[metric] for r in runs)
        ]
        lines.append(f"{'bias':<12}{metric[:10]:<11}" + "".join(f"{c:<{width}}" for c in cells))
    calls = "; ".join(f"{r.version.name}: {r.summary.requests} requests, {r.summary.n_cached} cached" for r in runs)
    lines.append(f"examples {len(comparison.test_set.examples)}; {calls}")
    if runs and runs[0].figures.too_few:
        lines.append(f"no intervals: {runs[0].figures.too_few}")
    return "\n".join(lines) + "\n"


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as one JSON object: the test set, then per version its figures and requests."""
    from ragviz.judge.versions.compare import differing_examples

    def interval(point: Any, low: Any, high: Any) -> dict[str, Any]:
        return {"value": point, "low": low, "high": high}

    versions = []
    for r in comparison.runs:
        f = r.figures
        versions.append(
            {
                "name": r.version.name,
                "prompt_version": r.prompt.version,
                "model": r.settings.model,
                "requests": r.summary.requests,
                "cached": r.summary.n_cached,
                "failed": r.summary.n_failed,
                "agreement": {
                    kind: {"n": k.n_decisions, **{n: interval(k.point[n], k.low[n], k.high[n]) for n in k.point}}
                    for kind, k in f.kinds.items()
                },
                "bias": {m: {"n": b.n, **interval(b.bias, b.low, b.high)} for m, b in f.bias.items()},
                "too_few": f.too_few,
            }
        )
    differ = [{"uid": uid, "decisions": n} for uid, n in differing_examples(comparison)]
    return {
        "test_set": comparison.test_set.what,
        "n_examples": len(comparison.test_set.examples),
        "versions": versions,
        "differing": differ,
    }
