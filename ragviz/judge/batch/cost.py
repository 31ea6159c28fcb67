"""What a batch costs beside the same calls made live, from the same token counts.

The batch price is ``genai-prices``' batch price where it lists one for the model (its ``processing: batch``
price variant); else half the list price, which is what OpenAI and Azure OpenAI charge for the Batch API,
and the description says that rule was used. A model with no list price has no cost, never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ragviz.data.model import Example
from ragviz.judge.client import JudgeSettings
from ragviz.judge.cost import HAND_TABLE, estimate_cost, price_source
from ragviz.judge.prompt import count_tokens

__all__ = ["BATCH_DISCOUNT_RULE", "BatchCost", "batch_cost", "batch_run_cost", "describe_batch_cost"]


BATCH_DISCOUNT_RULE = "half the list price (the Batch API's discount; no batch price listed for this model)"


@dataclass(frozen=True)
class BatchCost:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    live_usd: float | None
    batch_usd: float | None
    batch_rule: str  # where the batch price comes from


@lru_cache(maxsize=256)
def _listed_batch_cost(model: str, provider: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """genai-prices' batch price for one call, ``None`` when it lists none (or is not installed)."""
    if price_source() == HAND_TABLE:
        return None
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens)
    try:
        listed = calc_price(usage, model, provider_id=provider)
        batch = calc_price(usage, model, provider_id=provider, price_context={"processing": "batch"})
    except LookupError:
        return None
    if batch.total_price == listed.total_price:
        return None
    return float(batch.total_price)


def _provider(endpoint: str) -> str:
    host = endpoint.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
    return "azure" if host.endswith(".openai.azure.com") else "openai"


def batch_cost(
    model: str, prompt_tokens: int, completion_tokens: int, *, calls: int, endpoint: str
) -> tuple[float | None, str]:
    """(USD, where the price comes from) for *calls* batch requests with these tokens in total."""
    if calls <= 0:
        return 0.0, f"{price_source()} batch price"
    one = _listed_batch_cost(
        model.strip(), _provider(endpoint), round(prompt_tokens / calls), round(completion_tokens / calls)
    )
    if one is not None:
        return calls * one, f"{price_source()} batch price"
    live = estimate_cost(model, prompt_tokens, completion_tokens, calls=calls, endpoint=endpoint)
    return (None if live is None else live / 2), BATCH_DISCOUNT_RULE


def batch_run_cost(examples: Iterable[Example], settings: JudgeSettings) -> BatchCost:
    """Requests, tokens (characters / 4, completions guessed as the live estimate does) and both prices."""
    n = prompt = completion = 0
    for example in examples:
        size = count_tokens(example)
        n += 1
        prompt += size.prompt_tokens
        completion += size.completion_tokens
    live = estimate_cost(settings.model, prompt, completion, calls=n, endpoint=settings.endpoint)
    batch, rule = batch_cost(settings.model, prompt, completion, calls=n, endpoint=settings.endpoint)
    return BatchCost(n, prompt, completion, live, batch, rule)


def describe_batch_cost(plan: BatchCost) -> str:
    def usd(value: float | None) -> str:
        return "unknown (model not in the price table)" if value is None else f"${value:,.4f}"

    return (
        f"{plan.requests} requests, about {plan.prompt_tokens:,} input + {plan.completion_tokens:,} output tokens;"
        f" live {usd(plan.live_usd)} ({price_source()} list prices), batch {usd(plan.batch_usd)} ({plan.batch_rule})"
    )
