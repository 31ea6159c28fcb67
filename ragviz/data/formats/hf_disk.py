"""Hugging Face ``datasets`` folders written by ``Dataset.save_to_disk`` (checked against ``datasets`` 5.2):
``data-00000-of-0000N.arrow`` files (Arrow IPC streams) listed in ``state.json``, beside
``dataset_info.json``. A ``DatasetDict`` folder holds one such folder per split and ``dataset_dict.json``.
Each Arrow file loads like a Parquet file (column-wise when already in RAGBench types, else row by
row); problems name the Arrow file and its 1-based row."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from ragviz.data.dataset import Dataset
from ragviz.data.formats.parquet_rows import load_table
from ragviz.data.problems import Report

__all__ = ["DICT", "INFO", "STATE", "arrow_files", "is_hf_disk_dir", "load_hf_disk", "subset_of"]


STATE = "state.json"
INFO = "dataset_info.json"
DICT = "dataset_dict.json"


def is_hf_disk_dir(folder: Path) -> bool:
    """Is *folder* one split written by ``save_to_disk`` (``state.json`` beside ``dataset_info.json``)?"""
    return (folder / STATE).is_file() and (folder / INFO).is_file()


def arrow_files(folder: Path, report: Report) -> list[Path]:
    """The Arrow files of *folder* in ``state.json``'s order (else ``data-*.arrow`` sorted)."""
    try:
        state = json.loads((folder / STATE).read_text(encoding="utf-8"))
        names = [f["filename"] for f in state["_data_files"]]
        if not all(isinstance(n, str) and "/" not in n and "\\" not in n for n in names):
            raise ValueError("a file name with a path separator")
    except RecursionError:
        report.warning(str(folder / STATE), None, "_data_files", "not readable (nested too deep); reading data-*.arrow")
        names = sorted(p.name for p in folder.glob("data-*.arrow"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.warning(str(folder / STATE), None, "_data_files", f"not readable ({exc}); reading data-*.arrow")
        names = sorted(p.name for p in folder.glob("data-*.arrow"))
    if not names:
        report.error(str(folder), None, "path", "a save_to_disk folder without Arrow files")
    return [folder / n for n in names]


def subset_of(folder: Path) -> str:
    """A split folder of a ``DatasetDict`` is named after the dict's folder, any other after itself."""
    if (folder.parent / DICT).is_file() and folder.parent.name:
        return folder.parent.name
    return folder.name


def load_hf_disk(folder: Path, report: Report) -> list[Dataset]:
    """Every Arrow file of the ``save_to_disk`` folder *folder*, each as a part."""
    parts = []
    subset = subset_of(folder)
    for f in arrow_files(folder, report):
        try:
            # memory-mapped: the table's buffers are the file's pages, never copied
            table = pa.ipc.open_stream(pa.memory_map(str(f))).read_all()
        except FileNotFoundError:
            report.error(str(f), None, "file", "listed in state.json but missing")
            continue
        except (OSError, pa.ArrowInvalid) as exc:
            report.error(str(f), None, "file", f"unreadable Arrow stream: {exc}")
            continue
        parts.append(load_table(table, str(f), subset, report))
    return parts
