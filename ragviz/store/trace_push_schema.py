"""The trace-push ledger's migration (``021_trace_pushes``) and what it leaves, for :mod:`ragviz.store.migrations`
(*run* and *d* are its ``RunSQL`` and ``Dialect``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["TRACE_PUSH_SCHEMA", "m021_trace_pushes"]


def m021_trace_pushes(run: Callable[..., Any], d: Any) -> None:
    # What ragviz push sent where (ragviz.store.trace_pushes): per example and identifier the fingerprint of the
    # annotations sent to a URL, their ids there, who pushed and when. Append-only; the newest row counts.
    run(
        f"""CREATE TABLE trace_pushes (
            id {d.identity},
            target TEXT NOT NULL,
            url TEXT NOT NULL,
            example_uid TEXT NOT NULL,
            identifier TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            annotation_ids_json TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run("CREATE INDEX trace_pushes_by_example ON trace_pushes (target, url, example_uid, identifier, id)")
    # Which server a data file's traces were read from (the app's "Open from Phoenix"), for the Review page's
    # links back to each trace: the file's name (an upload's content-hashed name), the server's URL. No key.
    run(
        f"""CREATE TABLE trace_sources (
            id {d.identity},
            file_name TEXT NOT NULL,
            target TEXT NOT NULL,
            url TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


TRACE_PUSH_SCHEMA: dict[str, dict[str, tuple[str, ...]]] = {
    "021_trace_pushes": {
        "trace_pushes": (
            "id",
            "target",
            "url",
            "example_uid",
            "identifier",
            "fingerprint",
            "annotation_ids_json",
            "ts",
        ),
        "trace_sources": ("id", "file_name", "target", "url", "ts"),
    }
}
