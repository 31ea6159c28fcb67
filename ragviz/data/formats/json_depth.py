"""How deep the lines of a JSON Lines block nest, before Arrow's JSON reader is handed them: it overflows the C
stack on deeply nested input, so a block with a line nested :data:`MAX_DEPTH` deep (outside strings) is read row by
row (:mod:`ragviz.data.formats.json_rows`), which reports it by row and field. Counted with numpy on the bytes;
:class:`CheckedLines` checks a file a chunk at a time, each chunk just before Arrow's reader is handed it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

__all__ = ["MAX_DEPTH", "CheckedLines", "lines_of"]

MAX_DEPTH = 100  # nesting reported when a JSON text is too deep to parse (RAGBench rows nest 3 levels)

_STRUCTURAL = np.zeros(256, bool)
_STRUCTURAL[list(b'"\\[]{}\n')] = True
_QUOTE, _BACKSLASH, _NEWLINE, _BRACE, _BRACKET = ord('"'), ord("\\"), ord("\n"), ord("{"), ord("[")
_FOLD = np.uint8(~0x20 & 0xFF)  # { (0x7B) folded onto [ (0x5B)
_OPEN = np.zeros(256, np.int8)
_OPEN[list(b"[{")] = 1
_OPEN[list(b"]}")] = -1
_PIECE = 1 << 25


def _escaped(pos: np.ndarray, slash: np.ndarray) -> np.ndarray:
    """Per structural byte at *pos*: does it follow an odd run of backslashes (*slash*: is a backslash)?"""
    escaped = np.zeros(len(pos), bool)
    if not slash.any():
        return escaped
    adjacent = np.zeros(len(pos), bool)
    adjacent[1:] = pos[1:] == pos[:-1] + 1
    starts = slash & ~np.concatenate(([False], slash[:-1] & adjacent[1:]))
    run_start = np.flatnonzero(starts)[np.maximum(np.cumsum(starts) - 1, 0)]
    odd = slash & ((np.arange(len(pos)) - run_start) % 2 == 0)  # the 1st, 3rd, ... backslash of its run
    escaped[1:] = odd[:-1] & adjacent[1:]
    return escaped


def _structural(piece: np.ndarray, folded: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:data:`_STRUCTURAL` of each byte of *piece* and of ``|`` (a harmless extra: neither a quote, a backslash, a
    bracket nor a newline), computed in *folded* and *out* (bytes as long as *piece*) by compares, ~2x faster than
    the table lookup: ``[ \\ ]`` are 0x5B-0x5D, and ``{ | }`` fold onto them (0x7B-0x7D less 0x20)."""
    np.bitwise_and(piece, _FOLD, out=folded)
    np.subtract(folded, np.uint8(_BRACKET), out=folded)  # wraps around below [: only [ \ ] { | } are 0-2
    np.less_equal(folded, 2, out=out)
    other = folded.view(bool)
    for byte in (_QUOTE, _NEWLINE):
        np.logical_or(out, np.equal(piece, byte, out=other), out=out)
    return out


def _lines_shallow(data: bytes | bytearray | memoryview, limit: int, work: np.ndarray | None = None) -> bool:
    """Does every line of *data* nest less than *limit* deep outside strings, with its quotes and
    brackets balanced? (``False`` also for anything odd: the row-by-row path then decides.) *work*: bytes to
    compute in (as :func:`lines_of`'s)."""
    buf = np.frombuffer(data, np.uint8)
    if isinstance(data, memoryview) and len(buf) > _PIECE:
        data = data.tobytes()  # for find; a chunk of the streamed check is one piece
    start = 0
    while start < len(buf):
        stop = min(start + _PIECE, len(buf))
        end = -1 if stop == len(buf) else data.find(b"\n", stop)  # type: ignore[union-attr]
        end = len(buf) if end == -1 else end + 1
        piece = buf[start:end]
        if work is not None and len(work) >= 2 * len(piece):
            structural = _structural(piece, work[: len(piece)], work[len(piece) : 2 * len(piece)].view(bool))
        else:
            structural = _STRUCTURAL[piece]
        char = piece[structural]
        quote, slash = char == _QUOTE, char == _BACKSLASH
        if slash.any():  # positions only when a backslash may escape a quote
            quote &= ~_escaped(np.flatnonzero(structural), slash)
        inside = np.logical_xor.accumulate(quote) ^ quote  # after an odd number of quotes: in a string
        step = np.where(inside, np.int8(0), _OPEN[char])
        depth = np.cumsum(step, dtype=np.int32)
        newline = char == _NEWLINE
        if inside[newline].any() or depth[newline].any() or (len(depth) and depth.max() >= limit):
            return False
        start = end
    return True


def lines_of(
    block: bytes | bytearray | memoryview, newlines: np.ndarray | None = None, work: np.ndarray | None = None
) -> tuple[int, int] | None:
    """``(number of lines, longest line in bytes)`` of *block* (whole lines, the last one's newline optional) when
    every line starts with ``{`` (no blank line, no leading blank, no top-level ``null``, on which Arrow's reader
    crashes) and nests less than :data:`MAX_DEPTH` deep (:func:`_shallow_lines`), else ``None``. *newlines*: the
    positions of *block*'s newlines when already found (else found here; a memoryview has no ``find``); *work*: bytes
    to compute in, at least twice *block*'s length (else allocated here: fresh pages, ~3x the time of the compare)."""
    buf = np.frombuffer(block, np.uint8)
    if newlines is None:
        newlines = _newlines(block.find, buf, 0, len(buf)) if not isinstance(block, memoryview) else _all(buf)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(buf)]))
    if len(buf) and buf[-1] == _NEWLINE:  # nothing after the last newline
        starts, ends = starts[:-1], ends[:-1]
    if not len(starts) or not (buf[starts] == _BRACE).all() or not _shallow_lines(block, starts, ends, work):
        return None
    return len(starts), int((ends - starts).max())


def _all(buf: np.ndarray) -> np.ndarray:
    return np.flatnonzero(buf == _NEWLINE)


def _newlines(find: Callable[[bytes, int, int], int], buf: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The positions (from *start*) of the newlines of *buf* from *start* to *stop*: found one by one (*find*, the
    buffer's memchr) while lines average a kilobyte or more (RAGBench rows: several), else all at once (numpy's
    compare: a pass over every byte and one over its result)."""
    found: list[int] = []
    at, most = find(b"\n", start, stop), (stop - start) >> 10
    while at != -1:
        found.append(at - start)
        if len(found) > most:
            return _all(buf[start:stop])
        at = find(b"\n", at + 1, stop)
    return np.array(found, dtype=np.intp)


def _shallow_lines(
    block: bytes | bytearray | memoryview, starts: np.ndarray, ends: np.ndarray, work: np.ndarray | None = None
) -> bool:
    """:func:`_lines_shallow` of the lines of *block* (from *starts* to *ends*) with fewer than :data:`MAX_DEPTH`
    opening brackets taken as shallow without it (a line cannot nest deeper than it opens, strings or not): only
    the others are walked bracket by bracket (RAGBench rows open ~40 each, a few hundred at most)."""
    buf = np.frombuffer(block, np.uint8)
    if work is None or len(work) < 2 * len(buf):
        work = np.empty(2 * len(buf), np.uint8)
    folded, opening = work[: len(buf)], work[len(buf) : 2 * len(buf)].view(bool)
    np.bitwise_and(buf, _FOLD, out=folded)  # [ and { differ in one bit only (0x5B, 0x7B)
    openings = np.flatnonzero(np.equal(folded, _BRACKET, out=opening))
    per_line = np.searchsorted(openings, ends) - np.searchsorted(openings, starts)
    many = np.flatnonzero(per_line >= MAX_DEPTH)
    if not len(many):
        return True
    if len(many) > len(starts) // 4:  # most lines: the whole block at once
        return _lines_shallow(block, MAX_DEPTH, work)
    view = memoryview(block)
    lines = b"".join(b for i in many.tolist() for b in (view[starts[i] : ends[i]], b"\n"))
    return _lines_shallow(lines, MAX_DEPTH, work)


class CheckedLines:
    """A JSON Lines file as a stream for Arrow's streaming reader (``pyarrow.json.open_json``): each :meth:`read`
    returns the next *chunk* bytes extended to whole lines (a longer line is read on to its end, so no line straddles
    two of Arrow's blocks), checked by :func:`lines_of` first. Arrow calls it on its reading thread, so a chunk is
    checked while the chunks before it are parsed on the other cores. A chunk that fails the check ends the stream
    (``failed``; the row-by-row path then decides, as for an empty file); only checked bytes reach Arrow. Each chunk
    is read into bytes of its own (the bytes after its last whole line are read again with the next): not a memory
    map, whose pages kill the process (SIGBUS) when the file is cut short while it loads (a file written over in
    place); a file that shrank ends the stream as a failed chunk does. With *ahead*, and told the rows taken from the
    reader (:meth:`took`), it stays *ahead* chunks ahead of them at most (Arrow's own reading runs 32 blocks ahead)."""

    _WAIT = 1.0  # seconds at most, should a reader need more chunks than *ahead* before its next rows

    def __init__(self, path: Path, chunk: int, ahead: int | None = None) -> None:
        self._file = path.open("rb", buffering=0)
        self._size = os.fstat(self._file.fileno()).st_size
        self._readable = self._file.seekable()  # a pipe: the row-by-row path reads it
        self._chunk, self._ahead = chunk, ahead
        self.lines = self.longest = self.bytes = 0  # of the chunks handed over so far
        self.failed = self.ended = self.closed = False
        self._ends, self._starts, self._taken = [0], [0], 0  # lines and bytes handed over by the end of each chunk
        self._turn = threading.Condition()
        self._work = np.empty(
            0, np.uint8
        )  # for lines_of, reused: fresh pages for every chunk cost more than its compare

    def took(self, rows: int) -> None:
        """The reader has handed out *rows* more rows."""
        with self._turn:
            self._taken += rows
            self._turn.notify()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        with self._turn:  # a read waiting its turn returns at once, and every later one
            self.closed = True
            self._turn.notify_all()
        self._file.close()

    def _bytes_at(self, start: int, size: int) -> bytes:
        """*size* bytes of the file from *start* (fewer at its end, or when it was cut short meanwhile)."""
        self._file.seek(start)
        parts, wanted = [], size
        while wanted > 0 and (got := self._file.read(wanted)):
            parts.append(got)
            wanted -= len(got)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read(self, _size: int = -1) -> memoryview:
        """The next checked chunk of whole lines; empty at the end of the file or once a chunk has failed."""
        done = len(self._starts) - 1  # chunks handed over
        if self._ahead is not None and done >= self._ahead:
            ahead = self._ahead
            with self._turn:
                self._turn.wait_for(lambda: self.closed or self._taken >= self._ends[-ahead], self._WAIT)
        if self.closed:
            return memoryview(b"")
        if not self._readable or self.failed or self.ended or not self._size:
            self.failed, self.ended = self.failed or not self.lines, True
            return memoryview(b"")
        start, stop = self._starts[-1], min(self._starts[-1] + self._chunk, self._size)
        data = self._bytes_at(start, stop - start)
        newlines = _newlines(data.find, np.frombuffer(data, np.uint8), 0, len(data))
        if stop < self._size and len(data) == stop - start and not len(newlines):  # a longer line: read to its end
            more = [data]
            while (piece := self._bytes_at(stop, self._chunk)) and (end := piece.find(b"\n")) == -1:
                more.append(piece)
                stop += len(piece)
            if piece:
                more.append(piece[: end + 1])
                stop += end + 1
            data = b"".join(more)
            newlines = np.array([len(data) - 1] if data.endswith(b"\n") else [], dtype=np.intp)
        if start + len(data) < stop or (stop < self._size and not len(newlines)):  # the file was cut short
            self.failed, self.ended = True, True
            return memoryview(b"")
        cut = len(data) if stop == self._size else int(newlines[-1]) + 1  # at the end: all, unended or not
        block = memoryview(data)[:cut]
        if len(self._work) < 2 * len(block):
            self._work = np.empty(2 * len(block), np.uint8)
        counted = lines_of(block, newlines, self._work)
        if counted is None:
            self.failed = True
            return memoryview(b"")
        self.lines, self.longest = self.lines + counted[0], max(self.longest, counted[1])
        self.bytes, self.ended = start + cut, start + cut == self._size
        self._ends.append(self.lines)
        self._starts.append(start + cut)
        return block

    def expected_lines(self) -> int:
        """Lines in the file: exact once it has been read to its end, else extrapolated from the bytes read so far."""
        if self.ended or not self.bytes:
            return self.lines
        return max(self.lines, round(self.lines * self._size / self.bytes))
