"""Locating ../shared/ragbench for the conformance tests (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RAGBENCH = SHARED / "ragbench"
SUBSETS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")


def shard(subset: str) -> Path:
    return RAGBENCH / subset / "test-00000-of-00001.parquet"


def require_ragbench() -> Path:
    """The ragbench folder; skip when absent, but fail in CI (CI=true), where it must be there."""
    if all(shard(s).exists() for s in SUBSETS):
        return RAGBENCH
    if os.environ.get("CI") == "true":
        pytest.fail(f"{RAGBENCH} is missing in CI: the conformance tests must run")
    pytest.skip(f"{RAGBENCH} not found")
