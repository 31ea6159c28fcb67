"""Shared set-up of the AppTest rerun benchmarks (bench_rerun.py, bench_pages.py): the full
RAGBench shards and a 10-row slice of them, so a script can compare a rerun at both sizes."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAGBENCH = ROOT.parent / "shared" / "ragbench"


def quiet_apptest() -> None:
    """As `make run` starts the server: no usage statistics (their bookkeeping costs ~10% per
    rerun), and no "missing ScriptRunContext" log noise from AppTest."""
    from streamlit import config

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    config.set_option("browser.gatherUsageStats", False)


def require_ragbench() -> bool:
    if RAGBENCH.is_dir():
        return True
    print(f"{RAGBENCH}: not found (the RAGBench shards are needed for this benchmark)", file=sys.stderr)
    return False


def write_small_slice(tmp_path: Path, rows: int = 10) -> Path:
    """A directory in the Hugging Face layout holding the first *rows* rows of the first shard."""
    import pyarrow.parquet as pq

    small_dir = tmp_path / "small" / "covidqa"
    small_dir.mkdir(parents=True)
    first = sorted(RAGBENCH.glob("*/*.parquet"))[0]
    pq.write_table(pq.read_table(first).slice(0, rows), small_dir / "test-00000-of-00001.parquet")
    return small_dir.parent
