"""The test HTTP servers' one lifecycle: a ``ThreadingHTTPServer`` on 127.0.0.1 at a free port, served from a daemon
thread, stopped and closed on exit (the OpenAI-protocol stub, the Batch API stub, the forward proxy)."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from typing import Any

__all__ = ["LocalHTTPServer"]


class LocalHTTPServer:
    """Serve one ``ThreadingHTTPServer`` in the background; a subclass builds it in ``start`` and calls
    :meth:`_serve`. A context manager: ``with Server() as s: ... s.port``."""

    _httpd: ThreadingHTTPServer | None = None

    def start(self) -> Any:
        raise NotImplementedError

    def _serve(self, httpd: ThreadingHTTPServer) -> None:
        httpd.daemon_threads = True
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
