"""The Phoenix round trip at size (issue 37): ``ragviz import phoenix`` of N traces (target: 1,000 in <= 30 s) and
``ragviz push phoenix`` of N reviewed examples (target: 1,000 in <= 60 s), against a local Phoenix server.

Set-up (not timed): a Phoenix server (``scripts/phoenix_venv.sh``; or ``--url`` of a running one), N RAG traces
logged through ``arize-phoenix-otel`` (3 documents each), judged by nobody: one person's decision per example is
recorded in a fresh label store. Timed: the import (every span read through the REST API, mapped, written) and the
push (changed-documents check, span + document annotations with ``sync=true``, the ledger), then a second push
(nothing to send).

With ``--evaluations`` every trace also gets Phoenix evaluations of kind LLM before the import (a hallucination
span annotation on its root, a relevance annotation per document on its retriever), and the import runs with
``--db``, so they are read (GraphQL for the document annotations) and saved as judge labels.

    python benchmarks/bench_traces.py [--n 1000] [--url http://127.0.0.1:6006] [--evaluations]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import uuid
from contextlib import redirect_stderr
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "traces"))  # the test helpers, as plain modules

from phoenix_server import phoenix_executable, start_phoenix  # noqa: E402
from trace_log import RagTrace, log_traces  # noqa: E402

from ragviz.cli.main import main  # noqa: E402
from ragviz.data.labels import Change, field_value, toggle_key  # noqa: E402
from ragviz.data.load import load  # noqa: E402
from ragviz.store.label_store import LabelStore  # noqa: E402


def traces(n: int) -> list[RagTrace]:
    return [
        RagTrace(
            f"Question number {i}: what does document {i} say?",
            f"It says fact {i}. It also says fact {i + 1}.",
            (("retrieve", (f"Fact {i} is true. It is documented.", f"Fact {i + 1} holds too.", "Unrelated text.")),),
        )
        for i in range(n)
    ]


def wait_for(url: str, project: str, n: int) -> None:
    import httpx

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        got, cursor = 0, None
        while True:
            params = {"parent_id": "null", "limit": 1000, **({"cursor": cursor} if cursor else {})}
            response = httpx.get(f"{url}/v1/projects/{project}/spans", params=params, timeout=30)
            if response.status_code != 200:
                break
            body = response.json()
            got += len(body["data"])
            cursor = body.get("next_cursor")
            if not cursor:
                break
        if got >= n:
            return
        time.sleep(1)
    raise SystemExit(f"Phoenix did not show {n} traces within 300 s")


def timed(args: list[str]) -> tuple[float, str]:
    err = io.StringIO()
    start = time.perf_counter()
    with redirect_stderr(err):
        code = main(args)
    seconds = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"ragviz {' '.join(args)} exited {code}: {err.getvalue()[-500:]}")
    return seconds, err.getvalue().strip().splitlines()[-1]


def evaluate(url: str, project: str) -> int:
    """Log a hallucination annotation on every root span and a relevance annotation per document of every
    retriever span (kind LLM); how many were logged."""
    import httpx

    spans, cursor = [], None
    while True:
        params = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
        body = httpx.get(f"{url}/v1/projects/{project}/spans", params=params, timeout=60).json()
        spans += body["data"]
        cursor = body.get("next_cursor")
        if not cursor:
            break
    roots = [s["context"]["span_id"] for s in spans if s["parent_id"] is None]
    retrievers = [s["context"]["span_id"] for s in spans if s["span_kind"] == "RETRIEVER"]
    on_spans = [{"name": "hallucination", "annotator_kind": "LLM", "span_id": s, "result": {"label": "factual"}}
                for s in roots]  # fmt: skip
    on_documents = [{"name": "relevance", "annotator_kind": "LLM", "span_id": s, "document_position": p,
                     "result": {"label": "relevant" if p == 0 else "unrelated"}} for s in retrievers for p in range(3)]  # fmt: skip
    for path, items in (("span_annotations", on_spans), ("document_annotations", on_documents)):
        for i in range(0, len(items), 500):
            response = httpx.post(
                f"{url}/v1/{path}", params={"sync": "true"}, json={"data": items[i : i + 500]}, timeout=120
            )
            response.raise_for_status()
    return len(on_spans) + len(on_documents)


def run(url: str, n: int, evaluations: bool = False) -> None:
    project = f"bench-{uuid.uuid4().hex[:8]}"
    start = time.perf_counter()
    log_traces(url, project, traces(n), batch=True)
    wait_for(url, project, n)
    print(f"set-up: {n} traces logged to {project} in {time.perf_counter() - start:.1f} s (not timed)")
    if evaluations:
        print(f"set-up: {evaluate(url, project)} evaluations of kind LLM logged (not timed)")
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.jsonl"
        db = Path(tmp) / "labels.db"
        extra = ["--db", str(db)] if evaluations else []
        seconds, summary = timed(["import", "phoenix", "--url", url, "--project", project, "-o", str(rows), *extra])
        print(f"import phoenix: {n} traces in {seconds:.2f} s (target <= 30 s for 1,000) -- {summary}")
        db = Path(tmp) / "push.db"
        dataset = load([str(rows)]).dataset
        with LabelStore(str(db)) as store:
            store.sources.register(str(rows))
            for i in range(len(dataset)):
                ex = dataset.example(i)
                changes = [
                    Change(name, field_value(ex.labels, name), toggle_key(field_value(ex.labels, name) or [], "0a"))
                    for name in ("relevant_keys", "utilized_keys")
                ]
                store.record(ex.uid, "alice", changes, example=ex)
        push = ["push", "phoenix", "--url", url, "--db", str(db)]
        seconds, summary = timed(push)
        print(
            f"push phoenix: {len(dataset)} reviewed examples in {seconds:.2f} s (target <= 60 s for 1,000) -- {summary}"
        )
        seconds, summary = timed(push)
        print(f"push again: {seconds:.2f} s -- {summary}")
        sides = [json.loads(line)["source_trace"] for line in rows.read_text().splitlines()]
        print(f"rows: {len(sides)}, documents per row: {len(sides[0]['documents'])}")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--url", help="a running Phoenix server (default: start one)")
    parser.add_argument("--evaluations", action="store_true", help="evaluations on every trace, imported with --db")
    args = parser.parse_args()
    if args.url:
        run(args.url, args.n, args.evaluations)
        return
    executable = phoenix_executable()
    if executable is None:
        raise SystemExit("no Phoenix server installed: run scripts/phoenix_venv.sh")
    server = start_phoenix(executable)
    try:
        run(server.url, args.n, args.evaluations)
    finally:
        server.stop()


if __name__ == "__main__":
    cli()
