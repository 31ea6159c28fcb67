"""Opening a page of the app under Streamlit's AppTest, the way every page test starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def theme_element() -> str:
    """app.py's hidden element on every page: the theme's rules and the popovers' keyboard script (constant text, the
    one script every page carries; the Review page adds its early element)."""
    from ragviz.ui.core.page_keys import PAGE_KEYS_HTML
    from ragviz.ui.core.render import theme_css

    return theme_css() + PAGE_KEYS_HTML


def open_page(page: str, **query: str) -> AppTest:
    """Run app.py switched to *page* (e.g. ``"pages/review.py"``) with *query* as URL query
    parameters; fail on any exception the page raised."""
    return _run_page(AppTest.from_file(APP, default_timeout=90), page, query)


def _run_page(at: AppTest, page: str, query: dict[str, str]) -> AppTest:
    """Switch *at* to *page* with *query* as URL query parameters, run it, fail on any exception."""
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def component_data(proto: Any) -> Any:
    """What a ``st.components.v2`` element was drawn with: its JSON data (the text editor's is sent as the bytes of
    one JSON text, ``ragviz.ui.core.component_files.packed``)."""
    kind = proto.WhichOneof("data")
    if kind == "bytes":
        return json.loads(proto.bytes)
    return json.loads(proto.mixed.json if kind == "mixed" else proto.json)


def text_editor(at: AppTest, kind: str = "context") -> dict:
    """What the Review page's text editor (``ragviz.ui.review.sentence_editor``) was drawn with: its
    ``"context"`` or ``"response"`` data (sentences, labels, links, selection); ``"toolbar"``: the navigation bar's
    (``ragviz.ui.review.toolbar``: an element of its own, or the single view's response editor's ``bar``)."""
    for element in at.get("bidi_component"):
        data = component_data(element.proto)
        if data.get("kind") == kind:
            return data
        if kind == "context" and data.get("kind") == "response" and data.get("context"):  # the single view's
            return data["context"]
        if kind == "toolbar" and data.get("kind") == "response" and data.get("bar"):  # the single view's
            return data["bar"]
    raise AssertionError(f"no {kind} text editor on the page")


def click_sentence(at: AppTest, key: str) -> AppTest:
    """A click on a sentence of the text editor, as the browser sends it: a context sentence moves
    to its next label, a response sentence is selected; then the page runs."""
    from ragviz.analysis.review.text import next_state
    from ragviz.ui.review.sentence_editor import EVENTS

    context = text_editor(at, "context")
    if any(key == k for doc in context["docs"] for k, _ in doc["s"]):
        seen = context["states"].get(key, "neither")
        event = {"uid": context["uid"], "kind": "label", "key": key, "seen": seen, "to": next_state(seen)}
    else:
        event = {"uid": context["uid"], "kind": "select", "key": key}
    at.session_state[EVENTS] = [*(at.session_state[EVENTS] if EVENTS in at.session_state else []), event]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def toolbar_button(at: AppTest, name: str) -> dict | None:
    """The Review page's navigation bar button *name* (``"prev"``, ``"next"``, ``"next_unreviewed"``, ``"accept"``,
    ``"undo"``, ``"reset"``) as drawn (label, shortcut, disabled, help); ``None`` when the bar has no such button."""
    return next((b for b in text_editor(at, "toolbar")["buttons"] if b["id"] == name), None)


def press(at: AppTest, name: str) -> AppTest:
    """A click on (or the shortcut of) the navigation bar's button *name*, as the browser sends it; then the page
    runs. The button must be drawn (a disabled one is pressed too, and does nothing, as in the browser)."""
    from ragviz.ui.review.toolbar import EVENTS

    assert toolbar_button(at, name) is not None, f"no {name} button on the navigation bar"
    at.session_state[EVENTS] = [*(at.session_state[EVENTS] if EVENTS in at.session_state else []), name]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_queue(at: AppTest) -> AppTest:
    """Open the Review sidebar's Queue (a disclosure, closed until pressed: its radio, toggles and filters are drawn
    only while it is open), as a press on its button does; nothing when it is open already."""
    from ragviz.ui.core.disclosure import BUTTON_SUFFIX
    from ragviz.ui.review.page import QUEUE_OPEN

    if not (QUEUE_OPEN in at.session_state and at.session_state[QUEUE_OPEN]):
        at.button(key=QUEUE_OPEN + BUTTON_SUFFIX).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def queue_buttons(at: AppTest) -> list[str]:
    """The labels of the sidebar's Queue buttons (its settings said on it; the widgets are drawn when it opens)."""
    return [b.label for b in at.sidebar.button if b.label.startswith("Queue: ")]


def response_editor(at: AppTest, slot: str = "") -> dict:
    """The Review page's response editor's data (``ragviz.ui.review.sentence_editor.response_data``): the single
    view's (*slot* ``""``) or a paired view's answer ``"a"`` / ``"b"``; its ``explain`` is the selected sentence's
    explanation and ``controls`` its verdict, note and supporting keys as drawn (absent while presenting)."""
    for element in at.get("bidi_component"):
        data = component_data(element.proto)
        if data.get("kind") == "response" and data.get("slot", "") == slot:
            return data
    raise AssertionError(f"no response editor {slot!r} on the page")


def edit_sentence(at: AppTest, kind: str, value: object, slot: str = "") -> AppTest:
    """A change of the selected response sentence's control, as the browser sends it: *kind* ``"verdict"`` (*value*
    ``"supported"`` / ``"unsupported"``), ``"keys"`` (the whole list of supporting keys, as a pick or a removal
    leaves it) or ``"note"`` (the text); then the page runs. The controls must be drawn (not while presenting)."""
    from ragviz.ui.review.sentence_editor import EVENTS

    data = response_editor(at, slot)
    controls = data.get("controls")
    assert controls, f"no controls under the response {slot!r}"
    field = {"verdict": "status", "keys": "keys", "note": "note"}[kind]
    event = {"uid": data["uid"], "kind": kind, "key": controls["key"], field: value}
    at.session_state[EVENTS] = [*(at.session_state[EVENTS] if EVENTS in at.session_state else []), event]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


SIGN_IN_SECRETS = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "test-cookie-secret-not-used-by-apptest",
    "client_id": "ragviz",
    "client_secret": "ragviz",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}


def signed_in_user(email: str, **claims: object) -> dict:
    """What ``st.user`` holds for an account signed in at the provider with a verified *email*
    (*claims* added or overriding: ``email_verified=False``, another ``name``)."""
    return {
        "is_logged_in": True,
        "iss": "http://127.0.0.1:9",
        "sub": email,
        "email": email,
        "email_verified": True,
        "name": email.split("@")[0],
        "iat": 1_700_000_000,
        "nonce": "n-" + email,
        **claims,
    }


def open_page_as(page: str, email: str | None, **query: str) -> AppTest:
    """:func:`open_page` with sign-in configured and *email* signed in (``None``: nobody signed in)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.secrets["auth"] = dict(SIGN_IN_SECRETS)
    at.user = signed_in_user(email) if email else {"is_logged_in": False}
    return _run_page(at, page, query)


def shown(markdown: str) -> str:
    r"""What a Markdown element shows for *markdown* escaped with ``md_escape`` (``\*`` shows ``*``)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")  # the word joiner after an e-mail's @


def html_blocks(at: AppTest) -> list[str]:
    """The page's HTML blocks as drawn: its ``st.html`` blocks, then the header the single view's response editor
    draws above the response (``ragviz.ui.review.header``: where, the question, the TRACe cards, the flags, the
    legend), as one block."""
    from ragviz.ui.review.header import tree_html

    blocks = [h.value for h in at.get("html")]
    try:
        header = response_editor(at).get("header")
    except AssertionError:  # no response editor on the page
        header = None
    return blocks + ([tree_html(header)] if header else [])


def page_html(at: AppTest) -> str:
    """:func:`html_blocks` as one text."""
    return "\n".join(html_blocks(at))


def review_metrics(at: AppTest) -> dict[str, tuple[str, str]]:
    """The Review page's TRACe cards (``ragviz.ui.review.page.metric_cards_html``, in the header the response editor
    draws): label -> (value, delta against the judge, ``""`` without one)."""
    import html
    import re

    cards = re.findall(
        r'class="rv-metric" data-metric="([^"]*)" data-value="([^"]*)" data-delta="([^"]*)"', page_html(at)
    )
    return {html.unescape(n): (html.unescape(v), html.unescape(d)) for n, v, d in cards}


def review_formulas(at: AppTest) -> list[str]:
    """The Review page's four formula lines under the TRACe cards, as HTML."""
    import re

    return re.findall(r'<div class="rv-formula"[^>]*>(.*?)</div>', page_html(at))
