"""What the server does once at start-up, before it answers its health check, so the first page a
person opens is drawn at once instead of paying for the process's first imports and data load.

``app.py`` is run by ``streamlit run`` (and ``ragviz app``) as an ``st.App`` with :func:`lifespan`:
Streamlit imports ``app.py`` as the server's ASGI app, runs :func:`lifespan` before the server
serves its first request, then runs ``app.py`` as the script of every session. :func:`warm_up`:

* leaves Streamlit's legacy "pages/ folder" mode (``app.py`` routes with ``st.navigation``); a deep
  link opened first after a start then runs ``app.py`` at once instead of the page script alone and
  a rerun (:func:`ragviz.ui.state.require_app_shell` stays for servers started another way);
* imports what every page's first run imports (pandas, pyarrow and numpy among them: pyarrow
  imports pandas when it first builds an array) and the Streamlit modules a first page draws with;
* loads the data named by ``$RAGVIZ_DATA`` into the process-wide load cache and opens the label
  store, as the first page would (the data is read afresh at every start; nothing is kept on disk).

A failure here only costs the head start: it is logged, and the page that needs the data meets the
same error and shows it as it always does.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

LOG = logging.getLogger("ragviz.startup")

# What the pages import on their first run, the Review page's first of all (the modules, not their
# names: importing them runs their module-level code, e.g. the sentence editor's component).
PAGE_MODULES = (
    "ragviz.ui.access",
    "ragviz.ui.present",
    "ragviz.ui.render",
    "ragviz.ui.state",
    "ragviz.ui.home",
    "ragviz.ui.review",
    "ragviz.ui.review_actions",
    "ragviz.ui.sentence_editor",
    "ragviz.ui.audit",
    "ragviz.analysis.overview",
    "ragviz.analysis.quality",
    "ragviz.analysis.review",
    "ragviz.analysis.review_metrics",
    "ragviz.analysis.review_queue",
    "ragviz.data.load",
    # Streamlit's emoji table: a widget label that is not ASCII (the verdict's "✓ supported")
    # compiles its large pattern on first use.
    "streamlit.emojis",
)


def leave_pages_folder_mode() -> None:
    """Tell Streamlit that this app routes with ``st.navigation``, never by its ``pages/`` folder."""
    try:  # a Streamlit internal: if a release moves it, require_app_shell still does the job per session
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    PagesManager.uses_pages_directory = False


def warm_up() -> dict[str, float]:
    """Everything above, in order; returns the seconds each step took (logged at start-up)."""
    took: dict[str, float] = {}
    t = time.perf_counter()
    leave_pages_folder_mode()
    for name in PAGE_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a page that needs it shows the error itself
            LOG.warning("start-up: importing %s failed", name, exc_info=True)
    took["imports"] = time.perf_counter() - t

    from ragviz.ui import state

    t = time.perf_counter()
    paths = state.initial_paths()
    if paths:
        try:
            state.load_result(paths)
        except Exception:  # noqa: BLE001 - the Data page / the first page shows the load error
            LOG.warning("start-up: loading %s failed", paths, exc_info=True)
    took["data"] = time.perf_counter() - t
    t = time.perf_counter()
    try:
        state.store()
    except Exception:  # noqa: BLE001 - the first page shows the store's error
        LOG.warning("start-up: opening the label store failed", exc_info=True)
    took["store"] = time.perf_counter() - t
    return took


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """``st.App``'s start-up hook: :func:`warm_up` before the server answers any request."""
    # The cached loaders run outside any session here: Streamlit's "missing ScriptRunContext" is expected.
    quiet = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        took = warm_up()
    finally:
        quiet.setLevel(level)
    LOG.info("start-up warm-up: %s", ", ".join(f"{k} {v:.2f} s" for k, v in took.items()))
    yield
