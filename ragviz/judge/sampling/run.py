"""Judging with N samples per example: the kept answer as any run gives it, then N - 1 more at a temperature above 0
(or the kept answer's token probabilities instead), and the judge's confidence per example from them
(:func:`judge_with_samples_async`, whose docstring says how samples are asked and cached). Samples never become
label sets; what they say is stored per example (:mod:`ragviz.store.judge_confidence`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragviz.data.model import Example, Labels
from ragviz.judge.cache import JudgeCache
from ragviz.judge.client import JudgeSettings
from ragviz.judge.cost import RunCost, estimate_cost, run_cost
from ragviz.judge.prompt import SHIPPED_PROMPT, JudgePrompt
from ragviz.judge.run import CACHED, FAILED, JUDGED, RunProgress, RunSummary, judge_examples_async, run_sync
from ragviz.judge.sampling.agreement import sample_confidence
from ragviz.judge.sampling.logprobs import TOP_LOGPROBS, logprob_confidence
from ragviz.judge.sampling.one_request import ask_samples_in_one_request
from ragviz.judge.settings import JudgeConfigError, is_reasoning_model
from ragviz.store.judge_confidence import ExampleConfidence, example_confidences, save_confidences

__all__ = [
    "CONFIDENCE_METHODS",
    "MAX_SAMPLES",
    "SAMPLE_MODES",
    "SAMPLE_TEMPERATURE",
    "SampledRun",
    "check_samples",
    "judge_with_samples",
    "judge_with_samples_async",
    "samples_cost",
    "sample_prompt",
    "sample_settings",
]

SAMPLE_TEMPERATURE = 1.0
MAX_SAMPLES = 20
SAMPLE_MODES = ("n", "separate")  # samples 2..N in one request (n = N - 1) where the endpoint takes it / one each
CONFIDENCE_METHODS = ("samples", "logprobs")


def check_samples(
    samples: int, settings: JudgeSettings, sample_mode: str = SAMPLE_MODES[0], confidence: str = "samples"
) -> None:
    """:class:`JudgeConfigError` naming what to change when *samples* cannot be asked with *settings*."""
    if not isinstance(samples, int) or isinstance(samples, bool) or not 1 <= samples <= MAX_SAMPLES:
        raise JudgeConfigError(f"samples: must be a whole number from 1 to {MAX_SAMPLES}, got {samples!r}")
    if sample_mode not in SAMPLE_MODES:
        raise JudgeConfigError(f"sample mode: must be one of {', '.join(SAMPLE_MODES)}, got {sample_mode!r}")
    if confidence not in CONFIDENCE_METHODS:
        raise JudgeConfigError(f"confidence: must be one of {', '.join(CONFIDENCE_METHODS)}, got {confidence!r}")
    if samples > 1 and settings.temperature == 0.0:
        raise JudgeConfigError(
            f"samples: {samples} samples at temperature 0 would all be the same answer; leave the temperature "
            "unset (samples are then asked at 1) or set one above 0"
        )


def sample_settings(settings: JudgeSettings) -> JudgeSettings:
    """The settings of samples 2..N: the temperature set when above 0, else :data:`SAMPLE_TEMPERATURE` (reasoning
    models: none sent)."""
    if settings.temperature:
        return settings
    return replace(settings, temperature=None if is_reasoning_model(settings.model) else SAMPLE_TEMPERATURE)


def sample_prompt(prompt: JudgePrompt, k: int, temperature: float | None) -> JudgePrompt:
    """The prompt of sample *k* (the same system message; its own version, so its own cache key)."""
    at = "default" if temperature is None else f"{temperature:g}"
    return JudgePrompt(prompt.system, f"{prompt.version}~sample{k}@t{at}")


def samples_cost(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache | None,
    prompt: JudgePrompt,
    samples: int,
    sample_mode: str = SAMPLE_MODES[0],
) -> RunCost:
    """Calls, tokens and cost of samples 2..*samples* of *examples* (cached ones apart): one request per sample
    (``separate``), or one per example with a sample missing, its prompt paid once (``n``, where the endpoint
    takes it)."""
    sampling = sample_settings(settings)
    plans = [
        run_cost(examples, sampling, cache, sample_prompt(prompt, k, sampling.temperature))
        for k in range(2, samples + 1)
    ]
    if not plans:
        return RunCost(len(examples), len(examples), 0, 0, 0, 0.0)
    one = sample_mode == "n"
    calls = max(p.calls for p in plans) if one else sum(p.calls for p in plans)
    prompt_tokens = max(p.prompt_tokens for p in plans) if one else sum(p.prompt_tokens for p in plans)
    completion_tokens = sum(p.completion_tokens for p in plans)
    costs = [p.cost_usd for p in plans]
    cost = (
        estimate_cost(settings.model, prompt_tokens, completion_tokens, calls=calls, endpoint=settings.endpoint)
        if one
        else (None if any(c is None for c in costs) else sum(c for c in costs if c is not None))
    )
    return RunCost(len(examples), min(p.n_cached for p in plans), calls, prompt_tokens, completion_tokens, cost)


@dataclass
class SampledRun:
    """The kept run, the sample runs (one-request and separate), per example uid the confidence stored, and the
    notes a person should read once (an endpoint that ignored ``n`` or sent no logprobs)."""

    kept: RunSummary
    samples: list[RunSummary] = field(default_factory=list)
    confidence: dict[str, ExampleConfidence] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.kept.requests + sum(s.requests for s in self.samples)

    @property
    def prompt_tokens(self) -> int:
        return self.kept.prompt_tokens + sum(s.prompt_tokens for s in self.samples)

    @property
    def completion_tokens(self) -> int:
        return self.kept.completion_tokens + sum(s.completion_tokens for s in self.samples)

    @property
    def cost_usd(self) -> float | None:
        costs = [self.kept.cost_usd, *(s.cost_usd for s in self.samples)]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    @property
    def n_sample_failures(self) -> int:
        return sum(s.n_failed for s in self.samples)


def _refused_temperature(summary: RunSummary) -> str | None:
    for failure in summary.failures:
        error = failure.error or ""
        if error.startswith("HTTP 400") and "temperature" in error:
            return error
    return None


def _merge(kept: RunSummary, again: RunSummary, where: list[int]) -> None:
    """Put *again*'s outcomes (of ``examples[i]`` for i in *where*) into *kept*: the run as it ended for each."""
    for i, outcome in zip(where, again.outcomes):
        if outcome is not None:
            kept.outcomes[i] = outcome
    kept.requests += again.requests
    kept.wall_seconds += again.wall_seconds
    kept.cancelled = kept.cancelled or again.cancelled


def _refused_logprobs(error: str | None) -> bool:
    return (error or "").startswith("HTTP 400") and "logprobs" in (error or "")


def _still_current(examples: Sequence[Example], kept: RunSummary, store: Any) -> dict[str, ExampleConfidence]:
    """The stored confidences of the examples whose kept answer was cached (nothing new to read from it)."""
    current = example_confidences(store) if store is not None else {}
    return {
        e.uid: current[e.uid]
        for e, o in zip(examples, kept.outcomes)
        if o is not None and o.status == CACHED and e.uid in current
    }


async def _judge_reading_logprobs(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: Any,
    result_notes: list[str],
    **run: Any,
) -> tuple[RunSummary, dict[str, ExampleConfidence]]:
    """The kept run asking ``logprobs`` too, and the confidence read from each fresh answer's tokens. A kept answer
    that is cached (its tokens' probabilities are never cached) and has no confidence yet is asked again."""
    asking = replace(settings, top_logprobs=TOP_LOGPROBS)
    kept = await judge_examples_async(examples, asking, cache, store, **run)
    refused = [
        i for i, o in enumerate(kept.outcomes) if o is not None and o.status == FAILED and _refused_logprobs(o.error)
    ]
    if refused and not kept.cancelled:
        result_notes.append(f"confidence: the endpoint refused logprobs for {settings.model}; judged without them")
        _merge(kept, await judge_examples_async([examples[i] for i in refused], settings, cache, store, **run), refused)
    current = example_confidences(store) if store is not None else {}
    again = [i for i, o in enumerate(kept.outcomes) if o is not None and o.status == CACHED and o.uid not in current]
    if again and not kept.cancelled and not refused:
        _merge(
            kept,
            await judge_examples_async([examples[i] for i in again], asking, cache, store, **{**run, "force": True}),
            again,
        )
    found: dict[str, ExampleConfidence] = {}
    without = unreadable = 0
    for example, outcome in zip(examples, kept.outcomes):
        if outcome is None or outcome.status != JUDGED or outcome.labels is None:
            continue
        if outcome.logprobs is None:
            without += 1
            continue
        try:
            found[example.uid] = logprob_confidence(example, outcome.labels, outcome.raw_output or "", outcome.logprobs)
        except (ValueError, KeyError, TypeError, IndexError):
            unreadable += 1
    if without and not refused:
        result_notes.append(
            f"confidence: the endpoint sent no logprobs for {without} of the answers of {settings.model}; no "
            "confidence read from them"
        )
    if unreadable:
        result_notes.append(f"confidence: the logprobs of {unreadable} answers could not be laid over their text")
    return kept, found


async def judge_with_samples_async(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: Any = None,
    *,
    samples: int,
    sample_mode: str = SAMPLE_MODES[0],
    confidence: str = "samples",
    force: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> SampledRun:
    """Judge *examples* and ask *samples* - 1 more answers of each judged one (*sample_mode*), or read the kept
    answers' token probabilities (*confidence* ``"logprobs"``; samples only where the endpoint sends none); store
    each example's confidence in *store* (a :class:`~ragviz.store.label_store.LabelStore`) when given. Progress
    counts every answer of the N.

    The kept answer is :func:`ragviz.judge.run.judge_examples_async`'s (the run's own settings: temperature 0 for chat
    models unless set), stored as the judge's labels. Sample k (2..N) is the same request at the sampling temperature
    (the one set when above 0, else :data:`SAMPLE_TEMPERATURE`; none is sent to reasoning models, which sample at their
    default of 1), cached under its own prompt version ``<version>~sample<k>@t<temperature>`` like any answer: a rerun
    asks only what is missing.

    How samples 2..N are asked (``sample_mode``): ``"n"`` (the default) asks them as ONE request per example with
    ``n`` = N - 1 where the endpoint takes it (:mod:`ragviz.judge.sampling.one_request`: one request instead of N - 1,
    the prompt's tokens paid once), falling back to ``"separate"`` (one request per sample) when it ignores or refuses
    ``n``. Both modes cache each sample under the same key, so either reuses the other's answers.

    ``confidence="logprobs"`` reads the confidence from the kept answer's token probabilities instead
    (:mod:`ragviz.judge.sampling.logprobs`: the kept request also asks ``logprobs``; no samples). Where the endpoint
    sends none, one note says so and no confidence is stored, or the N samples are asked when N > 1 was asked too.
    """
    check_samples(samples, settings, sample_mode, confidence)
    total = len(examples) * (1 if confidence == "logprobs" else samples)
    offset = [0]
    shown = [0]

    def progress(p: RunProgress) -> None:
        if on_progress is not None:
            shown[0] = max(shown[0], offset[0] + p.done)  # never backwards
            on_progress(replace(p, done=shown[0], total=total))

    run: dict[str, Any] = {"force": force, "on_progress": progress, "should_cancel": should_cancel, "prompt": prompt}
    notes: list[str] = []
    if confidence == "logprobs":
        kept, read = await _judge_reading_logprobs(examples, settings, cache, store, notes, **run)
        result = SampledRun(kept, notes=notes)
        if store is not None and read:
            save_confidences(store, list(read.values()))
        result.confidence = {**_still_current(examples, kept, store), **read}
        missing = [e for e, o in zip(examples, kept.outcomes) if o is not None and o.status == JUDGED]
        missing = [e for e in missing if e.uid not in read]
        if samples > 1 and missing and not kept.cancelled:
            notes.append(f"confidence: asking {samples} samples of the {len(missing)} examples without logprobs")
            offset[0], total = 0, len(missing) * samples
            more = await judge_with_samples_async(
                missing, settings, cache, store, samples=samples, sample_mode=sample_mode, **run
            )
            result.samples += [more.kept, *more.samples]
            result.notes += more.notes
            result.confidence.update(more.confidence)
        return result
    kept = await judge_examples_async(examples, settings, cache, store, **run)
    result = SampledRun(kept, notes=notes)
    judged = [(e, o.labels) for e, o in zip(examples, kept.outcomes) if o is not None and o.labels is not None]
    answers: dict[str, list[Labels]] = {e.uid: [] for e, _ in judged}
    sampling = sample_settings(settings)
    offset[0] = len(examples)
    prompts = {k: sample_prompt(prompt, k, sampling.temperature) for k in range(2, samples + 1)}
    filled: dict[str, dict[int, Labels]] = {e.uid: {} for e, _ in judged}
    if sample_mode == "n" and prompts and judged and not kept.cancelled:
        at = offset[0]

        def answered(count: int) -> None:
            offset[0] += count
            progress(RunProgress(0, total, 0, 0, 0))

        one = await ask_samples_in_one_request(
            [e for e, _ in judged],
            sampling,
            cache,
            prompts,
            force=force,
            on_answers=answered,
            should_cancel=should_cancel,
        )
        filled, offset[0] = one.filled, at
        if one.run is not None:
            result.samples.append(one.run)
        if one.note is not None:
            notes.append(one.note)
    for k in prompts:
        if kept.cancelled or any(s.cancelled for s in result.samples):
            break
        todo = [e for e, _ in judged if k not in filled[e.uid]]
        outcomes = {}
        if todo:
            sample_run = await judge_examples_async(todo, sampling, cache, None, **{**run, "prompt": prompts[k]})
            result.samples.append(sample_run)
            refused = _refused_temperature(sample_run)
            if refused is not None and sample_run.n_failed == len(todo):
                raise JudgeConfigError(
                    f"samples: the endpoint refused a temperature of {sampling.temperature:g} for {settings.model}, "
                    f"so it cannot be asked {samples} times ({refused[:200]}); judge with 1 sample or a model that "
                    "takes a temperature. The kept answers are saved."
                )
            outcomes = {e.uid: o for e, o in zip(todo, sample_run.outcomes)}
        for example, _ in judged:
            outcome = outcomes.get(example.uid)
            labels = filled[example.uid].get(k) if outcome is None else outcome.labels
            if labels is not None:
                answers[example.uid].append(labels)
        offset[0] += len(examples)
    result.confidence = {e.uid: sample_confidence(e, labels, answers[e.uid]) for e, labels in judged if answers[e.uid]}
    if store is not None and result.confidence:
        save_confidences(store, list(result.confidence.values()))
    return result


def judge_with_samples(
    examples: Sequence[Example], settings: JudgeSettings, cache: JudgeCache, store: Any = None, **kwargs: Any
) -> SampledRun:
    """Sync wrapper of :func:`judge_with_samples_async`."""
    return run_sync(lambda: judge_with_samples_async(examples, settings, cache, store, **kwargs))
