"""The Team page's parts: the round's figures (cached per store version), progress per annotator and per
example, assigning, the annotator dashboard and the guidelines editor. Every text from the store (names,
uids, guidelines) is escaped or shown in a data frame."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.agreement import AnnotatorAgreement
from ragviz.analysis.coverage import MIN_REVIEWED
from ragviz.analysis.team.alpha import Alpha
from ragviz.analysis.team.dashboard import TeamFigures, team_figures
from ragviz.analysis.team.kappas import table_kappas
from ragviz.analysis.team.progress import Progress, median_seconds, table_progress, team_progress
from ragviz.analysis.team.table import RoundTable, current_round_table
from ragviz.store.roles import ANNOTATORS_ENV, listed_names
from ragviz.store.team.assignments import AssignmentError
from ragviz.store.team.guidelines import MAX_GUIDELINES_BYTES, GuidelinesError
from ragviz.ui.core import access, render, state
from ragviz.ui.core.keys import TEAM_GUIDE_TEXT, TEAM_MESSAGE
from ragviz.ui.team.queue import guidelines_markdown

__all__ = [
    "TeamData",
    "annotator_dashboard",
    "assign_panel",
    "guidelines_editor",
    "progress_data",
    "progress_tables",
    "show_message",
    "summary",
    "team_data",
]


@dataclass(frozen=True)
class TeamData:
    table: RoundTable
    progress: Progress
    figures: TeamFigures
    #: Cohen's kappa per pair and Fleiss' kappa (the round's, when there are assignments)
    kappas: AnnotatorAgreement


def _versions() -> tuple[Any, ...]:
    return state.store().team.round_version()  # one query


@st.cache_resource(show_spinner="Comparing everyone's labels…", max_entries=4)
def _team_data(paths: tuple[str, ...], db: str, versions: tuple[Any, ...]) -> TeamData:
    ds, store = state.dataset(), state.store()
    table = current_round_table(ds, store)  # shared with the gold label set (Dashboard, Export)
    uids = set(ds.uids)
    progress = table_progress(table)
    figures = team_figures(table, median_seconds(store, uids), store.team.guidelines.decision_versions())
    return TeamData(table, progress, figures, table_kappas(table))


@st.cache_resource(show_spinner="Counting the team's progress…", max_entries=4)
def _progress(paths: tuple[str, ...], db: str, versions: tuple[Any, ...]) -> Progress:
    return team_progress(state.store(), set(state.dataset().uids))


def progress_data() -> Progress:
    """Progress over the loaded data (a few queries), recomputed only when the store changes."""
    return _progress(state.current_paths(), state.store().location, _versions())


def team_data() -> TeamData:
    """The round over the loaded data, recomputed only when a decision, an assignment or an adjudication
    is written (by anyone, on any replica)."""
    return _team_data(state.current_paths(), state.store().location, _versions())


def show_message() -> None:
    if (message := st.session_state.pop(TEAM_MESSAGE, None)) is not None:
        st.info(render.md_escape(message, limit=None))


def summary(progress: Progress, data: TeamData) -> None:
    """The round in five numbers."""
    ready = sum(1 for who, done in progress.examples.values() if len(done) == len(who))
    with st.container(horizontal=True, key="team-summary"):
        st.metric("Examples in the round", f"{len(progress.examples):,}")
        st.metric("Ready (everyone decided)", f"{ready:,}")
        f = data.figures
        alone = all(len(who) <= 1 for who, _ in progress.examples.values())  # overlap 1: nobody to agree with
        if alone:
            st.metric("Gold: one annotator's labels", f"{f.n_agreed:,}", help="Each example has one annotator.")
        else:
            st.metric("Gold: agreed", f"{f.n_agreed:,}")
        st.metric("Gold: adjudicated", f"{f.n_adjudicated:,}")
        st.metric("Waiting for an adjudicator", f"{f.n_waiting:,}")


def progress_tables(p: Progress, data: TeamData, ds: Any) -> None:
    """Per annotator (assigned, done, open, share) and per example (x/y done, to whom, by whom, where it stands)."""
    if not p.examples:
        st.caption("No assignments among the loaded examples yet: an admin assigns them below.")
        return
    rows = [
        {
            "Annotator": a.name,
            "Assigned": a.assigned,
            "Done": a.done,
            "Open": a.open,
            "Done %": a.done / a.assigned * 100,
        }
        for a in sorted(p.annotators.values(), key=lambda a: a.name)
    ]
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        key="team-annotators",
        column_config={
            "Done %": st.column_config.ProgressColumn("Done %", min_value=0, max_value=100, format="%.0f%%")
        },
    )
    # a toggle, not an expander: the table (one row per example, 100,000 in a large round) is built only when asked
    if not st.toggle(f"Per example ({len(p.examples):,})", key="team.per_example"):
        return
    order = {uid: i for i, uid in enumerate(ds.uids)}
    examples = sorted(p.examples.items(), key=lambda kv: order.get(kv[0], 0))
    table = pd.DataFrame(
        {
            "Example": [uid for uid, _ in examples],
            "Done": [p.example_text(uid) for uid, _ in examples],
            "Assigned to": [", ".join(who) for _, (who, _) in examples],
            "Done by": [", ".join(done) for _, (_, done) in examples],
            "State": [data.table.state(uid) or _plain_state(who, done) for uid, (who, done) in examples],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch", key="team-examples")


def _plain_state(who: tuple[str, ...], done: tuple[str, ...]) -> str:
    return "ready" if len(done) == len(who) else "in progress"


def _assign(uids: list[str], overlap: int, pool: list[str], who: str, sample_id: int | None) -> None:
    if not access.access().can_load:  # checked again when the click arrives
        st.session_state[TEAM_MESSAGE] = "Not assigned: only admins (RAGVIZ_ADMINS) assign examples."
        return
    try:
        made = state.store().team.assignments.assign(uids, overlap, pool, who, sample_id)
    except AssignmentError as exc:
        st.session_state[TEAM_MESSAGE] = f"Not assigned: {exc}"
        return
    st.session_state[TEAM_MESSAGE] = f"Round {made.id}: {made.added:,} assignments added, overlap {made.overlap}."


def _leave(name: str, who: str) -> None:
    if not access.access().can_load:
        st.session_state[TEAM_MESSAGE] = "Not changed: only admins (RAGVIZ_ADMINS) re-assign examples."
        return
    try:
        made = state.store().team.assignments.reassign_leaver(name, who)
    except AssignmentError as exc:
        st.session_state[TEAM_MESSAGE] = f"Not changed: {exc}"
        return
    st.session_state[TEAM_MESSAGE] = f"{name}'s open examples were handed out ({made.added:,} assignments)."


def assign_panel(ds: Any, who: str, progress: Progress) -> None:
    """Overlap, pool and scope (the loaded data or the team's audit sample), and "an annotator leaves"."""
    store = state.store()
    last = store.team.assignments.latest_round()
    listed = listed_names(os.environ.get(ANNOTATORS_ENV))  # RAGVIZ_ANNOTATORS: offered before anyone decided
    known = sorted(set(store.annotators()) | set(last.pool if last else ()) | set(progress.annotators) | set(listed))
    with st.form("team-assign", border=True):
        st.markdown("**Assign examples**")
        overlap = st.number_input(
            "Annotators per example (overlap)", 1, 5, value=last.overlap if last else 2, width=render.NUMBER_WIDTH
        )
        # no known name yet: no empty, greyed-out picker (its faded label also fails WCAG AA contrast)
        picked = st.multiselect("Pool (known names)", known, default=list(last.pool) if last else []) if known else []
        typed = st.text_input("More names (comma-separated e-mail addresses or names)")
        choice = store.audits.team_choice()
        scopes = ["Every loaded example"] + ([f"The team's audit sample ({choice.sample_id})"] if choice else [])
        scope = st.radio("Which examples", scopes, horizontal=True)
        if st.form_submit_button("Assign", type="primary"):
            pool = [*picked, *(n.strip() for n in typed.split(",") if n.strip())]
            sample = store.audits.get_sample(choice.sample_id) if choice and scope != scopes[0] else None
            uids = [u for u in sample.members if ds.index_of(u) is not None] if sample else list(ds.uids)
            _assign(uids, int(overlap), pool, who, sample.id if sample else None)
            st.rerun()
    holders = sorted(progress.annotators)
    if holders:
        with st.container(horizontal=True, vertical_alignment="bottom"):
            leaver = st.selectbox("An annotator leaves", holders, key="team.leaver")
            st.button(
                "Hand out their open examples",
                key="team.leave",
                on_click=_leave,
                args=(leaver, who),
                help="Each example they were assigned and have not decided goes to the least-loaded other pool member.",
            )


def _share(value: Any) -> str:
    if value is None or value.value is None:
        return "—"
    return f"{value.value:.0%}, {value.too_few}" if value.too_few else f"{value.value:.0%}"


def _alpha_rows(alphas: dict[str, Alpha], version: str | None = None) -> list[dict[str, Any]]:
    out = []
    for kind, a in alphas.items():
        row: dict[str, Any] = {} if version is None else {"Guidelines": version}
        row.update(
            {
                "Label": kind,
                "α": a.alpha,
                "95% low": a.low,
                "95% high": a.high,
                "Examples": a.n_examples,
                "Sentence labels": a.n_units,
            }
        )
        out.append(row)
    return out


def annotator_dashboard(data: TeamData) -> None:
    """Per annotator: decided, median seconds, agreement with gold / others / judge per label kind; alpha per
    label kind overall and per guideline version; the Cohen's kappa matrix and Fleiss' kappa."""
    from ragviz.ui.dashboard import page as dashboard_ui

    f, raters = data.figures, data.kappas
    kinds = ("relevant", "utilized", "supported", "supporting")
    people, agreement = [], []
    for a in f.annotators:
        median = None if a.median_seconds is None else round(a.median_seconds, 1)
        people.append({"Annotator": a.name, "Decided": a.decided, "Median s / example": median})
        for kind in kinds:  # one row per label kind: 15 columns side by side ran 830 px past the page at 1280 px
            row: dict[str, Any] = {"Annotator": a.name, "Label kind": kind}
            for what, shares in (("gold", a.with_gold), ("others", a.with_others), ("judge", a.with_judge)):
                row[f"= {what}"] = _share(shares.get(kind))
            agreement.append(row)
    st.caption(
        "Agreement: the share of sentence labels equal to the gold labels, to each other annotator's (pairs), and "
        "to the judge's, per label kind (supporting: the supporting keys of a response sentence, as a set). "
        f"A share from fewer than {MIN_REVIEWED} examples says so: an example's labels are made together."
    )  # md: ours
    if people:
        st.dataframe(pd.DataFrame(people), hide_index=True, width="stretch", key="team-dashboard")
        st.dataframe(
            pd.DataFrame(agreement),
            hide_index=True,
            width="stretch",
            key="team-agreement",
            column_config={
                "Annotator": st.column_config.Column(width=160),
                "Label kind": st.column_config.Column(width=100),
                **{f"= {w}": st.column_config.Column(width=186) for w in ("gold", "others", "judge")},
            },
        )
    else:
        st.info("No annotator has decided on the loaded examples yet: the figures appear with the first decisions.")
    st.subheader("Krippendorff's α")
    st.caption(
        "Nominal α per label kind over the examples two or more annotators decided; 95% interval from 1,000 "
        "bootstrap resamples of examples (seed 0)."
    )
    three = {c: st.column_config.NumberColumn(c, format="%.3f") for c in ("α", "95% low", "95% high")}  # md: ours
    alpha_rows = _alpha_rows(f.alpha)
    if any(r.get("α") is not None for r in alpha_rows):
        st.dataframe(pd.DataFrame(alpha_rows), hide_index=True, width="stretch", column_config=three)
    else:
        st.caption("No example has labels from two annotators yet: α needs at least one.")
    if len(f.alpha_by_version) > 1 or any(v is not None for v in f.alpha_by_version):
        st.caption("Per guideline version (examples all of whose annotators decided under the same version):")
        by_version = [
            r for v, alphas in f.alpha_by_version.items() for r in _alpha_rows(alphas, "none" if v is None else f"v{v}")
        ]
        st.dataframe(pd.DataFrame(by_version), hide_index=True, width="stretch", column_config=three)
    st.subheader("Cohen's κ per pair, Fleiss' κ")
    if raters.left_out:
        st.caption(
            "The round's agreement: each assigned annotator on the examples assigned to them. Not counted (decided"
            " outside the round's assignments): "
            + ", ".join(f"{render.md_escape(who)} ({n:,} examples)" for who, n in raters.left_out.items())
        )  # md: ours
    dashboard_ui.annotator_agreement(raters, downloads=True, names=True)


def _save(who: str) -> None:
    if not access.access().can_load:
        st.session_state[TEAM_MESSAGE] = "Not saved: only admins (RAGVIZ_ADMINS) write the guidelines."
        return
    try:
        saved = state.store().team.guidelines.save_guidelines(st.session_state.get(TEAM_GUIDE_TEXT, ""), who)
    except GuidelinesError as exc:
        st.session_state[TEAM_MESSAGE] = f"Not saved: {exc}"
        return
    st.session_state[TEAM_MESSAGE] = f"Guidelines version {saved.version} saved."


def guidelines_editor(who: str, can_edit: bool) -> None:
    """The guidelines in force, and for an admin the editor (every save a new version) and the history."""
    store = state.store()
    now = store.team.guidelines.current_guidelines()
    if can_edit:
        if TEAM_GUIDE_TEXT not in st.session_state:
            st.session_state[TEAM_GUIDE_TEXT] = now.text if now else ""
        st.text_area(
            f"Guidelines (Markdown, up to {MAX_GUIDELINES_BYTES // 1_000_000} MB)",
            key=TEAM_GUIDE_TEXT,
            height=260,
            help="Annotators see them on the Review page (G). Each save is a new version; each decision records the "
            "version in force.",
        )
        st.button("Save as a new version", key="team.save_guidelines", on_click=_save, args=(who,), type="primary")
    if now is None:
        st.caption("No guidelines written yet.")
        return
    st.caption(
        render.md_escape(f"In force: version {now.version} by {now.author}, {now.ts[:16].replace('T', ' ')} UTC")
    )
    with st.container(border=True, key="team-guidelines-preview"):
        st.markdown(guidelines_markdown(now.text))  # md: ours — the guidelines are Markdown by design (no HTML)
    history = store.team.guidelines.guideline_history()
    if len(history) > 1:
        st.dataframe(
            pd.DataFrame(
                [{"Version": v, "By": a, "Saved (UTC)": t[:16].replace("T", " "), "Bytes": n} for v, a, t, n in history]
            ),
            hide_index=True,
            width="stretch",
        )
