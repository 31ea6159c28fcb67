"""Served mode in the app: reads Streamlit's server address, sign-in (``st.login`` / ``st.user``) and
applies the pure rules of :mod:`ragviz.data.paths` (typed paths) and :mod:`ragviz.data.roles` (who
may load, judge, review or only view)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragviz.data.paths import PathRefused, data_root, is_served, resolve_typed, typing_off_reason
from ragviz.data.roles import Access, Identity, access_of

__all__ = [
    "PathRefused",
    "UNVERIFIED",
    "access",
    "confining_root",
    "open_typed_path",
    "path_typing_off",
    "served",
    "sign_in_box",
    "sign_in_configured",
    "signed_in",
    "unverified_names_notice",
]


UNVERIFIED = (
    "Names are not verified: this app is served to others without sign-in, so anyone can type any "
    "annotator's name. Ask whoever runs ragviz to configure sign-in ([auth] in .streamlit/secrets.toml)."
)


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


def confining_root() -> Path | None:
    """The data root every file read through a folder inside it must stay in (served only)."""
    return data_root() if served() else None


def sign_in_configured() -> bool:
    """Whether ``st.login`` is set up (an ``[auth]`` section in ``.streamlit/secrets.toml``)."""
    try:
        return bool(st.secrets.get("auth"))
    except Exception:  # no secrets file at all (StreamlitSecretNotFoundError), or one that does not parse
        return False


def signed_in() -> Identity | None:
    """The signed-in person (e-mail first, then name, then the provider's subject), or ``None``."""
    if not sign_in_configured():
        return None
    user = st.user
    if not user.get("is_logged_in"):
        return None
    names = tuple(str(user.get(k)) for k in ("email", "name", "preferred_username", "sub") if user.get(k))
    return Identity(names, verified=True) if names else None


def access(typed_name: str) -> Access:
    """This run's role: the signed-in person's when sign-in is configured, else the typed *typed_name*'s."""
    sign_in = sign_in_configured()
    who = signed_in() if sign_in else Identity((typed_name,), verified=False)
    return access_of(who, served=served(), sign_in=sign_in)


def unverified_names_notice() -> bool:
    """The banner of a served app without sign-in (names are typed, not verified); True when shown."""
    if not served() or sign_in_configured():
        return False
    st.warning(UNVERIFIED, icon=":material/badge:")
    return True


def sign_in_box() -> None:
    """Sign in / sign out (only when sign-in is configured)."""
    if not sign_in_configured():
        return
    if signed_in() is None:
        st.button("Sign in", key="ragviz.sign_in", on_click=st.login, type="primary", icon=":material/login:")
    else:
        st.button("Sign out", key="ragviz.sign_out", on_click=st.logout, icon=":material/logout:")
