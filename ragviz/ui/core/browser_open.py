"""Opening the browser at the app once it serves, for ``serve.py``: ``streamlit run`` does it for a plain script
(``app.py``) unless headless, not for an ``st.App``. The same rule and address as Streamlit's: not when
``server.headless``, nor on a Unix socket; ``browser.serverAddress`` if set, else ``server.address`` if set, else
localhost."""

from __future__ import annotations

from streamlit import cli_util, config
from streamlit.web.server import server_util
from streamlit.web.server.server import server_address_is_unix_socket

__all__ = ["app_url", "open_browser_unless_headless"]


def app_url() -> str | None:
    """The URL to open, as Streamlit's own start-up chooses it; None where it would open nothing."""
    if config.get_option("server.headless"):
        return None
    if config.is_manually_set("browser.serverAddress"):
        address = config.get_option("browser.serverAddress")
    elif config.is_manually_set("server.address"):
        if server_address_is_unix_socket():
            return None
        address = server_util.get_display_address(config.get_option("server.address"))
    else:
        address = "localhost"
    return server_util.get_url(address)


def open_browser_unless_headless() -> None:
    """Open :func:`app_url` in the desktop's browser (Streamlit's opener: its output kept off the terminal)."""
    url = app_url()
    if url is not None:
        cli_util.open_browser(url)
