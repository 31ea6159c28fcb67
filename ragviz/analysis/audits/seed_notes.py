"""What a person is told when a new audit sample shares its seed with a stored one (issue 36 item 2).

Each design ranks the examples with its own salted hash (:data:`ragviz.analysis.audits.designs.SALTS`), so a pilot
and an active sample drawn with one seed overlap as two independent draws would, not 50 of 50. That is right for the
estimate but can surprise: a person who re-draws with the seed of an active sample drawn before the salts existed
gets another sample, and one who reuses a pilot's seed may expect the same examples. :func:`seed_notes` says which
stored samples share the seed, whether they share the ranking, and how many members they have in common.
"""

from __future__ import annotations

from ragviz.analysis.audits.designs import PAIRED
from ragviz.store.audit_samples import AuditSample
from ragviz.store.label_store import LabelStore

__all__ = ["ranking_salt", "seed_notes", "seed_notes_for"]


def ranking_salt(sample: AuditSample) -> str:
    """The salt *sample* was ranked with (``""``: uniform, or drawn before salts)."""
    return str(sample.params.get("salt", ""))


def seed_notes_for(sample: AuditSample, others: list[AuditSample]) -> list[str]:
    """One sentence per sample of *others* drawn from the same examples with *sample*'s seed (module docstring).

    >>> a = AuditSample(1, 7, "p", 100, "ana", "t", ("a", "b"), "uniform")
    >>> b = AuditSample(2, 7, "p", 100, "ana", "t", ("b", "c"), "active", {"salt": "active:"})
    >>> print(seed_notes_for(b, [a])[0].split(":")[0])
    Seed 7 is also sample 1's (uniform)
    """
    notes = []
    mine = set(sample.members)
    salt = ranking_salt(sample)
    for other in others:
        if (
            other.id == sample.id
            or other.seed != sample.seed
            or other.population != sample.population
            or PAIRED in (other.design, sample.design)
        ):
            continue
        shared = len(mine & set(other.members))
        common = f"{shared:,} of this sample's {sample.size:,} examples are also in sample {other.id}"
        if ranking_salt(other) == salt:
            notes.append(
                f"Seed {sample.seed} is also sample {other.id}'s ({other.design}), with the same ranking: {common}. "
                "Draw with another seed for a sample of its own."
            )
            continue
        independent = sample.size * other.size / max(1, sample.population_size)
        if other.design == sample.design:
            why = (
                f"sample {other.id} was drawn before each design ranked the examples with its own salt, so this "
                f"{sample.design} sample is not the same draw: {common}. To add to sample {other.id}, grow it instead."
            )
        else:
            why = (
                f"each design ranks the examples with its own salt, so the two overlap as independent draws would: "
                f"{common} (about {independent:.0f} expected by chance), not the same examples."
            )
        notes.append(f"Seed {sample.seed} is also sample {other.id}'s ({other.design}): {why}")
    return notes


def seed_notes(store: LabelStore, sample: AuditSample) -> list[str]:
    """:func:`seed_notes_for` over every sample in *store*."""
    return seed_notes_for(sample, store.audits.list_samples())
