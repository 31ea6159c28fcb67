"""The app's HTML page as ``serve.py`` serves it: Streamlit's own ``index.html``, and at the end of its head

- at a page's URL (``/review?uid=…``, a reload, a shared link), its server's address: else Streamlit first asks
  ``/review/_stcore/health`` (the app could be served under ``/review``), gets a 404 and asks ``/`` after a 100 ms wait;
- preloads of what the first page draws with: the chunks of Streamlit's component loader and of ``st.html`` (every
  page), a page's own component files (Review's text editor), which Streamlit asks for only after its first message.

The page goes gzipped to a browser that accepts it, as Streamlit's own; a HEAD request is answered the headers of the
page a GET would get. Everything else Streamlit serves passes through unchanged (issue 38).
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "BASE_URL_SCRIPT",
    "FIRST_DRAWN_CHUNKS",
    "IndexPage",
    "accepts_gzip",
    "head_additions",
    "lazy_chunks",
    "static_imports_closure",
]


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# window.__streamlit is what a host page may set before Streamlit's script runs; BACKEND_BASE_URL makes its
# connection try that one address
BASE_URL_SCRIPT = (
    "<script>window.__streamlit=Object.assign({BACKEND_BASE_URL:"
    "location.origin+location.pathname.replace(/\\/[^\\/]*$/,'/')},window.__streamlit)</script>"
)  # what the host page set already wins

# the lazily loaded chunks every ragviz page draws with: the page list and the Review page's editor are
# st.components.v2 elements (BidiComponent), every page has an st.html block (Html)
FIRST_DRAWN_CHUNKS = ("BidiComponent", "Html")

_IMPORT = re.compile(r'(?:\bfrom|\bimport)\s*"\./([^"/]+\.js)"')  # static imports only
# files (favicon.png), Streamlit's routes and the static folder are never a page
_NOT_A_PAGE = re.compile(r"[.]|^/(?:_stcore|static|component|media|app)(?:/|$)")
# the page is asked of Streamlit whole, uncompressed (its additions go in before it is gzipped, here) and fresh: never
# "not modified" against a copy of Streamlit's own, nor a byte range of it
_DROPPED_REQUEST_HEADERS = {b"accept-encoding", b"if-none-match", b"if-modified-since", b"range", b"if-range"}
_DROPPED_RESPONSE_HEADERS = {
    b"content-length",
    b"etag",
    b"last-modified",
    b"content-encoding",
    b"vary",
    b"accept-ranges",
}


def accepts_gzip(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request with *headers* accepts a gzipped answer (``Accept-Encoding``, RFC 9110: ``gzip`` or
    ``x-gzip`` at a weight above 0, else ``*`` at a weight above 0).

    >>> accepts_gzip([(b"accept-encoding", b"br, gzip;q=0.8")]), accepts_gzip([(b"accept-encoding", b"gzip;q=0")])
    (True, False)
    >>> accepts_gzip([(b"accept-encoding", b"gzip;q=0, *")]), accepts_gzip([(b"accept-encoding", b"br, *;q=0.1")])
    (False, True)
    >>> accepts_gzip([(b"accept", b"text/html")])
    False
    """
    weights: dict[str, bool] = {}
    for key, value in headers:
        if key.lower() != b"accept-encoding":
            continue
        for item in value.decode("latin-1").split(","):
            coding, *params = (part.strip().lower() for part in item.split(";"))
            weight = next((p[2:] for p in params if p.startswith("q=")), "1")
            weights["gzip" if coding == "x-gzip" else coding] = _positive(weight)
    return weights.get("gzip", weights.get("*", False))


def _positive(weight: str) -> bool:
    try:
        return float(weight) > 0
    except ValueError:
        return False


def static_imports_closure(js_dir: Path, roots: Iterable[str], loaded: str = "") -> list[str]:
    """The file names of the chunks named *roots* (the part before the first dot: ``Html`` for ``Html.CzLZ.js``) in
    *js_dir* and of every chunk they import statically, transitively, leaving out (and not following) those *loaded*
    names already (Streamlit's ``index.html``: its script and the chunks it preloads); roots first."""
    files = sorted(f for f in os.listdir(js_dir) if f.endswith(".js"))
    wanted = [f for root in roots for f in files if f.split(".", 1)[0] == root]
    seen: list[str] = []
    while wanted:
        name = wanted.pop(0)
        if name in seen or f"/{name}" in loaded or not (js_dir / name).is_file():
            continue
        seen.append(name)
        wanted.extend(_IMPORT.findall((js_dir / name).read_text(encoding="utf-8")))
    return seen


@cache
def lazy_chunks(static_dir: Path, roots: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`static_imports_closure` of *roots* in Streamlit's static folder *static_dir*, less what its
    ``index.html`` loads already: the chunks Streamlit fetches only once an element of theirs is drawn."""
    index_html = (static_dir / "index.html").read_text(encoding="utf-8")
    return tuple(static_imports_closure(static_dir / "static" / "js", roots, index_html))


def head_additions(chunks: Iterable[str], component_files: Iterable[str], at_page: bool) -> str:
    """What goes at the end of the HTML page's head: the base URL script when opened *at_page* (not at the app's
    root), a module preload of each of *chunks* (under ``static/js/``) and of each component file (a path under the
    app's root, ``_stcore/bidi-components/<component>/<file>``: scripts as modules, styles as styles)."""
    links = [f'<link rel="modulepreload" crossorigin href="./static/js/{name}">' for name in chunks]
    for file in component_files:
        href = f"./{file}"
        if file.endswith(".css"):
            links.append(f'<link rel="preload" as="style" href="{href}">')
        else:
            links.append(f'<link rel="modulepreload" crossorigin href="{href}">')
    return (BASE_URL_SCRIPT if at_page else "") + "".join(links)


class IndexPage:
    """ASGI middleware adding :func:`head_additions` to the HTML page Streamlit answers at the app's root and at a
    page's URL (``/<page>``, under ``server.baseUrlPath`` if set). *page_files*: per page URL path (``review``), the
    component files to preload there, given as a callable so a component registered later (in the app's first run)
    is seen; *static_dir*: Streamlit's static folder; *base_url_path*: read per request (Streamlit's option)."""

    def __init__(
        self,
        app: ASGIApp,
        static_dir: Path,
        page_files: Callable[[], Mapping[str, Iterable[str]]] = dict,
        base_url_path: Callable[[], str] = str,
    ) -> None:
        self.app = app
        self.static_dir = Path(static_dir)
        self.page_files = page_files
        self.base_url_path = base_url_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        page = self._page(scope)
        if page is None:
            await self.app(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _DROPPED_REQUEST_HEADERS]
        # without the server's pathsend extension, Starlette's FileResponse sends the page as body messages
        extensions = {k: v for k, v in (scope.get("extensions") or {}).items() if k != "http.response.pathsend"}
        writer = _HeadWriter(send, self._additions(page), accepts_gzip(scope["headers"]), scope["method"] == "HEAD")
        # a HEAD is asked of Streamlit as a GET: its headers are then those of the page with the additions
        await self.app({**scope, "method": "GET", "headers": headers, "extensions": extensions}, receive, writer.send)

    def _page(self, scope: Scope) -> str | None:
        """The page URL path (``""`` at the root) a GET or HEAD of *scope* may be answered with the HTML page for,
        else None."""
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            return None
        path = scope.get("path", "")
        base = self.base_url_path().strip("/")
        prefix = f"/{base}" if base else ""
        if prefix and not (path == prefix or path.startswith(prefix + "/")):
            return None
        relative = path[len(prefix) :] or "/"
        if relative.count("/") != 1 or _NOT_A_PAGE.search(relative):
            return None
        return relative[1:]

    def _additions(self, page: str) -> bytes:
        files = tuple(self.page_files().get(page, ()))
        return _additions(self.static_dir, page != "", files).encode()


@cache
def _additions(static_dir: Path, at_page: bool, component_files: tuple[str, ...]) -> str:
    return head_additions(lazy_chunks(static_dir, FIRST_DRAWN_CHUNKS), component_files, at_page)


class _HeadWriter:
    """Passes a response on; an HTML one is held whole and sent with *additions* before its ``</head>``, gzipped if
    the browser accepts it (*gzipped*), its headers alone for a HEAD request (*head_only*)."""

    def __init__(self, send: Send, additions: bytes, gzipped: bool = False, head_only: bool = False) -> None:
        self._send = send
        self._additions = additions
        self._gzipped = gzipped
        self._head_only = head_only
        self._start: Message | None = None
        self._body: list[bytes] = []

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            content_type = dict((k.lower(), v) for k, v in message.get("headers", [])).get(b"content-type", b"")
            if message.get("status") == 200 and content_type.startswith(b"text/html"):
                self._start = message
                return
        elif message["type"] == "http.response.body" and self._start is not None:
            self._body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(self._body).replace(b"</head>", self._additions + b"</head>", 1)
            kept = [(k, v) for k, v in self._start.get("headers", []) if k.lower() not in _DROPPED_RESPONSE_HEADERS]
            kept.append((b"vary", b"Accept-Encoding"))
            if self._gzipped:
                body = gzip.compress(body, mtime=0)
                kept.append((b"content-encoding", b"gzip"))
            await self._send({**self._start, "headers": [*kept, (b"content-length", str(len(body)).encode())]})
            await self._send({"type": "http.response.body", "body": b"" if self._head_only else body})
            return
        if self._head_only and message["type"] == "http.response.body":
            message = {**message, "body": b""}  # a HEAD answered other than by the page: its headers as they came
        await self._send(message)
