"""`ragviz metrics --family ... --k ...` end to end through the real CLI entry point."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragviz.cli.main import main

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CHECKED = SHARED / "ragchecker" / "checking_outputs.json"


def _need(path: Path) -> Path:
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} missing in CI")
        pytest.skip(f"{path} not available")
    return path


def _rows_file(tmp_path: Path) -> Path:
    rows = [
        {
            "id": "q1",
            "question": "Where?",
            "documents": ["Paris is in France.", "Lyon too."],
            "response": "Paris.",
            "reference_answer": ["Paris", "in Paris"],
            "retrieved_ids": ["a", "b"],
            "relevant_ids": ["b"],
            "all_relevant_sentence_keys": ["0a"],
            "all_utilized_sentence_keys": ["0a"],
            "unsupported_response_sentence_keys": [],
        },
        {
            "id": "q2",
            "question": "Who?",
            "documents": ["Ann wrote it."],
            "response": "Bob wrote it.",
            "reference_answer": "Ann",
            "retrieved_ids_by_system": {"bm25": ["x", "y"], "dense": ["y"]},
            "relevant_ids": ["y"],
        },
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _records(capsys):
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_ragchecker_family_prints_records_and_reported_means(capsys):
    assert main(["metrics", "--family", "ragchecker", str(_need(CHECKED))]) == 0
    records, err = _records(capsys)
    assert [r["id"] for r in records] == ["0", "1"]
    assert "precision 76.4, recall 62.5, f1 68.3, claim_recall 61.4" in err
    assert "self_knowledge 27.3, faithfulness 68.2" in err


def test_answer_retrieval_tonic_families(tmp_path, capsys):
    rows = _rows_file(tmp_path)
    assert main(["metrics", "--family", "answer", str(rows)]) == 0
    records, _ = _records(capsys)
    assert [(r["em"], r["f1"], r["f1_set"]) for r in records] == [(1.0, 1.0, 1.0), (0.0, 0.0, 0.0)]

    assert main(["metrics", "--family", "retrieval", "--k", "1,2", str(rows)]) == 0
    records, err = _records(capsys)
    assert [(r["id"], r["system"], r["mrr"], r["hit@1"]) for r in records] == [
        ("q1", "default", 0.5, 0.0),
        ("q2", "bm25", 0.5, 0.0),
        ("q2", "dense", 1.0, 1.0),
    ]
    assert "ndcg@2" in records[0] and "ndcg@10" not in records[0]
    assert "bm25" in err and "dense" in err

    assert main(["metrics", "--family", "tonic", str(rows)]) == 0
    records, _ = _records(capsys)
    assert records[0]["retrieval_precision"] == 0.5 and records[0]["answer_consistency_binary"] == 1.0
    assert records[1]["overall"] is None  # unlabeled row


def test_all_merges_families_per_example(tmp_path, capsys):
    rows = _rows_file(tmp_path)
    assert main(["metrics", "--family", "all", "--k", "1", str(rows), str(_need(CHECKED))]) == 0
    records, err = _records(capsys)
    assert len(records) == 4
    assert {"relevance", "retrieval_precision", "em", "mrr", "system"} <= set(records[0])
    assert "bm25:mrr" in records[1] and "dense:hit@1" in records[1]
    assert "faithfulness" in records[2]
    assert "RagChecker (x100" in err


def test_bad_inputs_exit_2_with_located_messages(tmp_path, capsys):
    assert main(["metrics", "--family", "tonic", str(_need(CHECKED))]) == 2
    assert f"{CHECKED}:0: file: RagChecker claims file" in capsys.readouterr().err
    rows = _rows_file(tmp_path)
    assert main(["metrics", "--family", "ragchecker", str(rows)]) == 2
    assert f"{rows}:0: file: not a RagChecker checking output" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    data = json.loads(CHECKED.read_text())
    data["results"][1]["answer2response"] = data["results"][1]["answer2response"][:-1]
    broken.write_text(json.dumps(data))
    assert main(["metrics", "--family", "ragchecker", str(broken)]) == 2
    assert f"{broken}:2: answer2response: has 4 labels but there are 5 response claims" in capsys.readouterr().err
    graded = tmp_path / "graded.jsonl"
    graded.write_text(
        json.dumps(
            {
                "id": "g",
                "question": "q",
                "documents": ["d"],
                "response": "r",
                "retrieved_ids": ["a"],
                "relevant_ids": ["a"],
                "relevant_grades": [1, 2],
            }
        )
        + "\n"
    )
    assert main(["metrics", "--family", "retrieval", str(graded)]) == 2
    assert f"{graded}:1: relevant_grades: has 2 grades for 1 relevant ids" in capsys.readouterr().err


# -- issue 29 item 6: commands that say what happened -------------------------------------------------
def test_a_family_no_example_has_labels_for_says_so_and_exits_2(tmp_path, capsys):
    from tests.ragbench_data import require_ragbench

    out = tmp_path / "r.jsonl"
    assert main(["metrics", str(require_ragbench()), "--family", "retrieval", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no example of 2,896 has retrieval labels" in err and "retrieved_ids and relevant_ids" in err
    assert not out.exists()


def test_a_family_no_example_has_labels_for_says_so_on_any_input(tmp_path, capsys):
    path = tmp_path / "no_ranking.jsonl"
    rows = [json.loads(line) for line in _rows_file(tmp_path).read_text().splitlines()]
    ranking = ("retrieved_ids", "relevant_ids", "retrieved_ids_by_system")
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ranking}) + "\n" for r in rows))
    assert main(["metrics", str(path), "--family", "retrieval"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"no example of {len(rows)} has retrieval labels" in captured.err


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_an_output_that_cannot_be_written_is_named_as_given(tmp_path, capsys, fmt):
    data = _rows_file(tmp_path)
    if fmt == "parquet":  # Parquet input takes the streamed path, which writes a temporary file first
        assert main(["export", str(data), "-o", str(tmp_path / "rows.parquet")]) == 0
        data = tmp_path / "rows.parquet"
    capsys.readouterr()
    missing = tmp_path / "nonexistent" / "x.jsonl"
    for given, says in [(tmp_path, "Is a directory"), (missing, f"no folder {missing.parent}")]:
        assert main(["metrics", str(data), "-o", str(given)]) == 2
        err = capsys.readouterr().err
        assert f"ragviz metrics: {given}: {says}" in err and ".tmp" not in err, err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
