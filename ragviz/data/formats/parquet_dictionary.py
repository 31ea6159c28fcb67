"""The longest entry of a Parquet column chunk's dictionary, read from its dictionary page alone.

A dictionary-encoded string column decodes to each row's entry, so its decoded size can be far above its stored
size (:func:`ragviz.data.formats.parquet_rows.decoded_bytes`). Counting it exactly means reading the column. Its
longest entry bounds it from above cheaply: no value of the chunk decodes to more than that entry (or, for a
value written plainly after the dictionary filled up, more than the chunk's own uncompressed size, which is
counted anyway). So the dictionary page is read on its own (its Thrift page header parsed here, its body
decompressed with Arrow's codec) and the entries' lengths walked.

Anything unexpected (another page type first, a codec not handled, a page claiming more than
:data:`MAX_PAGE_BYTES`, bytes that do not parse) gives ``None``: the caller then counts exactly.
"""

from __future__ import annotations

from typing import BinaryIO, Literal

import pyarrow as pa

__all__ = ["MAX_PAGE_BYTES", "dictionary_bound", "longest_dictionary_entry"]


MAX_PAGE_BYTES = 8 << 20  # a dictionary page claiming more than this is counted exactly instead (writers keep
# theirs to about 1 MB: pyarrow's dictionary_pagesize_limit)
_HEADER_BYTES = 1 << 12  # read at once for the page header (a dictionary page's header is a few dozen bytes)
_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3  # PageType
_DICTIONARY_ENCODINGS = (2, 8)  # PLAIN_DICTIONARY, RLE_DICTIONARY
_MAX_PAGES = 1 << 16  # pages walked in one chunk before giving up (counted exactly then)
_CODECS: dict[str, Literal["snappy", "gzip", "zstd", "brotli"] | None] = {
    "UNCOMPRESSED": None,
    "SNAPPY": "snappy",
    "GZIP": "gzip",
    "ZSTD": "zstd",
    "BROTLI": "brotli",
}


class _Truncated(Exception):
    """The header did not fit the bytes read."""


class _Reader:
    """Thrift's compact protocol over *data*: just enough to read a PageHeader's first fields and skip the rest."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Truncated
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        shift = out = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 63:
                raise ValueError("varint too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip(self, kind: int) -> None:
        if kind in (1, 2):  # a boolean field holds its value in its type
            return
        if kind == 3:
            self.byte()
        elif kind in (4, 5, 6):
            self.varint()
        elif kind == 7:
            self.pos += 8
        elif kind == 8:
            length = self.varint()  # read before pos is: `self.pos += self.varint()` would add to the old pos
            self.pos += length
        elif kind in (9, 10):
            head = self.byte()
            size = head >> 4 if head >> 4 != 15 else self.varint()
            for _ in range(size):
                self.skip_element(head & 0x0F)
        elif kind == 11:
            size = self.varint()
            types = self.byte() if size else 0
            for _ in range(size):
                self.skip_element(types >> 4)
                self.skip_element(types & 0x0F)
        elif kind == 12:
            self.fields()
        else:
            raise ValueError(f"unknown Thrift type {kind}")
        if self.pos > len(self.data):
            raise _Truncated

    def skip_element(self, kind: int) -> None:
        if kind in (1, 2):  # a boolean inside a list or map is a byte
            self.byte()
        else:
            self.skip(kind)

    def fields(self, wanted: tuple[int, ...] = (), nested: tuple[int, ...] = ()) -> dict[int, int]:
        """Read one struct's fields up to its stop byte: the integer fields whose ids are *wanted*, and the integer
        fields 1-4 of the struct fields whose ids are *nested*, as ``100 * id + field``."""
        out: dict[int, int] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            kind, delta = head & 0x0F, head >> 4
            field = last + delta if delta else self.zigzag()
            last = field
            if field in wanted and kind in (4, 5, 6):
                out[field] = self.zigzag()
            elif field in nested and kind == 12:
                out.update({100 * field + k: v for k, v in self.fields((1, 2, 3, 4)).items()})
            else:
                self.skip(kind)


def _page_header(source: BinaryIO, offset: int) -> tuple[dict[int, int], int]:
    """The integer fields 1-3 (type, uncompressed and compressed size) of the page header at *offset* and those of
    its data page header (``501``: values, ``502``: encoding) or v2 data page header (``801``: values, ``804``:
    encoding), and the header's length in bytes."""
    size = _HEADER_BYTES
    while True:
        source.seek(offset)
        data = source.read(size)
        try:
            reader = _Reader(data)
            found = reader.fields((1, 2, 3), (5, 8))
            return found, reader.pos
        except _Truncated:
            if len(data) < size or size >= MAX_PAGE_BYTES:
                raise ValueError("truncated page header") from None
            size *= 4


def _longest(entries: bytes) -> int:
    """The longest of the PLAIN-encoded byte arrays in *entries* (each a 4-byte little-endian length, then the
    bytes)."""
    longest = pos = 0
    n = len(entries)
    view = memoryview(entries)
    while pos < n:
        if pos + 4 > n:
            raise ValueError("truncated dictionary entry")
        length = int.from_bytes(view[pos : pos + 4], "little")
        longest = max(longest, length)
        pos += 4 + length
    if pos != n:
        raise ValueError("dictionary entries overrun the page")
    return longest


def longest_dictionary_entry(source: BinaryIO, chunk: object) -> int | None:
    """The longest entry (bytes) of the dictionary of the column chunk *chunk* (a
    ``pyarrow.parquet.ColumnChunkMetaData`` with a dictionary page) in the open file *source*, or ``None`` when
    it cannot be told from the dictionary page alone (module docstring)."""
    try:
        offset = getattr(chunk, "dictionary_page_offset", None)
        compression = str(getattr(chunk, "compression", ""))
        if offset is None or compression not in _CODECS:
            return None
        codec = _CODECS[compression]
        header, length = _page_header(source, int(offset))
        if header.get(1) != _DICTIONARY_PAGE:
            return None
        uncompressed, compressed = header.get(2), header.get(3)
        if uncompressed is None or compressed is None or not 0 <= uncompressed <= MAX_PAGE_BYTES:
            return None
        if not 0 <= compressed <= MAX_PAGE_BYTES:
            return None
        source.seek(int(offset) + length)
        body = source.read(compressed)
        if len(body) != compressed:
            return None
        if codec is not None:
            body = pa.Codec(codec).decompress(body, decompressed_size=uncompressed).to_pybytes()
        if len(body) != uncompressed:
            return None
        return _longest(body)
    except (ValueError, OSError, pa.ArrowException):
        return None


def _dictionary_values(source: BinaryIO, chunk: object) -> int | None:
    """How many values of the column chunk *chunk* its data pages say are dictionary-encoded (a writer falls back
    to plain pages once the dictionary is full), from the page headers alone; ``None`` when they cannot be walked."""
    try:
        start = getattr(chunk, "dictionary_page_offset", None)
        first = getattr(chunk, "data_page_offset", None)
        if start is None or first is None:
            return None
        end = int(start) + int(chunk.total_compressed_size)  # type: ignore[attr-defined]
        pos, values = int(first), 0
        for _ in range(_MAX_PAGES):
            if pos >= end:
                return values
            header, length = _page_header(source, pos)
            kind, compressed = header.get(1), header.get(3)
            if compressed is None or compressed < 0:
                return None
            if kind == _DATA_PAGE:
                if header.get(502) in _DICTIONARY_ENCODINGS:
                    values += header.get(501, 0)
            elif kind == _DATA_PAGE_V2:
                if header.get(804) in _DICTIONARY_ENCODINGS:
                    values += header.get(801, 0)
            elif kind == _DICTIONARY_PAGE:
                return None  # a second dictionary: not what writers do
            pos += length + compressed
        return None
    except (ValueError, OSError):
        return None


def dictionary_bound(source: BinaryIO, chunk: object) -> int | None:
    """An upper bound of the bytes the dictionary-encoded values of the column chunk *chunk* decode to beyond its
    uncompressed size: the values its data pages encode through the dictionary times the dictionary's longest
    entry (:func:`longest_dictionary_entry`); ``None`` when either cannot be read from the page headers."""
    longest = longest_dictionary_entry(source, chunk)
    if longest is None:
        return None
    values = _dictionary_values(source, chunk)
    return None if values is None else values * longest
