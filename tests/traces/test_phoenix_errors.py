"""A Phoenix that refuses the key (HTTP 401 / 403), answers with an error page, or names spans it does not have:
each is one line (issue 37, item 6). A local HTTP server on 127.0.0.1 plays the server's refusals exactly as
Phoenix words them (its ``detail`` JSON); the real server's own answers are in test_phoenix_import / _push."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ragviz.cli.main import main
from ragviz.export.traces.phoenix import MissingSpans, log_span_annotations, phoenix_client

SECRET = "phx-secret-key-0d9c"


class Refusing(BaseHTTPRequestHandler):
    status = 401
    seen: list[dict] = []

    def _answer(self) -> None:
        Refusing.seen.append({"path": self.path, "authorization": self.headers.get("authorization")})
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        if self.path.startswith("/v1/span_annotations"):
            ids = ", ".join(a["span_id"] for a in body["data"])
            payload, status = {"detail": f"Spans with IDs {ids} do not exist."}, 404
        elif Refusing.status == 500:
            payload, status = None, 500
        else:
            payload, status = {"detail": "Invalid token"}, Refusing.status
        data = b"<html>Internal Server Error</html>" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "text/html" if payload is None else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Refusing.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_one_line_and_never_printed(refusing, status, tmp_path, capsys, monkeypatch):
    Refusing.status = status
    monkeypatch.setenv("PHOENIX_API_KEY", SECRET)
    out = tmp_path / "rows.jsonl"
    assert main(["import", "phoenix", "--url", refusing, "--project", "p", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"{refusing}: HTTP {status}: Phoenix refused the request (Invalid token); give its API key with --api-key "
        "or $PHOENIX_API_KEY"
    ]
    assert Refusing.seen[0]["authorization"] == f"Bearer {SECRET}"  # sent as the bearer header, printed nowhere
    assert not out.exists()


def test_an_error_page_is_one_line(refusing, tmp_path, capsys):
    Refusing.status = 500
    assert main(["import", "phoenix", "--url", refusing, "--project", "p", "-o", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{refusing}: HTTP 500 from /v1/projects/p/spans: <html>Internal Server Error</html>"]


def test_unknown_spans_are_named(refusing):
    client = phoenix_client(refusing, None)
    annotation = {"name": "ragviz.relevance", "annotator_kind": "HUMAN", "span_id": "abc123", "result": {"score": 1.0}}
    with pytest.raises(MissingSpans) as raised:
        log_span_annotations(client, [annotation])
    assert raised.value.span_ids == {"abc123"}


def test_existing_evaluations_are_shown_escaped():
    from ragviz.ui.phoenix import evaluations_html

    html = evaluations_html(
        [
            {"name": "hallucination", "label": "<b>factual</b>", "score": 1.0, "explanation": "x & y"},
            {"name": "relevance", "label": "relevant", "score": None, "explanation": None, "document_position": 2},
        ]
    )
    assert "<b>hallucination</b>: &lt;b&gt;factual&lt;/b&gt; (1) — x &amp; y" in html
    assert "<b>relevance</b> (document 2): relevant</li>" in html
    assert "every sentence of a relevant document is relevant" in html


class NotPhoenix(BaseHTTPRequestHandler):
    """Status 200 with what Phoenix never answers: a login page, or spans of another shape."""

    body: tuple[str, bytes] = ("text/html", b"<html>Sign in</html>")

    def do_GET(self) -> None:
        kind, data = NotPhoenix.body
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _spans(*records: dict) -> tuple[str, bytes]:
    return "application/json", json.dumps({"data": list(records), "next_cursor": None}).encode()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (("text/html", b"<html>Sign in</html>"),
         "GET /v1/projects/p/spans answered text/html, not Phoenix's JSON ('<html>Sign in</html>')"),
        (_spans({"context": {}}), "a root span (1 of a page) has no 'trace_id'"),
        (_spans({"context": {"trace_id": "t1", "span_id": "s1"}, "attributes": "x"}),
         "a span (1 of a page) is not of Phoenix's shape: attributes: expected an object, got a string"),
    ],
)  # fmt: skip
def test_an_answer_that_is_not_phoenixs_is_one_line(body, problem, tmp_path, capsys):
    """A 200 answer that is not Phoenix's JSON (a proxy's login page at --url) raised JSONDecodeError, KeyError or
    ValueError out of ragviz import phoenix: a traceback."""
    NotPhoenix.body = body
    server = ThreadingHTTPServer(("127.0.0.1", 0), NotPhoenix)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        out = tmp_path / "rows.jsonl"
        assert main(["import", "phoenix", "--url", url, "--project", "p", "-o", str(out)]) == 2
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert "Traceback" not in err and not out.exists()
    assert err.strip().splitlines()[-1] == f"{url}: {problem}: is this Phoenix's address?"  # on a line of its own
