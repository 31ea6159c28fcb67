"""The Explainer's other families: Tonic with its chunk inputs and why, retrieval per system with the
ranked list and MRR / Recall@k / Precision@k / nDCG@k filled in, answer EM / F1 with the normalised
tokens — unit tests of ragviz.analysis.explain (no Streamlit) and the Explainer page under AppTest."""

from __future__ import annotations

import html
import math

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.analysis.explain import (
    BY_PERSON,
    FROM_DATA,
    FROM_SENTENCES,
    answer_explanation,
    retrieval_explanations,
    tonic_explanation,
)
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Example, Labels, Provenance, Sentence
from ragviz.metrics.answer import answer_scores
from ragviz.metrics.retrieval import example_retrieval, retrieval_scores
from ragviz.metrics.tonic import example_tonic
from ragviz.store.label_store import LabelStore
from ragviz.ui.explainer.html import answer_html, retrieval_html, tonic_html
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def example(**kw) -> Example:
    docs = ((Sentence("0a", "A."), Sentence("0b", "B.")), (Sentence("1a", "C."),), (Sentence("2a", "D."),))
    base = dict(
        id="x",
        dataset="toy",
        question="q?",
        documents=("A. B.", "C.", "D."),
        document_sentences=docs,
        response="The cat sat. It sat.",
        response_sentences=(Sentence("a", "The cat sat."), Sentence("b", "It sat.")),
    )
    return Example(**{**base, **kw})


def test_tonic_counts_and_why():
    labels = Labels(
        relevant_keys=("0b", "2a"), utilized_keys=("0a",), unsupported_keys=("b",), provenance=Provenance("llm", "j")
    )
    ex = example(labels=labels)
    expl = tonic_explanation(ex, labels)
    assert expl.scores == example_tonic(ex, labels)
    assert [(c.relevant, c.used) for c in expl.chunks] == [(True, True), (False, False), (True, False)]
    assert expl.chunks[0].relevant_why == "relevant sentence 0b" and expl.chunks[1].used_why == "no utilized sentence"
    assert expl.relevant_source == FROM_SENTENCES and expl.supported == ("a",) and expl.unsupported == ("b",)
    terms = {t.metric: t for t in expl.terms}
    assert terms["retrieval_precision"].filled == "2 / 3" and terms["retrieval_precision"].value == pytest.approx(2 / 3)
    assert terms["augmentation_precision"].filled == "1 / 2" and terms["augmentation_precision"].value == 0.5
    assert terms["answer_consistency"].filled == "1 / 2" and terms["answer_consistency_binary"].value == 0.0
    assert tonic_explanation(ex, None) is None

    by_person = labels.replace(chunk_relevant=(False, True, False), provenance=Provenance("human", "ann"))
    expl = tonic_explanation(ex, by_person)
    assert expl.relevant_source == BY_PERSON and expl.chunks[1].relevant_why == BY_PERSON
    assert expl.scores.retrieval_precision == pytest.approx(1 / 3) == example_tonic(ex, by_person).retrieval_precision
    from_data = tonic_explanation(
        example(extra={"chunk_utilized": [False, False, True], "answer_similarity": 4.0}), labels
    )
    assert from_data.used_source == FROM_DATA and from_data.similarity_source == FROM_DATA
    overall = next(t for t in from_data.terms if t.metric == "overall")
    assert "4.000/5" in overall.filled and overall.value == from_data.scores.overall


def test_retrieval_per_system_filled_formulas():
    ex = example(
        retrieved_ids=("d9",),
        relevant_ids=("d1", "d2", "d3"),
        extra={
            "retrieved_ids_by_system": {"bm25": ["x", "d2", "x", "d1"], "dense": ["d3"]},
            "relevant_grades": [1, 2, 1],
        },
    )
    out = {e.system: e for e in retrieval_explanations(ex, None, 3)}
    assert list(out) == ["bm25", "dense"]
    bm25 = out["bm25"]
    assert [(x.rank, x.doc_id, x.relevant, x.in_top_k) for x in bm25.ranking] == [
        (1, "x", False, True),
        (2, "d2", True, True),
        (3, "d1", True, True),
    ]  # the repeated x counts once
    assert (
        bm25.scores
        == example_retrieval(ex, (3,))["bm25"]
        == retrieval_scores(["x", "d2", "x", "d1"], {"d1": 1, "d2": 2, "d3": 1}, (3,))
    )
    terms = {t.metric: t for t in bm25.terms}
    assert terms["mrr"].filled == "1 / 2" and terms["mrr"].value == 0.5
    assert terms["recall@3"].filled == "2 / 3" and terms["precision@3"].filled == "2 / 3"
    assert terms["ndcg@3"].filled.startswith("(2/log2(3) + 1/log2(4)) / (2/log2(2) + 1/log2(3) + 1/log2(4))")
    dcg = 2 / math.log2(3) + 1 / math.log2(4)
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert terms["ndcg@3"].value == pytest.approx(dcg / idcg)
    assert bm25.not_retrieved == ("d3",) and out["dense"].not_retrieved == ("d1", "d2")
    # a person's gold list changes the human side only
    person = Labels(relevant_ids=("x",), provenance=Provenance("human", "ann"))
    assert {t.metric: t.filled for t in retrieval_explanations(ex, person, 3)[0].terms}["mrr"] == "1 / 1"
    assert retrieval_explanations(example(retrieved_ids=("a",)), None, 1) == []  # no gold list: not scored


def test_answer_tokens_compared():
    ex = example(response="The Eiffel Tower, Paris", reference_answer=("Lyon", "the eiffel tower in paris"))
    expl = answer_explanation(ex)
    assert expl.scores == answer_scores(ex.response, ex.reference_answer)
    assert expl.prediction_tokens == ("eiffel", "tower", "paris")
    best = expl.golds[1]
    assert best.gold_tokens == ("eiffel", "tower", "in", "paris") and best.shared_tokens == ("eiffel", "tower", "paris")
    assert best.f1 == pytest.approx(2 * (3 / 3) * (3 / 4) / (3 / 3 + 3 / 4)) == expl.scores.f1
    assert expl.golds[0].f1 == 0.0
    assert {t.metric: t.filled for t in expl.terms}["f1"] == "P = 3/3, R = 3/4, F1 = 2PR / (P + R)"
    assert answer_explanation(example()) is None


def test_family_html_escapes_data_text():
    evil = "<img src=x onerror=alert(1)>"
    ex = example(retrieved_ids=(evil, "ok"), relevant_ids=(evil,), response=evil, reference_answer=evil)
    labels = Labels(relevant_keys=("0a",), provenance=Provenance("llm", "j"))
    out = (
        tonic_html(tonic_explanation(ex, labels))
        + retrieval_html(retrieval_explanations(ex, labels, 1)[0])
        + answer_html(answer_explanation(ex))
    )
    assert "<img" not in out and html.escape(evil) in out


def open_explainer(**query: str) -> AppTest:
    return open_page("pages/explainer.py", **query)


def blocks(at: AppTest, css_class: str) -> list[str]:
    return [h.value for h in at.get("html") if f'class="{css_class}"' in h.value]


def test_explainer_page_shows_families_judge_vs_human(app_env):
    ds = load([SAMPLE_DATA]).dataset
    ex = ds.example(ds.index_of(ML))
    at = open_explainer(uid=ML)
    subheaders = [h.value for h in at.subheader]
    assert {"Tonic Validate", "Retrieval", "Answer EM / F1"} <= set(subheaders)
    tonic = blocks(at, "rv-tonic")
    assert len(tonic) == 2 and tonic[0] == tonic[1]  # nobody reviewed: the human side shows the judge's labels
    assert "relevant sentences 0b 0c" in tonic[0] and "<code>2 / 2</code>" in tonic[0]
    retrieval = blocks(at, "rv-retrieval")
    assert len(retrieval) == 2 and 'data-metric="recall@1"' in retrieval[0] and "<code>1 / 2</code>" in retrieval[0]
    answer = blocks(at, "rv-answer")
    assert len(answer) == 1 and "P = 10/47, R = 10/17" in answer[0]

    with LabelStore(app_env["db"]) as store:  # a person: document 1 not relevant, only kb-40 is a gold id
        store.record(
            ML,
            "tester",
            [
                Change("relevant_keys", list(ex.labels.relevant_keys), ["0b", "0c"]),
                Change("relevant_ids", None, ["kb-40"]),
            ],
        )
    at.run()
    judge_tonic, human_tonic = blocks(at, "rv-tonic")
    assert (
        "<code>2 / 2</code>" in judge_tonic
        and "<code>1 / 2</code>" in human_tonic
        and "no relevant sentence" in human_tonic
    )
    judge_ret, human_ret = blocks(at, "rv-retrieval")
    assert "<code>1 / 1</code>" in judge_ret  # MRR: kb-12 at rank 1
    assert "<code>1 / 2</code>" in human_ret and 'data-metric="mrr"' in human_ret  # MRR: kb-40 at rank 2

    at.selectbox(key="explainer.k").set_value(3).run()
    assert not at.exception
    assert all('data-metric="ndcg@3"' in b for b in blocks(at, "rv-retrieval"))
