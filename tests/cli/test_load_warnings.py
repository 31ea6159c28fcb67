"""Data that loads with a caveat (a row skipped as a repeat of an example, a value ignored) is said by every command
that loads it, in one line before its own output: only ``validate`` and ``convert`` said it, and ``ragviz metrics``
counted one example fewer than the file has rows without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.cli.main import main

ROW = {"id": "1", "question": "q", "documents": ["A sentence."], "response": "An answer."}


def _rows_with_a_repeat(folder: Path, suffix: str) -> Path:
    rows = [ROW, {**ROW, "id": "2"}, {**ROW, "response": "Other."}]  # the third repeats the first's example
    path = folder / f"rows{suffix}"
    if suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("command", "suffix"),
    [
        (["metrics", "DATA", "-o", "OUT.jsonl"], ".jsonl"),
        (["metrics", "DATA", "-o", "OUT.jsonl"], ".parquet"),  # a batch at a time
        (["metrics", "DATA", "--family", "all", "-o", "OUT.jsonl"], ".jsonl"),
        (["export", "DATA", "-o", "OUT.jsonl"], ".jsonl"),
        (["export", "DATA", "-o", "OUT.parquet"], ".parquet"),  # a batch at a time
        (["report", "DATA", "-o", "OUT.html"], ".jsonl"),
        (["agreement", "DATA"], ".jsonl"),
        (["team", "assign", "DATA", "--overlap", "1", "--pool", "a,b", "--db", "DB"], ".jsonl"),
        (["label", "DATA", "--model", "m", "--dry-run"], ".jsonl"),
        (["audit", "draw", "DATA", "--db", "DB", "--size", "1"], ".jsonl"),
    ],
)
def test_a_row_skipped_on_load_is_said_once(tmp_path, capsys, monkeypatch, command, suffix):
    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "labels.db"))
    monkeypatch.setenv("RAGVIZ_ANNOTATOR", "ana")
    data = _rows_with_a_repeat(tmp_path, suffix)
    args = [
        a.replace("DATA", str(data)).replace("OUT", str(tmp_path / "out")).replace("DB", str(tmp_path / "t.db"))
        for a in command
    ]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith("warning:")]
    assert said == [
        f"warning: 1 load warning: {data}:3: id: duplicate of {data}:1 (same dataset, id and generation model); "
        "kept the first, skipped this row"
    ], err


def test_data_without_caveats_gets_no_warning_line(tmp_path, capsys):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    assert main(["metrics", str(data), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_estimate_says_the_load_warning_with_its_own(tmp_path, capsys):
    """``ragviz estimate`` says its warnings together once its input is good (bad input stays one line)."""
    from tests.sample import SAMPLE_JSONL

    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text(encoding="utf-8").splitlines()]
    exported = [{**r, "label_source": "human" if i % 2 == 0 else "llm"} for i, r in enumerate(rows)]
    data = tmp_path / "e.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [*exported, exported[0]]), encoding="utf-8")
    assert main(["estimate", str(data), "--format", "csv"]) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith("warning: 1 load warning:")]
    assert len(said) == 1 and said[0].startswith(f"warning: 1 load warning: {data}:{len(rows) + 1}: id: duplicate of")
    assert err.index(said[0]) < next(i for i, line in enumerate(err) if "no audit_sample column" in line), err
