"""A small forward proxy on 127.0.0.1 for judge tests: what ``HTTP_PROXY`` / ``HTTPS_PROXY`` point at.

Plain-HTTP requests arrive in absolute form (``POST http://127.0.0.1:PORT/v1/... HTTP/1.1``) and are
forwarded to their target; ``CONNECT host:port`` opens a tunnel (how HTTPS goes through a proxy). It
forwards only to loopback addresses. Every request line is recorded in ``seen``.
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.servers import LocalHTTPServer

_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "upgrade"}


class ForwardProxy(LocalHTTPServer):
    def __init__(self) -> None:
        self.seen: list[str] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "proxy not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> ForwardProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _record(self) -> None:
                with proxy._lock:
                    proxy.seen.append(f"{self.command} {self.path}")

            def do_CONNECT(self) -> None:
                self._record()
                host, _, port = self.path.rpartition(":")
                if host not in ("127.0.0.1", "localhost"):
                    self.send_error(403)
                    return
                upstream = socket.create_connection((host, int(port)), timeout=30)
                self.send_response(200, "Connection established")
                self.end_headers()
                self.wfile.flush()
                conns = [self.connection, upstream]
                try:
                    while True:
                        readable, _, broken = select.select(conns, [], conns, 30)
                        if broken or not readable:
                            return
                        for conn in readable:
                            data = conn.recv(65536)
                            if not data:
                                return
                            (upstream if conn is self.connection else self.connection).sendall(data)
                except OSError:
                    return
                finally:
                    upstream.close()
                    self.close_connection = True

            def _forward(self) -> None:
                self._record()
                target = urlsplit(self.path)
                if target.scheme != "http" or target.hostname not in ("127.0.0.1", "localhost"):
                    self.send_error(403)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=60)
                try:
                    path = target.path + (f"?{target.query}" if target.query else "")
                    conn.request(self.command, path, body=body, headers=headers)
                    answer = conn.getresponse()
                    data = answer.read()
                finally:
                    conn.close()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in _HOP_BY_HOP | {"content-length", "transfer-encoding"}:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _forward

        self._serve(ThreadingHTTPServer(("127.0.0.1", 0), Handler))
        return self
