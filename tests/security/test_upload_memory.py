"""Issue 16, upload peak memory: a JSON Lines file (an upload once kept on disk, or any path) is read from
the file in a stream, never as one ``bytes`` object, and loads exactly as the same bytes loaded from memory.
The figures (peak RSS per format as a multiple of the file) come from ``benchmarks/bench_upload.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragviz.data.formats import json_rows
from ragviz.data.load import load, load_bytes
from tests.synthetic import make_synthetic


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> list[dict]:
    module = make_synthetic()
    out = tmp_path_factory.mktemp("syn") / "syn"
    jsonl = next(p for p in module.write(40, str(out), seed=5, batch=16) if p.suffix == ".jsonl")
    return [json.loads(line) for line in jsonl.read_text().splitlines()]


@pytest.fixture
def small_blocks(monkeypatch):
    """Read, check and hand Arrow's streaming reader 1 kB at a time (whole lines: a longer line is read to its end)."""
    monkeypatch.setattr(json_rows, "_CHUNK", 1000)


def _lines(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _cases(rows: list[dict]) -> dict[str, bytes]:
    later_reference = [{**r, "reference_answer": None} for r in rows[:30]] + [
        {**r, "reference_answer": "a reference"} for r in rows[30:]
    ]
    long_line = [dict(rows[0]), *rows[1:5]]
    long_line[0]["documents"] = [*long_line[0]["documents"][:-1], "x" * (300 << 10)]
    deep = json.dumps({**rows[1], "documents": "[" * 150 + "]" * 150})
    return {
        "canonical": _lines(rows),
        "no final newline": _lines(rows).rstrip(b"\n"),
        "types change after the first block": _lines(later_reference),
        "a line longer than a block": _lines(long_line),
        "a blank line": _lines(rows[:3]) + b"\n" + _lines(rows[3:6]),
        "a null line": _lines(rows[:3]) + b"null\n" + _lines(rows[3:6]),
        "an integer id": _lines([rows[0], {**rows[1], "id": 7}, rows[2]]),
        "nested 150 deep": (_lines(rows[:2]).decode() + deep + "\n").encode(),
        "a BOM": b"\xef\xbb\xbf" + _lines(rows[:3]),
        "not UTF-8": _lines(rows[:2]) + b'{"id": "\xff"}\n',
        "empty": b"",
        "blanks only": b"\n \n",
    }


@pytest.mark.parametrize(
    "case",
    [
        "canonical",
        "no final newline",
        "types change after the first block",
        "a line longer than a block",
        "a blank line",
        "a null line",
        "an integer id",
        "nested 150 deep",
        "a BOM",
        "not UTF-8",
        "empty",
        "blanks only",
    ],
)
def test_a_jsonl_file_loads_from_the_file_as_its_bytes_load_from_memory(case, rows, small_blocks, tmp_path):
    data = _cases(rows)[case]
    path = tmp_path / "up.jsonl"
    path.write_bytes(data)
    from_file, from_bytes = load([path]), load_bytes(str(path), data)
    assert [str(p) for p in from_file.errors] == [str(p) for p in from_bytes.errors]
    assert [str(p) for p in from_file.warnings] == [str(p) for p in from_bytes.warnings]
    assert from_file.dataset.table.schema.equals(from_bytes.dataset.table.schema)
    assert from_file.dataset.table.equals(from_bytes.dataset.table)


@pytest.mark.parametrize("case", ["canonical", "types change after the first block", "a line longer than a block"])
def test_a_canonical_jsonl_file_is_never_read_whole_into_memory(case, rows, small_blocks, tmp_path, monkeypatch):
    path = tmp_path / "up.jsonl"
    path.write_bytes(_cases(rows)[case])
    expected = load_bytes(str(path), path.read_bytes())

    def whole(self, *args, **kwargs):
        raise AssertionError(f"{self} read whole into memory")

    monkeypatch.setattr(Path, "read_bytes", whole)
    monkeypatch.setattr(Path, "read_text", whole)
    result = load([path])
    assert result.ok and len(result.dataset) == len(expected.dataset)
    assert result.dataset.table.equals(expected.dataset.table)


# -- Parquet: decoded into a memory-mapped Arrow file ---------------------------------------------
@pytest.fixture(scope="module")
def parquet_file(rows, tmp_path_factory) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("pq") / "up.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=16)
    return path


def test_a_large_parquet_file_loads_the_same_memory_mapped_not_in_process_memory(parquet_file, monkeypatch):
    import pyarrow as pa

    from ragviz.data.formats import parquet_rows

    in_memory = load([parquet_file])
    monkeypatch.setattr(parquet_rows, "SPILL_BYTES", 0)  # every Parquet file counts as large
    monkeypatch.setattr(parquet_rows, "_BATCH_BYTES", 20_000)  # a few rows per batch
    before = pa.total_allocated_bytes()
    spilled = load([parquet_file])
    allocated = pa.total_allocated_bytes() - before
    assert spilled.ok and spilled.warnings == in_memory.warnings
    assert spilled.dataset.table.schema.equals(in_memory.dataset.table.schema)
    assert spilled.dataset.table.equals(in_memory.dataset.table)
    assert allocated < spilled.dataset.table.nbytes / 4  # the decoded columns are the mapped file's pages
    assert [p.name for p in parquet_file.parent.iterdir()] == [parquet_file.name]  # the Arrow file has no name


def test_a_large_parquet_file_that_needs_the_row_checks_or_is_damaged_says_so(rows, tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ragviz.data.formats import parquet_rows

    monkeypatch.setattr(parquet_rows, "SPILL_BYTES", 0)
    aliased = tmp_path / "ragas.parquet"
    pq.write_table(pa.Table.from_pylist([{"user_input": r["question"], "retrieved_contexts": r["documents"],
        "response": r["response"]} for r in rows[:5]]), aliased)  # fmt: skip
    assert load([aliased]).dataset.table.equals(load_bytes(str(aliased), aliased.read_bytes()).dataset.table)
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(b"PAR1" + b"\0" * 100)
    [problem] = load([damaged]).errors
    assert str(problem).startswith(f"{damaged}: file: unreadable Parquet:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.parquet", "ragas.parquet"]
