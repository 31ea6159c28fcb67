"""Estimated cost of judge runs from token usage.

Prices are USD per 1M tokens (input, output), the providers' public list prices as of 2025; they
change, so a cost shown by ragviz is an estimate. A model not in the table has no cost (``None``),
never a guessed one. Dated snapshots (``gpt-4o-mini-2024-07-18``) use their model's price.
"""

from __future__ import annotations

import re

# A dated or aliased snapshot of a listed model: gpt-4o-2024-08-06, gpt-3.5-turbo-0125, gpt-4o-latest.
_SNAPSHOT = re.compile(r"^(.+?)-(\d{4}-\d{2}-\d{2}|\d{4}|latest|preview)$")

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


def model_prices(model: str) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens for *model* or its dated snapshot; ``None`` when unknown.

    >>> model_prices("gpt-4o-mini-2024-07-18")
    (0.15, 0.6)
    >>> model_prices("llama3") is None
    True
    """
    name = model.strip().lower()
    m = _SNAPSHOT.match(name)
    base = m.group(1) if m else name
    return PRICES_PER_MILLION.get(base)


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """cost = prompt_tokens * input_price / 1e6 + completion_tokens * output_price / 1e6.

    >>> round(estimate_cost("gpt-4o-mini", 1_000_000, 1_000_000), 2)
    0.75
    """
    prices = model_prices(model)
    if prices is None:
        return None
    return (prompt_tokens * prices[0] + completion_tokens * prices[1]) / 1_000_000
