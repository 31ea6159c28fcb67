"""The Label page's Batch panel under AppTest: costs side by side, submit, status, collect, cancel, all from the
ids in the store (a fresh AppTest = a restarted server sees the same batches); the fake Batch API server."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.judge.batch_server import BatchServer

KEY = "sk-test-BatchPage-0b5e55ed"


def open_batch(server: BatchServer, monkeypatch) -> AppTest:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_page("pages/label.py")
    at.text_input(key="label.model").set_value("gpt-4o-mini")
    at.text_input(key="label.base_url").set_value(server.base_url)
    at.text_input(key="label.api_key").set_value(KEY)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    at.number_input(key="label.k").set_value(4).run()
    at.segmented_control(key="label.how").set_value("Batch").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_submit_status_collect_from_the_page(app_env, monkeypatch):
    with BatchServer(step_seconds=3600) as server:
        at = open_batch(server, monkeypatch)
        assert metric(at, "Batch requests") == "4"
        live, batch = metric(at, "Live cost (est.)"), metric(at, "Batch cost (est.)")
        assert live.startswith("$") and batch.startswith("$")
        assert float(batch[1:]) < float(live[1:])
        at.button(key="label.batch.submit").click().run(timeout=60)
        assert not at.exception, [e.value for e in at.exception]
        assert len(server.batches) == 1
        table = at.dataframe[0].value
        assert list(table["batch"]) == ["batch_00001"] and list(table["status"]) == ["validating"]
        assert metric(at, "Batch requests") == "0"  # the four wait in the batch: not offered again

        # a restarted server: a new session reads the batch from the store, collects when it is done
        server.step_seconds = 0
        at2 = open_batch(server, monkeypatch)
        at2.button(key="label.batch.refresh").click().run(timeout=60)
        assert list(at2.dataframe[0].value["status"]) == ["completed"]
        at2.button(key="label.batch.collect").click().run(timeout=60)
        assert not at2.exception, [e.value for e in at2.exception]
        assert "4 labels stored, 0 failed, 1 batches collected" in at2.success[0].value
        with LabelStore(app_env["db"]) as store:
            assert len(store.judge.judged_uids()) == 4
        assert list(at2.dataframe[0].value["labels stored"]) == [4]


def test_cancel_from_the_page_cancels_on_the_server(app_env, monkeypatch):
    with BatchServer(step_seconds=3600) as server:
        at = open_batch(server, monkeypatch)
        at.button(key="label.batch.submit").click().run(timeout=60)
        at.button(key="label.batch.cancel").click().run(timeout=60)
        assert not at.exception, [e.value for e in at.exception]
        assert server.batches["batch_00001"]["status"] in ("cancelling", "cancelled")
        at.button(key="label.batch.collect").click().run(timeout=60)
        assert "0 labels stored, 4 failed, 1 batches collected" in at.success[0].value
