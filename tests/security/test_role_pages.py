"""Issue 16, roles on the pages that were still open to everyone when served: only admins load data (the
Home page's sample button, the Claims page's path / upload / example) and see where the store and the data
files are (the Export page's command line); annotators review (Claims overrides on the checking outputs an
admin loaded) and download the corrected labels; viewers see, and download nothing."""

from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.data.claim_overrides import claim_uid
from ragviz.data.limits import MB
from ragviz.store.label_store import LabelStore
from tests.app.test_claims import EXAMPLE, need_example
from tests.apptest_helpers import open_page_as, shown
from tests.sample import SAMPLE_DATA

LEAD, ANA, GUEST = "lead@example.org", "ana@example.org", "guest@example.org"
UID0 = claim_uid("checking_outputs.json", "0")
ROLES = {"RAGVIZ_SERVED": "1", "RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": ANA}


def _served(monkeypatch, **env: str) -> None:
    for name, value in {**ROLES, **env}.items():
        monkeypatch.setenv(name, value)


def _keys(at: AppTest, kind: str) -> set[str]:
    return {w.key for w in at.get(kind) if getattr(w, "key", None)}


def _downloads(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def _codes(at: AppTest) -> str:
    return "\n".join(c.value for c in at.code)


@pytest.mark.parametrize(
    ("email", "downloads", "command"), [(LEAD, True, True), (ANA, True, False), (GUEST, False, False)]
)
def test_export_downloads_are_for_reviewers_and_the_command_line_for_admins(
    app_env, monkeypatch, email, downloads, command
):
    _served(monkeypatch)
    at = open_page_as("pages/export.py", email)
    assert bool(_downloads(at)) == downloads, _downloads(at)
    assert ("ragviz export" in _codes(at)) == command
    assert (str(app_env["db"]) in _codes(at)) == command and (str(SAMPLE_DATA) in _codes(at)) == command
    if not downloads:
        assert any("Downloads are for annotators and admins" in c.value for c in at.caption)


def test_home_offers_loading_the_sample_to_admins_only(app_env, monkeypatch):
    _served(monkeypatch)
    monkeypatch.delenv("RAGVIZ_DATA")
    for email, offered in ((LEAD, True), (ANA, False), (GUEST, False), (None, False)):
        at = open_page_as("pages/home.py", email)
        assert ("home.load_sample" in _keys(at, "button")) == offered, email
    with LabelStore(app_env["db"]) as store:
        assert store.sources.registered() == []


@pytest.fixture
def checking_output(app_env, monkeypatch):
    """The data an admin set for everyone: the sample and RagChecker's checking output."""
    need_example()
    data = app_env["tmp"] / "data"
    shutil.copytree(SAMPLE_DATA, data / "sample")
    shutil.copy(EXAMPLE, data / EXAMPLE.name)
    _served(monkeypatch, RAGVIZ_DATA=f"{data / 'sample'}:{data / EXAMPLE.name}")
    return data / EXAMPLE.name


def _pick_loaded(at: AppTest) -> AppTest:
    picker = at.selectbox(key="claims.loaded")
    assert [shown(o) for o in picker.options] == ["checking_outputs.json"]  # the file name, never its path
    picker.set_value(0).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_annotator_reviews_the_claims_of_a_loaded_file_but_opens_no_file(app_env, checking_output):
    at = open_page_as("pages/claims.py", ANA)
    assert not {"claims.path", "claims.open_path", "claims.open_example"} & _keys(at, "button") | _keys(
        at, "text_input"
    )
    assert not at.get("file_uploader")  # opening a file is loading data: admins only
    _pick_loaded(at)
    editor = next(d for d in at.data_editor if d.key.startswith("claims.editor.response."))
    at.session_state[editor.key] = {
        "edited_rows": {0: {"vs gt answer": "Entailment"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="claims.review").click().run()
    assert not at.exception
    assert _downloads(at) == ["Download corrected RagChecker JSON"]
    assert str(checking_output) not in "\n".join(m.value for m in [*at.markdown, *at.caption])
    with LabelStore(app_env["db"]) as store:
        assert UID0 in store.corrected_uids(ANA) and UID0 in store.reviewed_uids(ANA)


@pytest.mark.parametrize("email", [GUEST, None])
def test_a_viewer_sees_the_claims_of_a_loaded_file_and_downloads_nothing(app_env, checking_output, email):
    at = _pick_loaded(open_page_as("pages/claims.py", email))
    assert [d for d in at.dataframe if d.key is None]  # the scores are shown
    assert not at.get("file_uploader") and "claims.review" not in _keys(at, "button")
    assert _downloads(at) == []
    with LabelStore(app_env["db"]) as store:
        assert store.n_events() == 0


def test_an_admin_opens_files_on_the_claims_page_under_the_upload_cap(app_env, checking_output, monkeypatch):
    monkeypatch.setenv("RAGVIZ_MAX_UPLOAD_MB", "1")
    at = open_page_as("pages/claims.py", LEAD)
    uploader = at.get("file_uploader")[0]
    assert uploader.proto.max_upload_size_mb == 1 and "Up to 1 MB" in uploader.proto.help
    uploader.upload("big.json", EXAMPLE.read_bytes() + b" " * (MB + 1)).run()
    assert not at.exception
    shown_texts = [*(e.value for e in at.error), *(h.value for h in at.get("html")), *(m.value for m in at.markdown)]
    assert any("big.json: 1.0 MB is over the upload limit of 1 MB" in t for t in shown_texts), shown_texts
    assert "claims.source" not in at.session_state
    _pick_loaded(at)
    assert _downloads(at) == ["Download corrected RagChecker JSON"]
