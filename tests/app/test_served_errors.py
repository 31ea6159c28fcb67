"""Served, Streamlit's error details are off (issue 34): no traceback, exception text, path or SQL of an
error nobody caught reaches a browser; on one machine they stay as configured. And a click the database
did not take is kept once per click id, for the page's Retry."""

from __future__ import annotations

import streamlit as st

from ragviz.ui.core import served, unsaved


def test_served_mode_turns_error_details_off_and_one_machine_puts_them_back(monkeypatch):
    before = st.get_option("client.showErrorDetails")
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    served.hide_error_details()
    assert st.get_option("client.showErrorDetails") == "none"
    monkeypatch.setenv("RAGVIZ_SERVED", "0")
    served.hide_error_details()
    assert st.get_option("client.showErrorDetails") == before


def test_an_unsaved_click_is_kept_once_and_dropped_when_stored(monkeypatch):
    monkeypatch.setattr(st, "session_state", {})
    write = unsaved.UnsavedWrite("record", "ex-1", "ann", unsaved.new_click_id(), "accept", (("review", None, "x"),))
    unsaved.keep(write, RuntimeError("the database is unavailable"))
    unsaved.keep(write, RuntimeError("still unavailable"))  # the same click again: kept once
    assert unsaved.pending() == [write]
    assert write.described == "accept on ex-1"
    unsaved.drop(write)
    assert unsaved.pending() == []
