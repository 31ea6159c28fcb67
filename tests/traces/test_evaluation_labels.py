"""Phoenix evaluations → judge labels (issue 37 follow-up, items 1 and 2), without a server: the mapping rules
(hallucination → every response sentence's support, QA correctness → answer similarity, document relevance →
every sentence key of a relevant document) and the judge label sets saved under a judge version named for the
evaluators, once."""

from __future__ import annotations

import json

from ragviz.analysis.labelsets.named import judge_labels
from ragviz.data.formats.openinference import EVALUATIONS, SIDECAR, Skipped, trace_row
from ragviz.data.formats.trace_evaluations import evaluation_labels, version_name
from ragviz.data.load import load
from ragviz.export.traces.evaluation_labels import save_evaluation_labels
from ragviz.judge.versions.registry import judged_by, list_versions
from ragviz.store.label_store import LabelStore
from tests.traces.test_mapping import llm, retriever, root

DOCUMENTS = ("The sky is blue. It scatters light.", "Grass is green.", "Snow is white. It is cold.")


def rows_file(tmp_path, evaluations: list[dict]) -> tuple:
    row = trace_row([root(), retriever("a", 1, *DOCUMENTS), llm(2)], "proj")
    assert not isinstance(row, Skipped)
    row[EVALUATIONS] = evaluations
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path, load([str(path)]).dataset


def doc(position: int, label: str | None, score: float | None = None, span: str = "a", name: str = "relevance"):
    return {"span_id": span, "name": name, "label": label, "score": score, "explanation": f"doc {position}",
            "document_position": position}  # fmt: skip


HALLUCINATED = {"span_id": "r", "name": "Hallucination", "label": "hallucinated", "score": 1.0,
                "explanation": "The second sentence is not in the documents."}  # fmt: skip


def test_the_mapping_rules(tmp_path):
    evaluations = [
        HALLUCINATED,
        {"span_id": "r", "name": "hallucination", "label": "factual", "score": 0.0, "explanation": None},
        {"trace_id": "t", "name": "QA Correctness", "label": "correct", "score": 1.0, "explanation": None},
        {"span_id": "l", "name": "toxicity", "label": "non-toxic", "score": 0.0, "explanation": None},
        doc(0, "relevant"), doc(1, "unrelated"), doc(2, None, 0.8),
        doc(1, "relevant", span="other-retriever"),  # not the row's documents span: not mapped
    ]  # fmt: skip
    _, dataset = rows_file(tmp_path, evaluations)
    example = dataset.example(0)
    made = evaluation_labels(example, evaluations, "a")
    assert made is not None
    assert made.evaluators == ("hallucination", "qa_correctness", "relevance")
    assert made.unmapped == ("toxicity",)
    labels = made.labels
    keys = [[s.key for s in d] for d in example.document_sentences]
    assert labels.relevant_keys == (*keys[0], *keys[2])  # every sentence of a relevant document, none of the others
    assert labels.utilized_keys == ()
    assert [(s.key, s.supported) for s in labels.support] == [(k, False) for k in example.response_keys()]
    assert labels.overall_supported is False  # the first hallucination evaluation wins
    assert labels.overall_supported_explanation == "The second sentence is not in the documents."
    assert labels.answer_similarity == 5.0
    assert labels.relevance_explanation == "document 0: doc 0\ndocument 1: doc 1\ndocument 2: doc 2"
    assert version_name(made.evaluators) == "phoenix-hallucination_qa_correctness_relevance"
    no_label = [{"span_id": "r", "name": "hallucination", "label": None, "score": 1.0, "explanation": None}]
    assert evaluation_labels(example, no_label, "a") is None  # a score alone has no agreed direction


def test_saved_once_as_a_judge_version_named_for_the_evaluators(tmp_path):
    path, dataset = rows_file(tmp_path, [HALLUCINATED, doc(1, "relevant")])
    example = dataset.example(0)
    with LabelStore(str(tmp_path / "labels.db")) as store:
        first = save_evaluation_labels(store, dataset, "alice")
        assert (first.saved, first.unchanged, dict(first.versions)) == (1, 0, {"phoenix-hallucination_relevance": 1})
        labels = judge_labels(example, store)
        assert labels is not None and labels.provenance.name == "phoenix-hallucination_relevance"
        assert labels.relevant_keys == tuple(s.key for s in example.document_sentences[1])
        assert judged_by(store, [example.uid]) == [("phoenix-hallucination_relevance", 1)]
        assert [v.name for v in list_versions(store)] == ["v1", "phoenix-hallucination_relevance"]
        again = save_evaluation_labels(store, dataset, "alice")  # the same evaluations: nothing new
        assert (again.saved, again.unchanged) == (0, 1)
        assert [v.name for v in list_versions(store)] == ["v1", "phoenix-hallucination_relevance"]
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0][EVALUATIONS] = [{**HALLUCINATED, "label": "factual"}, {"span_id": "r", "name": "bleu", "label": None,
                             "score": 0.3, "explanation": None}]  # fmt: skip
    path.write_text(json.dumps(rows[0]) + "\n")
    with LabelStore(str(tmp_path / "labels.db")) as store:
        changed = save_evaluation_labels(store, load([str(path)]).dataset, "alice")
        assert (changed.saved, dict(changed.versions), dict(changed.unmapped)) == (
            1, {"phoenix-hallucination": 1}, {"bleu": 1}
        )  # fmt: skip
        labels = judge_labels(example, store)
        assert labels is not None and labels.overall_supported is True and labels.relevant_keys == ()
        assert changed.lines()[-1] == "evaluations kept read-only (no ragviz label they map to): bleu (1)"


def test_rows_without_mapped_evaluations_save_nothing(tmp_path):
    _, dataset = rows_file(tmp_path, [{"span_id": "r", "name": "toxicity", "label": "toxic", "score": 1.0,
                                       "explanation": None}])  # fmt: skip
    assert SIDECAR in dataset.row(0)
    with LabelStore(str(tmp_path / "labels.db")) as store:
        report = save_evaluation_labels(store, dataset, "alice")
        assert (report.saved, dict(report.versions), dict(report.unmapped)) == (0, {}, {"toxicity": 1})
        assert store.judge.labels(dataset.example(0).uid) is None


def test_source_evaluations_of_every_kind_survive_validate_and_parquet(tmp_path, capsys):
    """Span, trace and document evaluations side by side (entries of three shapes) in one column: kept by
    validate and by a Parquet conversion, and they map the same after it."""
    import pyarrow.parquet as pq

    from ragviz.cli.main import main

    evaluations = [
        HALLUCINATED,
        {"trace_id": "t", "name": "qa_correctness", "label": "correct", "score": 1.0, "explanation": None},
        doc(1, "relevant"),
    ]
    path, dataset = rows_file(tmp_path, evaluations)
    assert main(["validate", str(path)]) == 0
    out = tmp_path / "rows.parquet"
    assert main(["convert", str(path), "--to", "ragbench", "-o", str(out)]) == 0
    capsys.readouterr()
    kept = pq.read_table(out).column(EVALUATIONS).to_pylist()[0]
    assert [(e["name"], e.get("span_id"), e.get("trace_id"), e.get("document_position")) for e in kept] == [
        ("Hallucination", "r", None, None), ("qa_correctness", None, "t", None), ("relevance", "a", None, 1)
    ]  # fmt: skip
    again = load([str(out)]).dataset
    made = evaluation_labels(again.example(0), again.row(0)[EVALUATIONS], "a")
    assert made is not None and made.labels == evaluation_labels(dataset.example(0), evaluations, "a").labels  # type: ignore[union-attr]


def test_import_with_db_needs_a_rows_file(tmp_path, capsys):
    from ragviz.cli.main import main

    db = tmp_path / "labels.db"
    assert main(["import", "phoenix", "--url", "http://127.0.0.1:9", "--project", "p", "-o", "-", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--db: give the rows a file (-o FILE)" in err[0]
    assert not db.exists()
