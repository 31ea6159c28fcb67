"""Judging with N samples per example: the kept answer as any run gives it, then N - 1 more at a temperature above 0.

The kept answer is :func:`ragviz.judge.run.judge_examples_async`'s (the run's own settings: temperature 0 for chat
models unless set), stored as the judge's labels. Sample k (2..N) is the same request at the sampling temperature
(the one set when above 0, else :data:`SAMPLE_TEMPERATURE`; none is sent to reasoning models, which sample at their
default of 1), cached under its own prompt version ``<version>~sample<k>@t<temperature>`` like any answer: a rerun
asks only what is missing. Samples never become label sets; what they say is stored per example
(:mod:`ragviz.store.judge_confidence`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragviz.data.model import Example, Labels
from ragviz.judge.cache import JudgeCache
from ragviz.judge.client import JudgeSettings
from ragviz.judge.prompt import SHIPPED_PROMPT, JudgePrompt
from ragviz.judge.run import RunProgress, RunSummary, judge_examples_async, run_sync
from ragviz.judge.sampling.agreement import sample_confidence
from ragviz.judge.settings import JudgeConfigError, is_reasoning_model
from ragviz.store.judge_confidence import ExampleConfidence, save_confidences

__all__ = [
    "MAX_SAMPLES",
    "SAMPLE_TEMPERATURE",
    "SampledRun",
    "check_samples",
    "judge_with_samples",
    "judge_with_samples_async",
    "sample_prompt",
    "sample_settings",
]

SAMPLE_TEMPERATURE = 1.0
MAX_SAMPLES = 20


def check_samples(samples: int, settings: JudgeSettings) -> None:
    """:class:`JudgeConfigError` naming what to change when *samples* cannot be asked with *settings*."""
    if not isinstance(samples, int) or isinstance(samples, bool) or not 1 <= samples <= MAX_SAMPLES:
        raise JudgeConfigError(f"samples: must be a whole number from 1 to {MAX_SAMPLES}, got {samples!r}")
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


@dataclass
class SampledRun:
    """The kept run, the sample runs, and per example uid the confidence stored (examples with 2+ answers)."""

    kept: RunSummary
    samples: list[RunSummary] = field(default_factory=list)
    confidence: dict[str, ExampleConfidence] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        return self.kept.requests + sum(s.requests for s in self.samples)

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


async def judge_with_samples_async(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: Any = None,
    *,
    samples: int,
    force: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> SampledRun:
    """Judge *examples* and ask *samples* - 1 more answers of each judged one; store each example's confidence in
    *store* (a :class:`~ragviz.store.label_store.LabelStore`) when given. Progress counts every answer of the N."""
    check_samples(samples, settings)
    total = len(examples) * samples
    offset = [0]

    def progress(p: RunProgress) -> None:
        if on_progress is not None:
            on_progress(replace(p, done=offset[0] + p.done, total=total))

    kept = await judge_examples_async(
        examples, settings, cache, store, force=force, on_progress=progress, should_cancel=should_cancel, prompt=prompt
    )
    result = SampledRun(kept)
    judged = [(e, o.labels) for e, o in zip(examples, kept.outcomes) if o is not None and o.labels is not None]
    answers: dict[str, list[Labels]] = {e.uid: [] for e, _ in judged}
    sampling = sample_settings(settings)
    offset[0] = len(examples)
    for k in range(2, samples + 1):
        if kept.cancelled or any(s.cancelled for s in result.samples):
            break
        todo = [e for e, _ in judged]
        run = await judge_examples_async(
            todo,
            sampling,
            cache,
            None,
            force=force,
            on_progress=progress,
            should_cancel=should_cancel,
            prompt=sample_prompt(prompt, k, sampling.temperature),
        )
        result.samples.append(run)
        refused = _refused_temperature(run)
        if refused is not None and run.n_failed == len(todo):
            raise JudgeConfigError(
                f"samples: the endpoint refused a temperature of {sampling.temperature:g} for {settings.model}, so it "
                f"cannot be asked {samples} times ({refused[:200]}); judge with 1 sample or a model that takes a "
                "temperature. The kept answers are saved."
            )
        for example, outcome in zip(todo, run.outcomes):
            if outcome is not None and outcome.labels is not None:
                answers[example.uid].append(outcome.labels)
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
