"""``ragviz push phoenix|langfuse``: people's labels of examples imported from traces, back to Phoenix as annotations
or to Langfuse as scores.

What is sent is :mod:`ragviz.export.traces.annotations`; how (once, resumable, refusing changed traces) is
:mod:`ragviz.export.traces.push` (Langfuse: :mod:`ragviz.export.traces.langfuse_push`). Bad input is raised as :class:`~ragviz.data.errors.BadInput`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from ragviz.cli.common import (
    EXIT_OK,
    PEOPLE_LABEL_SETS_HELP,
    add_db_argument,
    errors,
    export_selection,
    open_store,
    warn_load,
)
from ragviz.data.errors import BadInput

__all__ = [
    "COMMAND",
    "EXIT_REFUSED",
    "add_trace_push_arguments",
    "push_command",
    "push_phoenix_command",
    "run_trace_push_command",
]

COMMAND = "ragviz push phoenix"
#: Some examples were refused (named on stderr); the others were pushed and recorded.
EXIT_REFUSED = 1


def push_phoenix_command(url: str, db: str | None, *, documents_as: str = "human", **options: Any) -> int:
    """Push the reviewed examples' labels in *db* to the Phoenix at *url*; prints a summary and each refused
    example on stderr. Returns 0, or :data:`EXIT_REFUSED` when some examples were refused. *options*: those of
    :func:`push_command`."""
    return push_command("phoenix", url, db, documents_as=documents_as, **options)


def push_command(
    target: str,
    url: str,
    db: str | None,
    *,
    data: Sequence[str] = (),
    annotator: str | None = None,
    labels: str | None = None,
    api_key: str | None = None,
    documents_as: str = "human",
    langfuse_keys: tuple[str, str] | None = None,
) -> int:
    """Push to *target* (``phoenix`` or ``langfuse``, with its keys) from the store *db* (default: the default
    store); see :func:`push_phoenix_command`."""
    from ragviz.export.targets import load_sources
    from ragviz.export.traces.push import push_phoenix

    with open_store(db, command=f"ragviz push {target}") as store:
        who = export_selection(store, annotator, labels, command=f"ragviz push {target}", path=store.location)
        sources = list(data) or store.sources.registered()
        if not sources:
            raise BadInput(
                f"no data files registered in this store; name them (ragviz push {target} DATA ...)",
                path=store.location,
            )
        dataset, problems, warnings = load_sources(sources)
        if problems:
            raise BadInput(f"{errors(len(problems))} in the data files: nothing pushed", listed=problems)
        warn_load(warnings)

        def progress(done: int, total: int) -> None:
            print(f"\rpushing: {done}/{total} examples", end="\n" if done == total else "", file=sys.stderr, flush=True)

        if target == "langfuse":
            from ragviz.export.traces.langfuse import langfuse_api
            from ragviz.export.traces.langfuse_push import push_langfuse

            assert langfuse_keys is not None
            report = push_langfuse(dataset, store, url, who, langfuse_api(url, *langfuse_keys), progress)
            sent = f"{report.span_annotations} scores"
        else:
            report = push_phoenix(dataset, store, url, who, api_key, documents_as.upper(), progress)
            sent = (
                f"{report.span_annotations} span annotations, {report.document_annotations} document annotations "
                f"({documents_as.upper()})"
            )
    for line in report.refused:
        print(f"{url}: refused: {line}", file=sys.stderr)
    print(
        f"pushed {report.pushed} examples to {url}: {sent}; {report.unchanged} unchanged since the last push; "
        f"{len(report.refused)} refused; {report.not_from_traces} reviewed examples not from a trace",
        file=sys.stderr,
    )
    return EXIT_REFUSED if report.refused else EXIT_OK


def _target(
    sub: argparse._SubParsersAction, name: str, example: str, help: str, description: str
) -> argparse.ArgumentParser:
    """What every push target takes: DATA, ``--url``, ``--db``, ``--annotator``, ``--labels``."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description)
    p.add_argument("data", nargs="*", metavar="DATA", help="rows files (default: the files registered in the store)")
    p.add_argument("--url", required=True, help=f"the {name.title()} server, e.g. {example}")
    add_db_argument(p, purpose="the reviewed examples pushed and the record of each push")
    p.add_argument(
        "--annotator", metavar="NAME", help="whose labels (default: the one annotator; with several: latest)"
    )
    p.add_argument(
        "--labels",
        metavar="gold|latest|ANNOTATOR",
        help=f"which label set: {PEOPLE_LABEL_SETS_HELP}; latest is human",
    )
    return p


def add_trace_push_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="target", metavar="TARGET")
    sub.required = True
    p = _target(
        sub,
        "phoenix",
        "http://localhost:6006",
        help="span and document annotations on the traces the examples came from",
        description="For every example people reviewed (from rows made by ragviz import): four span annotations on "
        "the response span (ragviz.adherence, .relevance, .utilization, .completeness; kind HUMAN, identifier "
        "ragviz:<reviewer>) and per document ragviz.relevant / ragviz.utilized on the span the documents came from "
        "(the retriever's, or the reranker's). Only what changed since the last push to URL is sent (recorded in the "
        "store); a rerun finishes a push that failed halfway. Examples whose trace is gone or whose documents changed "
        "are refused by name (exit 1).",
    )
    p.add_argument(
        "--documents-as",
        choices=("human", "llm"),
        default="human",
        help="annotator kind of the document annotations: human (default), or llm so Phoenix's retrieval metrics "
        "(nDCG, precision, hit rate), which count only kind LLM, use people's document labels",
    )
    p.add_argument("--api-key", metavar="KEY", help="Phoenix API key (default: $PHOENIX_API_KEY; never stored)")
    lf = _target(
        sub,
        "langfuse",
        "https://cloud.langfuse.com",
        help="scores on the traces and observations the examples came from",
        description="For every example people reviewed (from rows made by ragviz import): ragviz.adherence "
        "(CATEGORICAL, comment = the unsupported sentences), ragviz.relevance / .utilization / .completeness "
        "(NUMERIC) on the response observation, and per document ragviz.relevant / ragviz.utilized (NUMERIC, "
        "position and document id in the metadata) on the retriever observation. Score ids are fixed per example, "
        "reviewer, name and document, so a re-push replaces them; only what changed since the last push is sent.",
    )
    lf.add_argument("--public-key", metavar="KEY", help="default: $LANGFUSE_PUBLIC_KEY (never stored)")
    lf.add_argument("--secret-key", metavar="KEY", help="default: $LANGFUSE_SECRET_KEY (never stored)")


def run_trace_push_command(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {"data": args.data, "annotator": args.annotator, "labels": args.labels}
    if args.target == "langfuse":
        from ragviz.cli.trace_import import langfuse_keys

        keys = langfuse_keys(args.public_key, args.secret_key)
        return push_command("langfuse", args.url, args.db, langfuse_keys=keys, **options)
    api_key = args.api_key or os.environ.get("PHOENIX_API_KEY")
    return push_phoenix_command(args.url, args.db, api_key=api_key, documents_as=args.documents_as, **options)
