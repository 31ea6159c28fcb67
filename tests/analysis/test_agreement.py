"""Agreement between label sets: hand-computed kappa / AUROC / Fleiss / P-R-F1 on small cases."""

from __future__ import annotations

import math

import pytest

from ragviz.analysis.agreement import (
    ADHERENT,
    RELEVANT,
    SUPPORTED,
    UTILIZED,
    agreement,
    decisions,
    multi_rater_kappas,
    pairwise_kappas,
)
from ragviz.analysis.stats import (
    Confusion,
    auroc,
    cohen_kappa,
    confusion,
    fleiss_kappa,
    rmse,
)
from ragviz.data.model import Example, Labels, Sentence, SentenceSupport


def make_example(ex_id: str = "q1", n_docs: tuple[int, ...] = (3, 2), n_response: int = 2) -> Example:
    letters = "abcdefghij"
    docs = tuple(
        tuple(Sentence(f"{d}{letters[j]}", f"doc {d} sentence {j}.") for j in range(n)) for d, n in enumerate(n_docs)
    )
    response = tuple(Sentence(letters[j], f"Answer sentence {j}.") for j in range(n_response))
    return Example(
        id=ex_id,
        dataset="toy",
        question="Q?",
        documents=tuple(" ".join(s.text for s in d) for d in docs),
        document_sentences=docs,
        response=" ".join(s.text for s in response),
        response_sentences=response,
        generation_model="m",
    )


def labels(rel, util, unsupported=()):
    support = tuple(SentenceSupport(k, k not in unsupported, ("0a",) if k not in unsupported else ()) for k in "ab")
    return Labels(relevant_keys=tuple(rel), utilized_keys=tuple(util), support=support)


def test_confusion_and_prf_by_hand():
    c = confusion([True, True, True, False, False], [True, True, False, False, True])
    assert c == Confusion(tp=2, fp=1, fn=1, tn=1)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)
    assert c.accuracy == pytest.approx(3 / 5)
    empty = Confusion(0, 0, 0, 5)
    assert empty.precision is None and empty.recall is None and empty.f1 is None and empty.accuracy == 1.0


def test_cohen_kappa_by_hand():
    # p_o = 3/5; both raters say yes 3/5 of the time: p_e = .6*.6 + .4*.4 = .52; kappa = .08/.48
    assert cohen_kappa([1, 1, 1, 0, 0], [1, 1, 0, 0, 1]) == pytest.approx(0.08 / 0.48)
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == pytest.approx(1.0)
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)
    assert cohen_kappa([True, True], [True, True]) is None  # p_e = 1: undefined, not 1.0 or nan
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 0])


def test_auroc_by_hand():
    # positives score .9 and .4, negatives .1 and .4: pairs (.9>.1) (.9>.4) (.4>.1) (.4=.4 -> 1/2) = 3.5/4
    assert auroc([True, False, True, False], [0.9, 0.1, 0.4, 0.4]) == pytest.approx(0.875)
    assert auroc([True, False], [0.0, 1.0]) == pytest.approx(0.0)
    assert auroc([True, True], [0.3, 0.4]) is None


def test_rmse_by_hand():
    assert rmse([0.2, 0.4], [0.5, 0.0]) == pytest.approx(math.sqrt((0.09 + 0.16) / 2))
    assert rmse([], []) is None


def test_fleiss_kappa_wikipedia_worked_example():
    # Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories -> 0.210
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    assert fleiss_kappa(counts) == pytest.approx(0.2099, abs=5e-4)
    assert fleiss_kappa([[2, 0], [2, 0]]) is None  # one category only
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 0], [1, 0]])


def test_fleiss_two_raters_close_to_cohen_when_marginals_match():
    # with two raters and identical marginals, Fleiss' kappa equals Cohen's kappa
    a = [1, 1, 0, 0, 1, 0]
    b = [1, 0, 1, 0, 1, 0]
    counts = [[x + y, 2 - x - y] for x, y in zip(a, b)]
    assert fleiss_kappa(counts) == pytest.approx(cohen_kappa(a, b))


def test_decisions_clean_keys_and_ignore_unknown():
    ex = make_example()
    d = decisions(ex, labels(["0a.", "1b", "general"], ["0a"], unsupported=("b",)))
    assert d.relevant == {"0a": True, "0b": False, "0c": False, "1a": False, "1b": True}
    assert d.utilized["0a"] and not d.utilized["1b"]
    assert d.supported == {"a": True, "b": False}
    assert d.adherent is False
    assert d.scores.relevance == pytest.approx(3 / 5)  # counted as stored by the TRACe function


def test_agreement_sentence_level_by_hand():
    ex1, ex2 = make_example("q1"), make_example("q2")
    human1 = labels(["0a", "0b", "1a"], ["0a"])
    judge1 = labels(["0a", "0c"], ["0a", "1b"], unsupported=("b",))
    human2 = labels(["1a"], ["1a"], unsupported=("a",))
    judge2 = labels(["1a"], ["1a"], unsupported=("a",))
    result = agreement([(ex1, human1, judge1), (ex2, human2, judge2), (ex2, None, judge2)])
    assert result.n_examples == 2 and result.n_skipped == 1
    rel = result.labels[RELEVANT].confusion
    # ex1: 0a tp, 0b fn, 0c fp, 1a fn, 1b tn; ex2: 1a tp, 4 tn
    assert rel == Confusion(tp=2, fp=1, fn=2, tn=5)
    assert result.labels[UTILIZED].confusion == Confusion(tp=2, fp=1, fn=0, tn=7)
    # support: ex1 a both supported, b human supported / judge unsupported; ex2 a both unsupported, b both supported
    assert result.labels[SUPPORTED].confusion == Confusion(tp=2, fp=0, fn=1, tn=1)
    assert result.labels[ADHERENT].confusion == Confusion(tp=0, fp=0, fn=1, tn=1)
    assert result.adherence_accuracy == pytest.approx(0.5)
    # relevance: human .6 vs judge .4 on ex1, equal on ex2
    assert result.scores["relevance"].rmse == pytest.approx(math.sqrt((0.2**2) / 2))
    assert result.scores["utilization"].rmse == pytest.approx(math.sqrt((0.2**2) / 2))
    # completeness: human 1/3, judge 1/2 on ex1
    assert result.scores["completeness"].rmse == pytest.approx(math.sqrt(((1 / 2 - 1 / 3) ** 2) / 2))
    flat = result.as_dict()
    assert flat["relevant_tp"] == 2 and flat["supported_fn"] == 1
    assert flat["relevant_kappa"] == pytest.approx(
        cohen_kappa([1, 1, 0, 1, 0, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 1, 0, 0, 0, 0])
    )


def test_identical_label_sets_agree_perfectly():
    ex = make_example()
    lab = labels(["0a", "1b"], ["0a"], unsupported=("b",))
    result = agreement([(ex, lab, lab)])
    assert result.labels[RELEVANT].kappa == pytest.approx(1.0)
    assert result.scores["relevance"].rmse == 0.0
    assert result.labels[ADHERENT].kappa is None  # one example: a single class, kappa undefined


def test_pairwise_and_fleiss_over_annotators():
    exs = [make_example("q1"), make_example("q2")]
    a = {exs[0].uid: labels(["0a"], []), exs[1].uid: labels(["1a"], [])}
    b = {exs[0].uid: labels(["0a"], []), exs[1].uid: labels(["1a", "1b"], [])}
    c = {exs[0].uid: labels(["0a", "0b"], [])}  # only labelled q1
    pairs = {(p.rater_a, p.rater_b): p for p in pairwise_kappas(exs, {"ann": a, "bob": b, "cy": c}, [RELEVANT])}
    assert pairs[("ann", "bob")].n_examples == 2 and pairs[("ann", "bob")].n_decisions == 10
    # ann vs bob on 10 relevance decisions: ann yes {q1 0a, q2 1a}, bob yes {q1 0a, q2 1a, q2 1b}
    assert pairs[("ann", "bob")].kappa == pytest.approx(
        cohen_kappa([1, 0, 0, 0, 0, 0, 0, 0, 1, 0], [1, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    )
    assert pairs[("ann", "cy")].n_examples == 1
    (fleiss,) = multi_rater_kappas(exs, {"ann": a, "bob": b, "cy": c}, [RELEVANT])
    assert fleiss.n_examples == 1 and fleiss.n_raters == 3 and fleiss.n_decisions == 5
    # q1: 0a yes by 3; 0b yes by 1 of 3; three sentences no by all
    expected = fleiss_kappa([[3, 0], [1, 2], [0, 3], [0, 3], [0, 3]])
    assert fleiss.kappa == pytest.approx(expected)
