"""``ragviz app [DATA...] [--port N] [--host H]``: start the Streamlit app (what ``make run`` runs).

It runs ``serve.py`` (``app.py`` as an ``st.App``) beside ``app.py`` and ``pages/``: of the checkout the running
``ragviz`` comes from, else of the installed package ``ragviz_app`` (the wheel's copy of them, see pyproject.toml). DATA goes to the app as ``$RAGVIZ_DATA``
(absolute paths, ``os.pathsep``-separated). Streamlit runs in this process's Python
(``python -m streamlit run``) with the viewer toolbar, usage statistics, Streamlit's first-run e-mail
prompt and the full garbage collection after every run off; the exit code is its.

Without ``--headless`` the browser opens when one can be shown: not on Linux with neither ``$DISPLAY``
nor ``$WAYLAND_DISPLAY`` set (a server, a container, an ssh session), where the URL is printed only.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ragviz.data.errors import BadInput
from ragviz.store.paths import is_served

__all__ = [
    "COMMAND",
    "DATA_ENV",
    "add_app_arguments",
    "app_script",
    "can_open_browser",
    "run_app_command",
    "streamlit_command",
]


COMMAND = "ragviz app"


DATA_ENV = "RAGVIZ_DATA"  # = ragviz.ui.core.state.DATA_ENV (not imported: that module imports Streamlit)


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="DATA", help="data files or directories to open (default: $RAGVIZ_DATA, else none)"
    )
    parser.add_argument("--port", type=int, default=8501, help="port to serve on (default: 8501)")
    parser.add_argument(
        "--host", default="localhost", help="address to listen on (default: localhost; 0.0.0.0 for every interface)"
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="do not open a browser (as on a server); print the URL only (the default where no display is set)",
    )


def app_script() -> Path:
    """``serve.py`` (beside ``app.py``) of the checkout the running ``ragviz`` comes from, else of the installed
    ``ragviz_app``; :class:`FileNotFoundError` when neither exists."""
    checkout = Path(__file__).resolve().parents[2]  # ragviz/cli/app.py -> the directory holding ragviz/
    if all((checkout / name).is_file() for name in ("serve.py", "app.py")) and (checkout / "pages").is_dir():
        return checkout / "serve.py"
    spec = importlib.util.find_spec("ragviz_app")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        script = Path(location) / "serve.py"
        if script.is_file() and script.with_name("app.py").is_file():
            return script
    raise FileNotFoundError(
        f"the app's serve.py and app.py are neither in {checkout} nor in an installed ragviz_app package"
    )


def can_open_browser(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> bool:
    """Whether a browser window can be shown: anywhere but on Linux / BSD without a display.

    >>> can_open_browser({}, "linux"), can_open_browser({"DISPLAY": ":0"}, "linux"), can_open_browser({}, "darwin")
    (False, True, True)
    """
    env = os.environ if environ is None else environ
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    return True


def streamlit_command(script: Path, port: int, host: str, headless: bool) -> list[str]:
    """The ``python -m streamlit run`` command line for *script*. Streamlit's e-mail prompt (asked on a
    first start without ``~/.streamlit/credentials.toml`` unless headless) is always off: it would stop
    ``ragviz app`` at "Email:", and end it when no terminal is attached. Served (*host* not loopback),
    Streamlit's error details are off from the start: no traceback, path or SQL reaches a browser (the
    app turns them off too when started another way; the server's log keeps them)."""
    served_flags = ["--client.showErrorDetails", "none"] if is_served(host) else []
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        os.fspath(script),
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--server.headless",
        "true" if headless else "false",
        "--server.showEmailPrompt",
        "false",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        "--client.disableDataExport",  # no table's unguarded "Download as CSV" (.streamlit/config.toml)
        "true",
        "--runner.postScriptGC",  # as .streamlit/config.toml says, which an installed wheel does not carry
        "false",
        "--runner.magicEnabled",
        "false",
        *served_flags,
    ]


def run_app_command(args: argparse.Namespace) -> int:
    """The ``app`` command: see the module docstring. A SIGTERM to ``ragviz app`` is passed on to Streamlit (which
    would otherwise keep serving, orphaned); Ctrl+C ends both (exit code 130)."""
    if not 0 < args.port < 65536:
        raise BadInput(f"must be 1-65535, got {args.port}", path=COMMAND, field="--port")
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise BadInput("no such file or directory", path=COMMAND, field=missing[0])
    try:
        script = app_script()
    except FileNotFoundError as exc:
        raise BadInput(str(exc), path=COMMAND) from None
    env = dict(os.environ)
    if args.paths:
        env[DATA_ENV] = os.pathsep.join(os.path.abspath(p) for p in args.paths)
    headless = args.headless or not can_open_browser()
    with subprocess.Popen(streamlit_command(script, args.port, args.host, headless), env=env) as server:
        forward = _forward_terminate(server)
        try:
            return server.wait()
        except KeyboardInterrupt:
            server.kill()
            return 130
        finally:
            forward()


def _forward_terminate(server: subprocess.Popen) -> Callable[[], None]:
    """Pass a SIGTERM sent to this process alone (``kill PID``, a supervisor, systemd's ``KillMode=process``) on
    to the Streamlit *server*, which would otherwise outlive it on the port; returns the undo. Only in the main
    thread, where Python lets a signal be handled."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: server.send_signal(signum))

    def undo() -> None:
        signal.signal(signal.SIGTERM, previous)

    return undo
