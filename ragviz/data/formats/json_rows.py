"""JSON Lines and JSON (a list of rows, JSON lines as ``datasets.Dataset.to_json`` writes them, or a RagChecker
``{"results": [...]}`` file) input: every undecodable line or truncated list reported by row.

A JSON Lines file of canonical RAGBench rows is read column-wise by Arrow's JSON reader (:func:`_arrow_jsonl`);
anything that reader cannot take exactly as the row-by-row checks would (a blank line, a bad line, an alias column,
an integer id, a score of the wrong type, a string Arrow would read as a timestamp, ...) goes through the row-by-row
path, which reports every problem as ``PATH:LINE: field: problem``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ragviz.data import ragbench as rb
from ragviz.data.dataset import Dataset
from ragviz.data.formats import parquet_rows
from ragviz.data.formats.json_depth import MAX_DEPTH, CheckedLines, lines_of
from ragviz.data.formats.parquet_rows import Progress, parquet_fast_table, spill
from ragviz.data.formats.ragchecker_rows import RESULTS, is_ragchecker_doc, row_from_item
from ragviz.data.problems import Report
from ragviz.data.schema import CANONICAL_TYPES, decode_text, load_rows, type_name
from ragviz.data.tool_columns import COLUMN_ALIASES

__all__ = ["MAX_DEPTH", "arrow_jsonl_file", "deep_path", "load_json", "load_jsonl"]


_ALIASES = {a for aliases in COLUMN_ALIASES.values() for a in aliases}
_BLOCK = 1 << 24  # Arrow's JSON reader needs each line within one block
_CHUNK = 1 << 22  # bytes of a file read, checked and handed to Arrow's streaming reader at a time


def _fits(inferred: pa.DataType, canonical: pa.DataType) -> bool:
    """Values Arrow inferred as *inferred* are exactly what the row checks accept for *canonical*
    (a number for a boolean, an integer id or a timestamp-looking string are not)."""
    if pa.types.is_null(inferred):
        return True
    if pa.types.is_list(canonical):
        return pa.types.is_list(inferred) and _fits(inferred.value_type, canonical.value_type)
    if pa.types.is_struct(canonical):
        names = [canonical.field(i).name for i in range(canonical.num_fields)]
        return (
            pa.types.is_struct(inferred)
            and [inferred.field(i).name for i in range(inferred.num_fields)] == names
            and all(_fits(inferred.field(i).type, canonical.field(i).type) for i in range(canonical.num_fields))
        )
    if pa.types.is_floating(canonical):
        return pa.types.is_float64(inferred) or pa.types.is_int64(inferred)
    return inferred == canonical


def _plain(inferred: pa.DataType) -> bool:
    """A type Python's ``pa.array`` would infer from the same JSON values (no timestamps)."""
    if pa.types.is_list(inferred):
        return _plain(inferred.value_type)
    if pa.types.is_struct(inferred):
        return all(_plain(inferred.field(i).type) for i in range(inferred.num_fields))
    return any(
        check(inferred)
        for check in (pa.types.is_null, pa.types.is_boolean, pa.types.is_int64, pa.types.is_float64, pa.types.is_string)
    )


def _arrow_jsonl(data: bytes) -> pa.Table | None:
    """The canonical table of a JSON Lines file of well-formed RAGBench rows, one per line, read
    by Arrow; ``None`` when the row-by-row path must decide."""
    lines = lines_of(data)
    if lines is None:
        return None
    try:
        # The stubs leave out Arrow's own input streams; a BufferReader reads the bytes without a copy.
        table = pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=_BLOCK))  # type: ignore[arg-type]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, ValueError):
        return None
    return _canonical(table, lines[0])


def _whole_file(path: Path) -> tuple[pa.Table, int] | None:
    """The file at *path* checked to its end (:class:`~ragviz.data.formats.json_depth.CheckedLines`) and then read
    whole by Arrow, which takes each column's type from every block, not the first one's; with its number of lines,
    or ``None`` when the row-by-row path must decide."""
    checked = CheckedLines(path, _CHUNK)
    try:
        while checked.read():
            pass
    finally:
        checked.close()
    if checked.failed:
        return None
    block = max(_BLOCK, 1 << checked.longest.bit_length())  # a power of two above the longest line
    try:
        return pj.read_json(str(path), read_options=pj.ReadOptions(block_size=block)), checked.lines
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, ValueError):
        return None


def arrow_jsonl_file(path: Path, progress: Progress | None = None) -> pa.Table | None:
    """:func:`_arrow_jsonl` of the file at *path*, streamed: Arrow's streaming reader is handed the file
    :data:`_CHUNK` bytes of whole lines at a time, each chunk checked as it is read while Arrow parses the ones
    before on its threads (:class:`~ragviz.data.formats.json_depth.CheckedLines`), so memory never holds the file's
    bytes and the check costs no time of its own; a file over :data:`~ragviz.data.formats.parquet_rows.SPILL_BYTES`
    is decoded block by block into a memory-mapped Arrow file as a large Parquet file is
    (:func:`~ragviz.data.formats.parquet_rows.spill`), so memory does not hold the decoded table either. *progress*
    is told the rows read after each block, of the lines the file holds (extrapolated until it has been read to
    its end). ``None`` when the row-by-row path must decide."""
    checked = CheckedLines(path, _CHUNK, ahead=4)  # one chunk being checked, two parsed on two cores, one more
    what = f"Reading {path.name}"
    try:
        # any object with read() is a stream to pyarrow (wrapped in a PythonFile); the stubs want a typing.IO
        with pj.open_json(checked, read_options=pj.ReadOptions(block_size=_CHUNK)) as reader:  # type: ignore[arg-type]

            def batches() -> Iterator[pa.RecordBatch]:
                done = told = 0
                for batch in reader:
                    checked.took(batch.num_rows)
                    yield batch
                    done += batch.num_rows
                    if progress is not None:
                        told = checked.expected_lines()
                        progress(what, done, max(done, told))
                if progress is not None and done and told != done and not checked.failed:
                    progress(what, done, done)

            if path.stat().st_size > parquet_rows.SPILL_BYTES:
                table = spill(batches(), reader.schema, path)
            else:
                table = pa.Table.from_batches(list(batches()), schema=reader.schema)
        n_lines = checked.lines
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, ValueError):
        whole = None if checked.failed else _whole_file(path)  # the streaming reader's types are the first block's
        if whole is None:
            return None
        table, n_lines = whole
    finally:
        checked.close()
    return None if checked.failed else _canonical(table, n_lines)


def _canonical(table: pa.Table, n_lines: int) -> pa.Table | None:
    """*table* (Arrow's reading of *n_lines* lines) in canonical types, when every value is exactly what
    the row checks would accept; else ``None``."""
    if table.num_rows != n_lines or _ALIASES & set(table.column_names):
        return None
    for f in table.schema:
        canonical = CANONICAL_TYPES.get(f.name)
        if f.name == "reference_answer":
            ok = _fits(f.type, pa.string()) or _fits(f.type, pa.list_(pa.string()))
        else:
            ok = _fits(f.type, canonical) if canonical is not None else _plain(f.type)
        if not ok:
            return None
    if pa.types.is_null(table.schema.field("id").type) if "id" in table.column_names else True:
        return None
    for name in (rb.SUPPORT, rb.LLM_PREFIX + rb.SUPPORT):
        if name in table.column_names and pa.types.is_list(table.schema.field(name).type):
            entries = pc.list_flatten(table.column(name))
            for child in ("response_sentence_key", "supporting_sentence_keys"):
                if pc.struct_field(entries, child).null_count:  # an error, or [] filled in, row by row
                    return None
    return parquet_fast_table(table)


def _is_truncated(e: json.JSONDecodeError, text: str) -> bool:
    return e.msg.startswith("Unterminated") or e.pos >= len(text.rstrip())


def _json_problem(e: json.JSONDecodeError, text: str) -> str:
    truncated = _is_truncated(e, text)
    return f"{'truncated' if truncated else 'invalid'} JSON: {e.msg} (line {e.lineno}, column {e.colno})"


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def deep_path(text: str, limit: int = MAX_DEPTH) -> list[int | str]:
    """Where *text* first nests deeper than *limit*: the list indexes (0-based) and object keys leading
    there, e.g. ``[4, "documents"]``; ``[]`` when it never does. Used only after a RecursionError,
    to name the row and field."""
    path: list[int | str] = []  # the current position in each open container
    pending_key: str | None = None
    last_string: str | None = None
    for match in _TOKENS.finditer(text):
        tok = match.group()
        if tok[0] == '"':
            last_string = tok
            continue
        if tok == ":" and last_string is not None and path:
            try:
                pending_key = json.loads(last_string)
            except (ValueError, RecursionError):
                pending_key = last_string.strip('"')
            path[-1] = pending_key
        elif tok == "," and path and isinstance(path[-1], int):
            path[-1] += 1
        elif tok in "[{":
            if len(path) >= limit:
                return path[:3]
            path.append(0 if tok == "[" else "")
        elif tok in "]}" and path:
            path.pop()
        last_string = None
    return []


def _too_deep(path_: str, row: int | None, located: list[int | str], report: Report, skipped: str) -> None:
    """Report a row nested too deep to read, naming its field when *located* has one."""
    field = next((str(p) for p in located if isinstance(p, str) and p), "json")
    report.error(path_, row, field, f"nested deeper than {MAX_DEPTH} levels: too deep to read; {skipped}")


def load_jsonl(data: bytes, path: str, subset: str, report: Report) -> Dataset:
    fast = _arrow_jsonl(data)
    if fast is not None:
        return Dataset.from_table(fast, subset, path)

    def numbered() -> Iterable[tuple[int, Any]]:
        offset = 0
        for number, raw_line in enumerate(data.split(b"\n"), start=1):
            line_offset, offset = offset, offset + len(raw_line) + 1
            if not raw_line.strip():
                continue
            line = decode_text(raw_line, path, report, number, line_offset)
            if line is None:
                continue
            try:
                yield number, json.loads(line)
            except RecursionError:
                _too_deep(path, number, deep_path(line), report, "row skipped")
            except json.JSONDecodeError as e:
                truncated = _is_truncated(e, line)
                report.error(
                    path,
                    number,
                    "json",
                    f"{'truncated' if truncated else 'invalid'} JSON line: {e.msg} (column {e.colno})",
                )

    return load_rows(numbered(), path, subset, report)


_WS = re.compile(r"\s*")


def _skip_ws(text: str, pos: int) -> int:
    """The position of the first non-whitespace character of *text* at or after *pos*."""
    match = _WS.match(text, pos)
    assert match is not None  # \s* matches the empty string anywhere
    return match.end()


def _salvage_json_list(text: str) -> tuple[list[Any], int, json.JSONDecodeError | None]:
    """Parse a top-level JSON list element by element: the records before a syntax error, the
    1-based number of the record that broke, and the error."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] != "[":
        return [], 1, None
    pos = _skip_ws(text, pos + 1)
    items: list[Any] = []
    if text[pos : pos + 1] == "]":
        return items, 0, None
    while True:
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            return items, len(items) + 1, e
        items.append(item)
        pos = _skip_ws(text, pos)
        ch = text[pos : pos + 1]
        if ch == "]":
            return items, 0, None
        if ch != ",":
            msg = "Expecting ',' delimiter" if ch else "Expecting ',' delimiter or ']' (file ends)"
            return items, len(items) + 1, json.JSONDecodeError(msg, text, pos)
        pos = _skip_ws(text, pos + 1)


def load_json(data: bytes, path: str, subset: str, report: Report) -> Dataset:
    text = decode_text(data, path, report)
    if text is None:
        return Dataset.empty()
    try:
        doc = json.loads(text)
    except RecursionError:
        located = deep_path(text)
        if located and located[0] in ("data", "rows"):
            located = located[1:]
        row = located[0] + 1 if located and isinstance(located[0], int) else None
        _too_deep(path, row, located[1:], report, "file not loaded")
        return Dataset.empty()
    except json.JSONDecodeError as e:
        if e.msg == "Extra data" and text.lstrip().startswith("{"):
            # JSON lines in a .json file: what datasets.Dataset.to_json() writes by default
            return load_jsonl(data, path, subset, report)
        items, broken, err = _salvage_json_list(text)
        if err is not None and broken >= 1 and text.lstrip().startswith("["):
            report.error(
                path, broken, "json", f"{_json_problem(err, text)}; {len(items)} records before it were loaded"
            )
            return load_rows(enumerate(items, start=1), path, subset, report)
        report.error(path, None, "json", _json_problem(e, text))
        return Dataset.empty()
    if is_ragchecker_doc(doc):
        if not doc[RESULTS]:
            report.warning(path, None, "file", "no rows")
        return load_rows(((i, row_from_item(it)) for i, it in enumerate(doc[RESULTS], start=1)), path, subset, report)
    if isinstance(doc, dict):
        for container in ("data", "rows"):
            if isinstance(doc.get(container), list):
                doc = doc[container]
                break
        else:
            report.error(
                path,
                None,
                "json",
                'expected a list of rows or an object with a "data" or "rows" list, '
                f"got an object with keys {sorted(doc)[:8]}",
            )
            return Dataset.empty()
    if not isinstance(doc, list):
        report.error(path, None, "json", f"expected a list of rows, got {type_name(doc)}")
        return Dataset.empty()
    if not doc:
        report.warning(path, None, "file", "no rows")
    return load_rows(enumerate(doc, start=1), path, subset, report)
