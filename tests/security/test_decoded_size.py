"""Issue 28 item 3, upload bombs: a 126 KB dictionary-encoded Parquet file of 50,000 rows referencing one
200 KB string decodes to ~10 GB. Its decoded size is read from the metadata and dictionaries before any
row is decoded; an admin's upload and ``ragviz validate`` refuse it with a message naming the limit, in
a process whose memory is limited (setrlimit, in a subprocess), with no traceback, and the refused
upload is not kept."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.data.limits import MB, DecodedLimit
from ragviz.data.load import decoded_size, load, load_bytes
from tests.ragbench_data import require_ragbench
from tests.sample import ROOT

MEMORY_CAP = 3 << 30  # RLIMIT_AS of the subprocesses: the bomb decoded would need ~10 GB


def write_bomb(path: Path, rows: int = 50_000, text_bytes: int = 200_000) -> Path:
    """RAGBench-shaped raw rows whose question, response and only document are one long string,
    dictionary-encoded so the file holds it once."""
    one = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array(["x" * text_bytes]))
    documents = pa.ListArray.from_arrays(pa.array(range(rows + 1), pa.int32()), one)
    table = pa.table({"id": [f"r{i}" for i in range(rows)], "question": one, "documents": documents, "response": one})
    pq.write_table(table, path, compression="zstd")
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    return write_bomb(tmp_path_factory.mktemp("bomb") / "bomb.parquet")


def test_the_decoded_size_counts_every_row_of_a_dictionary_column(bomb):
    assert bomb.stat().st_size < 200_000
    decoded, how = decoded_size(bomb, bomb.name, 1 << 50)
    assert decoded >= 3 * 50_000 * 200_000 and "Parquet metadata" in how
    result = load_bytes(bomb.name, bomb.read_bytes(), DecodedLimit(100 * MB, "the test's limit of 100 MB"))
    [error] = result.errors
    assert str(error).startswith("bomb.parquet: file: decodes to 2") and "over the test's limit of 100 MB" in str(error)


def test_real_files_decode_to_about_their_arrow_size_and_load():
    ragbench = require_ragbench()
    for path in sorted(ragbench.glob("*/*.parquet")):
        decoded, _ = decoded_size(path, path.name, 1 << 50)
        nbytes = pq.read_table(path).nbytes
        assert 0.8 * nbytes < decoded < 1.5 * nbytes, (path, decoded, nbytes)
    tight = DecodedLimit(3 * MB, "3 MB")
    assert len(load(ragbench / "covidqa", limit=tight).dataset) == 246  # 1.6 MB decoded fits
    assert [e.field for e in load(ragbench / "expertqa", limit=tight).errors] == ["file"]  # 4.9 MB does not


def test_a_text_file_is_bounded_by_its_size(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a"}\n' * 1000)
    [error] = load(path, limit=DecodedLimit(1000, "a limit of 1000 bytes")).errors
    assert (
        str(error)
        == f"{path}: file: decodes to 0.0 MB (its size as text), over a limit of 1000 bytes; nothing was read"
    )


def _limited(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run *code* in a Python whose address space is capped at :data:`MEMORY_CAP`."""
    preamble = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))\n"
    return subprocess.run(
        [sys.executable, "-c", preamble + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=cwd,
        timeout=300,
    )


def test_validate_refuses_the_bomb_under_a_memory_limit(bomb, tmp_path):
    done = _limited(
        f"import sys; from ragviz.cli.main import main; sys.exit(main(['validate', {str(bomb)!r}]))",
        {"HOME": str(tmp_path)},
        tmp_path,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "Traceback" not in out and "MemoryError" not in out
    assert f"{bomb}: file: decodes to " in done.stdout
    assert "(half the memory this process may use); nothing was read" in done.stdout


def test_an_admin_upload_of_the_bomb_is_refused_and_not_kept(bomb, tmp_path):
    db = tmp_path / "labels.db"
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "RAGVIZ_DB": str(db),
        "RAGVIZ_SERVED": "1",
        "RAGVIZ_ADMINS": "lead@example.org",
        "RAGVIZ_MAX_UPLOAD_MB": "100",
    }
    done = _limited(
        f"""
        import importlib.util, json
        from pathlib import Path
        spec = importlib.util.spec_from_file_location("helpers", {str(ROOT / "tests" / "apptest_helpers.py")!r})
        helpers = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(helpers)
        open_page_as = helpers.open_page_as
        at = open_page_as("pages/data.py", "lead@example.org")
        at.get("file_uploader")[0].upload("bomb.parquet", Path({str(bomb)!r}).read_bytes()).run()
        shown = "\\n".join(h.value for h in at.get("html")) + "\\n".join(e.value for e in at.error)
        print(json.dumps({{"exceptions": [e.value for e in at.exception], "shown": shown}}))
        """,
        env,
        ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    page = json.loads(done.stdout.strip().splitlines()[-1])
    assert page["exceptions"] == []
    assert "bomb.parquet: file: decodes to " in page["shown"]
    assert (
        "over the upload limit of 100 MB (server.maxUploadSize / RAGVIZ_MAX_UPLOAD_MB; it counts decoded bytes)"
        in (page["shown"])
    )
    assert "Traceback" not in page["shown"] and "MemoryError" not in page["shown"]
    kept = [p for p in (home / ".ragviz").rglob("*") if p.is_file() and "bomb" in p.name]
    assert kept == []


@pytest.mark.parametrize("compression", ["none", "snappy", "gzip", "zstd", "brotli"])
def test_the_bound_from_page_headers_and_dictionaries_is_never_below_the_decoded_size(tmp_path, bomb, compression):
    """A load checks the file against its limit with an upper bound read from the page headers and the dictionary
    pages alone (the dictionary-encoded values times the longest entry), and counts exactly only when that bound is
    over the limit: the bound is never below the exact count, for every codec, for real rows and for the bomb."""
    from ragviz.data.formats.parquet_dictionary import dictionary_bound
    from ragviz.data.formats.parquet_rows import decoded_bytes
    from tests.synthetic import make_synthetic

    module = make_synthetic()
    [parquet] = [p for p in module.write(300, str(tmp_path / "syn"), seed=3, batch=64) if p.suffix == ".parquet"]
    again = tmp_path / f"syn-{compression}.parquet"
    # small pages and dictionary pages, so the writer falls back to plain pages within a chunk
    pq.write_table(
        pq.read_table(parquet), again, compression=compression, data_page_size=4096, dictionary_pagesize_limit=8192
    )
    for path in (again, bomb):
        exact = decoded_bytes(path, 1 << 50)
        bounded = decoded_bytes(path, 1 << 50, exact=False)
        assert bounded >= exact
        meta = pq.ParquetFile(path).metadata
        with path.open("rb") as f:
            chunks = [meta.row_group(g).column(c) for g in range(meta.num_row_groups) for c in range(meta.num_columns)]
            strings = [c for c in chunks if c.has_dictionary_page and c.physical_type == "BYTE_ARRAY"]
            assert strings and all(dictionary_bound(f, c) is not None for c in strings)
    assert decoded_bytes(again, 1 << 50, exact=False) < 3 * decoded_bytes(again, 1 << 50)  # tight enough to use
    limit = DecodedLimit(100 * MB, "the test's limit of 100 MB")
    [error] = load(bomb, limit=limit).errors  # over the limit by its bound: counted exactly, refused as before
    assert "decodes to 2" in str(error) and "over the test's limit of 100 MB" in str(error)
