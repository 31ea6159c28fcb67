"""The Judge page's first half: the versions, the test set, where the judge and people disagree (grouped by
pattern), and a candidate version (few-shot picks, rubric notes, its exact prompt with tokens and the cost of
comparing it), created by an admin. Nothing here computes: :mod:`ragviz.analysis.judge_compare` and
:mod:`ragviz.judge.versions` do; every text from data or a person is escaped (``render``), the prompt is shown in
a code block (shown as text, never as Markdown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.judge_compare.disagreements import Pattern, describe, disagreement_patterns
from ragviz.analysis.judge_trust import judge_people_triples
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.judge.cost import run_cost
from ragviz.judge.prompt import JudgePrompt
from ragviz.judge.settings import JudgeConfigError, JudgeSettings
from ragviz.judge.versions import registry
from ragviz.judge.versions.compare import TestSet
from ragviz.judge.versions.prompt import check_fits, version_prompt
from ragviz.judge.versions.spec import JudgeVersion
from ragviz.store.audit_samples import AuditSample
from ragviz.store.label_store import LabelStore
from ragviz.ui.core import render, state
from ragviz.ui.core.keys import (
    JUDGE_DONE,
    JUDGE_FROM,
    JUDGE_NAME,
    JUDGE_PICKS,
    JUDGE_PROMOTE,
    JUDGE_RUBRIC,
    JUDGE_VERSIONS,
)
from ragviz.ui.label import page as label_ui
from ragviz.ui.label import results as label_results

__all__ = [
    "candidate_section",
    "disagreements_section",
    "judge_settings",
    "no_test_set",
    "patterns_of",
    "test_set_of",
    "versions_section",
]


def versions_section(store: LabelStore) -> JudgeVersion:
    """Every version in a table (the team's judge marked, its promotion named); returns the team's judge."""
    team, promotion = registry.current_version(store)
    who = (
        f", promoted by {promotion.promoted_by} on {promotion.promoted_at[:16].replace('T', ' ')} UTC"
        if promotion
        else ""
    )
    st.markdown(f"The team's judge: **{render.md_escape(team.name)}**{render.md_escape(who)}")
    rows = [
        {
            "Version": v.name,
            "Team's judge": "✓" if v.name == team.name else "",
            "From": v.parent or "",
            "Model": v.model or "any",
            "Few-shot": len(v.few_shot),
            "Rubric notes": "yes" if v.rubric.strip() else "",
            "Created by": v.created_by,
            "Created": v.created_at[:16].replace("T", " "),
        }
        for v in registry.list_versions(store)
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="judge.versions")
    return team


def no_test_set(ds: Dataset, store: LabelStore, can_admin: bool) -> None:
    """Said when the loaded data has no audit sample: the test set comes from one; admins may draw it here."""
    st.info(
        "No audit sample for the loaded data yet. Its reviewed members are the test set a judge version is measured "
        "on (examples no prompt may show). Draw one here, on the Review page (Queue: Audit sample) or with `ragviz audit draw`, then review it."
    )
    if not can_admin:
        return
    n = st.number_input(  # its − / + beside the number, not a page's width away
        "Sample size",
        min_value=1,
        max_value=max(1, len(ds)),
        value=min(50, len(ds)),
        key="judge.draw_n",
        width=render.NUMBER_WIDTH,
    )
    if st.button("Draw an audit sample", key="judge.draw"):
        store.audits.draw_sample(ds.uids, int(n), state.annotator())
        st.rerun()


def patterns_of(ds: Dataset, store: LabelStore, against: LabelSelection = HUMAN) -> tuple[list[Pattern], int, int]:
    """(the disagreement patterns over reviewed examples outside every audit sample, how many reviewed examples
    that is, how many reviewed ones are left out as test-set examples), memoized per data and store version.
    *against*: whose labels (``human``: per example and label field every annotator's latest decision; one annotator in a blind round)."""
    key = ("judge.patterns", state.current_paths(), store.location, store.data_version(), against)
    memo = st.session_state.get("judge.patterns_memo")
    if memo is not None and memo[0] == key:
        return memo[1]
    members = store.audits.audit_members()
    triples = judge_people_triples(ds, store, against)
    usable = [t for t in triples if t[0].uid not in members]
    found = (disagreement_patterns(usable), len(usable), len(triples) - len(usable))
    st.session_state["judge.patterns_memo"] = (key, found)
    return found


def disagreements_section(patterns: Sequence[Pattern], n_usable: int, n_test: int, blind: bool = False) -> None:
    """The patterns, largest first, with counts (*blind*: a blind round is on, they count the person's own labels)."""
    st.subheader("Where the judge and you disagree" if blind else "Where the judge and people disagree")
    whose = "you reviewed" if blind else "reviewed"
    st.caption(
        f"Over the {n_usable:,} examples {whose} outside every audit sample (the {n_test:,} reviewed audit-sample "  # md: ours
        "members are test-set examples: left out, they may never reach a prompt). One row per subset, label kind and "
        "direction." + (" A blind labelling round is on: these count your own labels only." if blind else "")
    )
    if not n_usable:  # "people accepted every label" of none reviewed would claim what nobody saw
        who = "You have reviewed no example" if blind else "Nobody has reviewed an example"
        st.info(
            f"{who} outside the audit samples yet: no disagreement to learn from. Corrections "  # md: ours
            "made on the Review page outside the audit sample appear here."
        )
        return
    if not patterns:
        st.info("No disagreement: people accepted every judge label they reviewed outside the audit samples.")
        return
    rows = [
        {
            "Subset": p.subset,
            "Label kind": p.kind,
            "What happened": describe(p.kind, p.direction),
            "Decisions": p.n_decisions,
            "Examples": p.n_examples,
        }
        for p in patterns
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="judge.patterns")


def judge_settings() -> JudgeSettings | None:
    """The Label page's judge settings (model, endpoint, key), checked; a warning and ``None`` when they cannot work."""
    label_ui.init_settings_state()
    try:
        return label_ui.checked_settings()
    except JudgeConfigError as exc:
        st.warning(f"Judge settings (on the Label page): {render.md_escape(exc)}")
        return None


def _pick_label(uid: str, patterns: Sequence[Pattern]) -> str:
    first = next((p for p in patterns if uid in p.uids), None)
    return uid if first is None else f"{uid} — {describe(first.kind, first.direction)}"


def _draft(ds: Dataset, store: LabelStore, picks: list[str]) -> JudgeVersion:
    return registry.draft_version(
        store,
        ds,
        str(st.session_state.get(JUDGE_NAME) or "").strip(),
        parent=st.session_state.get(JUDGE_FROM),
        example_uids=picks,
        rubric=str(st.session_state.get(JUDGE_RUBRIC) or ""),
        created_by=state.annotator(),
    )


def _prompt_facts(version: JudgeVersion, prompt: JudgePrompt, test_set: TestSet | None, settings: Any) -> None:
    tokens = len(prompt.system) // 4 + 1
    cost, calls, model = "—", "—", ""
    if test_set is not None and settings is not None:
        run_settings = registry.settings_for(version, settings)
        check_fits(version, prompt, test_set.examples, run_settings.model)
        plan = run_cost(test_set.examples, run_settings, None, prompt)
        cost, calls, model = label_results.format_cost(plan.cost_usd), f"{plan.calls:,}", run_settings.model
    label_results.metric_row(
        [("System message (tokens)", f"{tokens:,}"), ("Calls to compare it", calls), ("Cost of comparing it", cost)]
    )
    on = f" on {render.md_escape(model, 80)}" if model else ""
    st.caption(  # md: ours (the model's name in *on* is escaped)
        f"Tokens = characters / 4, as the Label page counts them; calls and cost: the test set{on}, nothing cached."
    )


def candidate_section(
    ds: Dataset,
    store: LabelStore,
    patterns: Sequence[Pattern],
    test_set: TestSet | None,
    settings: JudgeSettings | None,
    can_admin: bool,
) -> None:
    """Few-shot picks, rubric notes, name and base version, the exact prompt with tokens and cost, Create."""
    st.subheader("A new version from these corrections")
    created = st.session_state.pop("judge.created", None)
    if created:  # a new draft starts empty; the new version is the one to compare and promote (set before drawn)
        new_values: dict[str, Any] = {
            JUDGE_NAME: "",
            JUDGE_PICKS: [],
            JUDGE_RUBRIC: "",
            JUDGE_FROM: None,
            JUDGE_VERSIONS: [],
        }
        st.session_state.update({**new_values, JUDGE_PROMOTE: created})
    options = list(dict.fromkeys(uid for p in patterns for uid in p.uids))
    picks = st.multiselect(
        "Few-shot examples (shown with people's labels and notes)",
        options,
        key=JUDGE_PICKS,
        format_func=lambda uid: _pick_label(uid, patterns),
        disabled=not can_admin,
        help="Only reviewed examples outside every audit sample are offered: a test-set example never reaches a prompt.",
    )
    st.text_area(
        "Rubric notes",
        key=JUDGE_RUBRIC,
        height=120,
        disabled=not can_admin,
        placeholder="e.g. A sentence that names the reading the question asks about is relevant.",
        help="Added to the prompt after the instructions, in full, exactly as typed",
    )
    names = [v.name for v in registry.list_versions(store)]
    left, right = st.columns(2)
    left.text_input("Name of the new version", key=JUDGE_NAME, disabled=not can_admin, placeholder="e.g. v2")
    right.selectbox(
        "Starts from", names, key=JUDGE_FROM, index=None, placeholder="the team's judge", disabled=not can_admin
    )
    name = str(st.session_state.get(JUDGE_NAME) or "").strip()
    try:
        draft = _draft(ds, store, picks) if name else None
        base = draft or registry.get_version(
            store, st.session_state.get(JUDGE_FROM) or registry.current_version(store)[0].name
        )
        shown = draft or base
        prompt = version_prompt(shown, store.audits.audit_members(), registry.AUDIT_SAMPLES)
        if draft is None:
            st.caption(
                "Name the version to see its prompt; until then this is the prompt of the version it starts from."
            )
        _prompt_facts(shown, prompt, test_set, settings)
    except BadInput as exc:
        st.error(render.md_escape(exc.problem, None))
        return
    with st.expander(
        "The exact system message" + (f" of {render.md_escape(name)}" if draft else ""), expanded=bool(draft)
    ):
        st.code(prompt.system, language=None, wrap_lines=True)
    if can_admin and st.button("Create version", type="primary", key="judge.create", disabled=draft is None):
        try:
            registry.create_version(
                store,
                ds,
                name,
                parent=st.session_state.get(JUDGE_FROM),
                example_uids=picks,
                rubric=str(st.session_state.get(JUDGE_RUBRIC) or ""),
                created_by=state.annotator(),
                check_on=list(test_set.examples) if test_set is not None else (),
            )
        except BadInput as exc:
            st.error(render.md_escape(exc.problem, None))
            return
        st.session_state[JUDGE_DONE] = f"Created judge version {name}."
        st.session_state["judge.created"] = name
        st.rerun()


def test_set_of(ds: Dataset, store: LabelStore, sample: AuditSample) -> TestSet | None:
    """The sample's reviewed members as a test set, ``None`` (and a note) when none is reviewed yet."""
    from ragviz.judge.versions.compare import audit_test_set

    try:
        return audit_test_set(ds, store, sample.id)
    except BadInput:
        st.info(f"No member of audit sample {sample.id:d} is reviewed yet: review some on the Review page to compare.")
        return None
