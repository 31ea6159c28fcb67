"""Which typed server paths a person may open: the pure rules behind the Data and Claims pages' path fields.

ragviz is *served* when other people can reach it: Streamlit listens on an address that is not loopback
(``--server.address 0.0.0.0``, or no address, which binds every interface), or ``RAGVIZ_SERVED=1``;
``RAGVIZ_SERVED=0`` says "local" whatever the address (the test suite, a single-user machine). When served, a typed
path must resolve (``~`` expanded, symlinks followed, relative to the root) to an existing file or folder under
``RAGVIZ_DATA_ROOT``, else ONE message refuses it without telling whether it exists; every file read through a typed
folder must resolve inside the root too (``ragviz.data.load.load``'s *within*). With no root set, typing paths is
off. Locally any path the process can read opens.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path

from ragviz.errors import BadInput

__all__ = [
    "PathRefused",
    "ROOT_ENV",
    "SERVED_ENV",
    "data_root",
    "is_loopback",
    "is_served",
    "refused_message",
    "resolve_typed",
    "typing_off_reason",
]


SERVED_ENV = "RAGVIZ_SERVED"
ROOT_ENV = "RAGVIZ_DATA_ROOT"
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class PathRefused(BadInput, ValueError):
    """A typed path that may not be opened; ``str()`` is the sentence to show."""


def is_loopback(address: str | None) -> bool:
    """True for ``localhost``, ``127.x.x.x`` and ``::1``; False for ``0.0.0.0``, a LAN/public address,
    a host name or no address (Streamlit then listens on every interface).

    >>> [is_loopback(a) for a in ("localhost", "127.0.0.1", "::1", "0.0.0.0", "", None)]
    [True, True, True, False, False, False]
    """
    if not address:
        return False
    address = address.strip().strip("[]")
    if address.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def is_served(server_address: str | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether people other than the one at this machine can reach the app (see the module docstring).

    >>> is_served("127.0.0.1", {}), is_served("0.0.0.0", {}), is_served("127.0.0.1", {"RAGVIZ_SERVED": "1"})
    (False, True, True)
    >>> is_served(None, {"RAGVIZ_SERVED": "0"})
    False
    """
    env = os.environ if environ is None else environ
    flag = env.get(SERVED_ENV, "").strip().lower()
    if flag in {"1", "true", "yes", "on"}:
        return True
    if flag in {"0", "false", "no", "off"}:
        return False
    return not is_loopback(server_address)


def data_root(environ: Mapping[str, str] | None = None) -> Path | None:
    """``RAGVIZ_DATA_ROOT`` resolved, or ``None`` when unset or not an existing folder."""
    env = os.environ if environ is None else environ
    raw = env.get(ROOT_ENV, "").strip()
    if not raw:
        return None
    try:
        root = Path(raw).expanduser().resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return root if root.is_dir() else None


def typing_off_reason(served: bool, root: Path | None) -> str | None:
    """Why the path field is disabled (a sentence for the page), or ``None`` when paths may be typed."""
    if served and root is None:
        return (
            "Opening a path on the server is off: this app is served to others and no data folder is set "
            f"({ROOT_ENV}). Upload a file instead, or ask whoever runs ragviz to set {ROOT_ENV}."
        )
    return None


def refused_message(typed: str) -> str:
    """The one refusal, the same whether the path exists or not."""
    shown = typed if len(typed) <= 200 else typed[:200] + "…"
    return f"Cannot open {shown!r}: only files and folders inside the server's data folder ({ROOT_ENV}) can be opened."


def resolve_typed(typed: str, *, served: bool, root: Path | None) -> Path:
    """The path to open for *typed*, or :class:`PathRefused`.

    Locally: ``~`` expanded, nothing else checked (the loader reports a missing path). Served: resolved
    strictly (symlinks followed; relative paths against *root*) and required to lie inside *root*.
    """
    typed = typed.strip()
    if not served:
        return Path(typed).expanduser()
    reason = typing_off_reason(served, root)
    if reason is not None or root is None:
        raise PathRefused(reason or refused_message(typed))
    if "\x00" in typed or not typed:
        raise PathRefused(refused_message(typed))
    candidate = Path(typed).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        raise PathRefused(refused_message(typed)) from None
    if resolved != root and root not in resolved.parents:
        raise PathRefused(refused_message(typed))
    return resolved
