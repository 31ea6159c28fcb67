"""A scripted chat-completions server on 127.0.0.1 for judge tests and the judge benchmark.

It speaks enough of ``POST /v1/chat/completions`` for the real ``openai`` client. By default it
answers every request with valid RAGBench labels computed from the keyed sentences in the prompt.
A *script* maps a question (exact text) to a list of steps consumed one per request for that
question; when the list is used up the answer is valid again. Steps:

``"valid"``, ``"malformed"`` (not JSON), ``"bad_keys"`` (keys naming no sentence),
``"missing_sentence"`` (no support entry for the last response sentence), ``"prose"`` (valid JSON
wrapped in prose and a code fence), ``"429:<seconds>"`` (rate limited with ``Retry-After``),
``"500"``, ``"html"`` (an HTML page with status 200), ``"other_json"`` (JSON that is not a chat completion, status 200), ``"401"`` (echoes the key in the error, as the real API does), ``"slow:<seconds>"`` (answers validly after the delay), ``"huge:<characters>"`` (an answer that long, not JSON).

``reject_formats`` lists ``response_format`` types the server refuses with HTTP 400 (like servers
without structured output). ``latency`` is the time from a request's headers being read to its
answer being sent: the stub's own work (parsing the prompt, building the labels) happens inside
that time, like a real server's, instead of on top of it. Every request is recorded.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CONTEXT_LINE = re.compile(r"^(\d+[a-z]+)\. ", re.MULTILINE)
_RESPONSE_LINE = re.compile(r"^([a-z]+)\. ", re.MULTILINE)


@dataclass
class RecordedRequest:
    time: float
    question: str
    body: dict[str, Any]
    authorization: str
    status: int = 0


def prompt_parts(user_text: str) -> tuple[str, list[str], list[str]]:
    """(question, context keys, response keys) read back from a ragviz judge prompt."""
    question = user_text.split("\n", 2)[1] if user_text.startswith("Question:\n") else ""
    docs = user_text.split("<documents>", 1)[-1].split("</documents>", 1)[0]
    response = user_text.split("<response>", 1)[-1].split("</response>", 1)[0]
    return question, _CONTEXT_LINE.findall(docs), _RESPONSE_LINE.findall(response)


def valid_answer(context_keys: list[str], response_keys: list[str]) -> dict[str, Any]:
    """Deterministic labels: the first two context sentences relevant, the first one utilized and
    supporting every response sentence; the last response sentence unsupported when there are 3+."""
    relevant = context_keys[:2]
    utilized = context_keys[:1]
    support = []
    for n, key in enumerate(response_keys):
        unsupported = len(response_keys) >= 3 and n == len(response_keys) - 1
        support.append(
            {
                "response_sentence_key": key,
                "explanation": f"stub explanation for {key}",
                "supporting_sentence_keys": [] if unsupported else utilized,
                "fully_supported": not unsupported,
            }
        )
    return {
        "relevance_explanation": "stub: the first sentences answer the question",
        "all_relevant_sentence_keys": relevant,
        "overall_supported_explanation": "stub overall",
        "overall_supported": all(s["fully_supported"] for s in support),
        "sentence_support_information": support,
        "all_utilized_sentence_keys": utilized,
    }


@dataclass
class StubServer:
    script: dict[str, list[str]] = field(default_factory=dict)
    latency: float = 0.0
    reject_formats: tuple[str, ...] = ()
    requests: list[RecordedRequest] = field(default_factory=list)
    # Sum over answered POSTs of the time from headers read to answer written (the "wait" a client sees).
    held_seconds: float = 0.0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> StubServer:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as real servers do; else delayed ACKs add 40 ms per call
            wbufsize = 1 << 16  # status line, headers and body leave in one write (one TCP segment), as real servers do

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                with stub._lock:
                    data = json.dumps(
                        {
                            "requests": len(stub.requests),
                            "cpu_seconds": time.process_time(),
                            "held_seconds": stub.held_seconds,
                        }
                    ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, headers, payload, delay = stub.answer(body, self.headers.get("Authorization", ""))
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                if delay:
                    time.sleep(max(0.0, arrived + delay - time.monotonic()))
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    if "Content-Type" not in headers:
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away
                with stub._lock:
                    stub.held_seconds += time.monotonic() - arrived

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default backlog of 5 drops bursts of connections (1 s SYN retry)

        httpd = Server(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def requests_for(self, question: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.question == question]

    # -- answering ----------------------------------------------------------------------------
    def answer(self, body: dict[str, Any], authorization: str) -> tuple[int, dict[str, str], Any, float]:
        messages = body.get("messages") or []
        user_text = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
        question, context_keys, response_keys = prompt_parts(user_text)
        record = RecordedRequest(time.monotonic(), question, body, authorization)
        with self._lock:
            self.requests.append(record)
            steps = self.script.get(question)
            step = steps.pop(0) if steps else "valid"
        fmt = (body.get("response_format") or {}).get("type")
        if fmt in self.reject_formats:
            record.status = 400
            return (
                400,
                {},
                {
                    "error": {
                        "message": f"response_format type {fmt!r} is not supported",
                        "type": "invalid_request_error",
                    }
                },
                0.0,
            )
        kind, _, arg = step.partition(":")
        if kind == "429":
            record.status = 429
            return 429, {"Retry-After": arg or "1"}, {"error": {"message": "rate limited", "type": "rate_limit"}}, 0.0
        if kind == "401":  # like the real API: the rejected key is echoed in the message
            record.status = 401
            token = authorization.removeprefix("Bearer ")
            return (
                401,
                {},
                {"error": {"message": f"Incorrect API key provided: {token}", "type": "invalid_request_error"}},
                0.0,
            )
        if kind == "500":
            record.status = 500
            return 500, {}, {"error": {"message": "internal error", "type": "server_error"}}, 0.0
        if kind == "other_json":  # another API's answer
            record.status = 200
            return 200, {}, {"object": "list", "data": []}, 0.0
        if kind == "html":  # a proxy's error page with status 200
            record.status = 200
            return 200, {"Content-Type": "text/html"}, "<html><body>Bad gateway</body></html>", 0.0
        delay = self.latency + (float(arg) if kind == "slow" else 0.0)
        answer = valid_answer(context_keys, response_keys)
        if kind == "huge":  # an answer of <arg> characters (not valid JSON)
            content = "x" * int(arg or 10_000_000)
        elif kind == "malformed":
            content = '{"relevance_explanation": "cut off", "all_relevant_sentence_keys": ["0a",'
        elif kind == "bad_keys":
            answer["all_relevant_sentence_keys"] = answer["all_relevant_sentence_keys"] + ["9zz"]
            answer["sentence_support_information"][0]["supporting_sentence_keys"] = ["7q"]
            content = json.dumps(answer)
        elif kind == "missing_sentence":
            answer["sentence_support_information"] = answer["sentence_support_information"][:-1]
            content = json.dumps(answer)
        elif kind == "prose":
            content = "Here are the labels:\n```json\n" + json.dumps(answer, indent=1) + "\n```\nDone."
        else:
            content = json.dumps(answer)
        record.status = 200
        prompt_chars = sum(len(m.get("content", "")) for m in messages)
        payload = {
            "id": f"chatcmpl-stub-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt_chars // 4 + len(content) // 4,
            },
        }
        return 200, {}, payload, delay


def main() -> None:
    """``python -m tests.openai_stub_server --latency 0.1``: serve until killed; prints the base URL.
    ``GET /stats`` returns ``{"requests": N, "cpu_seconds": server process CPU, "held_seconds": sum of
    the time each POST was held}`` (used by the benchmark, which runs the server in its
    own process so the server's threads do not compete with the client for the GIL)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    stub = StubServer(latency=args.latency).start()
    print(stub.base_url, flush=True)
    try:
        sys.stdin.read()  # serve until the parent closes our stdin
    finally:
        stub.stop()


if __name__ == "__main__":
    main()
