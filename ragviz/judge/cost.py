"""What judge runs cost: prices from token usage, and a run's calls, tokens and dollars before it starts.

Prices come from ``genai-prices`` (a maintained table of the providers' list prices, shipped inside the
package: no network call); the endpoint picks the provider (api.openai.com: OpenAI, *.openai.azure.com:
Azure), else the provider that lists the model. Only when that package is not installed does the small
hand-kept table below (OpenAI list prices as of 2025) stand in. A model neither knows has no cost
(``None``, shown as "cost unknown"), never a guessed one. Prices can depend on the size of one request
(long-context tiers), so a run's cost is priced per call: ``calls x price(tokens / calls)``.
:func:`run_cost` counts what a run would ask for, cached examples apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ragviz.data.model import Example
from ragviz.judge.cache import JudgeCache, cache_key
from ragviz.judge.client import JudgeSettings
from ragviz.judge.prompt import SHIPPED_PROMPT, JudgePrompt, content_hash, count_tokens

__all__ = [
    "HAND_TABLE",
    "PRICES_PER_MILLION",
    "RunCost",
    "call_cost",
    "describe_cost",
    "estimate_cost",
    "run_cost",
    "price_source",
    "table_model_prices",
]


# A dated or aliased snapshot of a listed model: gpt-4o-2024-08-06, gpt-3.5-turbo-0125, gpt-4o-latest.
_SNAPSHOT = re.compile(r"^(.+?)-(\d{4}-\d{2}-\d{2}|\d{4}|latest|preview)$")

# The offline fallback: USD per 1M tokens (input, output).
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o4-mini": (1.10, 4.40),
    "o3-mini": (1.10, 4.40),
}
HAND_TABLE = "ragviz's offline table (2025 list prices)"


def table_model_prices(model: str) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens for *model* or its dated snapshot in the offline table.

    >>> table_model_prices("gpt-4o-mini-2024-07-18")
    (0.15, 0.6)
    >>> table_model_prices("llama3") is None
    True
    """
    name = model.strip().lower()
    m = _SNAPSHOT.match(name)
    base = m.group(1) if m else name
    return PRICES_PER_MILLION.get(base)


@lru_cache(maxsize=1)
def price_source() -> str:
    """Where prices come from: ``genai-prices X.Y.Z`` or the offline table."""
    try:
        import genai_prices
    except ImportError:
        return HAND_TABLE
    return f"genai-prices {genai_prices.__version__}"


def _provider(endpoint: str | None) -> dict[str, str]:
    host = (endpoint or "").split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
    if host == "api.openai.com" or not endpoint:
        return {"provider_id": "openai"}
    if host.endswith(".openai.azure.com"):
        return {"provider_id": "azure"}
    return {"provider_api_url": endpoint}


@lru_cache(maxsize=4096)
def call_cost(model: str, prompt_tokens: int, completion_tokens: int, endpoint: str | None = None) -> float | None:
    """USD for one call of *model* with these tokens, ``None`` when the model's price is unknown."""
    if price_source() == HAND_TABLE:
        prices = table_model_prices(model)
        if prices is None:
            return None
        return (prompt_tokens * prices[0] + completion_tokens * prices[1]) / 1_000_000
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens)
    name = model.strip()
    for where in (_provider(endpoint), {}):  # the endpoint's provider, else whichever lists the model
        try:
            return float(calc_price(usage, name, **where).total_price)  # type: ignore[call-overload]
        except LookupError:
            continue
    return None


def estimate_cost(
    model: str, prompt_tokens: int, completion_tokens: int, *, calls: int = 1, endpoint: str | None = None
) -> float | None:
    """cost = calls x price(prompt_tokens / calls input + completion_tokens / calls output tokens), the price
    of one call from :func:`call_cost`; 0 for no calls; ``None`` when the model's price is unknown.

    >>> round(estimate_cost("gpt-4o-mini", 1_000_000, 1_000_000), 2)
    0.75
    >>> estimate_cost("my-local-llama", 1000, 100) is None
    True
    """
    if call_cost(model, 1000, 100, endpoint) is None:
        return None
    if calls <= 0:
        return 0.0
    one = call_cost(model, round(prompt_tokens / calls), round(completion_tokens / calls), endpoint)
    return None if one is None else calls * one


def describe_cost(cost_usd: float | None, model: str) -> str:
    """The cost as shown after "estimated cost": ``$0.0123 (genai-prices 0.2.3 list prices)`` or
    ``unknown (...)``, never a guess."""
    if cost_usd is None:
        return f"unknown ({model!r} is not in {price_source()})"
    return f"${cost_usd:,.4f} ({price_source()} list prices)"


@dataclass(frozen=True)
class RunCost:
    """Calls and tokens a run would need (tokens = characters / 4, completion guessed)."""

    n_examples: int
    n_cached: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None


def run_cost(
    examples: Sequence[Example],
    settings: JudgeSettings,
    cache: JudgeCache | None = None,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> RunCost:
    """Expected calls/tokens/cost for *examples* under *prompt*, not counting those already in *cache*."""
    keys = [cache_key(settings.model, settings.endpoint, prompt.version, content_hash(e)) for e in examples]
    cached = cache.get_many(keys) if cache is not None else {}
    todo = [e for e, k in zip(examples, keys) if k not in cached]
    estimates = [count_tokens(e, prompt) for e in todo]
    prompt_tokens = sum(t.prompt_tokens for t in estimates)
    completion = sum(t.completion_tokens for t in estimates)
    return RunCost(
        len(examples),
        len(examples) - len(todo),
        len(todo),
        prompt_tokens,
        completion,
        estimate_cost(settings.model, prompt_tokens, completion, calls=len(todo), endpoint=settings.endpoint),
    )
