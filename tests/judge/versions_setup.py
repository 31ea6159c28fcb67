"""Data for the judge-version tests and benchmarks/bench_judge_compare.py: RAGBench rows where some context
sentences carry a marker word, the judge's labels in the file as the marker-blind stub gives them, and people's
reviews (through ``LabelStore.record``, as the Review page records them) saying the marked sentences are relevant
and utilized. The stub server (``StubServer(marker=MARKER)``) learns the marker only from a few-shot example."""

from __future__ import annotations

import json
from pathlib import Path

from ragviz.data.dataset import Dataset
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.store.label_store import LabelStore

MARKER = "zorblat"
SUBSETS = ("alpha", "beta")


def marked(i: int) -> bool:
    return i % 2 == 0


def marker_row(i: int) -> dict:
    """Row *i*: two documents of three sentences, two response sentences; 1a holds the marker in even rows."""
    tag = f"case {i}"
    tail = f"and the {MARKER} reading applies." if marked(i) else "and nothing else."
    docs = [
        [["0a", f"Fact one of {tag} is stated here."], ["0b", f"Fact two of {tag} follows."], ["0c", "Filler text."]],
        [["1a", f"Extra detail of {tag} {tail}"], ["1b", "Unrelated remark."], ["1c", "More filler."]],
    ]
    response = [["a", f"Answer one about {tag}."], ["b", f"Answer two about {tag}."]]
    support = [
        {"response_sentence_key": k, "explanation": "stub", "supporting_sentence_keys": ["0a"], "fully_supported": True}
        for k, _ in response
    ]
    return {
        "id": f"q{i}",
        "question": f"What about {tag}?",
        "documents": [" ".join(t for _, t in d) for d in docs],
        "response": " ".join(t for _, t in response),
        "generation_model_name": "gen",
        "annotating_model_name": "stub-judge",
        "dataset_name": SUBSETS[i % len(SUBSETS)],
        "documents_sentences": docs,
        "response_sentences": response,
        "sentence_support_information": support,
        "unsupported_response_sentence_keys": [],
        "overall_supported_explanation": "stub",
        "relevance_explanation": "stub",
        "all_relevant_sentence_keys": ["0a", "0b"],
        "all_utilized_sentence_keys": ["0a"],
        "overall_supported": True,
    }


def write_marker_data(path: Path, n: int, start: int = 0) -> Path:
    path.write_text("".join(json.dumps(marker_row(i)) + "\n" for i in range(start, start + n)), encoding="utf-8")
    return path


def truth_keys(i: int) -> tuple[list[str], list[str]]:
    """People's (relevant, utilized) keys of row *i*."""
    extra = ["1a"] if marked(i) else []
    return ["0a", "0b", *extra], ["0a", *extra]


def review_truth(store: LabelStore, dataset: Dataset, uids: list[str], annotator: str = "ana", note: str = "") -> None:
    """*annotator* reviews *uids*: the marked sentence made relevant and utilized (with *note* on sentence a)."""
    for uid in uids:
        row = dataset.index_of(uid)
        assert row is not None
        example = dataset.example(row)
        i = int(example.id[1:])
        labels = store.current_labels(example, annotator)
        relevant, utilized = truth_keys(i)
        changes = [
            Change("relevant_keys", field_value(labels, "relevant_keys"), relevant),
            Change("utilized_keys", field_value(labels, "utilized_keys"), utilized),
        ]
        if note:
            old = field_value(labels, "support:a")
            changes.append(Change("support:a", old, {**old, "explanation": note}))
        store.record(uid, annotator, [*changes, Change(REVIEW_FIELD, None, REVIEWED)], example=example)
