"""``ragviz label PATH... --model M [--base-url URL] [--concurrency N] [--limit K] -o OUT``.

Loads the files, judges every example (reusing cached answers), stores the label sets in the label
store (``--db``, default ``$RAGVIZ_DB`` or ``~/.ragviz/ragviz.db``) and writes the judged examples as
RAGBench-schema JSONL (the app loads it). Failures are printed as ``PATH:ROW: judge: problem`` and
left out of OUT. Exit codes: 0 all judged, 1 some failed or cancelled, 2 bad input or settings.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_BAD_INPUT = 2
DEFAULT_TIMEOUT = 60.0  # = ragviz.judge.client.DEFAULT_TIMEOUT (not imported: it loads the openai client)


def add_label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="data files or directories (every format ragviz loads)"
    )
    parser.add_argument("--model", required=True, help="judge model name, e.g. gpt-4o-mini")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible server URL (default: the OpenAI API)")
    parser.add_argument("--concurrency", type=int, default=8, help="calls in flight at once (default: 8)")
    parser.add_argument("--limit", type=int, default=None, metavar="K", help="judge only the first K examples")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds for one whole call (send, wait, read the answer) before it is retried (default: {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-attempts", type=int, default=6, help="HTTP attempts per call on 429/5xx/timeouts (default: 6)"
    )
    parser.add_argument("--force", action="store_true", help="ask again even when a cached answer exists")
    parser.add_argument(
        "--db",
        default=None,
        help="label store: an SQLite file or a postgresql://user@host/db URL (default: $RAGVIZ_DB or ~/.ragviz/ragviz.db)",
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="RAGBench-schema JSONL to write ('-' for stdout)"
    )
    parser.epilog = "The API key is read from OPENAI_API_KEY; it is never written anywhere."


def _where(example) -> str:
    return str(example.source) if example.source is not None else example.uid


def run_label_command(args: argparse.Namespace, err: TextIO | None = None) -> int:
    """The ``label`` command: load, judge, store, write OUT; returns the exit code."""
    from ragviz.data.dataset import Dataset
    from ragviz.data.load import load
    from ragviz.export.files import write_jsonl
    from ragviz.export.rows import export_rows
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.client import JudgeConfigError, JudgeSettings
    from ragviz.judge.run import RunProgress, judge_examples
    from ragviz.store.label_store import LabelStore, StoreError, default_db

    err = err or sys.stderr
    if args.limit is not None and args.limit < 0:
        print(f"--limit: must be >= 0, got {args.limit}", file=err)
        return EXIT_BAD_INPUT
    settings = JudgeSettings(
        model=args.model,
        base_url=args.base_url,
        concurrency=args.concurrency,
        timeout=args.timeout,
        max_attempts=args.max_attempts,
    )
    try:
        settings.check()
        settings.resolved_api_key()
    except JudgeConfigError as exc:
        print(f"ragviz label: {exc}", file=err)
        return EXIT_BAD_INPUT

    result = load(args.paths)
    for problem in result.errors:
        print(str(problem), file=err)
    if not result.ok:
        print(f"{len(result.errors)} errors: nothing judged (run `ragviz validate` for details)", file=err)
        return EXIT_BAD_INPUT
    dataset = result.dataset
    n = len(dataset) if args.limit is None else min(args.limit, len(dataset))
    examples = [dataset.example(i) for i in range(n)]

    db_path = args.db or os.fspath(default_db())
    try:
        store = LabelStore(db_path)
        cache = JudgeCache(db_path)
    except (StoreError, ValueError) as exc:
        print(f"ragviz label: {exc}", file=err)
        return EXIT_BAD_INPUT
    try:
        for path in args.paths:
            store.register_source(path)
        last_shown = [-1]

        def progress(p: RunProgress) -> None:
            if p.done == p.total or p.done - last_shown[0] >= max(1, p.total // 20):
                last_shown[0] = p.done
                print(
                    f"judged {p.done}/{p.total} (cached {p.n_cached}, new {p.n_judged}, failed {p.n_failed})", file=err
                )

        summary = judge_examples(examples, settings, cache, store, force=args.force, on_progress=progress)
        for example, outcome in zip(examples, summary.outcomes):
            if outcome is not None and not outcome.ok:
                print(f"{_where(example)}: judge: {outcome.error}", file=err)
        done = [i for i, o in enumerate(summary.outcomes) if o is not None and o.ok]
        judged = Dataset(dataset.table.take(done)) if done else Dataset.empty()
        rows = export_rows(judged, store, None)
        write_jsonl(rows, args.output)
    finally:
        store.close()
        cache.close()

    cost = "unknown (model not in the price table)" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    print(
        f"{n} examples: {summary.n_judged} judged, {summary.n_cached} cached, {summary.n_failed} failed; "
        f"{summary.requests} requests, {summary.prompt_tokens} prompt + {summary.completion_tokens} completion tokens, "
        f"estimated cost {cost}; {len(rows)} rows written to {args.output} in {summary.wall_seconds:.1f}s",
        file=err,
    )
    return EXIT_SOME_FAILED if (summary.n_failed or summary.cancelled) else EXIT_OK
