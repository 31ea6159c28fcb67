"""Issue 16, hostile input: JSON nested too deep and non-finite baseline scores are located messages
(file, row, field), never a RecursionError or a crash of agreement and the Dashboard."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

import ragviz
from ragviz.analysis.dashboard.baselines import agreement_report
from ragviz.data.formats.ragchecker import RagCheckerFormatError, read_ragchecker
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_DATA, SAMPLE_JSONL

DEPTH = 100_000
ROW = {"id": "a", "question": "q", "documents": ["Paris is in France."], "response": "Paris."}


def _deep_row() -> str:
    return json.dumps(ROW)[:-1] + ', "extra": {"k": ' + "[" * DEPTH + "]" * DEPTH + "}}"


def _errors(path) -> list[str]:
    return [str(e) for e in ragviz.load([path]).errors]


def test_deep_jsonl_json_and_csv_name_file_row_and_field(tmp_path):
    jsonl = tmp_path / "deep.jsonl"
    jsonl.write_text(json.dumps(ROW) + "\n" + _deep_row() + "\n")
    assert _errors(jsonl) == [f"{jsonl}:2: extra: nested deeper than 100 levels: too deep to read; row skipped"]

    as_list = tmp_path / "deep.json"
    as_list.write_text("[" + json.dumps(ROW) + "," + _deep_row() + "]")
    assert _errors(as_list) == [f"{as_list}:2: extra: nested deeper than 100 levels: too deep to read; file not loaded"]

    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text('{"data": [' + json.dumps(ROW) + "," + _deep_row() + "]}")
    assert _errors(wrapped)[0].startswith(f"{wrapped}:2: extra: nested deeper")

    csv_file = tmp_path / "deep.csv"
    csv_file.write_text('id,question,documents,response\na,q,"' + "[" * DEPTH + "]" * DEPTH + '",r\n')
    assert _errors(csv_file) == [f"{csv_file}:1: documents: JSON text nested too deep to read"]


def test_deep_ragchecker_file_is_a_message(tmp_path):
    deep = tmp_path / "checking.json"
    deep.write_text('{"results": ' + "[" * DEPTH + "]" * DEPTH + "}")
    try:
        read_ragchecker(deep)
    except RagCheckerFormatError as exc:
        assert "nested too deep" in str(exc.problems[0])
    else:
        raise AssertionError("expected a format error")


def _rows_with_scores() -> list[dict]:
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines() if line]
    for i, row in enumerate(rows):
        row["trulens_groundedness"] = [0.5, float("inf"), float("nan"), -float("inf")][i % 4]
        row["ragas_context_relevance"] = 0.3
    return rows


def _parquet_with_scores(tmp_path):
    table = ragviz.load([SAMPLE_DATA]).dataset.table
    table = table.drop_columns([c for c in table.column_names if c.startswith("_")])
    n = table.num_rows
    table = table.append_column(
        "trulens_groundedness", pa.array([[0.5, float("inf"), float("nan"), -float("inf")][i % 4] for i in range(n)])
    ).append_column("ragas_context_relevance", pa.array([0.3] * n))
    path = tmp_path / "scores.parquet"
    pq.write_table(table, path)
    return path


def test_non_finite_baseline_scores_are_located_and_skipped(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows_with_scores()))  # Infinity / NaN literals
    result = ragviz.load([path])
    warnings = [str(w) for w in result.warnings]
    assert f"{path}:2: trulens_groundedness: expected a finite number, got inf; ignored" in warnings
    assert f"{path}:3: trulens_groundedness: expected a finite number, got nan; ignored" in warnings
    rows = agreement_report(result.dataset)
    assert rows[-1]["trulens_n_auroc"] > 0

    parquet = _parquet_with_scores(tmp_path)  # the columnar path has no row check: the analysis skips them
    loaded = ragviz.load([parquet]).dataset
    assert agreement_report(loaded)[-1]["trulens_n_auroc"] > 0


def test_dashboard_with_non_finite_baselines_does_not_crash(app_env, monkeypatch, tmp_path):
    parquet = _parquet_with_scores(tmp_path)
    monkeypatch.setenv("RAGVIZ_DATA", str(parquet))
    at = open_page("pages/dashboard.py")
    assert not at.exception
