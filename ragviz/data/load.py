"""Load examples from files (RAGBench Parquet / JSONL / JSON / CSV, other tools' exports, people's own raw rows) into
one :class:`~ragviz.data.dataset.Dataset` of canonical RAGBench rows.

Bad input never raises: each problem becomes a :class:`Problem` printed as ``PATH:ROW: field: problem``. *Errors*
mean a file or row could not be loaded (the row is skipped, the other rows still load, ``LoadResult.ok`` is False);
*warnings* mean it loaded, with a caveat. :func:`load` says which files are read and how; the formats and the other
tools' column names are listed in docs/reference/data-formats.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from ragviz.data.dataset import PATH_COL, ROW_COL, Dataset
from ragviz.data.finite import finite_scores
from ragviz.data.formats.csv_rows import load_csv
from ragviz.data.formats.hf_disk import DICT as HF_DICT
from ragviz.data.formats.hf_disk import is_hf_disk_dir, load_hf_disk
from ragviz.data.formats.json_rows import arrow_jsonl_file, load_json, load_jsonl
from ragviz.data.formats.parquet_rows import Progress, decoded_bytes, load_parquet
from ragviz.data.limits import DecodedLimit, memory_decoded_limit, over_decoded
from ragviz.data.problems import DUPLICATE_OF, Problem, Report
from ragviz.data.schema import STR_LIST

__all__ = [
    "FORMATS",
    "LoadResult",
    "OUTSIDE_ROOT",
    "decoded_size",
    "expand_paths",
    "format_of",
    "load",
    "load_bytes",
    "refused_for_size",
    "subset_name",
]


FORMATS = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}


_HF_SHARD = re.compile(r"^[\w.]+-\d{5}-of-\d{5}$")


@dataclass
class LoadResult:
    """The examples that loaded, and what went wrong (errors) or looked odd (warnings)."""

    dataset: Dataset
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def problems(self) -> list[Problem]:
        return [*self.errors, *self.warnings]

    @property
    def duplicates(self) -> list[Problem]:
        """The warnings of rows skipped as a repeat of an earlier row's example (same uid; the first is kept)."""
        return [w for w in self.warnings if w.field == "id" and w.message.startswith(DUPLICATE_OF)]


def subset_name(path: Path) -> str:
    """Parent folder for Hugging Face shard names (``test-00000-of-00001``), else the file stem."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    if _HF_SHARD.match(stem) and path.parent.name:
        return path.parent.name
    return stem


def format_of(name: str) -> str | None:
    return FORMATS.get(Path(name).suffix.lower())


_LOADERS = {"parquet": load_parquet, "jsonl": load_jsonl, "json": load_json, "csv": load_csv}


def decoded_size(source: Path | bytes, name: str, limit: int, exact: bool = True) -> tuple[int, str]:
    """The bytes the file *source* (named *name*) decodes to and how that was found; counting stops
    once past *limit*. Parquet: :func:`~ragviz.data.formats.parquet_rows.decoded_bytes` (*exact* ``False``: an
    upper bound when that is within *limit*); a text format decodes to about its own size (JSON and CSV hold no
    references)."""
    if format_of(name) == "parquet":
        return decoded_bytes(source, limit, exact), "from its Parquet metadata and dictionaries"
    size = source.stat().st_size if isinstance(source, Path) else len(source)
    return size, "its size as text"


def refused_for_size(source: Path | bytes, name: str, limit: DecodedLimit) -> str | None:
    """Why the file *source* may not be read under *limit*, or ``None`` when it fits (an unreadable
    Parquet file fits here: reading it then reports what is wrong)."""
    try:
        decoded, how = decoded_size(source, name, limit.bytes, exact=False)  # within the limit is all it asks
    except MemoryError:
        return f"ran out of memory reading its metadata; it is over {limit.named}"
    except Exception:  # pyarrow raises several types for corrupt files; the loader names them
        return None
    return over_decoded(decoded, limit, how)


def _load_one(name: str, data: bytes, subset: str, report: Report, limit: DecodedLimit | None = None) -> Dataset:
    fmt = format_of(name)
    if fmt is None:
        suffix = Path(name).suffix or "(none)"
        report.error(name, None, "file", f"unknown extension {suffix!r} (expected one of {', '.join(FORMATS)})")
        return Dataset.empty()
    if not data or data.isspace():  # isspace stops at the first other byte; strip() would copy the file
        report.error(name, None, "file", "empty file")
        return Dataset.empty()
    if (refused := refused_for_size(data, name, limit or memory_decoded_limit())) is not None:
        report.error(name, None, "file", refused)
        return Dataset.empty()
    try:
        return _LOADERS[fmt](data, name, subset, report)
    except MemoryError:
        report.error(name, None, "file", _OUT_OF_MEMORY)
        return Dataset.empty()


_OUT_OF_MEMORY = "ran out of memory reading it (too large for this machine); nothing of it was loaded"


# -- combining files ---------------------------------------------------------------------------
def _harmonize(parts: list[Dataset], report: Report) -> list[Dataset]:
    """Make column types agree across files so they concatenate: a string ``reference_answer``
    next to a list one becomes a one-element list; any other conflict drops the later column."""
    types: dict[str, pa.DataType] = {}
    out: list[Dataset] = []
    for part in parts:
        table = part.table
        for i, f in enumerate(table.schema):
            if pa.types.is_null(f.type):
                continue
            known = types.setdefault(f.name, f.type)
            if known == f.type:
                continue
            column = table.column(i)
            if f.name == "reference_answer" and pa.types.is_string(f.type) and known == STR_LIST:
                wrapped = pa.array([None if v is None else [v] for v in column.to_pylist()], STR_LIST)
                table = table.set_column(i, f.name, wrapped)
                continue
            if f.name == "reference_answer" and f.type == STR_LIST and pa.types.is_string(known):
                types[f.name] = STR_LIST
                out = [Dataset(_wrap_reference(p.table)) for p in out]
                continue
            try:
                table = table.set_column(i, f.name, column.cast(known))
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                paths = sorted({p or "" for p in table.column(PATH_COL).to_pylist()})
                report.warning(
                    ", ".join(paths),
                    None,
                    f.name,
                    f"column type {f.type} conflicts with {known} in other files; column ignored",
                )
                table = table.drop_columns([f.name])
        out.append(Dataset(table))
    return out


def _wrap_reference(table: pa.Table) -> pa.Table:
    if "reference_answer" not in table.column_names:
        return table
    i = table.column_names.index("reference_answer")
    if table.schema.field(i).type == STR_LIST:
        return table
    values = [None if v is None else [v] for v in table.column(i).to_pylist()]
    return table.set_column(i, "reference_answer", pa.array(values, STR_LIST))


def _drop_duplicates(dataset: Dataset, report: Report) -> Dataset:
    uids = dataset.uids
    if len(set(uids)) == len(uids):
        return dataset
    paths = [p or "" for p in dataset.table.column(PATH_COL).to_pylist()]
    rows = dataset.table.column(ROW_COL).to_pylist()
    first: dict[str, int] = {}
    keep = []
    for i, uid in enumerate(uids):
        j = first.setdefault(uid, i)
        keep.append(j == i)
        if j != i:
            report.warning(
                paths[i],
                rows[i],
                "id",
                f"{DUPLICATE_OF}{paths[j]}:{rows[j]} (same dataset, id and generation model); "
                "kept the first, skipped this row",
            )
    return Dataset(dataset.table.filter(pa.array(keep)))


def _finish(parts: list[Dataset], report: Report) -> LoadResult:
    parts = [p for p in parts if len(p)]
    dataset = Dataset.concat(_harmonize(parts, report)) if len(parts) > 1 else (parts[0] if parts else Dataset.empty())
    dataset = _drop_duplicates(dataset, report)
    report.finish()
    return LoadResult(dataset, report.errors, report.warnings)


def _files_in(folder: Path, report: Report) -> list[Path]:
    """The input files under *folder* (hidden files and folders skipped, folder symlinks not followed);
    a folder or file that cannot be read becomes an error naming it."""

    def unreadable(exc: OSError) -> None:
        report.error(str(exc.filename or folder), None, "path", f"cannot read: {exc.strerror or exc}")

    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder, onerror=unreadable):
        if is_hf_disk_dir(Path(dirpath)):
            found.append(Path(dirpath))  # one save_to_disk split: its Arrow files, not its .json bookkeeping
            dirnames[:] = []
            continue
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            f = Path(dirpath) / name
            if name.startswith(".") or f.suffix.lower() not in FORMATS or name == HF_DICT:
                continue
            try:
                if f.is_file():
                    found.append(f)
            except OSError as exc:
                unreadable(exc)
    return sorted(found)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


OUTSIDE_ROOT = "not read: it is a link to a file outside the server's data folder (RAGVIZ_DATA_ROOT)"


def _escapes(f: Path, resolved: Path, within: Path) -> bool:
    """Whether reading *f* (resolved: *resolved*) would read anything outside *within*: the file itself,
    or for a ``save_to_disk`` folder any file in it."""
    if not _inside(resolved, within):
        return True
    if f.is_dir():
        return any(not _inside(inner.resolve(), within) for inner in f.iterdir())
    return False


def expand_paths(paths: Iterable[str | Path], report: Report, within: Path | None = None) -> list[Path]:
    files: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        p = Path(given)
        try:
            if not p.exists():
                report.error(str(given), None, "path", "no such file or directory")
                continue
            confined = within is not None and _inside(p.resolve(), within)
            if p.is_dir():
                candidates = _files_in(p, report)
                if not candidates:
                    report.error(str(given), None, "path", f"no {', '.join(FORMATS)} files in this directory")
            else:
                candidates = [p]
        except (OSError, RuntimeError) as exc:  # PermissionError on /proc/1/root, a folder one may not list, ...
            report.error(str(given), None, "path", f"cannot read: {getattr(exc, 'strerror', None) or exc}")
            continue
        for f in candidates:
            try:
                resolved = f.resolve()
                if confined and within is not None and _escapes(f, resolved, within):
                    report.error(str(f), None, "path", OUTSIDE_ROOT)
                    continue
            except (OSError, RuntimeError) as exc:
                report.error(str(f), None, "path", f"cannot read: {getattr(exc, 'strerror', None) or exc}")
                continue
            if resolved in seen:
                report.warning(str(f), None, "path", "given more than once; loaded once")
                continue
            seen.add(resolved)
            files.append(f)
    return files


def load(
    paths: Iterable[str | Path] | str | Path,
    progress: Progress | None = None,
    limit: DecodedLimit | None = None,
    within: Path | None = None,
) -> LoadResult:
    """Load files and directories (searched recursively) into one dataset; never raises for bad
    input. ``load(["../shared/ragbench"])`` loads the seven RAGBench shards. *progress* is told
    ``(what, rows read, rows in the file)`` as large Parquet files and JSON Lines files are read.
    Each file must decode to at most *limit* (default :func:`~ragviz.data.limits.memory_decoded_limit`).
    *within* (a resolved folder: the served app's data root): every file read through a path given
    inside it must resolve inside it too; a symlink out of it is an error naming the link, not its target.

    Formats, chosen by extension: ``.parquet``; ``.jsonl`` / ``.ndjson`` (one object per line, ROW = line number);
    ``.json`` (a list of rows, ``{"data": [...]}`` / ``{"rows": [...]}``, JSON lines as ``datasets.Dataset.to_json``
    writes them, or RagChecker's ``{"results": [...]}``, :mod:`ragviz.data.formats.ragchecker_rows`); ``.csv`` (list
    and struct columns as JSON text; ROW = record number, header excluded). A directory is searched for those files
    (anything else in it is ignored); a ``datasets`` ``save_to_disk`` folder is one source
    (:mod:`ragviz.data.formats.hf_disk`). A file's subset name is its parent folder for Hugging Face shard names
    (``<dir>/<subset>/test-00000-of-00001.parquet``), else the file stem.

    Raw rows need ``question``, ``documents`` (list of strings) and ``response``; rows without
    ``documents_sentences`` / ``response_sentences`` are split (:func:`ragviz.data.split.split_sentences`) and keyed
    (:mod:`ragviz.data.keys`); pre-split sentences are kept exactly as given. Other tools' column names (Ragas,
    TruLens, DeepEval) map by :data:`~ragviz.data.tool_columns.COLUMN_ALIASES`, only where the RAGBench name is
    absent. Identity is (dataset, id, generation model): a later row equal in all three to an earlier one is reported
    and skipped; a row without an id gets ``h<sha1 of its content>``.

    Size: before a file is read, its decoded size (:func:`decoded_size`) is checked against *limit*; a file over it is
    an error naming the size and the limit, and nothing of it is read. Running out of memory anyway is an error
    naming the file, never a traceback."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    report = Report()
    limit = limit or memory_decoded_limit()
    parts = []
    for f in expand_paths(paths, report, within):
        try:
            if f.is_dir():
                parts.extend(load_hf_disk(f, report))
                continue
            if f.stat().st_size and (refused := refused_for_size(f, f.name, limit)) is not None:
                report.error(str(f), None, "file", refused)
                continue
            if format_of(f.name) == "parquet" and f.stat().st_size:
                parts.append(load_parquet(f, str(f), subset_name(f), report, progress))
                continue
            if format_of(f.name) == "jsonl" and (table := arrow_jsonl_file(f, progress)) is not None:
                table = finite_scores(table, str(f), report)
                parts.append(Dataset.from_table(table, subset_name(f), str(f)))  # streamed, never whole in memory
                continue
            data = f.read_bytes()
        except OSError as e:
            report.error(str(f), None, "file", f"cannot read: {e.strerror or e}")
            continue
        except MemoryError:
            report.error(str(f), None, "file", _OUT_OF_MEMORY)
            continue
        parts.append(_load_one(str(f), data, subset_name(f), report, limit))
    try:
        return _finish(parts, report)
    except MemoryError:
        report.errors.append(Problem(", ".join(str(p) for p in paths), None, "file", _OUT_OF_MEMORY))
        return LoadResult(Dataset.empty(), report.errors, report.warnings)


def load_bytes(name: str, data: bytes, limit: DecodedLimit | None = None) -> LoadResult:
    """Load an uploaded file; the format comes from *name*'s extension, problems name *name*."""
    report = Report()
    part = _load_one(name, data, subset_name(Path(name)), report, limit)
    return _finish([part], report)
