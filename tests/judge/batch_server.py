"""A Batch API server on 127.0.0.1 for the batch judge's tests: ``/v1/files`` and ``/v1/batches``.

Speaks enough for the real ``openai`` client: upload (multipart), list, retrieve and download files;
create, list, retrieve and cancel batches. A batch moves validating -> in_progress -> finalizing -> its
``outcome`` (completed, failed, expired; cancelled after a cancel), one step every ``step_seconds``.
When it finishes, each request line is answered by the chat stub (:class:`tests.openai_stub_server.StubServer`,
the same answers live calls get, its ``script`` included): HTTP 200 answers go to the output file, others to
the error file. ``answer_limit`` answers only the first N lines (an expired or cancelled batch's unfinished
lines go to the error file as OpenAI writes them). ``mangle`` rewrites an output file's bytes (bad-input tests).
``hold`` names steps where a request stops until :meth:`release` (``"batches.list"``, ``"batches.create"``:
after the batch exists, before the answer; ``"content"``: after half the file is sent) and sets
``reached[step]``, so a test can SIGKILL the client right there.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.openai_stub_server import StubServer
from tests.servers import LocalHTTPServer

FINAL = ("completed", "failed", "expired", "cancelled")


@dataclass
class BatchServer(LocalHTTPServer):
    step_seconds: float = 0.0
    outcome: str = "completed"
    answer_limit: int | None = None
    mangle: Callable[[bytes], bytes] | None = None
    hold: set[str] = field(default_factory=set)
    chat: StubServer = field(default_factory=StubServer)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    answered: list[str] = field(default_factory=list)  # custom_id of every request line the server answered
    uploads: int = 0
    azure_batch: bool = True  # False: /openai/files and /openai/batches answer 404 (a deployment without batch)

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._httpd: ThreadingHTTPServer | None = None
        self.reached: dict[str, threading.Event] = {}
        self._release = threading.Event()

    # -- holding a request where a test kills the client ------------------------------------------
    def _hold(self, step: str) -> None:
        if step in self.hold:
            self.reached.setdefault(step, threading.Event()).set()
            self._release.wait(30)

    def wait_reached(self, step: str, timeout: float = 30) -> bool:
        return self.reached.setdefault(step, threading.Event()).wait(timeout)

    def release(self) -> None:
        self.hold.clear()
        self._release.set()

    # -- files and batches --------------------------------------------------------------------------
    def _file(self, content: bytes, filename: str, purpose: str) -> dict[str, Any]:
        with self._lock:
            fid = f"file-{len(self.files) + 1:05d}"
            self.files[fid] = {
                "id": fid,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": purpose,
                "status": "processed",
                "_content": content,
            }
            return self.files[fid]

    def _advance(self, batch: dict[str, Any]) -> None:
        if batch["status"] in FINAL:
            return
        if batch["status"] == "cancelling":
            self._finish(batch, "cancelled")
            return
        steps = int((time.time() - batch["_started"]) / self.step_seconds) if self.step_seconds else 3
        if steps >= 3:
            self._finish(batch, self.outcome)
        else:
            batch["status"] = ("validating", "in_progress", "finalizing")[steps]

    def _finish(self, batch: dict[str, Any], status: str) -> None:
        batch["status"] = status
        now = int(time.time())
        batch[f"{status}_at"] = now
        if status == "failed":
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid_request", "message": "stub: refused", "line": 1}],
            }
            return
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]]["_content"].splitlines() if x.strip()]
        limit = len(lines) if status == "completed" else (self.answer_limit or 0)
        out, err = [], []
        for n, item in enumerate(lines):
            if n >= limit:
                code = "batch_expired" if status == "expired" else "batch_cancelled"
                err.append(
                    {
                        "id": f"batch_req_{n}",
                        "custom_id": item["custom_id"],
                        "response": None,
                        "error": {"code": code, "message": f"stub: {status} before this request ran"},
                    }
                )
                continue
            status_code, _, payload, _ = self.chat.answer(item["body"], "Bearer batch")
            self.answered.append(item["custom_id"])
            entry = {
                "id": f"batch_req_{n}",
                "custom_id": item["custom_id"],
                "response": {"status_code": status_code, "request_id": f"req_{n}", "body": payload},
                "error": None,
            }
            (out if status_code == 200 else err).append(entry)
        completed = sum(1 for _ in out)
        batch["request_counts"] = {"total": len(lines), "completed": completed, "failed": len(lines) - completed}
        if out:
            data = b"".join(json.dumps(e).encode() + b"\n" for e in out)
            if self.mangle is not None:
                data = self.mangle(data)
            batch["output_file_id"] = self._file(data, "batch_output.jsonl", "batch_output")["id"]
        if err:
            data = b"".join(json.dumps(e).encode() + b"\n" for e in err)
            batch["error_file_id"] = self._file(data, "batch_errors.jsonl", "batch_output")["id"]

    def _public(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if not k.startswith("_")}

    # -- HTTP -----------------------------------------------------------------------------------------
    def start(self) -> BatchServer:
        srv = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _refused(self) -> bool:
                if not srv.azure_batch and self.path.startswith("/openai/") and "/chat/" not in self.path:
                    self._send(404, {"error": {"code": "404", "message": "Resource not found"}})
                    return True
                return False

            def do_GET(self) -> None:
                if self._refused():
                    return
                parts = urlsplit(self.path)
                path = parts.path.removeprefix("/v1").removeprefix("/openai")
                query = parse_qs(parts.query)
                with srv._lock:
                    if path == "/files":
                        purpose = (query.get("purpose") or [None])[0]
                        data = [srv._public(f) for f in srv.files.values() if purpose in (None, f["purpose"])]
                        payload: Any = {"object": "list", "data": data[::-1], "has_more": False}
                    elif path.startswith("/files/") and path.endswith("/content"):
                        f = srv.files.get(path.split("/")[2])
                        if f is None:
                            return self._send(404, {"error": {"message": "no such file"}})
                        content = f["_content"]
                        if "content" in srv.hold:
                            half = len(content) // 2
                            self.send_response(200)
                            self.send_header("Content-Type", "application/octet-stream")
                            self.send_header("Content-Length", str(len(content)))
                            self.end_headers()
                            self.wfile.write(content[:half])
                            self.wfile.flush()
                            srv._lock.release()
                            try:
                                srv._hold("content")
                            finally:
                                srv._lock.acquire()
                            self.wfile.write(content[half:])
                            return
                        return self._send(200, content)
                    elif path.startswith("/files/"):
                        f = srv.files.get(path.split("/")[2])
                        payload = srv._public(f) if f else None
                    elif path == "/batches":
                        for b in srv.batches.values():
                            srv._advance(b)
                        data = [srv._public(b) for b in sorted(srv.batches.values(), key=lambda b: -b["_order"])]
                        payload = {
                            "object": "list",
                            "data": data,
                            "has_more": False,
                            "first_id": data[0]["id"] if data else None,
                            "last_id": data[-1]["id"] if data else None,
                        }
                    elif path.startswith("/batches/"):
                        b = srv.batches.get(path.split("/")[2])
                        if b is not None:
                            srv._advance(b)
                        payload = srv._public(b) if b else None
                    else:
                        payload = None
                if path == "/batches" and "batches.list" in srv.hold:
                    srv._hold("batches.list")
                self._send(
                    200 if payload is not None else 404,
                    payload if payload is not None else {"error": {"message": "not found"}},
                )

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self._refused():
                    return
                path = urlsplit(self.path).path.removeprefix("/v1").removeprefix("/openai")
                if path == "/chat/completions":  # live calls (the format probe, --retry-failed live)
                    status, _, payload, _ = srv.chat.answer(json.loads(raw), self.headers.get("Authorization", ""))
                    return self._send(status, payload)
                if path == "/files":
                    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                        b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + raw
                    )
                    fields: dict[str, Any] = {}
                    for part in message.iter_parts():
                        name = part.get_param("name", header="content-disposition")
                        fields[name] = (part.get_filename(), part.get_payload(decode=True))
                    with srv._lock:
                        srv.uploads += 1
                        f = srv._file(fields["file"][1], fields["file"][0], fields["purpose"][1].decode())
                    return self._send(200, srv._public(f))
                if path == "/batches":
                    body = json.loads(raw)
                    with srv._lock:
                        if body.get("input_file_id") not in srv.files:
                            return self._send(
                                400, {"error": {"message": "input_file_id: no such file", "param": "input_file_id"}}
                            )
                        bid = f"batch_{len(srv.batches) + 1:05d}"
                        now = time.time()
                        srv.batches[bid] = {
                            "id": bid,
                            "object": "batch",
                            "endpoint": body["endpoint"],
                            "errors": None,
                            "input_file_id": body["input_file_id"],
                            "completion_window": body["completion_window"],
                            "status": "validating",
                            "output_file_id": None,
                            "error_file_id": None,
                            "created_at": int(now),
                            "expires_at": int(now) + 86400,
                            "metadata": body.get("metadata"),
                            "request_counts": {"total": 0, "completed": 0, "failed": 0},
                            "_started": now,
                            "_order": len(srv.batches),
                        }
                        payload = srv._public(srv.batches[bid])
                    srv._hold("batches.create")
                    return self._send(200, payload)
                if path.startswith("/batches/") and path.endswith("/cancel"):
                    with srv._lock:
                        b = srv.batches.get(path.split("/")[2])
                        if b is None:
                            return self._send(404, {"error": {"message": "no such batch"}})
                        if b["status"] not in FINAL:
                            b["status"] = "cancelling"
                        return self._send(200, srv._public(b))
                self._send(404, {"error": {"message": "not found"}})

        self._serve(ThreadingHTTPServer(("127.0.0.1", 0), Handler))
        return self

    def stop(self) -> None:
        self._release.set()
        super().stop()

    @property
    def root_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"
