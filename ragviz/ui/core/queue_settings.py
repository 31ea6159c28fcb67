"""The Review Queue's settings (the filters and "Accept moves to the next unreviewed") as the person left them, and in
the URL: ``?only=unreviewed,adherence0&subset=covidqa&accept=stays``, so a reload, a new tab, Back and Forward, and a
copied link walk the same examples.

Where they are read from: the URL when it carries any of them (what it leaves out is off, Accept then moving on);
else, on Back or Forward to an entry that names none, the defaults (the entry is from before the first change); else
the widget's value (kept while the Queue is closed), else the value kept when the person last left the Review page
(Streamlit forgets a page's widgets when a page switch leaves them behind), else the default. A change to one of the
Queue's widgets writes them all to the URL, as one history entry that names them even at their defaults (``only=``),
so Back undoes it whole; a move (J / K) keeps the URL's other parameters, and the page list's switch to Review and the
other pages' links to an example carry them (:func:`ragviz.ui.review.actions.return_query`, :func:`review_query`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import streamlit as st

from ragviz.ui.core.per_run import forget, once_a_run
from ragviz.ui.core.url_query import history_navigation, rewrite_query

__all__ = [
    "ACCEPT_PARAM",
    "ADVANCE_KEY",
    "DEFAULTS",
    "ONLY_PARAM",
    "QUEUE_KEPT",
    "SUBSET_KEY",
    "SUBSET_PARAM",
    "URL_MEMO",
    "drawn",
    "kept_query",
    "left_as",
    "queue_query",
    "review_query",
    "settings_now",
    "settings_of",
]

T = TypeVar("T")

ADVANCE_KEY = "review.advance"
SUBSET_KEY = "review.f_subsets"
QUEUE_KEPT = "review.queue_kept"  # the Queue's settings as last drawn: what they are after another page
ONLY_PARAM, SUBSET_PARAM, ACCEPT_PARAM = "only", "subset", "accept"
STAYS = "stays"  # ?accept=stays: Accept stays on the example

#: The filters' toggles and their names in the URL's ``only``.
ONLY_NAMES: Mapping[str, str] = {
    "review.f_unreviewed": "unreviewed",
    "review.f_corrected": "corrected",
    "review.f_adherence0": "adherence0",
    "review.f_flags": "flags",
    "review.f_unsure": "unsure",
}

#: Every setting's widget key and its value when nothing set it.
DEFAULTS: Mapping[str, Any] = {**dict.fromkeys(ONLY_NAMES, False), SUBSET_KEY: [], ADVANCE_KEY: True}


def queue_query(settings: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """The URL's parameters for the Queue *settings* (widget key -> value); what is at its default is left out.

    >>> queue_query({"review.f_unreviewed": True, "review.f_flags": True, SUBSET_KEY: ["a", "b"], ADVANCE_KEY: False})
    {'only': 'unreviewed,flags', 'subset': ['a', 'b'], 'accept': 'stays'}
    >>> queue_query(DEFAULTS)
    {}
    """
    query: dict[str, str | list[str]] = {}
    if only := [name for key, name in ONLY_NAMES.items() if settings.get(key)]:
        query[ONLY_PARAM] = ",".join(only)
    if subsets := list(settings.get(SUBSET_KEY) or ()):
        query[SUBSET_PARAM] = subsets
    if not settings.get(ADVANCE_KEY, True):
        query[ACCEPT_PARAM] = STAYS
    return query


def settings_of(get_all: Callable[[str], list[str]]) -> dict[str, Any] | None:
    """The Queue settings a URL names (*get_all*: a parameter's values, as ``st.query_params.get_all``), every one:
    what it leaves out at its default; ``None`` when it names none. Names it does not know are passed over.

    >>> url = {"only": ["unreviewed,typo"], "subset": ["a"]}
    >>> found = settings_of(lambda p: url.get(p, []))
    >>> found["review.f_unreviewed"], found["review.f_flags"], found[SUBSET_KEY], found[ADVANCE_KEY]
    (True, False, ['a'], True)
    >>> settings_of(lambda p: []) is None
    True
    """
    only = {name for value in get_all(ONLY_PARAM) for name in value.split(",")}
    subsets, accept = get_all(SUBSET_PARAM), get_all(ACCEPT_PARAM)
    if not (only or subsets or accept):
        return None
    return {
        **{key: name in only for key, name in ONLY_NAMES.items()},
        SUBSET_KEY: _unique(subsets),
        ADVANCE_KEY: STAYS not in accept,
    }


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


URL_MEMO = "review.queue_url"  # the URL's settings, read once a run (a run asks for each setting several times)


def _from_url() -> dict[str, Any] | None:
    return once_a_run(URL_MEMO, lambda: settings_of(st.query_params.get_all))


def left_as(key: str) -> Any:
    """The Queue's setting *key* as the person left it (the module docstring says where it is read from)."""
    if (url := _from_url()) is not None:
        return url[key]
    if history_navigation():
        return DEFAULTS[key]
    return st.session_state.get(key, (st.session_state.get(QUEUE_KEPT) or {}).get(key, DEFAULTS[key]))


def settings_now(subset_names: Sequence[str]) -> dict[str, Any]:
    """Every setting as the person left it (:func:`left_as`), a subset the open data does not have (*subset_names*)
    left out, and kept in the session for their next visit (the ones a URL named too: the page list's switch back to
    Review carries them)."""
    now = {key: left_as(key) for key in DEFAULTS}
    now[SUBSET_KEY] = [name for name in now[SUBSET_KEY] or () if name in subset_names]
    st.session_state[QUEUE_KEPT] = now
    return now


def _record(key: str) -> None:
    """A Queue widget *key* changed: every setting goes in the URL, this one as the widget now says."""
    settings = {k: left_as(k) for k in DEFAULTS} | {key: st.session_state.get(key, DEFAULTS[key])}
    st.session_state[QUEUE_KEPT] = settings
    named = queue_query(settings) or {ONLY_PARAM: ""}  # at the defaults too: Back to the entry before undoes it
    rewrite_query((ONLY_PARAM, SUBSET_PARAM, ACCEPT_PARAM), named)
    forget(URL_MEMO)  # a callback runs inside the run it starts: read the URL written here, not the one before


def drawn(key: str, draw: Callable[[Callable[[], None]], T], value: Any = None) -> T:
    """Draw the Queue's widget *key* (*draw*, given the change callback that records the settings in the URL) with
    the value the person left it at (:func:`left_as`, or *value* when given), and keep what it says for their next
    visit. The value is set again before every drawing: Streamlit marks a "page" widget left on a page switch to
    forget its value when it is next drawn, and the URL may name another (Back, Forward)."""
    st.session_state[key] = left_as(key) if value is None else value
    shown = draw(lambda: _record(key))
    st.session_state[QUEUE_KEPT] = {**(st.session_state.get(QUEUE_KEPT) or {}), key: shown}
    return shown


def kept_query() -> dict[str, str | list[str]]:
    """The URL's parameters for the Queue's settings this session keeps (:func:`queue_query`): what the page list's
    switch to Review puts in its URL."""
    return queue_query(st.session_state.get(QUEUE_KEPT) or {})


def review_query(uid: str) -> dict[str, str | list[str]]:
    """A link's query to the example *uid* on the Review page, with the Queue's settings this session keeps
    (:func:`kept_query`): the page it opens walks them, and says so in its URL."""
    return {"uid": uid} | kept_query()
