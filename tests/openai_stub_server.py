"""A scripted chat-completions server on 127.0.0.1 for judge tests and the judge benchmark.

It speaks enough of ``POST /v1/chat/completions`` for the real ``openai`` client. By default it
answers every request with valid RAGBench labels computed from the keyed sentences in the prompt.
A *script* maps a question (exact text) to a list of steps consumed one per request for that
question; when the list is used up the answer is valid again. Steps:

``"valid"``, ``"malformed"`` (not JSON), ``"bad_keys"`` (keys naming no sentence),
``"missing_sentence"`` (no support entry for the last response sentence), ``"prose"`` (valid JSON
wrapped in prose and a code fence), ``"429:<seconds>"`` (rate limited with ``Retry-After``),
``"500"``, ``"html"`` (an HTML page with status 200), ``"other_json"`` (JSON that is not a chat completion, status 200), ``"401"`` (echoes the key in the error, as the real API does), ``"slow:<seconds>"`` (answers validly after the delay), ``"huge:<characters>"`` (an answer that long, not JSON), ``"deep"`` (an answer nested past Python's recursion limit),
``"deep_json"`` (a body nested so, status 200).

``marker`` set (a word): context sentences whose text holds the marker are labelled not relevant and not
utilized (a mistake) unless the system message shows a few-shot example holding the marker (after ragviz's
"Worked example" heading); then they are labelled relevant and utilized (what people say in the judge-version
tests). So a judge version's gain comes from ragviz's own prompt building, never from the test.

``vary`` set: the answers to requests with a temperature above 0 vary: the 1st, 3rd, 5th, ... such request for a
question labels only the first context sentence relevant and the first response sentence unsupported; the 2nd,
4th, ... answer as usual (what ``ragviz label --samples N`` measures the judge's confidence from).

``n_mode`` says what a request with ``n`` > 1 gets: ``"honour"`` (default: n choices, each answered as a request
of its own would be, so ``vary`` counts each choice; usage counts the prompt once and every choice's completion),
``"ignore"`` (one choice, as servers without ``n`` do) or ``"refuse"`` (HTTP 400 with ``"param": "n"``). A script
step that spoils the answer (``malformed``, ``bad_keys``, ...) spoils the first choice only.

A request with ``"logprobs": true`` gets ``choices[i].logprobs.content``: the answer cut into tokens (JSON
punctuation, separators and literals whole; a string as its quote with its first character, then pieces of up to
4 characters, then the closing quote), each ``{"token", "logprob", "bytes", "top_logprobs"}``. A token has
probability 1 unless ``token_probs`` names it: ``"<field>:<key>"`` (the first token of a listed key in
``all_relevant_sentence_keys`` / ``all_utilized_sentence_keys``), ``"<field>:]"`` (the list's closing bracket),
``"fully_supported:<response key>"`` (the verdict literal); a token with probability p < 1 lists, after itself,
one alternative with probability 1 - p (the other verdict; ``]`` after a key, ``,`` after a bracket), up to
``top_logprobs`` entries. ``logprobs_mode="none"`` answers ``"logprobs": null`` (servers without logprobs), ``"refuse"`` refuses a request asking
for them with HTTP 400 and ``"param": "logprobs"``.

``reject_formats`` lists ``response_format`` types the server refuses with HTTP 400 (like servers
without structured output). Like OpenAI's API, a request that sets ``temperature`` for a reasoning
model (o1, o3, o4-mini, gpt-5*, and the names in ``reasoning_models``) is refused with HTTP 400 and
``"param": "temperature"``. Besides ``POST /v1/chat/completions`` (``Authorization: Bearer``) it serves
Azure OpenAI's ``POST /openai/deployments/{name}/chat/completions?api-version=...`` (key in the
``api-key`` header; the request's ``model`` is the deployment's); any other path is a 404. ``latency`` is the time from a request's headers being read to its
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

from tests.servers import LocalHTTPServer

_CONTEXT_LINE = re.compile(r"^(\d+[a-z]+)\. ", re.MULTILINE)
_RESPONSE_LINE = re.compile(r"^([a-z]+)\. ", re.MULTILINE)
_REASONING = re.compile(r"^(o\d+(-[\w.-]+)?|gpt-5[\w.-]*)$")
_AZURE_PATH = re.compile(r"^/openai/deployments/([^/?]+)/chat/completions\?(?:.*&)?api-version=([^&]+)")


_KEYED_LINE = re.compile(r"^(\d+[a-z]+)\. (.*)$", re.MULTILINE)


def marker_learned(system: str, marker: str) -> bool:
    """Whether *system* shows a few-shot example holding *marker*."""
    _, found, shots = system.partition("Worked example")
    return bool(found) and marker in shots


def apply_marker(answer: dict[str, Any], user_text: str, marker: str, *, learned: bool) -> None:
    """Label the context sentences holding *marker* relevant and utilized when *learned*, else neither."""
    docs = user_text.split("<documents>", 1)[-1].split("</documents>", 1)[0]
    marked = [key for key, text in _KEYED_LINE.findall(docs) if marker in text]
    for field_name in ("all_relevant_sentence_keys", "all_utilized_sentence_keys"):
        kept = [k for k in answer[field_name] if k not in marked]
        answer[field_name] = kept + (marked if learned else [])


@dataclass
class RecordedRequest:
    time: float
    question: str
    body: dict[str, Any]
    authorization: str
    status: int = 0
    path: str = ""  # the request target, query included
    api_key: str = ""  # the `api-key` header (Azure)


def vary_answer(answer: dict[str, Any]) -> None:
    """The varied answer of ``vary``: only the first context sentence relevant, the first response sentence
    unsupported."""
    answer["all_relevant_sentence_keys"] = answer["all_relevant_sentence_keys"][:1]
    support = answer["sentence_support_information"]
    if support:
        support[0] = {**support[0], "supporting_sentence_keys": [], "fully_supported": False}
    answer["overall_supported"] = all(s["fully_supported"] for s in support)


def prompt_parts(user_text: str) -> tuple[str, list[str], list[str]]:
    """(question, context keys, response keys) read back from a ragviz judge prompt."""
    question = user_text.split("\n", 2)[1] if user_text.startswith("Question:\n") else ""
    docs = user_text.split("<documents>", 1)[-1].split("</documents>", 1)[0]
    response = user_text.split("<response>", 1)[-1].split("</response>", 1)[0]
    return question, _CONTEXT_LINE.findall(docs), _RESPONSE_LINE.findall(response)


def is_format_probe(body: dict[str, Any]) -> bool:
    """Whether *body* is ragviz's response-format probe (ragviz.judge.probe), not a judge call."""
    from ragviz.judge.probe import PROBE_MESSAGES

    return body.get("messages") == PROBE_MESSAGES


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


_LIST_FIELDS = ("all_relevant_sentence_keys", "all_utilized_sentence_keys")


def _string_tokens(text: str, tag: str = "") -> list[tuple[str, str]]:
    """A JSON string as tokens: the quote with the first character, pieces of up to 4 characters, the quote."""
    inner = json.dumps(text)[1:-1]
    if not inner:
        return [('""', tag)]
    pieces = [('"' + inner[0], tag)] + [(inner[i : i + 4], "") for i in range(1, len(inner), 4)]
    return pieces + [('"', "")]


def _value_tokens(value: Any, field_name: str, support_key: str) -> list[tuple[str, str]]:
    if isinstance(value, bool):
        return [(json.dumps(value), f"fully_supported:{support_key}" if field_name == "fully_supported" else "")]
    if isinstance(value, str):
        return _string_tokens(value)
    if isinstance(value, list):
        tokens: list[tuple[str, str]] = [("[", "")]
        for n, item in enumerate(value):
            if n:
                tokens.append((", ", ""))
            if isinstance(item, str):
                tokens += _string_tokens(item, f"{field_name}:{item}" if field_name in _LIST_FIELDS else "")
            else:
                tokens += _value_tokens(item, field_name, support_key)
        return tokens + [("]", f"{field_name}:]" if field_name in _LIST_FIELDS else "")]
    if isinstance(value, dict):
        tokens = [("{", "")]
        key_here = str(value.get("response_sentence_key", support_key))
        for n, (name, item) in enumerate(value.items()):
            tokens += ([(", ", "")] if n else []) + _string_tokens(name) + [(": ", "")]
            tokens += _value_tokens(item, name, key_here)
        return tokens + [("}", "")]
    return [(json.dumps(value), "")]


def answer_tokens(answer: dict[str, Any]) -> list[tuple[str, str]]:
    """*answer* serialized as ``json.dumps`` does, cut into (token, tag) pieces (see the module docstring)."""
    return _value_tokens(answer, "", "")


_OTHER = {"true": "false", "false": "true", "]": ","}


def token_logprobs(tokens: list[tuple[str, str]], probs: dict[str, float], top: Any) -> list[dict[str, Any]]:
    """OpenAI's ``logprobs.content`` for *tokens*: each tagged token's probability from *probs* (else 1)."""
    import math

    k = top if isinstance(top, int) else 0
    out = []
    for token, tag in tokens:
        p = probs.get(tag, 1.0) if tag else 1.0
        logprob = math.log(p) if p > 0 else -9999.0
        alternatives = [{"token": token, "logprob": logprob, "bytes": list(token.encode())}]
        if p < 1:
            other = _OTHER.get(token, "]")
            alternatives.append({"token": other, "logprob": math.log(1 - p), "bytes": list(other.encode())})
        out.append(
            {"token": token, "logprob": logprob, "bytes": list(token.encode()), "top_logprobs": alternatives[:k]}
        )
    return out


@dataclass
class StubServer(LocalHTTPServer):
    script: dict[str, list[str]] = field(default_factory=dict)
    latency: float = 0.0
    reject_formats: tuple[str, ...] = ()
    reasoning_models: tuple[str, ...] = ()  # more model names that refuse `temperature`
    requests: list[RecordedRequest] = field(default_factory=list)
    # Sum over answered POSTs of the time from headers read to answer written (the "wait" a client sees).
    held_seconds: float = 0.0
    # The most POSTs this server held at one time (a client's concurrency as the server saw it).
    max_in_flight: int = 0
    # Serve HTTPS with this context (ssl.SSLContext, server side) instead of plain HTTP.
    ssl_context: Any = None
    marker: str = ""  # see the module docstring
    vary: bool = False  # see the module docstring
    n_mode: str = "honour"  # see the module docstring: "honour", "ignore" or "refuse"
    logprobs_mode: str = "honour"  # see the module docstring: "honour", "none" or "refuse"
    token_probs: dict[str, float] = field(default_factory=dict)  # see the module docstring

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._warm: dict[str, int] = {}  # question -> requests with a temperature above 0 so far
        self._httpd = None

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
                with stub._lock:
                    stub._in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub._in_flight)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                azure = _AZURE_PATH.match(self.path)
                if azure is None and self.path.split("?")[0] != "/v1/chat/completions":
                    status, headers, payload, delay = 404, {}, {"error": {"message": "not found"}}, 0.0
                else:
                    if azure is not None:
                        body = {**body, "model": azure.group(1)}  # Azure serves the deployment's model
                    status, headers, payload, delay = stub.answer(
                        body,
                        self.headers.get("Authorization", ""),
                        path=self.path,
                        api_key=self.headers.get("api-key", ""),
                    )
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
                    stub._in_flight -= 1

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default backlog of 5 drops bursts of connections (1 s SYN retry)

        httpd = Server(("127.0.0.1", 0), Handler)
        if self.ssl_context is not None:
            httpd.socket = self.ssl_context.wrap_socket(httpd.socket, server_side=True)
        httpd.block_on_close = False
        self._serve(httpd)
        return self

    @property
    def root_url(self) -> str:
        """``http(s)://127.0.0.1:PORT`` (an Azure OpenAI endpoint's shape)."""
        assert self._httpd is not None, "server not started"
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def calls(self) -> list[RecordedRequest]:
        """The requests that judged an example (not ``--response-format auto``'s format probes)."""
        with self._lock:
            return [r for r in self.requests if not is_format_probe(r.body)]

    def requests_for(self, question: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.question == question]

    # -- answering ----------------------------------------------------------------------------
    def answer(
        self, body: dict[str, Any], authorization: str, *, path: str = "", api_key: str = ""
    ) -> tuple[int, dict[str, str], Any, float]:
        messages = body.get("messages") or []
        user_text = next((m.get("content", "") for m in messages if m.get("role") == "user"), "")
        question, context_keys, response_keys = prompt_parts(user_text)
        record = RecordedRequest(time.monotonic(), question, body, authorization, path=path, api_key=api_key)
        with self._lock:
            self.requests.append(record)
            steps = self.script.get(question)
            step = steps.pop(0) if steps else "valid"
        model = str(body.get("model", ""))
        if "temperature" in body and (_REASONING.match(model) or model in self.reasoning_models):
            record.status = 400
            return (
                400,
                {},
                {
                    "error": {
                        "message": f"Unsupported value: 'temperature' does not support {body['temperature']} with "
                        "this model. Only the default (1) value is supported.",
                        "type": "invalid_request_error",
                        "param": "temperature",
                        "code": "unsupported_value",
                    }
                },
                0.0,
            )
        n_asked = body.get("n") if isinstance(body.get("n"), int) else 1
        if body.get("logprobs") and self.logprobs_mode == "refuse":
            record.status = 400
            error = {"message": "logprobs are not supported by this model", "param": "logprobs"}
            return 400, {}, {"error": {**error, "type": "invalid_request_error"}}, 0.0
        if n_asked > 1 and self.n_mode == "refuse":
            record.status = 400
            return (
                400,
                {},
                {
                    "error": {
                        "message": "Unsupported value: 'n' must be 1 for this model.",
                        "type": "invalid_request_error",
                        "param": "n",
                        "code": "unsupported_value",
                    }
                },
                0.0,
            )
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
        if kind == "deep_json":  # JSON nested past Python's recursion limit
            record.status = 200
            return 200, {"Content-Type": "application/json"}, "[" * 100_000 + "]" * 100_000, 0.0
        delay = self.latency + (float(arg) if kind == "slow" else 0.0)
        n_choices = n_asked if self.n_mode == "honour" else 1
        choices = []
        for index in range(n_choices):
            content, tokens = self._content(kind if index == 0 else "valid", arg, body, question, user_text)
            choice: dict[str, Any] = {
                "index": index,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
            }
            if body.get("logprobs") and self.logprobs_mode == "honour":
                choice["logprobs"] = {"content": token_logprobs(tokens, self.token_probs, body.get("top_logprobs"))}
            choices.append(choice)
        record.status = 200
        prompt_chars = sum(len(m.get("content", "")) for m in messages)
        completion_chars = sum(len(c["message"]["content"]) // 4 for c in choices)
        payload = {
            "id": f"chatcmpl-stub-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": completion_chars,
                "total_tokens": prompt_chars // 4 + completion_chars,
            },
        }
        return 200, {}, payload, delay

    def _content(
        self, kind: str, arg: str, body: dict[str, Any], question: str, user_text: str
    ) -> tuple[str, list[tuple[str, str]]]:
        """One choice's answer text and its (token, tag) pieces (one piece, untagged, when it is not JSON)."""
        messages = body.get("messages") or []
        _, context_keys, response_keys = prompt_parts(user_text)
        answer = valid_answer(context_keys, response_keys)
        if self.marker:
            system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
            apply_marker(answer, user_text, self.marker, learned=marker_learned(system, self.marker))
        if self.vary and float(body.get("temperature") or 0) > 0:
            with self._lock:
                self._warm[question] = nth = self._warm.get(question, 0) + 1
            if nth % 2 == 1:
                vary_answer(answer)
        if kind == "huge":  # an answer of <arg> characters (not valid JSON)
            content = "x" * int(arg or 10_000_000)
        elif kind == "deep":  # an answer nested past Python's recursion limit
            content = "[" * 100_000 + "]" * 100_000
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
        elif body.get("logprobs"):
            tokens = answer_tokens(answer)
            return "".join(t for t, _ in tokens), tokens
        else:
            content = json.dumps(answer)
        return content, [(content, "")]


def main() -> None:
    """``python -m tests.openai_stub_server --latency 0.1``: serve until killed; prints the base URL.
    ``GET /stats`` returns ``{"requests": N, "cpu_seconds": server process CPU, "held_seconds": sum of
    the time each POST was held}`` (used by the benchmark, which runs the server in its
    own process so the server's threads do not compete with the client for the GIL)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--marker", default="", help="see StubServer.marker")
    args = parser.parse_args()
    stub = StubServer(latency=args.latency, marker=args.marker).start()
    print(stub.base_url, flush=True)
    try:
        sys.stdin.read()  # serve until the parent closes our stdin
    finally:
        stub.stop()


if __name__ == "__main__":
    main()
