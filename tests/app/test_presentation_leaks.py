"""Issue 40: presentation mode hides which examples were corrected; the audit queue's header and the browser
tab still said how many members were reviewed, and the Home tour offered A (accept) and Z (undo), which
do nothing on a projector. (The tab title is the header's text: pages/review.py sets both from one string.)"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.ui.core.keys import PRESENT_TOGGLE as PRESENT
from ragviz.ui.core.keys import SHOW_CORRECTIONS_KEY
from tests.app.test_audit import _audit
from tests.apptest_helpers import APP, html_blocks, open_page

CORRECTIONS = SHOW_CORRECTIONS_KEY + ".button"


def _markdown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_presenting_the_audit_queue_says_where_but_not_how_many_were_reviewed(app_env):
    _, sample = _audit(app_env["db"], size=10, reviewed=7)
    first = sample.members[0]
    shown = open_page("pages/review.py", uid=first, queue="audit", sample="1", present="1")
    bodies = html_blocks(shown)
    assert any("Audit sample #1: member 1 of 10" in b for b in bodies), [b[:120] for b in bodies if "Audit" in b]
    assert not any("reviewed" in b for b in bodies if "Audit sample #" in b)
    working = open_page("pages/review.py", uid=first, queue="audit", sample="1")
    assert any("Audit sample #1: member 1 of 10, 7 reviewed" in b for b in html_blocks(working))


def test_the_home_tour_offers_no_editing_key_while_presenting(app_env):
    presenting = _markdown(open_page("pages/home.py", present="1"))
    assert "**J** next" in presenting and "**A** accept" not in presenting and "**Z** undo" not in presenting
    working = _markdown(open_page("pages/home.py"))
    assert "**A** accept" in working and "**Z** undo" in working


def _sidebar_buttons(shown_corrections: bool = False, **query: str) -> dict[str, tuple[str, str]]:
    """The Review page's sidebar buttons drawn by app.py (key: label, icon), "Show corrections" on when asked (not
    the page's own: its Queue button)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state[SHOW_CORRECTIONS_KEY] = shown_corrections
    for k, v in {"id": "ml-vs-programming", **query}.items():
        at.query_params[k] = v
    at.switch_page("pages/review.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return {b.key: (b.label, b.proto.icon) for b in at.sidebar.button if not b.key.startswith("review.queue")}


def test_the_presentation_button_says_the_mode_and_show_corrections_is_a_button_under_it(app_env):
    """The sidebar's "Presentation mode: off" button with a switch's picture on its right (its press turns the mode
    on and off: tests/browser/test_review_sidebar.py); while presenting, "Show corrections" under it says whether they
    are shown, and the first button says it too."""
    off = _sidebar_buttons()
    assert off == {PRESENT: ("Presentation mode: off", ":material/toggle_off:")}  # no "Show corrections"
    on = _sidebar_buttons(present="1")
    assert on == {
        PRESENT: ("Presentation mode: on", ":material/toggle_on:"),
        CORRECTIONS: ("Show corrections: off", ":material/toggle_off:"),
    }
    shown = _sidebar_buttons(True, present="1")
    assert shown == {
        PRESENT: ("Presentation mode: on · corrections shown", ":material/toggle_on:"),
        CORRECTIONS: ("Show corrections: on", ":material/toggle_on:"),
    }


def _present_buttons() -> None:  # the sidebar's presentation buttons alone, as app.py draws them on Review
    from ragviz.ui.core.present import present_toggle

    present_toggle(corrections=True)


def test_presentation_mode_turned_on_again_hides_the_corrections_again():
    """A lock for a projector: the corrections the presenter showed last time stay hidden when the mode is turned on
    anew ("Show corrections" was a toggle, whose state went with the mode; a button's flag outlived it)."""
    at = AppTest.from_function(_present_buttons)
    at.query_params["present"] = "1"
    at.run()
    at.sidebar.button(key=CORRECTIONS).click().run()
    assert at.sidebar.button(key=PRESENT).label == "Presentation mode: on · corrections shown"
    at.sidebar.button(key=PRESENT).click().run()  # off
    assert at.sidebar.button(key=PRESENT).label == "Presentation mode: off"
    at.sidebar.button(key=PRESENT).click().run()  # on again: the corrections hidden
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.button(key=PRESENT).label == "Presentation mode: on"
    assert at.sidebar.button(key=CORRECTIONS).label == "Show corrections: off"
    at.query_params["present"] = "0"  # the same through the URL
    at.run()
    at.query_params["present"] = "1"
    at.run()
    at.sidebar.button(key=CORRECTIONS).click().run()
    at.query_params["present"] = "0"
    at.run()
    at.query_params["present"] = "1"
    at.run()
    assert at.sidebar.button(key=CORRECTIONS).label == "Show corrections: off"
