"""Served mode in the app: reads Streamlit's server address, sign-in (``st.login`` / ``st.user``) and
applies the pure rules of :mod:`ragviz.store.paths` (typed paths) and :mod:`ragviz.store.roles` (who
may load, judge, review or only view)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragviz.store.label_store import LabelStore
from ragviz.store.paths import PathRefused, data_root, is_served, resolve_typed, typing_off_reason
from ragviz.store.roles import Access, Identity, SignInRefused, access_of, identity_of_claims, login_fingerprint
from ragviz.store.sign_ins import end_sign_ins, sign_in_is_open
from ragviz.ui.core.keys import SIGN_IN_MEMO
from ragviz.ui.core.per_run import once_a_run

__all__ = [
    "ENDED",
    "PathRefused",
    "UNVERIFIED",
    "access",
    "confining_root",
    "hide_error_details",
    "open_typed_path",
    "path_typing_off",
    "served",
    "sign_in_box",
    "sign_in_configured",
    "sign_in_refusal",
    "signed_in",
    "unverified_names_notice",
    "unverified_names_notice_due",
]


UNVERIFIED = (
    "Names are not verified: this app is served to others without sign-in, so anyone can type any "
    "annotator's name. Ask whoever runs ragviz to configure sign-in ([auth] in .streamlit/secrets.toml)."
)


def served() -> bool:
    """Whether others can reach this app (a non-loopback server address, or ``RAGVIZ_SERVED=1``)."""
    return is_served(st.get_option("server.address"))


def hide_error_details() -> None:
    """Served, Streamlit shows a browser no traceback, exception message or type of an error nobody
    caught (``client.showErrorDetails = "none"``: no path, no SQL, no "Ask Google"); the details are
    logged on the server as before. On one machine they stay on, for whoever develops."""
    global _shown_before
    option = "client.showErrorDetails"
    if served():
        if st.get_option(option) != "none":
            _shown_before = st.get_option(option)
            st.set_option(option, "none")
    elif _shown_before is not None:  # (only in tests does one process run both ways)
        st.set_option(option, _shown_before)
        _shown_before = None


_shown_before: str | None = None  # what hide_error_details replaced


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
    """Whether ``st.login`` is set up (an ``[auth]`` section in ``.streamlit/secrets.toml``), looked up once a run.

    A run asks ~40 times (every role, name and banner); without a secrets file each ``st.secrets`` lookup opens
    Streamlit's secrets paths again and raises. The answer is kept for the run it was read in (Streamlit starts
    every run, a fragment's too, with a new ``cursors`` dict), so a secrets file added or changed counts from the
    next run: when Streamlit itself would see it (it looks for a missing file on every lookup and reloads a
    changed one when its watcher fires)."""
    return once_a_run(SIGN_IN_MEMO, _auth_in_secrets)


def _auth_in_secrets() -> bool:
    try:
        return bool(st.secrets.get("auth"))
    except Exception:  # no secrets file at all (StreamlitSecretNotFoundError), or one that does not parse
        return False


ENDED = "This sign-in has ended (you signed out, here or in another window). Sign in again to review."


def _claims() -> dict[str, object] | None:
    """The signed-in account's token claims, ``None`` when nobody is signed in (or sign-in is off)."""
    if not sign_in_configured():
        return None
    user = st.user
    if not user.get("is_logged_in"):
        return None
    return {k: user.get(k) for k in user.keys()}


def _sign_in(claims: dict[str, object], store: LabelStore) -> Identity | SignInRefused:
    """The identity of *claims*, or why it is refused: no verified claim (:func:`identity_of_claims`),
    or a sign-in that has ended (checked in *store* on every run: :mod:`ragviz.store.sign_ins`)."""
    who = identity_of_claims(claims)
    if isinstance(who, SignInRefused):
        return who
    if not sign_in_is_open(store, login_fingerprint(claims), who.names[0]):
        return SignInRefused(ENDED)
    return who


def signed_in(store: LabelStore) -> Identity | None:
    """The signed-in person, identified by their verified e-mail (or ``sub``, see
    :func:`ragviz.store.roles.identity_of_claims`) while their sign-in is open in *store*; else ``None``."""
    claims = _claims()
    if claims is None:
        return None
    who = _sign_in(claims, store)
    return None if isinstance(who, SignInRefused) else who


def sign_in_refusal(store: LabelStore) -> str | None:
    """Why a signed-in account is not taken as anyone (no verified e-mail, an ended sign-in), or ``None``."""
    claims = _claims()
    if claims is None:
        return None
    who = _sign_in(claims, store)
    return who.why if isinstance(who, SignInRefused) else None


def access(typed_name: str, store: LabelStore) -> Access:
    """This run's role: the signed-in person's when sign-in is configured, else the typed *typed_name*'s."""
    sign_in = sign_in_configured()
    who = signed_in(store) if sign_in else Identity((typed_name,), verified=False)
    return access_of(who, served=served(), sign_in=sign_in)


def unverified_names_notice_due() -> bool:
    """Whether :func:`unverified_names_notice` shows its banner: served without sign-in."""
    return served() and not sign_in_configured()


def unverified_names_notice() -> bool:
    """The banner of a served app without sign-in (names are typed, not verified); True when shown."""
    if not unverified_names_notice_due():
        return False
    st.warning(UNVERIFIED, icon=":material/badge:")
    return True


def _sign_out(store: LabelStore) -> None:
    """End every sign-in of this person (every browser and replica, :func:`end_sign_ins`), then
    delete this browser's cookie."""
    who = signed_in(store)
    if who is not None:
        end_sign_ins(store, who.names[0])
    st.logout()


def sign_in_box(store: LabelStore) -> None:
    """Sign in / sign out (only when sign-in is configured); an account that is not taken as anyone
    is told why (and may sign out to switch accounts, or sign in again after signing out)."""
    if not sign_in_configured():
        return
    refused = sign_in_refusal(store)
    if refused is not None:
        st.warning(refused, icon=":material/no_accounts:")  # md: ours
        if refused == ENDED:
            st.button("Sign in", key="ragviz.sign_in", on_click=st.login, type="primary", icon=":material/login:")
        else:
            st.button("Sign out", key="ragviz.sign_out", on_click=st.logout, icon=":material/logout:")
    elif signed_in(store) is None:
        st.button("Sign in", key="ragviz.sign_in", on_click=st.login, type="primary", icon=":material/login:")
    else:
        st.button("Sign out", key="ragviz.sign_out", on_click=_sign_out, args=(store,), icon=":material/logout:")
