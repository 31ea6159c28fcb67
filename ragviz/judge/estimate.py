"""What a judge run will cost before it starts: calls, tokens and dollars, cached examples counted apart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragviz.data.model import Example
from ragviz.judge.cache import (
    JudgeCache,
    cache_key,
)
from ragviz.judge.client import JudgeSettings
from ragviz.judge.pricing import estimate_cost
from ragviz.judge.prompt import (
    PROMPT_VERSION,
    content_hash,
    estimate_tokens,
)

__all__ = ["RunEstimate", "estimate_run"]


@dataclass(frozen=True)
class RunEstimate:
    """Calls and tokens a run would need (tokens = characters / 4, completion guessed)."""

    n_examples: int
    n_cached: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None


def estimate_run(examples: Sequence[Example], settings: JudgeSettings, cache: JudgeCache | None = None) -> RunEstimate:
    """Expected calls/tokens/cost for *examples*, not counting those already in *cache*."""
    keys = [cache_key(settings.model, settings.endpoint, PROMPT_VERSION, content_hash(e)) for e in examples]
    cached = cache.get_many(keys) if cache is not None else {}
    todo = [e for e, k in zip(examples, keys) if k not in cached]
    estimates = [estimate_tokens(e) for e in todo]
    prompt = sum(t.prompt_tokens for t in estimates)
    completion = sum(t.completion_tokens for t in estimates)
    return RunEstimate(
        len(examples),
        len(examples) - len(todo),
        len(todo),
        prompt,
        completion,
        estimate_cost(settings.model, prompt, completion, calls=len(todo), endpoint=settings.endpoint),
    )
