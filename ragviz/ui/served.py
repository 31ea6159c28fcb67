"""Served mode in the app: reads Streamlit's server address and applies :mod:`ragviz.data.paths`' rules
to the paths people type on the Data and Claims pages."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragviz.data.paths import PathRefused, data_root, is_served, resolve_typed, typing_off_reason

__all__ = ["PathRefused", "open_typed_path", "path_typing_off", "served"]


def served() -> bool:
    """Whether others can reach this app (a non-loopback server address, or ``RAGVIZ_SERVED=1``)."""
    return is_served(st.get_option("server.address"))


def path_typing_off() -> str | None:
    """Why path fields are disabled here (a sentence to show next to them), or ``None``."""
    return typing_off_reason(served(), data_root())


def open_typed_path(typed: str) -> Path:
    """The path to open for what a person typed, or :class:`PathRefused` (one message, whether or not
    the path exists)."""
    return resolve_typed(typed, served=served(), root=data_root())
