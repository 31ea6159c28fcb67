"""Issue 29 item 6: a baseline judge's score of inf / -inf / NaN is a warning naming file, row and field on
every input format (Parquet read column-wise included), and the value is ignored the same way everywhere."""

from __future__ import annotations

import csv
import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.cli.main import main
from ragviz.data.load import load
from tests.ragbench_data import require_ragbench, shard

PLANTED = {3: ("gpt3_adherence", math.inf), 5: ("ragas_faithfulness", -math.inf), 8: ("trulens_groundedness", math.nan)}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    require_ragbench()
    table = pq.read_table(shard("covidqa")).slice(0, 10)
    out = table.to_pylist()
    for row, (field, value) in PLANTED.items():
        out[row - 1][field] = value
    return out


def _expected(path) -> list[str]:
    return [
        f"{path}:{row}: {field}: expected a finite number, got {value}; ignored"
        for row, (field, value) in sorted(PLANTED.items())
    ]


def _write(rows: list[dict], path) -> None:
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))  # NaN / Infinity, as Python writes them
    else:
        names = list(rows[0])
        with path.open("w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(names)
            for r in rows:
                writer.writerow([json.dumps(v) if isinstance(v, (list, dict)) else ("" if v is None else v) for v in
                                 (r[n] for n in names)])  # fmt: skip


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_a_non_finite_baseline_score_is_named_and_ignored_on_every_format(rows, tmp_path, suffix, capsys):
    path = tmp_path / f"baselines{suffix}"
    _write(rows, path)
    result = load(path)
    assert result.ok and len(result.dataset) == 10
    assert sorted(str(w) for w in result.warnings if "finite" in str(w)) == _expected(path)
    stored = result.dataset.table
    for row, (field, _) in PLANTED.items():
        assert stored.column(field)[row - 1].as_py() is None
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in _expected(path))
