"""The app's HTML page as serve.py serves it (ragviz.ui.core.index_page): the server's address at a page's URL and
the first page's scripts preloaded; everything else Streamlit serves passes through unchanged."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from streamlit import file_util

from ragviz.ui.core.index_page import BASE_URL_SCRIPT, IndexPage, static_imports_closure

INDEX = (
    '<html><head><script type="module" src="./static/js/index.x1.js"></script>'
    '<link rel="modulepreload" href="./static/js/dep.d1.js"></head><body>' + "x" * 600 + "</body></html>"
)
EDITOR = [
    "_stcore/bidi-components/ragviz.sentence_editor/editor.js",
    "_stcore/bidi-components/ragviz.sentence_editor/editor.css",
]


@pytest.fixture
def static_dir(tmp_path) -> Path:
    """Streamlit's static folder in small: its page, its script and the lazy chunks, one importing another."""
    js = tmp_path / "static" / "js"
    js.mkdir(parents=True)
    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    (js / "index.x1.js").write_text('import{a}from"./dep.d1.js";', encoding="utf-8")
    bidi = 'import{a}from"./index.x1.js";import{b}from"./dep.d1.js";import { c } from "./own.o1.js";'
    (js / "BidiComponent.b1.js").write_text(bidi, encoding="utf-8")
    (js / "dep.d1.js").write_text('import"./deeper.e1.js";', encoding="utf-8")
    (js / "own.o1.js").write_text('import"./deeper.e1.js";const l=()=>import("./Lazy.f1.js");', encoding="utf-8")
    (js / "deeper.e1.js").write_text("export{};", encoding="utf-8")
    (js / "Html.h1.js").write_text('import{p}from"./purify.p1.js";', encoding="utf-8")
    (js / "purify.p1.js").write_text("export{};", encoding="utf-8")
    (js / "Lazy.f1.js").write_text("export{};", encoding="utf-8")
    return tmp_path


def streamlit_like(static_dir: Path, base: str = "", files=lambda: {"review": EDITOR}) -> TestClient:
    """An app answering as Streamlit does (its page for any other path, in two parts, gzipped when asked) behind
    IndexPage."""

    async def page(request):
        body = (static_dir / "index.html").read_bytes()

        async def parts():
            yield body[:40]
            yield body[40:]

        return StreamingResponse(parts(), media_type="text/html", headers={"etag": '"stock"'})

    routes = [
        Route(f"{base}/_stcore/health", lambda r: PlainTextResponse("ok")),
        Route(f"{base}/favicon.png", lambda r: Response(b"\x89PNG", media_type="image/png")),
        Route(f"{base}/moved", lambda r: Response(status_code=301, headers={"location": "/"})),
        Route("/{path:path}", page, methods=["GET", "HEAD", "POST"]),
    ]
    inner = Starlette(routes=routes, middleware=[Middleware(GZipMiddleware, minimum_size=10)])
    return TestClient(IndexPage(inner, static_dir, page_files=files, base_url_path=lambda: base))


def test_a_page_url_gets_the_servers_address_and_its_first_drawings_scripts(static_dir):
    r = streamlit_like(static_dir).get("/review?uid=a/b", headers={"accept-encoding": "identity"})
    head = r.text.split("</head>")[0]
    assert r.status_code == 200 and "content-encoding" not in r.headers and "etag" not in r.headers
    assert int(r.headers["content-length"]) == len(r.content) and r.headers["vary"] == "Accept-Encoding"
    assert head.startswith(INDEX.split("</head>")[0]) and r.text.endswith(INDEX.split("</head>")[1])
    assert BASE_URL_SCRIPT in head
    preloaded = [p.split('"')[0] for p in head.split("</script>")[-1].split('href="')[1:]]
    assert preloaded == [
        "./static/js/BidiComponent.b1.js",
        "./static/js/Html.h1.js",
        "./static/js/own.o1.js",
        "./static/js/purify.p1.js",
        "./static/js/deeper.e1.js",
        "./_stcore/bidi-components/ragviz.sentence_editor/editor.js",
        "./_stcore/bidi-components/ragviz.sentence_editor/editor.css",
    ]  # not the page's own script nor what it preloads (the stock page loads them), nor a chunk imported lazily
    assert '<link rel="preload" as="style" href="./_stcore/bidi-components/ragviz.sentence_editor/editor.css">' in head


def test_the_root_and_other_pages_get_the_chunks_only(static_dir):
    client = streamlit_like(static_dir)
    root = client.get("/").text
    assert BASE_URL_SCRIPT not in root and "BidiComponent.b1.js" in root and "editor.js" not in root
    data = client.get("/data").text
    assert BASE_URL_SCRIPT in data and "Html.h1.js" in data and "editor.js" not in data


def test_the_editor_is_preloaded_only_once_it_is_served(static_dir):
    served: dict[str, list[str]] = {}
    client = streamlit_like(static_dir, files=lambda: served)
    assert "editor.js" not in client.get("/review").text
    served["review"] = EDITOR  # the app's first run registered the component
    assert "editor.js" in client.get("/review").text


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/favicon.png"), ("GET", "/_stcore/health"), ("POST", "/review"), ("GET", "/review/sub"),
     ("GET", "/static/js/none"), ("GET", "/moved")],
)  # fmt: skip
def test_everything_else_passes_unchanged(static_dir, method, path):
    client = streamlit_like(static_dir)
    r = client.request(method, path, headers={"accept-encoding": "gzip"}, follow_redirects=False)
    assert "BidiComponent" not in r.text and BASE_URL_SCRIPT not in r.text
    if r.headers.get("content-type", "").startswith("text/html") and method == "GET":
        assert r.headers["content-encoding"] == "gzip"  # Streamlit's answer as it was


def test_the_page_goes_gzipped_to_a_browser_that_accepts_it(static_dir):
    client = streamlit_like(static_dir)
    plain = client.get("/review", headers={"accept-encoding": "identity"})
    for accepted in ("gzip, deflate, br", "br;q=1.0, gzip;q=0.5", "*"):
        r = client.get("/review", headers={"accept-encoding": accepted})
        assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
        assert r.content == plain.content  # as decoded by the client: the page with its additions
        assert int(r.headers["content-length"]) < len(plain.content)
    refused = client.get("/review", headers={"accept-encoding": "gzip;q=0, br"})
    assert "content-encoding" not in refused.headers and refused.content == plain.content


def test_a_head_request_gets_the_headers_of_the_page_a_get_gets(static_dir):
    client = streamlit_like(static_dir)
    for encoding in ("identity", "gzip"):
        get = client.get("/review", headers={"accept-encoding": encoding})
        head = client.head("/review", headers={"accept-encoding": encoding})
        assert head.status_code == 200 and head.content == b""
        keys = ("content-length", "content-type", "content-encoding", "vary")
        assert {k: head.headers.get(k) for k in keys} == {k: get.headers.get(k) for k in keys}
    assert client.head("/favicon.png").content == b""  # not a page: Streamlit's own answer


def test_under_a_base_url_path_its_pages_are_known(static_dir):
    client = streamlit_like(static_dir, base="/ragviz")
    assert BASE_URL_SCRIPT in client.get("/ragviz/review").text
    assert "BidiComponent" in client.get("/ragviz").text and BASE_URL_SCRIPT not in client.get("/ragviz").text
    assert "BidiComponent" not in client.get("/review").text  # not the app's


def test_the_installed_streamlits_loader_and_html_chunks_are_found():
    static = Path(file_util.get_static_dir())
    index = (static / "index.html").read_text(encoding="utf-8")
    chunks = static_imports_closure(static / "static" / "js", ("BidiComponent", "Html"), index)
    assert chunks[0].startswith("BidiComponent.") and chunks[1].startswith("Html.")
    assert all((static / "static" / "js" / c).is_file() and f"/{c}" not in index for c in chunks)


def test_the_page_is_asked_of_streamlit_whole_and_as_body_messages(static_dir):
    """A byte range or the server's pathsend extension (Starlette's FileResponse then sends no body) would leave the
    page without its additions, or unsent."""
    seen: list[dict] = []

    async def inner(scope, receive, send):
        seen.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": INDEX.encode()})

    async def run() -> list[dict]:
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        scope = {
            "type": "http",
            "method": "GET",
            "path": "/review",
            "headers": [(b"range", b"bytes=0-99"), (b"if-range", b'"x"'), (b"accept", b"text/html")],
            "extensions": {"http.response.pathsend": {}, "other": {}},
        }
        await IndexPage(inner, static_dir)(scope, None, send)
        return sent

    # in a thread of its own: a browser test's Playwright (sync API) may hold this thread's event loop
    with ThreadPoolExecutor(1) as pool:
        sent = pool.submit(asyncio.run, run()).result()
    assert [k for k, _ in seen[0]["headers"]] == [b"accept"]
    assert seen[0]["extensions"] == {"other": {}}
    assert BASE_URL_SCRIPT.encode() in sent[1]["body"]
