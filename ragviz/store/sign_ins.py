"""Sign-ins in the label store, so that signing out ends a session on every replica (migration ``009_sign_ins``).

Streamlit keeps a signed-in person in a signed cookie that lasts 30 days; signing out deletes it in that
browser only, and a copy taken before still signs in. So the app records each sign-in it sees, by a
fingerprint of the provider's token (:func:`ragviz.store.roles.login_fingerprint`: issuer, subject, issue
time, nonce), and checks it on every run: signing out ends every sign-in of that person recorded so far
(every browser, every replica), and a cookie of an ended sign-in is refused. Signing in again gets a new
token, hence a new fingerprint.
"""

from __future__ import annotations

from typing import Any

from ragviz.store.connection import Query
from ragviz.store.events import now_iso
from ragviz.store.label_store import LabelStore
from ragviz.store.roles import identity_name

__all__ = ["end_sign_ins", "sign_in_is_open"]


def sign_in_is_open(store: LabelStore, login: str, who: str) -> bool:
    """Whether the sign-in *login* of *who* may still be used: recorded on first sight (open), and
    refused once *who* signed out (:func:`end_sign_ins`). A login seen before under another identity is
    refused too (a fingerprint names one person)."""
    who = identity_name(who)
    rows = store.query("SELECT who, ended_at FROM sign_ins WHERE login = ?", (login,))
    row = rows[0] if rows else None
    if row is None:

        def record(q: Query) -> Any:
            q(
                "INSERT INTO sign_ins (login, who, started_at) VALUES (?, ?, ?) ON CONFLICT (login) DO NOTHING",
                (login, who, now_iso()),
            )
            return q("SELECT who, ended_at FROM sign_ins WHERE login = ?", (login,)).fetchone()

        row = store.write(record)
    return row is not None and row[0] == who and row[1] is None


def end_sign_ins(store: LabelStore, who: str) -> int:
    """Sign *who* out everywhere: every recorded sign-in of theirs is ended; how many were open."""
    who = identity_name(who)
    cur = store.write(
        lambda q: q("UPDATE sign_ins SET ended_at = ? WHERE who = ? AND ended_at IS NULL", (now_iso(), who))
    )
    return max(int(cur.rowcount or 0), 0)
