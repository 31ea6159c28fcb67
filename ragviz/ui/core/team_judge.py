"""The team's judge version as the pages that judge use it (the Label page, Review's re-judge, the Judge page)."""

from __future__ import annotations

import streamlit as st

from ragviz.data.errors import BadInput
from ragviz.judge.prompt import JudgePrompt
from ragviz.judge.versions import registry
from ragviz.judge.versions.spec import JudgeVersion
from ragviz.ui.core import render, state

__all__ = ["team_judge"]


def team_judge() -> tuple[JudgeVersion, JudgePrompt]:
    """The team's judge version and its prompt; an error and a stop when its prompt is refused (a few-shot
    example in an audit sample drawn since it was created)."""
    try:
        version, prompt, _ = registry.team_judge(state.store())
    except BadInput as exc:
        st.error(render.md_escape(exc.problem))
        st.stop()
    return version, prompt
