"""The Review sidebar's Queue under Streamlit's AppTest: a disclosure (issue 38), closed until pressed. Closed it is one
button that says the settings, with no popover and none of its widgets drawn (a popover was a block the browser
redrew on every commit of a J); open, its panel holds the Queue radio, "Accept moves to the next unreviewed" and the
filters, whose values outlive closing it and J / K."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

from ragviz.ui.core.disclosure import BUTTON_SUFFIX
from ragviz.ui.review.page import ADVANCE_KEY, QUEUE_OPEN
from tests.apptest_helpers import open_page, open_queue, press, queue_buttons

ALL = "Queue: all examples · no filters · Accept → next unreviewed"


def _popovers(at: AppTest) -> list[str]:
    """The labels of the sidebar's popovers, at any depth."""
    found, blocks = [], [at.sidebar]
    while blocks:
        block = blocks.pop()
        for child in block.children.values():
            if isinstance(child, Block):
                if child.proto.WhichOneof("type") == "popover":
                    found.append(child.proto.popover.label)
                blocks.append(child)
    return found


def _widgets(at: AppTest) -> list[str]:
    """The keys of the sidebar's Queue and filter widgets drawn on the last run (the audit queue's sample picker and
    draw form are drawn under the Queue's button, outside it)."""
    drawn = [*at.sidebar.toggle, *at.sidebar.radio, *at.sidebar.multiselect]
    return [
        w.key for w in drawn if w.key in ("review.queue", ADVANCE_KEY, "team.mine") or w.key.startswith("review.f_")
    ]


def _close(at: AppTest) -> None:
    at.button(key=QUEUE_OPEN + BUTTON_SUFFIX).click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_closed_queue_draws_no_popover_and_no_filter_widget(app_env):
    at = open_page("pages/review.py")
    assert queue_buttons(at) == [ALL]
    assert _popovers(at) == [] and _widgets(at) == []
    assert at.button(key=QUEUE_OPEN + BUTTON_SUFFIX).proto.icon == ":material/expand_more:"
    open_queue(at)
    assert at.button(key=QUEUE_OPEN + BUTTON_SUFFIX).proto.icon == ":material/expand_less:"
    assert {"review.queue", ADVANCE_KEY, "review.f_adherence0", "review.f_subsets"} <= set(_widgets(at))
    assert _popovers(at) == []
    _close(at)
    assert _widgets(at) == []


def test_open_choose_close_keeps_the_choices_across_j_and_k(app_env):
    at = open_page("pages/review.py")
    open_queue(at)
    at.toggle(key="review.f_adherence0").set_value(True).run()
    at.toggle(key=ADVANCE_KEY).set_value(False).run()
    assert not any("Filtered" in c.value for c in at.sidebar.caption)  # open: the toggles say it
    _close(at)
    assert _widgets(at) == []
    assert queue_buttons(at) == ["Queue: all examples · 1 filter · Accept stays"]
    assert [c.value for c in at.sidebar.caption if "Filtered" in c.value] == ["Filtered\\: Adherence 0"]
    walked = at.query_params["uid"]
    press(at, "next")
    assert at.query_params["uid"] != walked
    press(at, "prev")
    assert queue_buttons(at) == ["Queue: all examples · 1 filter · Accept stays"]  # J / K: the settings kept
    open_queue(at)
    assert at.toggle(key="review.f_adherence0").value and not at.toggle(key=ADVANCE_KEY).value
    at.radio(key="review.queue").set_value("Audit sample").run()
    _close(at)
    assert queue_buttons(at) == ["Queue: audit sample"]
    assert _widgets(at) == []
    # the audit queue ignores the filters: no "Filtered: …" line for it
    assert not any("Filtered" in c.value for c in at.sidebar.caption)
    at.run()  # another run with the Queue closed
    assert queue_buttons(at) == ["Queue: audit sample"]
    open_queue(at)
    assert at.radio(key="review.queue").value == "Audit sample"
    at.radio(key="review.queue").set_value("All examples").run()
    assert queue_buttons(at) == ["Queue: all examples · 1 filter · Accept stays"]  # the filter waited meanwhile


def test_the_audit_queue_chosen_then_closed_stays_after_another_page_and_opening_it(app_env):
    """Leaving the page drops the panel's kept values ("page"); back on Review the Queue choice comes back from the
    session (restore_queue). Streamlit marks the radio to forget its value when next drawn: opening the Queue after
    coming back turned the audit queue into all examples, its button still saying "audit sample" (the popover's radio,
    drawn on every run, kept it)."""
    at = open_page("pages/review.py")
    open_queue(at)
    at.radio(key="review.queue").set_value("Audit sample").run()
    _close(at)
    at.switch_page("pages/dashboard.py").run()
    at.switch_page("pages/review.py").run()
    assert queue_buttons(at) == ["Queue: audit sample"]
    open_queue(at)
    assert at.radio(key="review.queue").value == "Audit sample"
    at.run()
    assert queue_buttons(at) == ["Queue: audit sample"]


def test_the_filters_and_accepts_choice_stay_after_another_page(app_env):
    """The Queue's filters and "Accept moves to the next unreviewed", set and the Queue closed, are as the person left
    them after another page: on its button, in the walk, and in the panel opened again (Streamlit forgets a page's
    widgets when a page switch leaves them behind; they were back to no filter and "moves on")."""
    at = open_page("pages/review.py")
    open_queue(at)
    at.toggle(key="review.f_unreviewed").set_value(True).run()
    at.toggle(key="review.advance").set_value(False).run()
    at.multiselect(key="review.f_subsets").set_value(["medqa_sample"]).run()
    _close(at)
    left = ["Queue: all examples · 2 filters · Accept stays"]
    assert at.query_params["uid"].startswith("medqa_sample/")
    assert queue_buttons(at) == left
    at.switch_page("pages/dashboard.py").run()
    at.switch_page("pages/review.py").run()
    assert not at.exception
    assert queue_buttons(at) == left
    assert at.query_params["uid"].startswith("medqa_sample/")  # the walk still filtered
    press(at, "next")
    assert at.query_params["uid"].startswith("medqa_sample/")
    open_queue(at)
    assert at.toggle(key="review.f_unreviewed").value and not at.toggle(key="review.advance").value
    assert at.multiselect(key="review.f_subsets").value == ["medqa_sample"]
    at.run()
    assert queue_buttons(at) == left


def test_a_link_with_the_queues_settings_opens_the_page_walking_them(app_env):
    """``?only=…&subset=…&accept=stays`` (a reload, a new tab, a copied link): the Queue's button says the settings, J
    keeps to them, and the panel opened shows them set; a name the page does not know is passed over."""
    at = open_page("pages/review.py", only="unreviewed,nonsense", subset="medqa_sample", accept="stays")
    assert queue_buttons(at) == ["Queue: all examples · 2 filters · Accept stays"]
    assert at.query_params["uid"].startswith("medqa_sample/")
    for _ in range(2):
        press(at, "next")
        assert at.query_params["uid"].startswith("medqa_sample/")
    open_queue(at)
    assert at.toggle(key="review.f_unreviewed").value and not at.toggle(key="review.f_adherence0").value
    assert at.multiselect(key="review.f_subsets").value == ["medqa_sample"]
    assert not at.toggle(key=ADVANCE_KEY).value


def test_a_change_in_the_queue_puts_every_setting_in_the_url(app_env):
    """Each change to the Queue's widgets writes them all to the URL (what is at its default left out; all at their
    defaults: ``only=``), so a reload walks the same examples; the URL's other parameters stay."""
    at = open_page("pages/review.py")
    open_queue(at)
    uid = at.query_params["uid"]
    at.toggle(key="review.f_adherence0").set_value(True).run()
    assert dict(at.query_params) == {"uid": uid, "only": "adherence0"}
    at.multiselect(key="review.f_subsets").set_value(["medqa_sample"]).run()
    at.toggle(key=ADVANCE_KEY).set_value(False).run()
    assert at.query_params["only"] == "adherence0" and at.query_params["accept"] == "stays"
    assert at.query_params["subset"] == "medqa_sample"  # AppTest keeps a one-value list as the string
    assert queue_buttons(at) == ["Queue: all examples · 2 filters · Accept stays"]
    at.toggle(key="review.f_adherence0").set_value(False).run()
    at.multiselect(key="review.f_subsets").set_value([]).run()
    at.toggle(key=ADVANCE_KEY).set_value(True).run()
    assert at.query_params["only"] == "" and not {"subset", "accept"} & set(at.query_params)  # defaults, named
    assert queue_buttons(at) == [ALL]


def test_the_url_names_the_settings_after_back(app_env):
    """The URL, when it names settings, is what the page walks (Back or Forward to an entry made before a change):
    the widgets are set again from it."""
    at = open_page("pages/review.py")
    open_queue(at)
    at.toggle(key="review.f_adherence0").set_value(True).run()
    at.toggle(key="review.f_flags").set_value(True).run()
    at.query_params["only"] = "adherence0"  # what Back to the entry before the second change gives
    at.run()
    assert at.toggle(key="review.f_adherence0").value and not at.toggle(key="review.f_flags").value
    assert queue_buttons(at) == ["Queue: all examples · 1 filter · Accept → next unreviewed"]


def test_a_change_back_to_the_defaults_still_names_them_in_the_url(app_env):
    """A filter turned on then off: the URL names the settings at their defaults (``only=``), so Back to the entry
    with the filter on and Forward again each show what the entry says."""
    at = open_page("pages/review.py")
    open_queue(at)
    at.toggle(key="review.f_adherence0").set_value(True).run()
    at.toggle(key="review.f_adherence0").set_value(False).run()
    assert at.query_params["only"] == "" and queue_buttons(at) == [ALL]
    at.query_params["only"] = "adherence0"  # Back: the entry with the filter on
    at.run()
    assert at.toggle(key="review.f_adherence0").value
    at.query_params["only"] = ""  # Forward
    at.run()
    assert not at.toggle(key="review.f_adherence0").value and queue_buttons(at) == [ALL]


def test_back_to_an_entry_from_before_any_change_shows_the_defaults(app_env, monkeypatch):
    """Back to the page as it was before the first change (its URL names no setting, nor the audit queue): the filters,
    Accept's choice and the Queue are as that entry had them, not as chosen since."""
    from ragviz.ui.audit import sample as audit_sample
    from ragviz.ui.core import queue_settings

    at = open_page("pages/review.py")
    open_queue(at)
    at.toggle(key="review.f_adherence0").set_value(True).run()
    at.toggle(key=ADVANCE_KEY).set_value(False).run()
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert at.query_params["queue"] == "audit"
    for param in ("only", "accept", "queue", "sample"):
        at.query_params.pop(param, None)
    monkeypatch.setattr(queue_settings, "history_navigation", lambda: True)
    monkeypatch.setattr(audit_sample, "history_navigation", lambda: True)
    at.run()
    assert at.radio(key="review.queue").value == "All examples"
    assert not at.toggle(key="review.f_adherence0").value and at.toggle(key=ADVANCE_KEY).value
    assert queue_buttons(at) == [ALL]


def test_a_subset_the_open_data_lacks_is_no_filter(app_env):
    """``?subset=`` naming a subset the data does not have (a link from other data, a typo) filters nothing, closed or
    open: the button, the walk and the panel agree."""
    at = open_page("pages/review.py", subset="nope")
    assert queue_buttons(at) == [ALL]
    first = at.query_params["uid"]
    press(at, "next")
    assert at.query_params["uid"] != first
    open_queue(at)
    assert at.multiselect(key="review.f_subsets").value == []
    assert queue_buttons(at) == [ALL]
