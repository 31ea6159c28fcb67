"""The adjudication queue and settling one example (the store side is :mod:`ragviz.store.team.adjudications`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragviz.analysis.team.gold import ExampleRound, Unit, example_round, settled_fields, shown_fingerprint, unit_values
from ragviz.data.model import Example
from ragviz.errors import BadInput
from ragviz.store.label_store import LabelStore
from ragviz.store.team.adjudications import StaleAdjudication

__all__ = [
    "AdjudicationError",
    "adjudication_queue",
    "next_to_adjudicate",
    "settle_example",
    "shown_now",
]


class AdjudicationError(BadInput, ValueError):
    """A settlement that cannot be made (the example is not ready, a value is missing), in one sentence."""


def adjudication_queue(rounds: Mapping[str, ExampleRound]) -> list[str]:
    """The uids waiting for an adjudicator (ready, labellers disagree, not settled or settled on labels
    that changed since), in row order."""
    return [uid for uid, r in rounds.items() if r.needs_adjudication]


def next_to_adjudicate(
    queue: Sequence[str], after: str | None, example_of: Any, store: LabelStore
) -> tuple[str, ExampleRound] | None:
    """The first uid of *queue* after *after* (from the start when ``None``) that still needs adjudication
    now (each candidate checked on the store: someone may have settled it meanwhile); *example_of(uid)*
    builds the example. ``None`` when the queue is done."""
    start = queue.index(after) + 1 if after in queue else 0
    for uid in [*queue[start:], *queue[:start]]:
        r = example_round(example_of(uid), store)
        if r.needs_adjudication:
            return uid, r
    return None


def shown_now(example: Example, store: LabelStore) -> tuple[ExampleRound, str]:
    """The example's round and the fingerprint of what an adjudicator is shown of it now."""
    r = example_round(example, store)
    return r, shown_fingerprint(example, r.labels, store.team.adjudications.latest_adjudication_id(example.uid))


def settle_example(
    example: Example,
    store: LabelStore,
    adjudicator: str,
    chosen: Mapping[Unit, Any],
    seen: str,
    explanations: Mapping[str, str] | None = None,
) -> int:
    """Settle *example* with *chosen* values for its units (each a side's value or a new one; units not in
    *chosen* take the value every labeller agrees on). Refused when the example is not ready, when a
    difference has no value, or (``StaleAdjudication``) when what was shown (*seen*) changed meanwhile."""
    r = example_round(example, store)
    if shown_fingerprint(example, r.labels, store.team.adjudications.latest_adjudication_id(example.uid)) != seen:
        raise StaleAdjudication(example.uid)  # said first: what was chosen was chosen on other labels
    if not r.ready:
        waiting = ", ".join(n for n in r.labellers if n not in r.done) or "its annotators"
        raise AdjudicationError(f"{example.uid}: not ready to settle: waiting for {waiting}")
    missing = [u for u in r.differences if u not in chosen]
    if missing:
        listed = ", ".join(f"{k} {key}" for k, key in missing[:5])
        raise AdjudicationError(f"{example.uid}: choose a value for every difference (missing: {listed})")
    agreed = unit_values(example, next(iter(r.labels.values()))) if r.labels else {}
    values = {**agreed, **chosen}

    def fingerprint_now() -> str:
        now = example_round(example, store)
        return shown_fingerprint(example, now.labels, store.team.adjudications.latest_adjudication_id(example.uid))

    return store.team.adjudications.settle(
        example.uid, adjudicator, settled_fields(example, values, explanations), seen, fingerprint_now
    )
