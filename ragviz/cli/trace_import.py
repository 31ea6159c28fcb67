"""``ragviz import otlp|phoenix``: a RAG app's traces as ragviz rows (JSON Lines), one row per trace.

The mapping is :mod:`ragviz.data.formats.openinference`; traces that cannot be rows are listed on stderr, one
line each, and the rest are written. Bad input (a file that is not spans, an unreachable server, a refused key,
an unknown project) is raised as :class:`~ragviz.data.errors.BadInput` and nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone

from ragviz.cli.common import EXIT_OK
from ragviz.data.errors import BadInput

__all__ = [
    "COMMAND",
    "add_trace_import_arguments",
    "import_langfuse",
    "import_otlp",
    "import_phoenix",
    "langfuse_keys",
    "run_trace_import_command",
]

COMMAND = "ragviz import"


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


def import_otlp(paths: list[str], out: str, dataset: str | None = None, retriever_span: str | None = None) -> int:
    """``ragviz import otlp FILE... -o OUT``: OTLP JSON / span dump files as rows."""
    from ragviz.data.formats.openinference import map_traces
    from ragviz.data.formats.otlp import read_span_files

    spans = read_span_files(paths)
    if not spans:
        raise BadInput("no spans in the files", path=", ".join(paths))
    return _finish(map_traces(spans, dataset, retriever_span), out, ", ".join(paths))


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadInput(f"not an ISO 8601 time: {value!r}", field="--since") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def import_phoenix(
    url: str,
    project: str,
    out: str,
    *,
    api_key: str | None = None,
    since: str | None = None,
    limit: int | None = None,
    dataset: str | None = None,
    retriever_span: str | None = None,
) -> int:
    """``ragviz import phoenix --url URL --project NAME -o OUT``: a Phoenix project's traces as rows."""
    from ragviz.export.traces.phoenix import phoenix_traces

    if limit is not None and limit < 1:
        raise BadInput(f"must be at least 1, got {limit}", field="--limit")

    def progress(done: int, total: int) -> None:
        print(f"\rreading traces: {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    mapped = phoenix_traces(url, project, api_key, _since(since), limit, dataset, retriever_span, progress)
    return _finish(mapped, out, f"{url} {project}")


def langfuse_keys(public_key: str | None, secret_key: str | None) -> tuple[str, str]:
    """The Langfuse keys from the options, else ``$LANGFUSE_PUBLIC_KEY`` / ``$LANGFUSE_SECRET_KEY``."""
    public = public_key or os.environ.get("LANGFUSE_PUBLIC_KEY")
    secret = secret_key or os.environ.get("LANGFUSE_SECRET_KEY")
    if not public or not secret:
        raise BadInput(
            "give the project's keys: --public-key / --secret-key or $LANGFUSE_PUBLIC_KEY / $LANGFUSE_SECRET_KEY"
        )
    return public, secret


def import_langfuse(
    url: str,
    out: str,
    *,
    public_key: str,
    secret_key: str,
    since: str | None = None,
    limit: int | None = None,
    dataset: str | None = None,
    retriever_span: str | None = None,
) -> int:
    """``ragviz import langfuse --url URL -o OUT``: a Langfuse project's traces (its observations) as rows."""
    from ragviz.data.formats.openinference import map_traces
    from ragviz.export.traces.langfuse import fetch_observations, langfuse_api, langfuse_errors

    if limit is not None and limit < 1:
        raise BadInput(f"must be at least 1, got {limit}", field="--limit")
    api = langfuse_api(url, public_key, secret_key)

    def progress(n: int) -> None:
        print(f"\rreading observations: {n}", end="", file=sys.stderr, flush=True)

    with langfuse_errors(url):
        spans = fetch_observations(api, _since(since), limit, progress)
    print(file=sys.stderr)
    if not spans:
        raise BadInput("the project has no observations" + (f" since {since}" if since else ""), path=url)
    return _finish(map_traces(spans, dataset, retriever_span), out, url)


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
    phoenix = sub.add_parser(
        "phoenix",
        help="a Phoenix project's traces, through its REST API",
        description="Read a Phoenix project's traces (newest first; paged, with progress on stderr) and write one "
        "row per trace. The API key comes from --api-key or $PHOENIX_API_KEY and is never written anywhere.",
    )
    phoenix.add_argument("--url", required=True, help="the Phoenix server, e.g. http://localhost:6006")
    phoenix.add_argument("--project", required=True, metavar="NAME", help="the project (name or id)")
    phoenix.add_argument(
        "--since", metavar="TIME", help="only traces started at or after TIME (ISO 8601; UTC if no zone)"
    )
    phoenix.add_argument("--limit", type=int, metavar="N", help="at most the N newest traces")
    phoenix.add_argument("--api-key", metavar="KEY", help="Phoenix API key (default: $PHOENIX_API_KEY)")
    langfuse = sub.add_parser(
        "langfuse",
        help="a Langfuse project's traces, through the langfuse SDK",
        description="Read a Langfuse project's observations (GET /api/public/v2/observations, paged) and write one "
        "row per trace: GENERATION observations are the LLM spans, a RETRIEVER observation's output (a JSON list of "
        "strings or of objects with page_content / content / text) its documents in list order. The keys come from "
        "--public-key / --secret-key or $LANGFUSE_PUBLIC_KEY / $LANGFUSE_SECRET_KEY and are never written anywhere.",
    )
    langfuse.add_argument("--url", required=True, help="the Langfuse server, e.g. https://cloud.langfuse.com")
    langfuse.add_argument("--since", metavar="TIME", help="only observations started at or after TIME (ISO 8601)")
    langfuse.add_argument("--limit", type=int, metavar="N", help="at most the N newest traces")
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
            help="take the documents from the last span with this name (default: the last RETRIEVER span that "
            "starts before the trace's last LLM span, else the last RETRIEVER span)",
        )


def run_trace_import_command(args: argparse.Namespace) -> int:
    if args.source == "otlp":
        return import_otlp(args.files, args.output, args.dataset, args.retriever_span)
    if args.source == "langfuse":
        public, secret = langfuse_keys(args.public_key, args.secret_key)
        return import_langfuse(
            args.url,
            args.output,
            public_key=public,
            secret_key=secret,
            since=args.since,
            limit=args.limit,
            dataset=args.dataset,
            retriever_span=args.retriever_span,
        )
    return import_phoenix(
        args.url,
        args.project,
        args.output,
        api_key=args.api_key or os.environ.get("PHOENIX_API_KEY"),
        since=args.since,
        limit=args.limit,
        dataset=args.dataset,
        retriever_span=args.retriever_span,
    )
