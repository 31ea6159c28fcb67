"""Samples 2..N of each example in ONE request (``n`` = the samples missing), where the endpoint takes ``n``.

Each choice of the answer is read and cached exactly as a sample asked on its own
(:func:`ragviz.judge.sampling.run.sample_prompt`'s version, the same cache key), so a rerun asks nothing and the
one-request and separate modes reuse each other's answers. The first example is asked alone: when the endpoint
ignores ``n`` (one choice back) or refuses it (HTTP 400 naming ``n``), the rest are left to separate requests and
:attr:`OneRequestSamples.note` says so once. A choice that is not a valid answer is not cached: its sample is asked
again on its own (with the fix-up turns a single request gets). The request's usage is counted once in the
ledger (``judge_runs``, one row for the whole step); each cached choice carries an equal share of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ragviz.data.model import Example, Labels, Provenance
from ragviz.judge.cache import JudgeCache, PendingAnswer, cache_key, utc_now
from ragviz.judge.client import ChatCaller, JudgeRequestError, JudgeSettings
from ragviz.judge.probe import resolve_format
from ragviz.judge.prompt import JudgePrompt, build_messages, content_hash
from ragviz.judge.run import JUDGED, JudgeOutcome, RunSummary
from ragviz.judge.schema import JudgeOutputError, parse_judge_output
from ragviz.judge.sink import StoreWriter

__all__ = ["OneRequestSamples", "ask_samples_in_one_request", "refused_n"]


@dataclass
class OneRequestSamples:
    """Per example uid, sample number -> labels (cached or just asked); the run that asked (``None``: all were
    cached); ``note``: why separate requests take over (the endpoint ignored or refused ``n``), else ``None``."""

    filled: dict[str, dict[int, Labels]] = field(default_factory=dict)
    run: RunSummary | None = None
    note: str | None = None


def refused_n(error: JudgeRequestError) -> bool:
    """Whether *error* is the endpoint refusing the ``n`` parameter (HTTP 400 naming it)."""
    if error.status != 400:
        return False
    return error.param == "n" or "'n'" in str(error) or '"n"' in str(error)


async def ask_samples_in_one_request(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    prompts: dict[int, JudgePrompt],
    *,
    force: bool = False,
    on_answers: Callable[[int], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> OneRequestSamples:
    """Samples ``k`` (the keys of *prompts*, each sample's own prompt version) of *examples* with *settings* (the
    sampling temperature): cached ones read, the missing ones of an example asked as one request with ``n`` = how
    many are missing. *on_answers* gets the number of samples each example got."""
    result = OneRequestSamples({e.uid: {} for e in examples})
    hashes = {e.uid: content_hash(e) for e in examples}

    def key(example: Example, k: int) -> str:
        return cache_key(settings.model, settings.endpoint, prompts[k].version, hashes[example.uid])

    cached = {} if force else cache.get_many(key(e, k) for e in examples for k in prompts)
    missing: dict[str, list[int]] = {}
    for example in examples:
        for k in prompts:
            hit = cached.get(key(example, k))
            if hit is None:
                missing.setdefault(example.uid, []).append(k)
            else:
                result.filled[example.uid][k] = hit.labels
    todo = [e for e in examples if e.uid in missing]
    if not todo:
        return result
    versions = f"{prompts[min(prompts)].version}..{max(prompts)} (one request each)"
    run_id = cache.start_run(settings.model, settings.endpoint, versions, len(todo))
    summary = RunSummary(run_id, [None] * len(todo), model=settings.model, endpoint=settings.endpoint)
    result.run = summary
    caller = ChatCaller(settings)
    writer = StoreWriter(cache, None)
    status = "done"
    refused_first = [False]  # the first request refused (HTTP 4xx): the rest would be too, so separate ones report it

    async def ask(i: int) -> None:
        example = todo[i]
        wanted = missing[example.uid]
        if should_cancel is not None and should_cancel():
            summary.cancelled = True
            return
        messages = build_messages(example, prompt=prompts[wanted[0]])
        try:
            completion = await caller.complete(messages, n=len(wanted))
        except JudgeRequestError as exc:
            refused_first[0] = refused_first[0] or (i == 0 and exc.status is not None and 400 <= exc.status < 500)
            if refused_n(exc) and result.note is None:
                result.note = (
                    f"samples: the endpoint refused n={len(wanted)} ({exc.status}: {str(exc)[:160]}); the samples "
                    "are asked one request each"
                )
            return  # left to separate requests, which report a failure that stays
        for k, text in zip(wanted, completion.choices):
            provenance = Provenance("llm", settings.model, utc_now(), prompts[k].version)
            try:
                labels = parse_judge_output(text, example, provenance)
            except JudgeOutputError:
                continue  # asked again on its own, with fix-up turns
            share = max(1, len(completion.choices))
            writer.accept(
                PendingAnswer(
                    key(example, k),
                    settings.model,
                    settings.endpoint,
                    prompts[k].version,
                    hashes[example.uid],
                    example.uid,
                    labels,
                    text,
                    completion.prompt_tokens // share,
                    completion.completion_tokens // share,
                    run_id,
                )
            )
            result.filled[example.uid][k] = labels
        if len(wanted) > 1 and len(completion.choices) < len(wanted) and result.note is None:
            result.note = (
                f"samples: the endpoint ignored n={len(wanted)} (it sent {len(completion.choices)} answer per "
                "request); the samples are asked one request each"
            )
        summary.outcomes[i] = JudgeOutcome(
            example.uid,
            JUDGED,
            None,
            calls=1,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
        )
        if on_answers is not None:
            on_answers(len(result.filled[example.uid]))

    try:
        await resolve_format(caller, cache)  # the kept run just found (or probed) it
        await ask(0)  # alone: whether the endpoint takes n decides how the rest are asked
        if result.note is None and not refused_first[0] and len(todo) > 1:
            gate = asyncio.Semaphore(settings.concurrency)

            async def gated(i: int) -> None:
                async with gate:
                    await ask(i)

            await asyncio.gather(*(gated(i) for i in range(1, len(todo))))
        if summary.cancelled:
            status = "cancelled"
    except BaseException:
        status = "interrupted"
        raise
    finally:
        try:
            writer.drain()
        finally:
            summary.requests = caller.requests
            summary.format_mode = caller.format_mode
            await caller.close()
            cache.finish_run(
                run_id,
                n_cached=0,
                n_judged=summary.n_judged,
                n_failed=0,
                requests=summary.requests,
                prompt_tokens=summary.prompt_tokens,
                completion_tokens=summary.completion_tokens,
                cost_usd=summary.cost_usd,
                status=status,
            )
    return result
