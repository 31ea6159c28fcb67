"""Home: the first screen. What ragviz does, what is loaded and how far this annotator's review is,
one "Start reviewing" action, and a 30-second tour of the sentence keys on the sample."""

import streamlit as st

from ragviz.analysis.overview import overview
from ragviz.analysis.review.queue import store_progress
from ragviz.ui import home as ui
from ragviz.ui.core import access, state
from ragviz.ui.core.load_notice import load_errors_notice
from ragviz.ui.core.present import is_present
from ragviz.ui.review.actions import return_query

state.require_app_shell()


def load_sample() -> None:
    state.set_paths([str(state.SAMPLE_DATA)])


ui.intro()
paths = state.current_paths()
present = is_present()  # presentation mode (always for viewers): nothing that writes, no one's progress
if not paths:
    may_load = access.access().can_load and not present  # loading: admins, not while presenting
    ui.nothing_loaded(on_load_sample=load_sample if may_load else None, sample_here=state.SAMPLE_DATA.is_dir())
else:
    store, who = state.store(), state.annotator()
    load_errors_notice(state.load_errors(), len(state.dataset()))
    ui.loaded(
        overview(state.dataset()),
        None if present else store_progress(store, who, state.uid_set()),
        who,
        on_start=lambda: st.switch_page("pages/review.py", query_params=return_query()),
        present=present,
    )
ui.tour(ui.tour_example(), present=present)
