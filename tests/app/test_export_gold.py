"""The Export page offers an admin the team's gold labels once the store holds a team's decisions, and its download
is what ``ragviz export --labels gold`` writes (both run :func:`ragviz.export.targets.export`). AppTest, a real
SQLite store, the sample data."""

from __future__ import annotations

import io

from ragviz.analysis.labelsets.selection import GOLD, HUMAN, LabelSelection
from ragviz.data.load import load
from ragviz.export.targets import Target, export
from ragviz.store.label_store import LabelStore
from ragviz.ui.core.keys import EXPORT_PREPARED
from tests.analysis.team.test_team_table import _decide
from tests.apptest_helpers import open_page, shown
from tests.sample import SAMPLE_DATA

GOLD_OPTION = "The team's gold labels"


def test_no_gold_before_anyone_decided(app_env):
    at = open_page("pages/export.py")  # locally the person is the admin
    assert GOLD_OPTION not in [shown(o) for o in at.radio(key="export.whose").options]


def test_the_export_pages_gold_download_is_the_gold_export(app_env):
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        _decide(store, ds, len(ds), overlap=2)
    at = open_page("pages/export.py")
    picker = at.radio(key="export.whose")
    assert GOLD_OPTION in [shown(o) for o in picker.options]
    picker.set_value(GOLD).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("`ragviz export --labels gold` writes the same" in c.value for c in at.caption)
    command = next(c.value for c in at.code if c.value.startswith("ragviz export"))
    assert command.endswith("-o labels.jsonl \\\n  --labels gold")  # a long command: one part a line
    assert [b.label for b in at.get("download_button")] == ["Download labels (JSONL)"]  # built at once: small data
    assert any("from the team's gold labels" in c.value for c in at.caption)  # not "your current labels"
    downloaded = at.session_state[EXPORT_PREPARED]["jsonl"].read()
    with LabelStore(app_env["db"]) as store:
        buf = io.BytesIO()
        done = export(store, GOLD, ds, Target(buf, "jsonl"))
    assert downloaded == buf.getvalue()
    assert 0 < done.n_human < len(ds)  # some gold rows, some still waiting
    assert b'"label_source": "agreed"' in downloaded


def test_whose_labels_are_named_in_one_phrasing_by_the_choice_and_the_built_file(app_env):
    """The "Whose labels" option a person picks and the caption of the file built from it say the same words (the
    choice once read "The team's: every annotator's latest decision…", the file "built … from the team's latest
    decisions")."""
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        _decide(store, ds, len(ds), overlap=2)
    at = open_page("pages/export.py")
    options = [shown(o) for o in at.radio(key="export.whose").options]
    assert options == ["Your current labels (tester)", "The team's latest decisions", GOLD_OPTION]
    for choice, words in zip((LabelSelection.of("tester"), HUMAN, GOLD), options, strict=True):
        at.radio(key="export.whose").set_value(choice).run()
        assert not at.exception, [e.value for e in at.exception]
        built = [shown(c.value) for c in at.caption if " · built " in c.value]
        assert len(built) == 1 and built[0].endswith(f" from {words[:1].lower()}{words[1:]}"), (words, built)
