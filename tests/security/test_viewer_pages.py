"""Issue 28 item 5, who may see what: a viewer (signed in, not an annotator) and a visitor who is not signed
in open every page of the served app; neither finds a download button nor anyone's identity (the
annotators' e-mails, who drew the audit sample, the server's OS user), and Compare lists no corrected
example. An annotator on the same pages still sees the download buttons and the names (the checks can fail)."""

from __future__ import annotations

import getpass

import pytest

from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_page_as, open_queue
from tests.sample import SAMPLE_DATA

LEAD, ANA, GUEST = "lead@example.org", "ana@example.org", "guest@example.org"
PAGES = ("home", "data", "review", "export", "label", "dashboard", "explainer", "compare", "claims")


@pytest.fixture
def team_store(app_env, monkeypatch):
    """Served with sign-in; the lead and ana have corrected examples, the lead drew an audit sample."""
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", LEAD)
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", ANA)
    monkeypatch.delenv("RAGVIZ_ANNOTATOR")  # a visitor's name was the server's OS user then
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        sample = store.audits.draw_sample(ds.uids, 6, LEAD, seed=2)
        for k, uid in enumerate(sample.members[:4]):
            ex = ds.example(ds.index_of(uid))
            who = (LEAD, ANA)[k % 2]
            old = field_value(store.current_labels(ex, who), "relevant_keys")
            store.record(uid, who, [Change("relevant_keys", old, []), Change(REVIEW_FIELD, None, REVIEWED)], example=ex)
    return app_env


def _protos(node):
    children = getattr(node, "children", None)
    if children is None:
        yield node.proto
        return
    for child in children.values():
        yield from _protos(child)


def _everything_shown(at) -> str:
    return "\n".join(str(p) for p in _protos(at._tree))


def _identities() -> list[str]:
    names = [LEAD, ANA, "lead@", "ana@"]
    try:
        names.append(f"<b>{getpass.getuser()}</b> (")  # "root (viewer)": the server's OS user as an annotator
    except Exception:
        pass
    return names


@pytest.mark.parametrize("email", [GUEST, None], ids=["viewer", "visitor"])
def test_viewers_and_visitors_download_nothing_and_see_no_one(team_store, email):
    seen: dict[str, list[str]] = {}
    for name in PAGES:
        at = open_page_as(f"pages/{name}.py", email)
        if name == "review":
            open_queue(at)  # the Queue's widgets are drawn while it is open
            at.radio(key="review.queue").set_value("Audit sample").run()
        shown = _everything_shown(at)
        found = [w for w in _identities() if w in shown]
        if at.get("download_button"):
            found.append("download button")
        if name == "compare" and "change(s)" in shown:
            found.append("the corrected examples")
        if found:
            seen[name] = found
    assert not seen, seen


def test_an_annotator_still_sees_names_and_downloads(team_store):
    export = open_page_as("pages/export.py", ANA)
    assert export.get("download_button")
    data = open_page_as("pages/data.py", ANA)
    assert LEAD in _everything_shown(data)  # the annotators with saved work
    compare = open_page_as("pages/compare.py", ANA)
    compare.selectbox(key="compare.b").set_value(ANA).run()
    assert compare.get("download_button") and "change(s)" in _everything_shown(compare)


def test_claims_in_presentation_mode_open_nothing_and_change_nothing(app_env, monkeypatch):
    """The person at the machine (an admin) presents the Claims page of a loaded RagChecker file."""
    from ragviz.analysis.claims import corrected_file
    from tests.analysis.test_claims import _item

    checking = app_env["tmp"] / "checking_outputs.json"
    checking.write_bytes(corrected_file([_item("q1"), _item("q2")]))
    monkeypatch.setenv("RAGVIZ_DATA", f"{SAMPLE_DATA}:{checking}")
    at = open_page("pages/claims.py", present="1")  # locally: an admin, who may open files when not presenting
    at.selectbox(key="claims.loaded").set_value(0).run()
    assert not at.exception
    shown = _everything_shown(at)
    assert "Pick a label in a cell to override it" not in shown and "Only “Entailment” counts" not in shown
    assert "Labels: only “Entailment” counts as true." in "\n".join(c.value for c in at.caption)
    assert not at.get("file_uploader") and not at.text_input and not at.get("download_button")
    assert not [b for b in at.button if b.key in ("claims.review", "claims.undo", "claims.reset", "claims.open_path")]
