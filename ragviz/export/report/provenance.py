"""Method and provenance of a report: the data files by name with their SHA-256 and row counts, the judge(s)
behind the labels, the annotators and their decisions, the audit sample, ragviz's version, the date and the
``ragviz report`` command that rebuilds it.

Only *names* leave the machine: a data file is named relative to the folder the person gave (``ragbench/covidqa/
test-00000-of-00001.parquet``, never ``/srv/...``), an SQLite store by its file name, a PostgreSQL store by its
URL with the password masked.
"""

from __future__ import annotations

import hashlib
import shlex
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragviz.analysis.labelsets.selection import HUMAN
from ragviz.store.postgres import is_url, mask_url
from ragviz.version import __version__

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.export.report.request import ReportRequest
    from ragviz.store.label_store import LabelStore

__all__ = [
    "AnnotatorWork",
    "DataFile",
    "Provenance",
    "display_name",
    "file_name",
    "hash_ahead",
    "provenance",
    "rebuild_command",
    "STORE_WITHHELD",
    "sha256_of",
    "store_name",
]


@dataclass(frozen=True)
class DataFile:
    name: str
    sha256: str
    rows: int


@dataclass(frozen=True)
class AnnotatorWork:
    """One annotator's decisions on the loaded examples; *elsewhere*: examples they reviewed that are not loaded
    (counted apart, never as reviews of this data)."""

    name: str
    reviewed: int
    corrected: int
    elsewhere: int = 0


@dataclass(frozen=True)
class Provenance:
    files: tuple[DataFile, ...]
    rows_by_group: tuple[tuple[str, int], ...]
    judges_in_files: tuple[tuple[str, int], ...]
    judges_in_store: tuple[tuple[str, str, int], ...]
    annotators: tuple[AnnotatorWork, ...]
    store: str
    version: str
    date: str
    command: str


def display_name(path: str) -> str:
    """A path as the report names it: relative paths as given (without ``..``), absolute ones by their last
    component.

    >>> display_name("sample_data/x.jsonl"), display_name("/srv/data/x.jsonl"), display_name("../shared/ragbench")
    ('sample_data/x.jsonl', 'x.jsonl', 'ragbench')
    """
    p = Path(path)
    if p.is_absolute() or ".." in p.parts or path.startswith("~"):
        return p.name or path
    return path


#: The label store as a report names it for someone who may not see where it is (the app's non-admins).
STORE_WITHHELD = "the team's label store (where it is: ask an admin)"


def store_name(db: str | None, shown: bool = True) -> str:
    """The label store as the report names it (``none`` without one; :data:`STORE_WITHHELD` when not *shown*).

    >>> store_name("postgresql://app:s3cret@db:5432/labels"), store_name("/srv/labels.db"), store_name("x.db", False)[:16]
    ('postgresql://app:***@db:5432/labels', 'labels.db', "the team's label")
    """
    if db is None:
        return "none"
    if not shown:
        return STORE_WITHHELD
    return mask_url(db) if is_url(db) else Path(db).name


def file_name(path: str, given: tuple[str, ...]) -> str:
    """*path* (a file a row came from) named relative to the parent of the argument it was found under."""
    resolved = Path(path).resolve()
    for arg in given:
        root = Path(arg).expanduser().resolve()
        if resolved == root or root in resolved.parents:
            return str(resolved.relative_to(root.parent))
    return resolved.name


def _unique_names(paths: list[str], given: tuple[str, ...]) -> dict[str, str]:
    """:func:`file_name` of each of *paths*; names two files share get their folder's name in front
    (``covidqa/test-00000-of-00001.parquet``), as often as it takes."""
    names = {p: file_name(p, given) for p in paths}
    for _ in range(8):
        counts = Counter(names.values())
        clashing = [p for p in paths if counts[names[p]] > 1]
        if not clashing:
            break
        for p in clashing:
            parts = Path(p).resolve().parts
            depth = len(Path(names[p]).parts) + 1
            names[p] = str(Path(*parts[-depth:])) if depth < len(parts) else names[p]
    return names


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "unreadable"
    return digest.hexdigest()


def hash_ahead(dataset: Dataset) -> dict[str, Future[str]]:
    """:func:`sha256_of` each of *dataset*'s files, started on a thread of its own (hashlib lets go of the GIL over
    large blocks, so the hashing runs on the other core while the report's figures are computed); for
    :func:`provenance`."""
    table = dataset.table
    paths = table.column("_path").unique().to_pylist() if "_path" in table.column_names else []
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragviz-report-sha256")
    try:
        return {p: pool.submit(sha256_of, p) for p in paths if p}
    finally:
        pool.shutdown(wait=False)  # the hashing goes on; the thread ends with it


def rebuild_command(request: ReportRequest) -> str:
    """The ``ragviz report`` command that rebuilds the report (paths by :func:`display_name`)."""
    parts = ["ragviz", "report", *(display_name(p) for p in request.paths)]
    if request.db is not None:
        parts += ["--db", store_name(request.db) if request.store_shown else "DB"]
    parts += ["-o", display_name(request.output)]
    if request.format != "html":
        parts += ["--format", request.format]
    parts += ["--title", request.title, "--by", request.by, "--date", request.date]
    if request.against != HUMAN:
        parts += ["--against", request.against.argument()]
    if request.sample_id is not None:
        parts += ["--sample", str(request.sample_id)]
    return shlex.join(parts)


def provenance(
    dataset: Dataset, store: LabelStore | None, request: ReportRequest, digests: Mapping[str, Future[str]] | None = None
) -> Provenance:
    """The :class:`Provenance` of the report *request* asks for over *dataset* (*digests*: the files' hashes
    :func:`hash_ahead` started, else hashed here)."""
    table = dataset.table
    per_file = Counter(table.column("_path").to_pylist()) if "_path" in table.column_names else Counter()
    names = _unique_names([str(p) for p in per_file if p], request.paths)
    digests = digests or {}
    files = tuple(
        sorted(
            (
                DataFile(names[p], digests[p].result() if p in digests else sha256_of(p), n)
                for p, n in per_file.items()
                if p
            ),
            key=lambda f: f.name,
        )
    )
    groups = dataset.datasets if request.by == "dataset_name" else dataset.generation_models
    judges = (
        Counter(v for v in table.column("annotating_model_name").to_pylist() if v)
        if "annotating_model_name" in table.column_names
        else Counter()
    )
    annotators: tuple[AnnotatorWork, ...] = ()
    if store is not None:
        work = []
        for who in store.annotators():
            statuses = store.statuses(who)
            loaded = [s for uid, s in statuses.items() if dataset.index_of(uid) is not None]
            elsewhere = sum(s.reviewed for uid, s in statuses.items() if dataset.index_of(uid) is None)
            work.append(
                AnnotatorWork(who, sum(s.reviewed for s in loaded), sum(s.corrected for s in loaded), elsewhere)
            )
        annotators = tuple(sorted(work, key=lambda a: a.name))
        if not request.names:
            annotators = tuple(
                AnnotatorWork(f"annotator {k + 1}", a.reviewed, a.corrected, a.elsewhere)
                for k, a in enumerate(annotators)
            )
    return Provenance(
        files=files,
        rows_by_group=tuple(sorted(Counter(groups).items())),
        judges_in_files=tuple(sorted(judges.items())),
        judges_in_store=store.judge.set_counts() if store is not None else (),
        annotators=annotators,
        store=store_name(request.db, request.store_shown),
        version=__version__,
        date=request.date,
        command=rebuild_command(request),
    )
