"""Judging many examples: cache lookup, bounded concurrency, validation with fix-up retries.

:func:`judge_examples` (sync) / :func:`judge_examples_async` run a batch; :func:`judge_example`
re-judges one example (the Review page's button). Accepted answers go to the judge cache at once
and, when a label store is given, to ``store.judge.save`` as the base for human review.
An answer that stays invalid is recorded as a failure with its raw output and never applied.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ragviz.data.model import Example, Labels, Provenance
from ragviz.judge.cache import JudgeCache, PendingAnswer, PendingFailure, cache_key, utc_now
from ragviz.judge.client import ChatCaller, JudgeRequestError, JudgeSettings
from ragviz.judge.cost import estimate_cost
from ragviz.judge.probe import resolve_format
from ragviz.judge.prompt import SHIPPED_PROMPT, JudgePrompt, build_messages, content_hash
from ragviz.judge.schema import JudgeOutputError, parse_judge_output
from ragviz.judge.sink import JudgeLabelSink, StoreWriter

__all__ = [
    "CACHED",
    "FAILED",
    "JUDGED",
    "JudgeOutcome",
    "RunProgress",
    "RunSummary",
    "T",
    "TICK",
    "judge_example",
    "judge_examples",
    "judge_examples_async",
    "run_sync",
]


JUDGED, CACHED, FAILED = "judged", "cached", "failed"

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeOutcome:
    """What happened to one example: ``status`` is ``judged``, ``cached`` or ``failed``.

    ``labels`` is set unless it failed; ``raw_output`` is the model's last answer (kept for
    inspection on failure); ``calls`` counts completions asked for (fix-up retries included);
    ``logprobs`` the accepted answer's token log probabilities when they were asked for and sent (never cached).
    """

    uid: str
    status: str
    labels: Labels | None
    error: str | None = None
    raw_output: str | None = None
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    logprobs: list[Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status != FAILED


@dataclass(frozen=True)
class RunProgress:
    done: int
    total: int
    n_cached: int
    n_judged: int
    n_failed: int
    retry_wait: float = 0.0  # seconds left of a wait the server asked for (Retry-After, capped), 0 when none


TICK = 0.5  # seconds between progress reports while calls are under way (a Cancel is seen within it)


@dataclass
class RunSummary:
    """The result of one run; ``outcomes[i]`` belongs to ``examples[i]`` (``None`` when cancelled first)."""

    run_id: int
    outcomes: list[JudgeOutcome | None]
    requests: int = 0
    wall_seconds: float = 0.0
    cancelled: bool = False
    model: str = ""
    format_mode: str = ""
    endpoint: str = ""

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o is not None and o.status == status)

    @property
    def n_judged(self) -> int:
        return self.count(JUDGED)

    @property
    def n_cached(self) -> int:
        return self.count(CACHED)

    @property
    def n_failed(self) -> int:
        return self.count(FAILED)

    @property
    def prompt_tokens(self) -> int:
        return sum(o.prompt_tokens for o in self.outcomes if o is not None and o.status != CACHED)

    @property
    def completion_tokens(self) -> int:
        return sum(o.completion_tokens for o in self.outcomes if o is not None and o.status != CACHED)

    @property
    def calls(self) -> int:
        """Completions this run asked for (fix-up retries included, cached answers not)."""
        return sum(o.calls for o in self.outcomes if o is not None and o.status != CACHED)

    @property
    def cost_usd(self) -> float | None:
        """Estimated cost of the tokens this run spent (``None``: model not in the price table)."""
        return estimate_cost(
            self.model, self.prompt_tokens, self.completion_tokens, calls=self.calls, endpoint=self.endpoint
        )

    @property
    def failures(self) -> list[JudgeOutcome]:
        return [o for o in self.outcomes if o is not None and o.status == FAILED]


def _problems_text(problems: list[str]) -> str:
    return "\n".join(f"- {p}" for p in problems)


async def _judge_one(
    example: Example, key: str, chash: str, caller: ChatCaller, run_id: int, writer: StoreWriter, prompt: JudgePrompt
) -> JudgeOutcome:
    settings = caller.settings
    corrections: list[tuple[str, str]] = []
    raw: str | None = None
    calls = prompt_tokens = completion_tokens = 0
    problems: list[str] = []
    for _ in range(settings.max_fix_attempts + 1):
        try:
            completion = await caller.complete(build_messages(example, corrections, prompt))
        except JudgeRequestError as exc:
            error = str(exc)
            raw = exc.raw if exc.raw is not None else raw
            writer.fail(PendingFailure(run_id, example.uid, key, error, raw, calls + exc.attempts))
            return JudgeOutcome(example.uid, FAILED, None, error, raw, calls, prompt_tokens, completion_tokens)
        calls += 1
        prompt_tokens += completion.prompt_tokens
        completion_tokens += completion.completion_tokens
        raw = completion.text
        provenance = Provenance("llm", settings.model, utc_now(), prompt.version)
        try:
            labels = parse_judge_output(raw, example, provenance)
        except JudgeOutputError as exc:
            problems = exc.problems
            corrections.append((raw, _problems_text(problems)))
            continue
        writer.accept(
            PendingAnswer(
                key,
                settings.model,
                settings.endpoint,
                prompt.version,
                chash,
                example.uid,
                labels,
                raw,
                prompt_tokens,
                completion_tokens,
                run_id,
            )
        )
        return JudgeOutcome(
            example.uid, JUDGED, labels, None, raw, calls, prompt_tokens, completion_tokens, completion.logprobs
        )
    error = caller.redact(f"invalid answer after {calls} tries: " + "; ".join(problems))
    writer.fail(PendingFailure(run_id, example.uid, key, error, raw, calls))
    return JudgeOutcome(example.uid, FAILED, None, error, raw, calls, prompt_tokens, completion_tokens)


async def judge_examples_async(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: JudgeLabelSink | None = None,
    *,
    force: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> RunSummary:
    """Judge *examples* with *prompt* (a judge version's; the shipped one by default: its version is in every
    cache key, run and label set); cached answers are reused unless *force*. A run whose answers are all cached opens
    no client and asks the endpoint nothing, not even the response-format probe.

    *on_progress* is called after each example and every :data:`TICK` seconds while calls are under
    way; *should_cancel* is polled as often. Cancelling (or *on_progress* raising, as Streamlit does
    when the person clicks Cancel) stops the calls under way at once and keeps every answer already
    accepted.
    """
    settings.check()
    started = time.perf_counter()
    hashes = [content_hash(e) for e in examples]
    keys = [cache_key(settings.model, settings.endpoint, prompt.version, h) for h in hashes]
    cached = {} if force else cache.get_many(keys)
    run_id = cache.start_run(settings.model, settings.endpoint, prompt.version, len(examples))
    summary = RunSummary(
        run_id,
        [None] * len(examples),
        model=settings.model,
        format_mode=settings.response_format,
        endpoint=settings.endpoint,
    )
    counts = {CACHED: 0, JUDGED: 0, FAILED: 0}

    caller: ChatCaller | None = None

    def report() -> None:
        if on_progress is not None:
            wait = caller.retry_wait_left() if caller is not None else 0.0
            on_progress(
                RunProgress(sum(counts.values()), len(examples), counts[CACHED], counts[JUDGED], counts[FAILED], wait)
            )

    todo: list[int] = []
    for i, (example, key) in enumerate(zip(examples, keys)):
        hit = cached.get(key)
        if hit is None:
            todo.append(i)
            continue
        if store is not None and store.judge.labels(example.uid) != hit.labels:
            store.judge.save(example.uid, hit.labels)
        summary.outcomes[i] = JudgeOutcome(
            example.uid, CACHED, hit.labels, None, hit.raw_output, 0, hit.prompt_tokens, hit.completion_tokens
        )
        counts[CACHED] += 1
    if cached:
        report()

    status = "done"
    writer = StoreWriter(cache, store)
    tasks: list[asyncio.Task] = []
    ticker: asyncio.Task | None = None
    try:
        if todo:
            caller = ChatCaller(settings)
            gate = asyncio.Semaphore(settings.concurrency)
            format_lock = asyncio.Lock()
            format_known = [False]

            async def ensure_format() -> None:
                """The first call to start finds the response format (remembered, or one probe); the
                others wait for it. Runs under the ticker, so Cancel stops a hanging probe too."""
                async with format_lock:
                    if not format_known[0]:
                        assert caller is not None
                        await resolve_format(caller, cache, fresh=force)
                        format_known[0] = True

            def cancelled() -> bool:
                if not summary.cancelled and should_cancel is not None and should_cancel():
                    summary.cancelled = True
                return summary.cancelled

            async def worker(i: int) -> None:
                async with gate:
                    if cancelled():
                        return
                    await ensure_format()
                    outcome = await _judge_one(examples[i], keys[i], hashes[i], caller, run_id, writer, prompt)
                    # Still holding the gate: a cancel seen here stops the next call before it starts.
                    summary.outcomes[i] = outcome
                    counts[outcome.status] += 1
                    report()
                    cancelled()

            async def tick() -> None:
                while True:
                    await asyncio.sleep(TICK)
                    report()  # may raise: Streamlit stops a script here once Cancel is clicked
                    if cancelled():
                        for task in tasks:
                            task.cancel()
                        return

            tasks = [asyncio.create_task(worker(i)) for i in todo]
            ticker = asyncio.create_task(tick())
            workers = asyncio.gather(*tasks)
            await asyncio.wait({workers, ticker}, return_when=asyncio.FIRST_COMPLETED)
            if ticker.done() and not ticker.cancelled() and ticker.exception() is not None:
                raise ticker.exception()  # type: ignore[misc]
            try:
                await workers
            except asyncio.CancelledError:
                if not summary.cancelled:
                    raise
        if summary.cancelled:
            status = "cancelled"
    except BaseException:
        status = "interrupted"
        raise
    finally:
        for task in [*tasks, *([ticker] if ticker is not None else [])]:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, *([ticker] if ticker is not None else []), return_exceptions=True)
        try:
            writer.drain()
        finally:
            if caller is not None:
                summary.requests = caller.requests
                summary.format_mode = caller.format_mode
                await caller.close()
            summary.wall_seconds = time.perf_counter() - started
            cache.finish_run(
                run_id,
                n_cached=summary.n_cached,
                n_judged=summary.n_judged,
                n_failed=summary.n_failed,
                requests=summary.requests,
                prompt_tokens=summary.prompt_tokens,
                completion_tokens=summary.completion_tokens,
                cost_usd=summary.cost_usd,
                status=status,
            )
    return summary


def run_sync(make_coro: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from sync code, also when the caller already has a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make_coro())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(make_coro())
        except BaseException as exc:  # re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="ragviz-judge")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def judge_examples(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: JudgeLabelSink | None = None,
    **kwargs: Any,
) -> RunSummary:
    """Sync wrapper of :func:`judge_examples_async`."""
    return run_sync(lambda: judge_examples_async(examples, settings, cache, store, **kwargs))


def judge_example(
    example: Example, settings: JudgeSettings, store: Any = None, *, cache: JudgeCache | None = None, **kwargs: Any
) -> JudgeOutcome:
    """Judge one example now (the Review page's "re-judge"): a fresh call unless ``force=False``.

    *store* is a :class:`ragviz.store.label_store.LabelStore`; the judge cache opens in the same database
    (a new connection) unless *cache* is given; *kwargs* go to :func:`judge_examples` (``prompt=``). The new labels become the store's judge labels.
    """
    own_cache = cache is None
    if cache is None:
        if store is None or not hasattr(store, "reopen_database"):
            raise ValueError("judge_example needs a LabelStore or a JudgeCache")
        cache = JudgeCache(store.reopen_database())
    try:
        summary = judge_examples([example], settings, cache, store, **{"force": True, **kwargs})
    finally:
        if own_cache:
            cache.close()
    outcome = summary.outcomes[0]
    assert outcome is not None
    return outcome
