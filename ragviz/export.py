"""Exporting the corrected label set: RAGBench rows (JSONL / Parquet) and a per-example metrics CSV.

An exported row keeps every input field under its input name, with the label fields holding the
annotator's CURRENT labels (``LabelStore.current_labels``: the judge's labels when the person
changed nothing), the four TRACe scores recomputed from them, ``llm_``-prefixed copies of the
judge's labels and the provenance fields ``label_source`` / ``reviewer`` / ``reviewed_at``.
Loading such a file again (``ragviz.ragbench.example_from_row``) gives back the same current labels
and scores, and the judge's labels from the ``llm_`` fields.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.compare import judge_labels_of
from ragviz.dataset import BOOKKEEPING, PATH_COL, ROW_COL, SUBSET_COL, Dataset
from ragviz.metrics.trace import TRACE_METRICS, TraceScores, trace_scores
from ragviz.model import Example, Labels, RowRef
from ragviz.ragbench import LLM_PREFIX, OVERRIDE_FIELDS, example_from_row, labels_to_row, overrides_from_row
from ragviz.store import LabelStore, base_labels, fold_labels, status_of

if TYPE_CHECKING:
    import argparse

FORMATS = ("jsonl", "parquet", "csv")
MIME_TYPES = {"jsonl": "application/jsonl", "parquet": "application/vnd.apache.parquet", "csv": "text/csv"}
METRICS_COLUMNS = ("id", "dataset", "generation_model", *TRACE_METRICS, "trace_mean", "label_source")

EXIT_OK = 0
EXIT_BAD_INPUT = 2


@dataclass(frozen=True)
class ExportedExample:
    """One example as exported: its input row (bookkeeping columns dropped), the example, the
    current and judge labels, the scores of the current labels and who decided them."""

    row: dict[str, Any]
    example: Example
    current: Labels | None
    judge: Labels | None
    scores: TraceScores
    label_source: str
    reviewer: str | None
    reviewed_at: str | None


def exported_examples(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> Iterator[ExportedExample]:
    """Every example of *dataset* with *annotator*'s current labels from *store*.

    The store is asked only about examples it knows (one query for the annotator's statuses, one
    for the judged uids), so an export of 100k mostly untouched rows costs two queries plus one
    per touched example.
    """
    statuses = store.statuses(annotator) if (store is not None and annotator) else {}
    judged = store.judged_uids() if store is not None else set()
    n_sentences = dataset.n_context_sentences
    for i, full_row in enumerate(dataset.iter_rows()):
        source = RowRef(full_row.get(PATH_COL) or "", full_row.get(ROW_COL) or 0)
        example = example_from_row(full_row, full_row.get(SUBSET_COL) or "", source)
        row = {k: v for k, v in full_row.items() if k not in BOOKKEEPING}
        if not row.get("dataset_name"):
            # The uid must survive a re-load from a file with another name.
            row["dataset_name"] = example.dataset
        uid = example.uid
        stored_judge = store.judge_labels(uid) if uid in judged else None
        judge = judge_labels_of(example, stored_judge)
        if stored_judge is not None:
            row["annotating_model_name"] = stored_judge.provenance.name or row.get("annotating_model_name")

        reviewer = reviewed_at = None
        base = base_labels(example, stored_judge)
        if uid in statuses:
            effective = store.effective(uid, annotator)  # type: ignore[union-attr, arg-type]
            current = fold_labels(base, effective, example, annotator)  # type: ignore[arg-type]
            status = status_of(effective)
            if status.reviewed:
                reviewer, reviewed_at = annotator, status.last_ts
        else:
            current = base
        if reviewer is None and current is not None and current.provenance.source == "human":
            # A re-loaded reviewed export that this annotator left alone keeps its reviewer.
            reviewer, reviewed_at = current.provenance.name or None, current.provenance.time
            label_source = "human"
        else:
            label_source = "human" if reviewer is not None else "llm"
        scores = trace_scores(current, n_sentences[i])
        yield ExportedExample(row, example, current, judge, scores, label_source, reviewer, reviewed_at)


def export_row(item: ExportedExample) -> dict[str, Any]:
    """The RAGBench row of one exported example (see the module docstring)."""
    row = dict(item.row)
    row.update(labels_to_row(item.current))
    s = item.scores
    row["relevance_score"] = s.relevance
    row["utilization_score"] = s.utilization
    row["completeness_score"] = s.completeness
    row["adherence_score"] = None if s.adherence is None else s.adherence == 1.0
    row.update(labels_to_row(item.judge, LLM_PREFIX))
    row.update(original_inputs(item))
    row["label_source"] = item.label_source if item.current is not None else None
    row["reviewer"] = item.reviewer
    row["reviewed_at"] = item.reviewed_at
    return row


def original_inputs(item: ExportedExample) -> dict[str, Any]:
    """``llm_<field>`` = the judge side's value of each family input the current labels override
    and the judge's labels do not, so a re-load still knows what the person changed (the plain
    field then holds the override): the example's own value, for chunk labels derived from
    sentences the judge's derived flags. A similarity or gold list the row never had is left out
    (a re-loaded judge side then sees the person's value)."""
    from ragviz.metrics.tonic import chunk_flags

    out: dict[str, Any] = {}
    for name in OVERRIDE_FIELDS:
        if item.current is None or getattr(item.current, name) is None:
            continue
        if item.judge is not None and getattr(item.judge, name) is not None:
            continue
        value = overrides_from_row({name: item.example.relevant_ids if name == "relevant_ids" else item.example.extra.get(name)}).get(name)
        if value is None and name in ("chunk_relevant", "chunk_utilized") and item.judge is not None:
            keys = item.judge.relevant_keys if name == "chunk_relevant" else item.judge.utilized_keys
            value = chunk_flags(keys, len(item.example.document_sentences))
        if value is not None:
            out[LLM_PREFIX + name] = list(value) if isinstance(value, tuple) else value
    return out


def export_rows(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> list[dict]:
    """Every example of *dataset* as a RAGBench row holding *annotator*'s current labels."""
    return [export_row(item) for item in exported_examples(dataset, store, annotator)]


def metrics_records(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> list[dict]:
    """Per example: id, dataset, generation_model, the TRACe scores of the current labels,
    trace_mean and label_source (``None`` scores for unlabeled examples)."""
    out = []
    for item in exported_examples(dataset, store, annotator):
        e = item.example
        out.append(
            {
                "id": e.id,
                "dataset": e.dataset,
                "generation_model": e.generation_model,
                **item.scores.as_dict(),
                "label_source": item.label_source if item.current is not None else None,
            }
        )
    return out


# --------------------------------------------------------------------------------------------
# Writers


def _json_safe(value: Any) -> Any:
    """NaN / infinity are not JSON: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def jsonl_text(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(_json_safe(dict(r)), ensure_ascii=False, default=_json_default) + "\n" for r in rows)


def jsonl_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    return jsonl_text(rows).encode("utf-8")


_STRING_LIST = pa.list_(pa.string())
_SUPPORT_TYPE = pa.list_(
    pa.struct(
        [
            ("explanation", pa.string()),
            ("fully_supported", pa.bool_()),
            ("response_sentence_key", pa.string()),
            ("supporting_sentence_keys", _STRING_LIST),
        ]
    )
)
# Columns whose type must not depend on the values (an all-null column would otherwise be "null").
_KNOWN_TYPES: dict[str, pa.DataType] = {
    "id": pa.string(),
    "question": pa.string(),
    "documents": _STRING_LIST,
    "response": pa.string(),
    "generation_model_name": pa.string(),
    "annotating_model_name": pa.string(),
    "dataset_name": pa.string(),
    "documents_sentences": pa.list_(pa.list_(_STRING_LIST)),
    "response_sentences": pa.list_(_STRING_LIST),
    "relevance_score": pa.float64(),
    "utilization_score": pa.float64(),
    "completeness_score": pa.float64(),
    "adherence_score": pa.bool_(),
    "label_source": pa.string(),
    "reviewer": pa.string(),
    "reviewed_at": pa.string(),
}
for _prefix in ("", LLM_PREFIX):
    _KNOWN_TYPES.update(
        {
            _prefix + "all_relevant_sentence_keys": _STRING_LIST,
            _prefix + "all_utilized_sentence_keys": _STRING_LIST,
            _prefix + "sentence_support_information": _SUPPORT_TYPE,
            _prefix + "unsupported_response_sentence_keys": _STRING_LIST,
            _prefix + "relevance_explanation": pa.string(),
            _prefix + "overall_supported_explanation": pa.string(),
            _prefix + "overall_supported": pa.bool_(),
        }
    )
# The judge side's family inputs (only written by ragviz; the plain ones keep their input types).
_KNOWN_TYPES.update(
    {
        LLM_PREFIX + "relevant_ids": _STRING_LIST,
        LLM_PREFIX + "answer_similarity": pa.float64(),
        LLM_PREFIX + "chunk_relevant": pa.list_(pa.bool_()),
        LLM_PREFIX + "chunk_utilized": pa.list_(pa.bool_()),
    }
)


def rows_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """An Arrow table of *rows*: RAGBench fields get their canonical types, others are inferred."""
    columns: dict[str, None] = {}
    for r in rows:
        columns.update(dict.fromkeys(r))
    arrays = {}
    for name in columns:
        values = [r.get(name) for r in rows]
        known = _KNOWN_TYPES.get(name)
        arrays[name] = pa.array(values, type=known) if known is not None else pa.array(values)
    return pa.table(arrays)


def parquet_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(rows_table(rows), buf)
    return buf.getvalue()


def metrics_csv(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> str:
    """The per-example metrics (:func:`metrics_records`) as CSV text; null -> empty cell."""
    return metrics_records_csv(metrics_records(dataset, store, annotator))


def metrics_records_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """*records* of :func:`metrics_records` as CSV text (only the header when there is none)."""
    from ragviz.records import write_csv

    buf = io.StringIO()
    if records:
        write_csv(records, buf)
    else:
        buf.write(",".join(METRICS_COLUMNS) + "\n")
    return buf.getvalue()


def metrics_csv_bytes(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> bytes:
    return metrics_csv(dataset, store, annotator).encode("utf-8")


def export_bytes(dataset: Dataset, store: LabelStore | None, annotator: str | None, fmt: str) -> bytes:
    """The whole export in *fmt* (``jsonl``, ``parquet`` or ``csv`` = metrics) for a download button."""
    if fmt == "csv":
        return metrics_csv_bytes(dataset, store, annotator)
    rows = export_rows(dataset, store, annotator)
    if fmt == "jsonl":
        return jsonl_bytes(rows)
    if fmt == "parquet":
        return parquet_bytes(rows)
    raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})")


def export_filename(annotator: str | None, fmt: str, stem: str = "ragviz-labels") -> str:
    """A download name such as ``ragviz-labels-alice.jsonl``."""
    who = "".join(c if c.isalnum() or c in "-_" else "_" for c in (annotator or "")).strip("_")
    ext = "metrics.csv" if fmt == "csv" else fmt
    return f"{stem}-{who}.{ext}" if who else f"{stem}.{ext}"


def _write_atomically(data: bytes, path: str | os.PathLike) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write(data: bytes, path_or_file: str | os.PathLike | IO[bytes] | IO[str]) -> None:
    if isinstance(path_or_file, (str, os.PathLike)):
        if str(path_or_file) == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        _write_atomically(data, path_or_file)
        return
    if isinstance(path_or_file, io.TextIOBase):
        path_or_file.write(data.decode("utf-8"))
    else:
        path_or_file.write(data)  # type: ignore[arg-type]


def write_jsonl(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO) -> None:
    """Write *rows* as JSON lines (UTF-8) to a path (atomically), ``"-"`` (stdout) or an open file."""
    _write(jsonl_bytes(rows), path_or_file)


def write_parquet(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO[bytes]) -> None:
    """Write *rows* as one Parquet file to a path (atomically), ``"-"`` or a binary file object."""
    _write(parquet_bytes(rows), path_or_file)


def write_metrics_csv(dataset: Dataset, store: LabelStore | None, annotator: str | None, path_or_file: str | os.PathLike | IO) -> None:
    _write(metrics_csv_bytes(dataset, store, annotator), path_or_file)


# --------------------------------------------------------------------------------------------
# The CLI command


def _format_from_name(out: str) -> str:
    name = out.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".csv"):
        return "csv"
    return "jsonl"


def load_sources(paths: Sequence[str]) -> tuple[Dataset, list[str]]:
    """The examples in *paths* and the load errors (``PATH:ROW: field: problem`` strings).

    Uses :func:`ragviz.loaders.load`; a plain Parquet / JSONL reader stands in when the loaders
    module is not installed.
    """
    try:
        from ragviz.loaders import load
    except ImportError:
        return _plain_load(paths)
    result = load(list(paths))
    return result.dataset, [str(p) for p in result.errors]


def _plain_load(paths: Sequence[str]) -> tuple[Dataset, list[str]]:
    parts, errors = [], []
    for path in paths:
        subset = Path(path).stem
        if path.endswith(".parquet"):
            parts.append(Dataset.from_table(pq.read_table(path), subset, path))
            continue
        rows, numbers = [], []
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                    numbers.append(n)
                except json.JSONDecodeError as exc:
                    errors.append(f"{path}:{n}: (line): not valid JSON: {exc.msg}")
        parts.append(Dataset.from_rows(rows, subset, path, numbers))
    return Dataset.concat(parts), errors


def export_command(db: str, out: str, fmt: str | None = None, annotator: str | None = None) -> int:
    """``ragviz export --db DB -o OUT [--format jsonl|parquet|csv] [--annotator NAME]``.

    Rebuilds the examples from the data files registered in the store, writes the annotator's
    current labels to OUT and prints a one-line summary to stderr. Exit 2 on bad input (missing
    DB or data files, several annotators and none named, unknown annotator).
    """
    from ragviz.store import StoreError

    fmt = fmt or _format_from_name(out)
    if fmt not in FORMATS:
        print(f"ragviz export: unknown format {fmt!r} (choose from {', '.join(FORMATS)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not Path(db).expanduser().is_file():
        print(f"{db}: no label store here (give the file the app uses, default ~/.ragviz/ragviz.db)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        store = LabelStore(db)
    except StoreError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    with store:
        names = store.annotators()
        if annotator is None:
            if len(names) > 1:
                print(
                    f"{db}: {len(names)} annotators have labels ({', '.join(names)}); choose one with --annotator NAME",
                    file=sys.stderr,
                )
                return EXIT_BAD_INPUT
            annotator = names[0] if names else None
        elif annotator not in names:
            known = ", ".join(names) if names else "none yet"
            print(f"{db}: annotator {annotator!r} has no labels in this store (annotators: {known})", file=sys.stderr)
            return EXIT_BAD_INPUT
        sources = store.sources()
        if not sources:
            print(f"{db}: no data files registered in this store; open the data in the app first", file=sys.stderr)
            return EXIT_BAD_INPUT
        missing = [s for s in sources if not Path(s).exists()]
        if missing:
            for s in missing:
                print(f"{s}: registered data file is missing", file=sys.stderr)
            return EXIT_BAD_INPUT
        dataset, errors = load_sources(sources)
        if errors:
            for e in errors:
                print(e, file=sys.stderr)
            print(f"{len(errors)} errors in the registered data files: nothing exported", file=sys.stderr)
            return EXIT_BAD_INPUT
        if fmt == "csv":
            records = metrics_records(dataset, store, annotator)
            data = metrics_records_csv(records).encode("utf-8")
            n_human = sum(1 for r in records if r["label_source"] == "human")
            n_rows = len(records)
        else:
            rows = export_rows(dataset, store, annotator)
            data = jsonl_bytes(rows) if fmt == "jsonl" else parquet_bytes(rows)
            n_human = sum(1 for r in rows if r["label_source"] == "human")
            n_rows = len(rows)
        n_corrected = len(store.corrected_uids(annotator) & set(dataset.uids)) if annotator else 0
    _write(data, out)
    who = annotator or "(no annotator)"
    print(
        f"exported {n_rows} examples to {out} ({fmt}); annotator {who}: {n_human} human-reviewed, "
        f"{n_corrected} corrected, {n_rows - n_human} judge labels as they were",
        file=sys.stderr,
    )
    return EXIT_OK


def add_export_arguments(parser: "argparse.ArgumentParser") -> None:
    """Options of ``ragviz export`` (the CLI module only wires the subparser)."""
    from ragviz.store import DB_ENV

    parser.add_argument("--db", metavar="DB", default=None, help=f"label store file (default: ${DB_ENV} or ~/.ragviz/ragviz.db)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="file to write ('-' for stdout)")
    parser.add_argument(
        "--format", choices=FORMATS, default=None,
        help="jsonl or parquet: RAGBench rows with the current labels; csv: per-example metrics (default: from OUT's extension, else jsonl)",
    )
    parser.add_argument("--annotator", metavar="NAME", default=None, help="whose labels to export (required when several annotators exist)")


def run_export_command(args: "argparse.Namespace") -> int:
    from ragviz.store import default_db_path

    return export_command(str(args.db or default_db_path()), args.output, args.format, args.annotator)
