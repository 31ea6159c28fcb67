"""The repository's root and its bundled sample data, named once for every test."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT", "SAMPLE_DATA", "SAMPLE_JSONL"]

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = ROOT / "sample_data"  # the folder `ragviz app` opens when given no data
SAMPLE_JSONL = SAMPLE_DATA / "ragviz_sample.jsonl"  # its one file of examples
