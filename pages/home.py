"""Home: the first screen. What ragviz does, what is loaded and how far this annotator's review is,
one "Start reviewing" action, and a 30-second tour of the sentence keys on the sample."""

import streamlit as st

from ragviz.analysis.overview import overview
from ragviz.analysis.review.queue import progress
from ragviz.ui import home as ui
from ragviz.ui.core import access, state

state.require_app_shell()


def load_sample() -> None:
    state.set_paths([str(state.SAMPLE_DATA)])


ui.intro()
paths = state.current_paths()
if not paths:
    ui.nothing_loaded(on_load_sample=load_sample if access.access().can_load else None)  # loading: admins
else:
    store, who = state.store(), state.annotator()
    ui.loaded(
        overview(state.dataset()),
        progress(state.uid_set(), store.reviewed_uids(who), store.corrected_uids(who)),
        who,
        on_start=lambda: st.switch_page("pages/review.py"),
    )
ui.tour(ui.tour_example())
