"""``ragviz label PATH... --model M [--base-url URL | --azure-endpoint URL] [--concurrency N] [--limit K] -o OUT``.

Loads the files, judges every example with the team's judge version (``ragviz judge promote``; ``v1``, the
shipped prompt, until one is promoted; reusing cached answers), stores the label sets in the label
store (``--db``, default ``$RAGVIZ_DB`` or ``~/.ragviz/ragviz.db``) and writes the judged examples as
RAGBench-schema JSONL (the app loads it). ``--dry-run`` prints the estimate (calls, tokens, cost) and calls
nothing. ``--batch`` and its sibling options send the same requests through a Batch API instead
(:mod:`ragviz.cli.label_batch`). The endpoint and its key: :func:`settings_from_args`; exit codes and failures:
:func:`run_label_command`.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from ragviz.cli.common import EXIT_OK, add_db_argument, errors, open_store, warn_load
from ragviz.data.errors import BadInput

if TYPE_CHECKING:
    from ragviz.data.model import Example
    from ragviz.judge.client import JudgeSettings
    from ragviz.judge.cost import RunCost
    from ragviz.judge.prompt import JudgePrompt
    from ragviz.judge.versions.spec import JudgeVersion

__all__ = [
    "COMMAND",
    "DEFAULT_TIMEOUT",
    "EXIT_SOME_FAILED",
    "REASONING_EFFORTS",
    "RESPONSE_FORMATS",
    "add_label_arguments",
    "run_label_command",
    "settings_from_args",
    "team_judge",
]


EXIT_SOME_FAILED = 1
COMMAND = "ragviz label"
# = ragviz.judge.client's DEFAULT_TIMEOUT, RESPONSE_FORMATS and REASONING_EFFORTS (not imported: it loads
# the openai client; tests/judge/test_endpoints.py checks they agree)
DEFAULT_TIMEOUT = 60.0
RESPONSE_FORMATS = ("auto", "json_schema", "json_object", "text")
REASONING_EFFORTS = ("minimal", "low", "medium", "high")


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 2.0:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 2, got {value:g}")
    return value


def add_label_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="data files or directories (every format ragviz loads)"
    )
    parser.add_argument(
        "--model",
        default=None,
        help="judge model name, e.g. gpt-4o-mini (default: the team's judge version's when it names one; batch "
        "commands: the recorded one)",
    )
    parser.add_argument(
        "--base-url",
        default=None,
        help="OpenAI-compatible server URL (default: $OPENAI_BASE_URL, else the OpenAI API)",
    )
    parser.add_argument(
        "--azure-endpoint",
        default=None,
        metavar="URL",
        help="Azure OpenAI resource, e.g. https://NAME.openai.azure.com (default: $AZURE_OPENAI_ENDPOINT when "
        "no base URL is set); key from $AZURE_OPENAI_API_KEY",
    )
    parser.add_argument(
        "--azure-deployment", default=None, metavar="NAME", help="Azure deployment name (default: the --model name)"
    )
    parser.add_argument(
        "--api-version",
        default=None,
        help="Azure OpenAI API version (default: $OPENAI_API_VERSION, else 2024-10-21)",
    )
    parser.add_argument(
        "--temperature",
        type=_temperature,
        default=None,
        help="sampling temperature (default: 0 for chat models, not sent to reasoning models: o1, o3, o4-mini, gpt-5)",
    )
    parser.add_argument(
        "--reasoning-effort", choices=REASONING_EFFORTS, default=None, help="for reasoning models (default: not sent)"
    )
    parser.add_argument(
        "--response-format",
        choices=RESPONSE_FORMATS,
        default="auto",
        help="how the answer's JSON is asked for: json_schema (structured output), json_object (JSON mode), text "
        "(JSON read out of the answer); auto (default) asks the endpoint once per model and remembers",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=1,
        metavar="N",
        help="ask the judge N times per example (1 to 20; the kept answer, then N-1 more at the temperature set "
        "above 0, else at 1) and store the judge's confidence: the share of samples agreeing with each sentence "
        "label and per TRACe metric 1 - 2 sd over the samples; OUT gains the columns judge_confidence (the lowest) "
        "and judge_confidence_<metric>, which `ragviz audit draw --confidence` reads (default: 1)",
    )
    parser.add_argument(
        "--sample-mode",
        choices=("n", "separate"),
        default="n",
        help="how samples 2..N are asked: n (default) asks them as ONE request per example with n=N-1 where the "
        "endpoint supports it (the prompt's tokens paid once), and falls back to separate requests, saying so once, "
        "when the endpoint ignores or refuses n; separate asks one request per sample. Both cache each sample "
        "under the same key, so either reuses the other's answers",
    )
    parser.add_argument(
        "--confidence",
        choices=("samples", "logprobs"),
        default="samples",
        help="where the judge's confidence comes from: samples (default; --samples N) or logprobs: the kept answer "
        "is asked with logprobs=true, top_logprobs=5 and the confidence is read from its tokens (per sentence the "
        "probability of the kept verdict token; for a listed key the probability it was written, for a key left "
        "out the probability the list was closed there; per metric 1 - 2 sd with the labels drawn independently "
        "with those probabilities), one request per example and no samples. An endpoint that sends no logprobs "
        "gets one line saying so and no confidence, or the N samples when --samples N > 1 is given too",
    )
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
    parser.add_argument(
        "--force", action="store_true", help="ask again even when a cached answer exists (and probe the format again)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the estimated calls, tokens and cost; call nothing, write no OUT"
    )
    add_db_argument(parser, purpose="the judge's labels and cached answers are written here")
    parser.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="OUT",
        help="RAGBench-schema JSONL to write ('-' for stdout); required for live runs",
    )
    from ragviz.cli.label_batch import add_batch_arguments

    add_batch_arguments(parser)
    parser.epilog = (
        "The API key is read from OPENAI_API_KEY (Azure: AZURE_OPENAI_API_KEY); it is never written anywhere. "
        "HTTPS_PROXY / HTTP_PROXY / NO_PROXY and SSL_CERT_FILE apply as in any openai program."
    )


def settings_from_args(args: argparse.Namespace, environ: dict[str, str] | None = None) -> JudgeSettings:
    """The :class:`~ragviz.judge.client.JudgeSettings` the options and the environment ask for.

    The endpoint, as the ``openai`` package reads it: ``--base-url``, else ``$OPENAI_BASE_URL``, else the OpenAI API
    (key: ``$OPENAI_API_KEY``); Azure OpenAI with ``--azure-endpoint``, or ``$AZURE_OPENAI_ENDPOINT`` when no base URL
    is set (key: ``$AZURE_OPENAI_API_KEY``, API version ``--api-version`` or ``$OPENAI_API_VERSION``, deployment
    ``--azure-deployment``, default the model's name)."""
    from ragviz.judge.client import JudgeSettings
    from ragviz.judge.endpoint import AZURE_ENDPOINT_ENV, BASE_URL_ENV

    env = dict(os.environ if environ is None else environ)
    base_url = args.base_url
    azure = args.azure_endpoint
    if base_url is None and azure is None:
        base_url = env.get(BASE_URL_ENV) or None
        azure = None if base_url else (env.get(AZURE_ENDPOINT_ENV) or None)
    return JudgeSettings(
        model=args.model,
        base_url=base_url,
        azure_endpoint=azure,
        azure_deployment=args.azure_deployment,
        api_version=args.api_version,
        concurrency=args.concurrency,
        timeout=args.timeout,
        max_attempts=args.max_attempts,
        temperature=args.temperature,
        reasoning_effort=args.reasoning_effort,
        response_format=args.response_format,
    )


def team_judge(db_path: str) -> tuple[JudgeVersion, JudgePrompt]:
    """The team's judge version in the store at *db_path* and its prompt (:func:`ragviz.judge.versions.registry.team_judge`)."""
    from ragviz.judge.versions import registry

    store = open_store(db_path, command=COMMAND, create=True)
    try:
        version, prompt, _ = registry.team_judge(store)
    finally:
        store.close()
    return version, prompt


def _sum_costs(plans: list[RunCost]) -> RunCost:
    from ragviz.judge.cost import RunCost

    costs = [p.cost_usd for p in plans]
    return RunCost(
        plans[0].n_examples,
        plans[0].n_cached,
        sum(p.calls for p in plans),
        sum(p.prompt_tokens for p in plans),
        sum(p.completion_tokens for p in plans),
        None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
    )


def _where(example: Example) -> str:
    return str(example.source) if example.source is not None else example.uid


def run_label_command(args: argparse.Namespace, err: TextIO | None = None) -> int:
    """The ``label`` command: load, judge, store, write OUT; returns the exit code.

    Failures are printed as ``PATH:ROW: judge: problem`` and left out of OUT. Exit codes: 0 all judged, 1 some
    failed or cancelled, 2 bad input or settings. ``--batch`` / ``--batch-file`` / ``--batch-status`` /
    ``--collect`` / ``--import-batch`` / ``--retry-failed`` / ``--cancel-batch`` go to :mod:`ragviz.cli.label_batch`."""
    from ragviz.data.dataset import Dataset
    from ragviz.data.load import load
    from ragviz.export.files import write_jsonl
    from ragviz.export.rows import export_rows
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.client import JudgeConfigError
    from ragviz.judge.cost import describe_cost, run_cost
    from ragviz.judge.run import RunProgress
    from ragviz.judge.sampling.run import check_samples, judge_with_samples, samples_cost
    from ragviz.judge.versions.prompt import check_shots_unchanged
    from ragviz.judge.versions.registry import settings_for, shots_now
    from ragviz.metrics.trace import TRACE_METRICS
    from ragviz.store.judge_confidence import confidence_row
    from ragviz.store.label_store import LabelStore, StoreError, default_db

    err = err or sys.stderr
    if args.limit is not None and args.limit < 0:
        raise BadInput(f"must be >= 0, got {args.limit}", field="--limit")
    from ragviz.cli.label_batch import batch_mode, run_batch_command

    mode = batch_mode(args)
    samples = getattr(args, "samples", 1)
    sample_mode, confidence = getattr(args, "sample_mode", "n"), getattr(args, "confidence", "samples")
    if mode is not None and samples != 1:
        raise BadInput(
            "the judge's samples are asked live only: leave out --samples with a batch option", field="--samples"
        )
    if mode is not None and confidence != "samples":
        raise BadInput(
            "logprobs are read from live answers only: leave out --confidence with a batch option", field="--confidence"
        )
    if mode is not None:
        return run_batch_command(args, mode, err, settings_from_args)
    needed = (("PATH", args.paths),) + ((("-o/--output", args.output),) if not args.dry_run else ())
    missing = [name for name, value in needed if not value]  # a dry run writes nothing: no OUT to name
    if missing:
        raise BadInput(f"a live run needs {', '.join(missing)} (or a batch option)", path=COMMAND)
    db_path = args.db or os.fspath(default_db())
    version, prompt = team_judge(db_path)
    if not (args.model or version.model):
        raise BadInput(f"a live run needs --model (the team's judge {version.name} names none)", path=COMMAND)
    settings = settings_for(version, settings_from_args(args))
    if args.model:
        settings = replace(settings, model=args.model)
    try:
        settings.check()
        if not args.dry_run:  # a dry run calls nothing: no key needed
            settings.resolved_api_key()
        check_samples(samples, settings, sample_mode, confidence)
    except JudgeConfigError as exc:
        raise BadInput(str(exc), path=COMMAND) from None

    result = load(args.paths)
    if not result.ok:
        raise BadInput(
            f"{errors(len(result.errors))}: nothing judged (run `ragviz validate` for details)", listed=result.errors
        )
    warn_load(result.warnings)
    dataset = result.dataset
    check_shots_unchanged(version, shots_now([version], dataset))
    n = len(dataset) if args.limit is None else min(args.limit, len(dataset))
    examples = [dataset.example(i) for i in range(n)]

    try:
        store = LabelStore(db_path)
        cache = JudgeCache(db_path)
    except (StoreError, ValueError) as exc:
        raise BadInput(str(exc), path=COMMAND) from None
    try:
        if args.dry_run:
            known = None if args.force else cache
            plans = [run_cost(examples, settings, known, prompt)]
            if confidence == "samples":
                plans.append(samples_cost(examples, settings, known, prompt, samples, sample_mode))
            plan = _sum_costs(plans)
            print(
                f"{plan.n_examples} examples: {plan.n_cached} cached, {plan.calls} calls needed; about "
                f"{plan.prompt_tokens} prompt + {plan.completion_tokens} completion tokens; estimated cost "
                f"{describe_cost(plan.cost_usd, settings.model)} (dry run: nothing called, OUT not written)",
                file=err,
            )
            return EXIT_OK
        for path in args.paths:
            store.sources.register(path)
        last_shown = [-1]

        def progress(p: RunProgress) -> None:
            if p.done == p.total or p.done - last_shown[0] >= max(1, p.total // 20):
                last_shown[0] = p.done
                print(
                    f"judged {p.done}/{p.total} (cached {p.n_cached}, new {p.n_judged}, failed {p.n_failed})", file=err
                )

        try:
            sampled = judge_with_samples(
                examples,
                settings,
                cache,
                store,
                samples=samples,
                sample_mode=sample_mode,
                confidence=confidence,
                force=args.force,
                on_progress=progress,
                prompt=prompt,
            )
        except JudgeConfigError as exc:
            raise BadInput(str(exc), path=COMMAND) from None
        summary = sampled.kept
        for note in sampled.notes:
            print(note, file=err)
        for example, outcome in zip(examples, summary.outcomes):
            if outcome is not None and not outcome.ok:
                print(f"{_where(example)}: judge: {outcome.error}", file=err)
        done = [i for i, o in enumerate(summary.outcomes) if o is not None and o.ok]
        judged = Dataset(dataset.table.take(done)) if done else Dataset.empty()
        rows = export_rows(judged, store, None)
        if samples > 1 or confidence == "logprobs":
            rows = [
                {**row, **confidence_row(sampled.confidence.get(uid), TRACE_METRICS)}
                for row, uid in zip(rows, judged.uids)
            ]
        write_jsonl(rows, args.output)
    finally:
        store.close()
        cache.close()

    cost = describe_cost(sampled.cost_usd, settings.model)
    asked = (
        f" x {samples} samples ({sampled.n_sample_failures} samples failed; confidence stored for "
        f"{len(sampled.confidence)} examples)"
        if samples > 1 and confidence == "samples"
        else ""
    )
    if confidence == "logprobs":
        asked = f" (confidence read from logprobs for {len(sampled.confidence)} examples)"
    print(
        f"judge version {version.name}; {n} examples{asked}: {summary.n_judged} judged, {summary.n_cached} cached, "
        f"{summary.n_failed} failed; {sampled.requests} requests, {sampled.prompt_tokens} prompt + {sampled.completion_tokens} completion tokens, "
        f"estimated cost {cost}; {len(rows)} rows written to {args.output} in {summary.wall_seconds:.1f}s",
        file=err,
    )
    return EXIT_SOME_FAILED if (summary.n_failed or summary.cancelled) else EXIT_OK
