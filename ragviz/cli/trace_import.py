"""``ragviz import otlp|phoenix|langfuse``: a RAG app's traces as ragviz rows (JSON Lines), one row per trace.

The mapping is :mod:`ragviz.data.formats.openinference`; traces that cannot be rows are listed on stderr, one
line each, and the rest are written. Bad input (a file that is not spans, an unreachable server, a refused key,
an unknown project) is raised as :class:`~ragviz.data.errors.BadInput` and nothing is written. With ``--db``, the
Phoenix evaluations that map to ragviz labels become judge label sets in that store
(:mod:`ragviz.export.traces.evaluation_labels`) and the rows file is registered there.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from datetime import datetime, timezone

from ragviz.cli.common import EXIT_OK, add_db_argument, errors, open_store
from ragviz.data.errors import BadInput

__all__ = [
    "COMMAND",
    "TraceQuery",
    "add_trace_import_arguments",
    "import_langfuse",
    "import_otlp",
    "import_phoenix",
    "langfuse_keys",
    "run_trace_import_command",
]

COMMAND = "ragviz import"


@dataclass(frozen=True)
class TraceQuery:
    """Which traces and how they become rows, as every source takes it: started at or after *since* (ISO 8601),
    the newest *limit*, the rows' *dataset* name, the span the documents come from (*retriever_span*)."""

    since: str | None = None
    limit: int | None = None
    dataset: str | None = None
    retriever_span: str | None = None

    def since_time(self) -> datetime | None:
        if self.since is None:
            return None
        try:
            moment = datetime.fromisoformat(self.since.replace("Z", "+00:00"))
        except ValueError:
            raise BadInput(f"not an ISO 8601 time: {self.since!r}", field="--since") from None
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

    def checked(self) -> TraceQuery:
        if self.limit is not None and self.limit < 1:
            raise BadInput(f"must be at least 1, got {self.limit}", field="--limit")
        self.since_time()
        return self


def _finish(mapped: object, out: str, source: str) -> int:
    from ragviz.data.formats.openinference import Mapped
    from ragviz.export.traces.rows_file import skipped_lines, write_trace_rows

    assert isinstance(mapped, Mapped)
    for line in skipped_lines(mapped.skipped, source):
        print(line, file=sys.stderr)
    if not mapped.rows:
        raise BadInput(f"no trace could be a row ({len(mapped.skipped)} skipped): nothing written", path=source)
    write_trace_rows(mapped.rows, out)
    print(
        f"imported {len(mapped.rows)} traces to {out}; {len(mapped.skipped)} skipped (listed above)",
        file=sys.stderr,
    )
    return EXIT_OK


def import_otlp(paths: list[str], out: str, query: TraceQuery = TraceQuery()) -> int:
    """``ragviz import otlp FILE... -o OUT``: OTLP JSON / span dump files as rows."""
    from ragviz.data.formats.openinference import map_traces
    from ragviz.data.formats.otlp import read_span_files

    spans = read_span_files(paths)
    if not spans:
        raise BadInput("no spans in the files", path=", ".join(paths))
    return _finish(map_traces(spans, query.dataset, query.retriever_span), out, ", ".join(paths))


class _Progress:
    """``reading WHAT: done/total`` on one stderr line, redrawn; :meth:`end` ends a line left open (a failure
    midway: its message then starts a line of its own)."""

    def __init__(self, what: str):
        self.what = what
        self.open = False

    def __call__(self, done: int, total: int | None = None) -> None:
        shown = f"{done}/{total}" if total is not None else str(done)
        self.open = not (total is not None and done == total)
        print(f"\rreading {self.what}: {shown}", end="" if self.open else "\n", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.open:
            print(file=sys.stderr, flush=True)
            self.open = False


def import_phoenix(
    url: str,
    project: str,
    out: str,
    query: TraceQuery = TraceQuery(),
    api_key: str | None = None,
    db: str | None = None,
) -> int:
    """``ragviz import phoenix --url URL --project NAME -o OUT [--db DB]``: a Phoenix project's traces as rows;
    with *db*, their evaluations that map as judge label sets there (the rows file registered in it)."""
    from ragviz.export.traces.phoenix import phoenix_traces

    query = query.checked()
    if db is not None and out == "-":
        raise BadInput(
            "give the rows a file (-o FILE): the store lists the file its judge labels belong to", field="--db"
        )
    progress = _Progress("traces")
    try:
        mapped = phoenix_traces(
            url, project, api_key, query.since_time(), query.limit, query.dataset, query.retriever_span, progress
        )
    finally:
        progress.end()
    done = _finish(mapped, out, f"{url} {project}")
    if db is not None:
        _evaluations_to_store(out, db)
    return done


def _evaluations_to_store(out: str, db: str) -> None:
    from ragviz.data.load import load
    from ragviz.export.traces.evaluation_labels import save_evaluation_labels

    loaded = load([out])
    if not loaded.ok:
        raise BadInput(
            f"{errors(len(loaded.errors))} loading the rows written: no judge labels saved", listed=loaded.errors
        )
    with open_store(db, command=f"{COMMAND} phoenix", create=True) as store:
        store.sources.register(str(os.path.abspath(out)))
        report = save_evaluation_labels(store, loaded.dataset, "ragviz import phoenix")
    for line in report.lines() or ["no Phoenix evaluation of these traces maps to ragviz labels"]:
        print(line, file=sys.stderr)


def langfuse_keys(public_key: str | None, secret_key: str | None) -> tuple[str, str]:
    """The Langfuse keys from the options, else ``$LANGFUSE_PUBLIC_KEY`` / ``$LANGFUSE_SECRET_KEY``."""
    public = public_key or os.environ.get("LANGFUSE_PUBLIC_KEY")
    secret = secret_key or os.environ.get("LANGFUSE_SECRET_KEY")
    if not public or not secret:
        raise BadInput(
            "give the project's keys: --public-key / --secret-key or $LANGFUSE_PUBLIC_KEY / $LANGFUSE_SECRET_KEY"
        )
    return public, secret


def import_langfuse(url: str, out: str, keys: tuple[str, str], query: TraceQuery = TraceQuery()) -> int:
    """``ragviz import langfuse --url URL -o OUT``: a Langfuse project's traces (its observations) as rows."""
    from ragviz.data.formats.openinference import map_traces
    from ragviz.export.traces.langfuse import fetch_observations, langfuse_api, langfuse_errors

    query = query.checked()
    api = langfuse_api(url, *keys)
    progress = _Progress("observations")
    try:
        with langfuse_errors(url):
            spans = fetch_observations(api, query.since_time(), query.limit, progress)
    finally:
        progress.open = True  # its count has no total: the line is always open
        progress.end()
    if not spans:
        raise BadInput("the project has no observations" + (f" since {query.since}" if query.since else ""), path=url)
    return _finish(map_traces(spans, query.dataset, query.retriever_span), out, url)


def _server(
    sub: argparse._SubParsersAction, name: str, example: str, help: str, description: str
) -> argparse.ArgumentParser:
    """A source read from a server: ``--url``, ``--since``, ``--limit``."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description)
    p.add_argument("--url", required=True, help=f"the {name.title()} server, e.g. {example}")
    what = "observations" if name == "langfuse" else "traces"
    p.add_argument("--since", metavar="TIME", help=f"only {what} started at or after TIME (ISO 8601; UTC if no zone)")
    p.add_argument("--limit", type=int, metavar="N", help="at most the N newest traces")
    return p


def add_trace_import_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="source", metavar="SOURCE")
    sub.required = True
    otlp = sub.add_parser(
        "otlp",
        help="OTLP JSON files (the collector's file exporter) or JSON lines of spans",
        description="Read OpenInference spans from OTLP JSON (resourceSpans[].scopeSpans[].spans[], one request "
        "per file or per line) or span dumps (one span per line: Phoenix's or OpenTelemetry's console exporter's "
        "JSON) and write one row per trace. No server needed.",
    )
    otlp.add_argument("files", nargs="+", metavar="FILE", help="span files")
    phoenix = _server(
        sub,
        "phoenix",
        "http://localhost:6006",
        help="a Phoenix project's traces, through its REST API",
        description="Read a Phoenix project's traces (newest first; paged, with progress on stderr) and write one "
        "row per trace, with the traces' existing evaluations (kind LLM) in the column source_evaluations. With "
        "--db, the evaluations that map to ragviz labels (hallucination -> adherence, QA correctness -> answer "
        "similarity, document relevance -> every sentence of a relevant document) become judge labels in that "
        "store, as a judge version named for the evaluators (phoenix-<names>). The API key comes from --api-key or "
        "$PHOENIX_API_KEY and is never written anywhere.",
    )
    phoenix.add_argument("--project", required=True, metavar="NAME", help="the project (name or id)")
    phoenix.add_argument("--api-key", metavar="KEY", help="Phoenix API key (default: $PHOENIX_API_KEY)")
    add_db_argument(
        phoenix,
        defaults_to_store=False,
        purpose="when given, the traces' Phoenix evaluations become judge labels there and the rows file is registered",
    )
    langfuse = _server(
        sub,
        "langfuse",
        "https://cloud.langfuse.com",
        help="a Langfuse project's traces, through the langfuse SDK",
        description="Read a Langfuse project's observations (GET /api/public/v2/observations, paged) and write one "
        "row per trace: GENERATION observations are the LLM spans, a RETRIEVER observation's output (a JSON list of "
        "strings or of objects with page_content / content / text) its documents in list order. The keys come from "
        "--public-key / --secret-key or $LANGFUSE_PUBLIC_KEY / $LANGFUSE_SECRET_KEY and are never written anywhere.",
    )
    langfuse.add_argument("--public-key", metavar="KEY", help="default: $LANGFUSE_PUBLIC_KEY")
    langfuse.add_argument("--secret-key", metavar="KEY", help="default: $LANGFUSE_SECRET_KEY")
    for p in (otlp, phoenix, langfuse):
        p.add_argument(
            "-o", "--output", metavar="OUT", required=True, help="rows file to write (JSON Lines; '-': stdout)"
        )
        p.add_argument(
            "--dataset",
            metavar="NAME",
            help="dataset_name of the rows (default: the project: Phoenix's, the spans' openinference.project.name, "
            "or Langfuse's project id)",
        )
        p.add_argument(
            "--retriever-span",
            metavar="NAME",
            help="take the documents from the last span with this name (a RERANKER span: its output documents); "
            "default: the last RERANKER span with output documents that starts before the trace's last LLM span, "
            "else the last RETRIEVER span that does (else the last of them)",
        )


def run_trace_import_command(args: argparse.Namespace) -> int:
    query = TraceQuery(getattr(args, "since", None), getattr(args, "limit", None), args.dataset, args.retriever_span)
    if args.source == "otlp":
        return import_otlp(args.files, args.output, query)
    if args.source == "langfuse":
        return import_langfuse(args.url, args.output, langfuse_keys(args.public_key, args.secret_key), query)
    api_key = args.api_key or os.environ.get("PHOENIX_API_KEY")
    return import_phoenix(args.url, args.project, args.output, query, api_key, args.db)
