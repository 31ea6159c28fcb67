"""Issue 16, uploads: a size cap with a clear message (Streamlit's server.maxUploadSize and ragviz's own
RAGVIZ_MAX_UPLOAD_MB), uploads streamed to disk and deduplicated by content hash, removable from the
Data page; on SQLite and on PostgreSQL."""

from __future__ import annotations

import io
import json
from pathlib import Path

from ragviz.data.limits import MB, too_big, upload_limit_mb
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_JSONL


def _rows(n: int = 2) -> bytes:
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()[:n]]
    return ("\n".join(json.dumps({**r, "id": f"upl-{i}"}) for i, r in enumerate(rows)) + "\n").encode()


def test_the_cap_is_the_smaller_of_streamlits_and_ragvizs():
    assert upload_limit_mb(200, {"RAGVIZ_MAX_UPLOAD_MB": "50"}) == 50
    assert upload_limit_mb(20, {"RAGVIZ_MAX_UPLOAD_MB": "50"}) == 20
    assert upload_limit_mb(200, {"RAGVIZ_MAX_UPLOAD_MB": "-3"}) == 200
    message = too_big("big.jsonl", 5 * MB, 2)
    assert message and "big.jsonl" in message and "5.0 MB" in message and "2 MB" in message
    assert too_big("ok.jsonl", 2 * MB, 2) is None


def test_an_upload_over_the_cap_is_refused_and_not_kept(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_MAX_UPLOAD_MB", "1")
    at = open_page("pages/data.py")
    uploader = at.get("file_uploader")[0]
    assert "Up to 1 MB" in uploader.proto.help and uploader.proto.max_upload_size_mb == 1
    big = _rows() + b" " * (MB + 10)  # valid rows, padded over 1 MB
    uploader.upload("big.jsonl", big).run()
    assert not at.exception
    assert any("Not loaded" in e.value for e in at.error)
    shown = "\n".join(h.value for h in at.get("html"))
    assert "big.jsonl: 1.0 MB is over the upload limit of 1 MB" in shown
    with LabelStore(app_env["db"]) as store:
        assert store.sources.uploads() == [] and not any(store.sources.uploads_dir.glob("*big*"))


def test_the_same_content_is_kept_once_and_can_be_removed(app_env):
    at = open_page("pages/data.py")
    data = _rows()
    at.get("file_uploader")[0].upload("first.jsonl", data).run()
    at.get("file_uploader")[0].upload("again.jsonl", data).run()  # same bytes, another name
    with LabelStore(app_env["db"]) as store:
        [kept] = store.sources.uploads()
        assert sorted(p.name for p in store.sources.uploads_dir.iterdir()) == [kept.name]
    assert tuple(at.session_state["ragviz.paths"]) == (str(kept),)
    at.button(key="data.remove_upload.0").click().run()
    assert not at.exception
    with LabelStore(app_env["db"]) as store:
        assert store.sources.uploads() == [] and not kept.exists() and str(kept) not in store.sources.registered()
    assert tuple(at.session_state["ragviz.paths"]) == ()


def test_a_bad_upload_is_not_kept(app_env):
    at = open_page("pages/data.py")
    at.get("file_uploader")[0].upload("bad.jsonl", b'{"id": "a", "question": "q", "documents": "x", "response": "r"}\n')
    at.run()
    assert any("Not loaded" in e.value for e in at.error)
    with LabelStore(app_env["db"]) as store:
        assert store.sources.uploads() == [] and list(store.sources.uploads_dir.glob("*")) == []


def test_store_keeps_uploads_once_and_removes_them_on_both_backends(db_target, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    data = _rows()
    with LabelStore(db_target) as store:
        one = store.sources.keep_upload("a.jsonl", io.BytesIO(data))
        store.sources.register_upload(one)
        two = store.sources.keep_upload("b.jsonl", io.BytesIO(data))
        store.sources.register_upload(two)
        other = store.sources.keep_upload("c.jsonl", io.BytesIO(data + b"\n"))
        store.sources.register_upload(other)
        assert one == two and one != other and store.sources.uploads() == [one, other]
        assert store.sources.remove_upload(one) and store.sources.uploads() == [other] and not one.exists()
        assert str(one) not in store.sources.registered()
        assert not store.sources.remove_upload(Path("/etc/passwd"))  # only kept uploads
    with LabelStore(db_target) as again:
        assert again.sources.uploads() == [other]
