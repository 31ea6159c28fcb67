"""ragviz served: ``app.py`` as an ``st.App`` whose HTML page knows its server's address and asks for the first
page's scripts at once (:mod:`ragviz.ui.core.index_page`: a page's URL opened ~0.1 s sooner, issue 38). What
``ragviz app`` and ``make run`` run; ``streamlit run app.py`` serves the same app without the two additions."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware
from streamlit import config, file_util

from ragviz.ui.core.browser_open import open_browser_unless_headless
from ragviz.ui.core.component_files import SERVED
from ragviz.ui.core.index_page import IndexPage
from ragviz.ui.review import editor_files


def page_files() -> dict[str, list[str]]:
    """The component files each page's first drawing loads (the Review page's text editor, once it is served)."""
    return {"review": editor_files.served_paths(SERVED)}


@asynccontextmanager
async def opens_the_browser(app: st.App) -> AsyncIterator[None]:
    """As ``streamlit run app.py`` does once it serves, which it leaves to an ``st.App``."""
    asyncio.get_running_loop().call_soon(open_browser_unless_headless)
    yield


index_page = Middleware(
    IndexPage,
    static_dir=Path(file_util.get_static_dir()),
    page_files=page_files,
    base_url_path=lambda: str(config.get_option("server.baseUrlPath") or ""),
)
# beside this file, however it is started (streamlit run resolves a relative path so, uvicorn from the working directory)
app = st.App(str(Path(__file__).with_name("app.py")), middleware=[index_page], lifespan=opens_the_browser)
