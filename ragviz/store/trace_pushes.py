"""What ``ragviz push`` sent where (migration ``021_trace_pushes``): per example, annotation identifier and URL the
fingerprint of the annotations sent, their ids on the other side and when. A push skips an example whose
fingerprint is the one recorded (nothing changed since); an example is recorded only once the server took all of
its annotations, so a push that fails halfway is finished by running it again. Append-only; the newest row
counts. No key or token is ever stored here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ragviz.store.events import now_iso
from ragviz.store.label_store import LabelStore

__all__ = [
    "PushRecord",
    "normal_url",
    "pushed_fingerprints",
    "record_pushes",
    "record_trace_source",
    "trace_source_url",
]


@dataclass(frozen=True)
class PushRecord:
    """One example's annotations as one server took them."""

    example_uid: str
    identifier: str
    fingerprint: str
    annotation_ids: tuple[str, ...]


def normal_url(url: str) -> str:
    """*url* as the ledger keys it (no trailing slash)."""
    return url.strip().rstrip("/")


def pushed_fingerprints(store: LabelStore, target: str, url: str) -> dict[tuple[str, str], str]:
    """(example uid, identifier) -> the fingerprint last pushed to *url* of *target* (``phoenix``)."""
    rows = store.query(
        "SELECT p.example_uid, p.identifier, p.fingerprint FROM trace_pushes p WHERE p.target = ? AND p.url = ?"
        " AND p.id = (SELECT MAX(q.id) FROM trace_pushes q WHERE q.target = p.target AND q.url = p.url"
        " AND q.example_uid = p.example_uid AND q.identifier = p.identifier)",
        (target, normal_url(url)),
    )
    return {(str(r[0]), str(r[1])): str(r[2]) for r in rows}


def record_pushes(store: LabelStore, target: str, url: str, records: Sequence[PushRecord]) -> None:
    """Record *records* as pushed to *url* now, in one transaction."""
    if not records:
        return
    ts = now_iso()
    rows = [
        (target, normal_url(url), r.example_uid, r.identifier, r.fingerprint, json.dumps(list(r.annotation_ids)), ts)
        for r in records
    ]
    store.write(
        lambda q: q.many(
            "INSERT INTO trace_pushes (target, url, example_uid, identifier, fingerprint, annotation_ids_json, ts)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    )


def record_trace_source(store: LabelStore, file_name: str, target: str, url: str) -> None:
    """The data file *file_name* holds traces read from *target* (``phoenix``) at *url*."""
    store.write(
        lambda q: q(
            "INSERT INTO trace_sources (file_name, target, url, ts) VALUES (?, ?, ?, ?)",
            (file_name, target, normal_url(url), now_iso()),
        )
    )


def trace_source_url(store: LabelStore, file_name: str, target: str = "phoenix") -> str | None:
    """The URL *file_name*'s traces were last read from, if the app read them."""
    rows = store.query(
        "SELECT url FROM trace_sources WHERE file_name = ? AND target = ? ORDER BY id DESC LIMIT 1", (file_name, target)
    )
    return str(rows[0][0]) if rows else None
