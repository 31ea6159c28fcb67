"""``ragviz label`` through a Batch API: ``--batch``, ``--batch-file``, ``--batch-status``, ``--collect``,
``--import-batch``, ``--retry-failed``, ``--cancel-batch`` and ``--dry-run --batch``.

Every file and batch id is in the label store (``--db``) before the next step, so each of these commands can
be run again after a kill or on another machine sharing the store: it resumes, sends nothing twice and loses
no answer. Exit codes: 0 done, 1 some requests failed or a file was refused, 2 bad input or settings.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ragviz.cli.common import errors, open_store, warn_load
from ragviz.data.errors import BadInput

if TYPE_CHECKING:
    from ragviz.data.model import Example
    from ragviz.judge.batch.collect import CollectReport
    from ragviz.judge.batch.submit import BatchPlan
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.client import JudgeSettings
    from ragviz.judge.prompt import JudgePrompt
    from ragviz.store.label_store import LabelStore

__all__ = [
    "BATCH_MODES",
    "COMMAND",
    "EXIT_OK",
    "EXIT_SOME_FAILED",
    "add_batch_arguments",
    "batch_mode",
    "run_batch_command",
]

COMMAND = "ragviz label"


EXIT_OK, EXIT_SOME_FAILED = 0, 1  # as ragviz.cli.label's (bad input raises BadInput: exit 2)

BATCH_MODES = ("batch", "batch_file", "batch_status", "collect", "import_batch", "retry_failed", "cancel_batch")


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "Batch API (half the price, done within 24 h; see the manual's 'Judge a data set')"
    )
    group.add_argument(
        "--batch",
        action="store_true",
        help="write the requests the live judge would send (cached and already-sent examples left out) as Batch API "
        "files, upload them and create the batches; every id is recorded in --db first",
    )
    group.add_argument(
        "--batch-file",
        metavar="REQUESTS.jsonl",
        default=None,
        help="write the same requests to this file without uploading (for `vllm run-batch` or any runner of that shape)",
    )
    group.add_argument(
        "--batch-status", action="store_true", help="list the store's batches: status, counts, created, expires"
    )
    group.add_argument(
        "--collect",
        action="store_true",
        help="download finished batches, validate every answer as live calls are, store the valid ones, list failures",
    )
    group.add_argument(
        "--import-batch",
        metavar="RESULTS.jsonl",
        default=None,
        help="read an offline runner's output file back (same checks)",
    )
    group.add_argument(
        "--retry-failed",
        choices=("batch", "live"),
        default=None,
        help="send the requests that failed or expired again, as a new batch or as live calls",
    )
    group.add_argument("--cancel-batch", metavar="BATCH_ID", default=None, help="cancel a batch on the server")
    group.add_argument(
        "--batch-dir",
        metavar="DIR",
        default=None,
        help="where request files are written (default: a 'batches' folder beside the SQLite store, else ~/.ragviz/batches)",
    )


def batch_mode(args: argparse.Namespace) -> str | None:
    """Which batch command *args* ask for (``None``: a live run)."""
    for mode in BATCH_MODES:
        value = getattr(args, mode, None)
        if value:
            return mode
    return None


def _batch_dir(args: argparse.Namespace, db_path: str) -> Path:
    if args.batch_dir:
        return Path(args.batch_dir)
    if "://" not in db_path:
        return Path(db_path).expanduser().resolve().parent / "batches"
    return Path.home() / ".ragviz" / "batches"


def _print_report(report: CollectReport, err: TextIO) -> None:
    for problem in report.problems:
        print(f"refused: {problem}", file=err)
    for failure in report.failures:
        print(f"failed: {failure}", file=err)
    for record in report.waiting:
        print(f"{record.batch_id}: {record.status}, not finished yet", file=err)
    if report.recovered:
        print(f"{report.recovered} answers stored before an interruption were finished", file=err)
    print(
        f"{report.applied} labels stored, {len(report.failures)} failed, {len(report.collected)} batches collected,"
        f" {len(report.waiting)} still running"
        + (f", {len(report.problems)} lines refused" if report.problems else ""),
        file=err,
    )


def _recorded_model(cache: JudgeCache) -> str | None:
    from ragviz.judge.batch import ledger

    recorded = ledger.files(cache)
    return recorded[-1].model if recorded else None


def _team_prompt(store: LabelStore, err: TextIO) -> JudgePrompt:
    """The team's judge version's prompt, which new batch requests carry (said on *err*)."""
    from ragviz.judge.versions.registry import team_judge

    version, prompt, _ = team_judge(store)
    print(f"batch requests carry the team's judge, version {version.name}", file=err)
    return prompt


def _prompt_of(store: LabelStore, prompt_version: str) -> JudgePrompt:
    """The prompt a recorded request was built with (a retry sends the same judge version again)."""
    from ragviz.judge.prompt import SHIPPED_PROMPT
    from ragviz.judge.versions.registry import get_version, judge_prompt, version_names_by_prompt

    name = version_names_by_prompt(store).get(prompt_version)
    if name is None:
        if prompt_version == SHIPPED_PROMPT.version:
            return SHIPPED_PROMPT
        raise BadInput(f"no judge version in the store made prompt version {prompt_version!r}", path=COMMAND)
    return judge_prompt(get_version(store, name), ())


def run_batch_command(
    args: argparse.Namespace, mode: str, err: TextIO, settings_from_args: Callable[[argparse.Namespace], JudgeSettings]
) -> int:
    """One of the batch commands (:data:`BATCH_MODES`); returns the exit code."""
    from ragviz.judge.batch.remote import BatchServiceError
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.client import JudgeConfigError
    from ragviz.store.label_store import StoreError, default_db

    db_path = args.db or os.fspath(default_db())
    store = open_store(db_path, command=COMMAND, create=True)
    try:
        cache = JudgeCache(store.reopen_database())
    except (StoreError, ValueError) as exc:
        store.close()
        raise BadInput(str(exc), path=COMMAND) from None
    try:
        if not args.model:
            args.model = _recorded_model(cache) or ""
        settings = settings_from_args(args)
        try:
            if mode not in ("batch_file", "import_batch") and not (mode == "batch" and args.dry_run):
                settings.check()
                settings.resolved_api_key()
        except JudgeConfigError as exc:
            raise BadInput(str(exc), path=COMMAND) from None
        return _run_step(mode, args, settings, store, cache, _batch_dir(args, db_path), err)
    except BatchServiceError as exc:
        print(f"ragviz label: {exc}", file=err)
        return EXIT_SOME_FAILED
    except FileNotFoundError as exc:
        raise BadInput("no such file", path=str(exc.filename or exc)) from None
    finally:
        cache.close()
        store.close()


def _load_examples(args: argparse.Namespace) -> Iterator[Example]:
    """The examples of PATH... one at a time (built a batch of rows at a time, never all held)."""
    from ragviz.data.load import load
    from ragviz.judge.batch.examples import prompt_examples

    if not args.paths:
        raise BadInput("give the data files to judge (PATH...)", path=COMMAND)
    result = load(args.paths)
    if not result.ok:
        raise BadInput(
            f"{errors(len(result.errors))}: nothing judged (run `ragviz validate` for details)", listed=result.errors
        )
    warn_load(result.warnings)
    dataset = result.dataset
    n = len(dataset) if args.limit is None else min(max(args.limit, 0), len(dataset))
    return prompt_examples(dataset, range(n) if n < len(dataset) else None)


def _plan_line(plan: BatchPlan) -> str:
    return (
        f"{plan.n_examples} examples: {plan.n_cached} cached, {plan.n_waiting} already waiting in a batch,"
        f" {plan.n_todo} to send"
    )


def _sources(args: argparse.Namespace) -> list[str]:
    return [os.path.abspath(p) for p in args.paths]


def _run_step(
    mode: str,
    args: argparse.Namespace,
    settings: JudgeSettings,
    store: LabelStore,
    cache: JudgeCache,
    batch_dir: Path,
    err: TextIO,
) -> int:
    from ragviz.judge.batch import collect as collecting
    from ragviz.judge.batch import ledger
    from ragviz.judge.batch.cost import batch_run_cost, describe_batch_cost
    from ragviz.judge.batch.submit import BatchPlan, batch_format, iter_todo, send_recorded_files, write_batch

    if mode in ("batch", "batch_file"):
        plan = BatchPlan()
        prompt = _team_prompt(store, err)
        todo = iter_todo(_load_examples(args), settings, cache, plan, force=args.force, prompt=prompt)
        if args.dry_run:
            print(describe_batch_cost(batch_run_cost(todo, settings)), file=err)
            print(f"{_plan_line(plan)} (dry run: nothing written, nothing sent)", file=err)
            return EXIT_OK
        offline = mode == "batch_file"
        fmt = batch_format(settings, cache, probe=not offline)
        target = Path(args.batch_file) if offline else batch_dir
        folder = target.parent if offline else target
        stem = target.name.removesuffix(".jsonl") if offline else None
        written = write_batch(
            todo,
            settings,
            cache,
            folder,
            format_mode=fmt,
            sources=_sources(args),
            offline=offline,
            stem=stem,
            prompt=prompt,
        )
        print(_plan_line(plan), file=err)
        for uid in plan.duplicates:
            print(f"{uid}: the same example uid appears again; sent once", file=err)
        for oversized in written.oversized:
            print(f"refused: {oversized}", file=err)
        for file in ledger.files(cache):
            if file.id in written.files:
                print(f"wrote {file.local_path}: {file.n_requests} requests, {file.n_bytes:,} bytes", file=err)
        if offline:
            print(
                "run it (e.g. vllm run-batch -i FILE -o RESULTS --model M), then: ragviz label --import-batch RESULTS",
                file=err,
            )
            return EXIT_SOME_FAILED if written.oversized else EXIT_OK
        mode = "send"
    if mode == "retry_failed":
        failed = ledger.failed_requests(cache)
        if not failed:
            print("no failed requests to send again", file=err)
            return EXIT_OK
        files = {f.id: f for f in ledger.files(cache)}
        lookup = collecting.SourceExamples()
        by_sources: dict[tuple[tuple[str, ...], str], list[Example]] = {}  # (sources, prompt version) -> examples
        keys: list[str] = []
        found: dict[int, Mapping[str, Example]] = {}
        for file_id in {r.file_id for r in failed}:
            found[file_id] = lookup(files[file_id])([r.example_uid for r in failed if r.file_id == file_id])
        for request in failed:
            file = files[request.file_id]
            example = found[request.file_id].get(request.example_uid)
            if example is None:
                print(f"{request.example_uid}: no longer in {', '.join(file.sources)}; not sent again", file=err)
                continue
            by_sources.setdefault((file.sources, file.prompt_version), []).append(example)
            keys.append(request.cache_key)
        if args.retry_failed == "live":
            from ragviz.judge.run import judge_examples

            by_version: dict[str, list[Example]] = {}
            for (_, version), group in by_sources.items():
                by_version.setdefault(version, []).extend(group)
            runs = [
                judge_examples(group, settings, cache, store, prompt=_prompt_of(store, version))
                for version, group in by_version.items()
            ]
            ledger.mark_retried(cache, keys)
            for outcome in (o for run in runs for o in run.failures):
                print(f"failed: {outcome.uid}: {outcome.error}", file=err)
            judged, cached, failed_n = (
                sum(getattr(run, n) for run in runs) for n in ("n_judged", "n_cached", "n_failed")
            )
            print(f"{judged} judged live, {cached} cached, {failed_n} failed", file=err)
            return EXIT_SOME_FAILED if failed_n else EXIT_OK
        fmt = batch_format(settings, cache)
        for (sources, version), group in by_sources.items():
            write_batch(
                group,
                settings,
                cache,
                batch_dir,
                format_mode=fmt,
                sources=list(sources),
                retried_keys=keys,
                prompt=_prompt_of(store, version),
            )
            keys = []
        mode = "send"
    if mode == "send":
        created, others = send_recorded_files(settings, cache)
        for record in created:
            print(
                f"{record.batch_id}: {record.status}, expires {record.expires_at}",
                file=err,
            )
        for file in others:
            print(
                f"{file.local_path}: waits to be sent to {file.endpoint} ({file.model}); run with those settings",
                file=err,
            )
        print(
            f"{len(created)} batches sent; collect them with: ragviz label --collect --db {args.db or 'DB'}", file=err
        )
        return EXIT_OK
    if mode == "batch_status":
        created, _ = send_recorded_files(settings, cache)  # a submission a kill interrupted is finished first
        fresh = {r.batch_id: r for r in collecting.refresh(settings, cache)}
        counts = ledger.request_counts(cache)
        records = ledger.batch_records(cache)
        if not records:
            print("no batches in this store", file=err)
        for record in records:
            record = fresh.get(record.batch_id, record)
            states = counts.get(record.file_id, {})
            c = record.counts
            print(
                f"{record.batch_id}  {record.status:<11} {c.get('completed', 0)}/{c.get('total') or sum(states.values())} done,"
                f" {c.get('failed', 0)} failed  created {record.created_at}  expires {record.expires_at or '-'}"
                f"  {'collected ' + record.collected_at if record.collected_at else 'not collected'}"
                f"  (stored: {states.get(ledger.APPLIED, 0)} applied, {states.get(ledger.FAILED, 0)} failed)",
                file=err,
            )
        return EXIT_OK
    if mode == "cancel_batch":
        try:
            record = collecting.cancel(settings, cache, args.cancel_batch)
        except KeyError as exc:
            raise BadInput(exc.args[0], field="--cancel-batch") from None
        print(f"{record.batch_id}: {record.status}; collect what it answered with --collect", file=err)
        return EXIT_OK
    if mode == "collect":
        send_recorded_files(settings, cache)
        report = collecting.collect(settings, cache, store, collecting.SourceExamples())
    else:
        report = collecting.import_results(args.import_batch, cache, store, collecting.SourceExamples())
    _print_report(report, err)
    return EXIT_SOME_FAILED if (report.failures or report.problems) else EXIT_OK
