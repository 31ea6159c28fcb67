"""Walk the metric registry: every declared property (range, boolean, order invariance) is checked
on random inputs of its family; an `order_invariant=False` metric must be caught changing."""

from __future__ import annotations

import random

import pytest

from ragviz.data.checked_claims import CheckedItem, RetrievedChunk
from ragviz.data.keys import context_key, response_key
from ragviz.data.model import Labels
from ragviz.metrics.answer import answer_scores
from ragviz.metrics.ragchecker import item_scores
from ragviz.metrics.registry import FAMILIES, all_metrics, family_fields
from ragviz.metrics.retrieval import retrieval_scores
from ragviz.metrics.tonic import tonic_scores
from ragviz.metrics.trace import trace_scores

N_CASES = 150


def _perm(rng, n):
    order = list(range(n))
    rng.shuffle(order)
    return order


# Each family: (make a random input, the same input with its units reordered, compute values)
def trace_case(rng):
    n_docs = [rng.randint(0, 4) for _ in range(rng.randint(0, 4))]
    keys = [context_key(d, j) for d, n in enumerate(n_docs) for j in range(n)]
    resp = [response_key(j) for j in range(rng.randint(0, 4))]
    labels = Labels(
        relevant_keys=tuple(k for k in keys if rng.random() < 0.5),
        utilized_keys=tuple(k for k in keys if rng.random() < 0.4),
        unsupported_keys=tuple(k for k in resp if rng.random() < 0.3),
    )
    shuffled = labels.replace(
        relevant_keys=tuple(rng.sample(labels.relevant_keys, len(labels.relevant_keys))),
        utilized_keys=tuple(rng.sample(labels.utilized_keys, len(labels.utilized_keys))),
        unsupported_keys=tuple(rng.sample(labels.unsupported_keys, len(labels.unsupported_keys))),
    )
    compute = lambda lab: trace_scores(lab, len(keys)).as_dict()  # noqa: E731
    return compute(labels), compute(shuffled)


def ragchecker_case(rng):
    lab = lambda: rng.choice(["Entailment", "Neutral", "Contradiction"])  # noqa: E731
    n_r, n_g, n_c = rng.randint(0, 6), rng.randint(0, 6), rng.randint(0, 6)
    a2r = [lab() for _ in range(n_r)]
    r2a = [lab() for _ in range(n_g)]
    c2r = [[lab() for _ in range(n_c)] for _ in range(n_r)]
    c2a = [[lab() for _ in range(n_c)] for _ in range(n_g)]

    def item(pr, pg, pc):
        return CheckedItem(
            "q",
            "",
            "",
            "",
            tuple(RetrievedChunk(str(c), "") for c in pc),
            tuple(str(i) for i in pr),
            tuple(str(j) for j in pg),
            tuple(a2r[i] for i in pr),
            tuple(r2a[j] for j in pg),
            tuple(tuple(c2r[i][c] for c in pc) for i in pr),
            tuple(tuple(c2a[j][c] for c in pc) for j in pg),
        )

    base = item(range(n_r), range(n_g), range(n_c))
    moved = item(_perm(rng, n_r), _perm(rng, n_g), _perm(rng, n_c))
    return item_scores(base).as_dict(), item_scores(moved).as_dict()


def tonic_case(rng):
    n_docs = rng.randint(0, 5)
    sizes = [rng.randint(1, 3) for _ in range(n_docs)]
    resp = [response_key(j) for j in range(rng.randint(0, 4))]
    relevant = [context_key(d, j) for d in range(n_docs) for j in range(sizes[d]) if rng.random() < 0.4]
    utilized = [context_key(d, j) for d in range(n_docs) for j in range(sizes[d]) if rng.random() < 0.4]
    unsupported = tuple(k for k in resp if rng.random() < 0.3)
    sim = rng.choice([None, 0, 1.5, 5])
    order = _perm(rng, n_docs)
    new_doc = {old: new for new, old in enumerate(order)}

    def renumber(keys):
        return tuple(f"{new_doc[int(k[0])]}{k[1:]}" for k in keys)

    base = tonic_scores(
        Labels(tuple(relevant), tuple(utilized), unsupported_keys=unsupported), n_docs, resp, answer_similarity=sim
    )
    moved = tonic_scores(
        Labels(renumber(relevant), renumber(utilized), unsupported_keys=tuple(reversed(unsupported))),
        n_docs,
        list(reversed(resp)),
        answer_similarity=sim,
    )
    return base.as_dict(), moved.as_dict()


def retrieval_case(rng):
    pool = [f"d{i}" for i in range(14)]
    ranked = rng.sample(pool, rng.randint(0, 14))
    gold = {d: rng.randint(0, 3) for d in rng.sample(pool, rng.randint(1, 5))}
    return retrieval_scores(ranked, gold), retrieval_scores(rng.sample(ranked, len(ranked)), gold)


def answer_case(rng):
    words = ["the", "Paris", "tower", "a", "big", "Eiffel", "paris", "x"]
    pred = [rng.choice(words) for _ in range(rng.randint(0, 5))]
    golds = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.5:  # exact answers, so that word order can matter to EM
        golds.append(" ".join(pred))
    return answer_scores(" ".join(pred), golds).as_dict(), answer_scores(
        " ".join(rng.sample(pred, len(pred))), golds
    ).as_dict()


CASES = {
    "trace": trace_case,
    "ragchecker": ragchecker_case,
    "tonic": tonic_case,
    "retrieval": retrieval_case,
    "answer": answer_case,
}


def test_every_family_has_a_case_generator():
    assert set(CASES) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_declared_properties_hold(family):
    rng = random.Random(f"registry-{family}")
    specs = FAMILIES[family].metrics
    changed = {m.name: False for m in specs}
    defined = {m.name: 0 for m in specs}
    for _ in range(N_CASES):
        base, moved = CASES[family](rng)
        assert set(m.name for m in specs) <= set(base), f"{family} does not produce every registered metric"
        for m in specs:
            value = base[m.name]
            if value is None:
                continue
            defined[m.name] += 1
            assert m.lower <= value <= m.upper, (m.name, value)
            if m.boolean:
                assert value in (0.0, 1.0), (m.name, value)
            if m.order_invariant:
                assert moved[m.name] == pytest.approx(value, abs=1e-12), (m.name, base, moved)
            elif moved[m.name] != value:
                changed[m.name] = True
    assert all(defined.values()), f"some {family} metrics were never defined: {defined}"
    for m in specs:
        if not m.order_invariant:
            assert changed[m.name], f"{m.name} is declared order-dependent but never changed under reordering"


def test_registry_names_and_fields():
    names = [m.name for m in all_metrics()]
    assert len(names) == len(set((m.family, m.name) for m in all_metrics()))
    assert family_fields("retrieval", (2,)) == ["mrr", "recall@2", "precision@2", "hit@2", "ndcg@2"]
    assert family_fields("trace")[-1] == "trace_mean"
    assert [m.name for m in FAMILIES["tonic"].metrics if not m.bounded] == ["answer_similarity"]
