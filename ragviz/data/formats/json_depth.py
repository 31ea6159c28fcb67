"""How deep the lines of a JSON Lines block nest, before Arrow's JSON reader is handed them: it overflows the C
stack on deeply nested input, so a block with a line nested :data:`MAX_DEPTH` deep (outside strings) is read row by
row (:mod:`ragviz.data.formats.json_rows`), which reports it by row and field. Counted with numpy on the bytes;
:class:`CheckedLines` checks a file a chunk at a time, each chunk just before Arrow's reader is handed it."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

__all__ = ["MAX_DEPTH", "CheckedLines", "lines_of"]

MAX_DEPTH = 100  # nesting reported when a JSON text is too deep to parse (RAGBench rows nest 3 levels)

_STRUCTURAL = np.zeros(256, bool)
_STRUCTURAL[list(b'"\\[]{}\n')] = True
_QUOTE, _BACKSLASH, _NEWLINE, _BRACE, _BRACKET = ord('"'), ord("\\"), ord("\n"), ord("{"), ord("[")
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


def _lines_shallow(data: bytes, limit: int) -> bool:
    """Does every line of *data* nest less than *limit* deep outside strings, with its quotes and
    brackets balanced? (``False`` also for anything odd: the row-by-row path then decides.)"""
    buf = np.frombuffer(data, np.uint8)
    start = 0
    while start < len(buf):
        end = data.find(b"\n", min(start + _PIECE, len(buf)))
        end = len(buf) if end == -1 else end + 1
        structural = _STRUCTURAL[piece := buf[start:end]]
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


def lines_of(block: bytes) -> tuple[int, int] | None:
    """``(number of lines, longest line in bytes)`` of *block* (whole lines, the last one's newline optional) when
    every line starts with ``{`` (no blank line, no leading blank, no top-level ``null``, on which Arrow's reader
    crashes) and nests less than :data:`MAX_DEPTH` deep (:func:`_shallow_lines`), else ``None``."""
    buf = np.frombuffer(block, np.uint8)
    newlines = np.flatnonzero(buf == _NEWLINE)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(buf)]))
    if len(buf) and buf[-1] == _NEWLINE:  # nothing after the last newline
        starts, ends = starts[:-1], ends[:-1]
    if not len(starts) or not (buf[starts] == _BRACE).all() or not _shallow_lines(block, starts, ends):
        return None
    return len(starts), int((ends - starts).max())


def _shallow_lines(block: bytes, starts: np.ndarray, ends: np.ndarray) -> bool:
    """:func:`_lines_shallow` of the lines of *block* (from *starts* to *ends*) with fewer than :data:`MAX_DEPTH`
    opening brackets taken as shallow without it (a line cannot nest deeper than it opens, strings or not): only
    the others are walked bracket by bracket (RAGBench rows open ~40 each, a few hundred at most)."""
    buf = np.frombuffer(block, np.uint8)
    openings = np.flatnonzero((buf == _BRACKET) | (buf == _BRACE))
    per_line = np.searchsorted(openings, ends) - np.searchsorted(openings, starts)
    many = np.flatnonzero(per_line >= MAX_DEPTH)
    if not len(many):
        return True
    if len(many) > len(starts) // 4:  # most lines: the whole block at once
        return _lines_shallow(block, MAX_DEPTH)
    view = memoryview(block)
    lines = b"".join(b for i in many.tolist() for b in (view[starts[i] : ends[i]], b"\n"))
    return _lines_shallow(lines, MAX_DEPTH)


class CheckedLines:
    """A JSON Lines file as a stream for Arrow's streaming reader (``pyarrow.json.open_json``): each :meth:`read`
    returns the next *chunk* bytes extended to whole lines (a longer line is read on to its end, so no line straddles
    two of Arrow's blocks), checked by :func:`lines_of` first. Arrow calls it on its reading thread, so a chunk is
    checked while the chunks before it are parsed on the other cores. A chunk that fails the check ends the stream
    (``failed``; the row-by-row path then decides, as for an empty file); only checked bytes reach Arrow. Told the
    rows taken from the reader (:meth:`took`), it stays :data:`AHEAD` chunks ahead of them at most (Arrow's own
    reading runs 32 blocks ahead)."""

    AHEAD = 4  # chunks: one being checked, two parsed on two cores, one more
    _WAIT = 1.0  # seconds at most, should a reader need more chunks than that before its next rows

    def __init__(self, path: Path, chunk: int) -> None:
        self._file = path.open("rb")
        self._chunk, self._carry, self._size = chunk, b"", path.stat().st_size
        self.lines = self.longest = self.bytes = 0  # of the chunks handed over so far
        self.failed = self.ended = self.closed = False
        self._ends: list[int] = []  # lines handed over at the end of each chunk
        self._taken = 0
        self._turn = threading.Condition()

    def took(self, rows: int) -> None:
        """The reader has handed out *rows* more rows."""
        with self._turn:
            self._taken += rows
            self._turn.notify()

    def _wait_turn(self) -> None:
        with self._turn:
            self._turn.wait_for(
                lambda: len(self._ends) < self.AHEAD or self._taken >= self._ends[-self.AHEAD], self._WAIT
            )

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        self._file.close()
        self.closed = True

    def read(self, _size: int = -1) -> bytes:
        """The next checked chunk of whole lines; ``b""`` at the end of the file or once a chunk has failed."""
        block = b""
        self._wait_turn()
        while not (self.failed or self.ended or block):
            data = self._file.read(self._chunk)
            cut = data.rfind(b"\n") + 1
            if data and not cut:
                self._carry += data
                continue
            block, self._carry = b"".join((self._carry, memoryview(data)[:cut])), data[cut:]
            if not data:
                self.ended, self.failed = True, not (block or self.lines)  # the last line, without a newline
                if not block:
                    break
            counted = lines_of(block)
            if counted is None:
                self.failed, block = True, b""
            else:
                self.lines, self.longest = self.lines + counted[0], max(self.longest, counted[1])
                self.bytes += len(block)
                self._ends.append(self.lines)
        return block

    def expected_lines(self) -> int:
        """Lines in the file: exact once it has been read to its end, else extrapolated from the bytes read so far."""
        if self.ended or not self.bytes:
            return self.lines
        return max(self.lines, round(self.lines * self._size / self.bytes))
