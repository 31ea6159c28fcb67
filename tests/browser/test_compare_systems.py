"""Real browser (issue 39): a paired audit of 20 questions of RAGBench's two generation models, drawn with
`ragviz audit draw --design paired`; a person reviews a question's two answers side by side in the Review page's audit
queue (accepting the first moves the focus to the second), and the Dashboard's Compare-systems view shows the figures
`ragviz estimate --compare` prints."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.estimates.pairing import member_rows
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import choose_queue, expect, settle, shows_uid
from tests.conftest import StreamlitServer
from tests.ragbench_data import require_ragbench, shard

pytestmark = pytest.mark.browser


def test_a_person_reviews_both_answers_and_reads_the_comparison(tmp_path, page, capsys):
    require_ragbench()
    rows = [*pq.read_table(shard("delucionqa")).to_pylist(), *pq.read_table(shard("emanual")).to_pylist()]
    data = tmp_path / "two_models.jsonl"
    data.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    db = tmp_path / "labels.db"
    assert main(["audit", "draw", str(data), "--db", str(db), "--size", "20", "--design", "paired", "--seed", "5"]) == 0
    capsys.readouterr()
    dataset = load([data]).dataset
    with LabelStore(db) as store:  # 19 questions reviewed already; the person reviews the last one's two answers
        members = list(store.audits.get_sample(1).members)
        for row in member_rows(dataset, members[:38]):
            ex = dataset.example(row)
            store.record(ex.uid, "ana", [Change(REVIEW_FIELD, None, REVIEWED)], example=ex)
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(db=db, home=home, log=tmp_path / "streamlit.log", data=str(data)).start()
    try:
        url = server.url
        page.goto(f"{url}/review")
        expect()(page.get_by_role("button", name="Accept as shown")).to_be_enabled()
        settle(page)
        choose_queue(page, "Audit sample")
        expect()(page.get_by_text(re.compile(r"Audit sample 1: 38 of 40 reviewed"))).to_be_visible()
        settle(page)
        shows_uid(page, members[38])  # the next unreviewed member: the last question's first answer
        page.get_by_role("button", name="Accept as shown").click()
        expect()(page.get_by_text(re.compile(r"Audit sample 1: 39 of 40 reviewed"))).to_be_visible()
        settle(page)
        shows_uid(page, members[39])  # the focus moves to the same question's other answer
        first, second = dataset.index_of(members[38]), dataset.index_of(members[39])
        assert dataset.ids[first] == dataset.ids[second]
        page.get_by_role("button", name="Accept as shown").click()
        expect()(page.get_by_text(re.compile(r"Audit sample 1: 40 of 40 reviewed"))).to_be_visible()

        assert main(["estimate", str(data), "--db", str(db), "--compare", "--format", "json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["n_audited"] == 20
        low, high = got["metrics"]["adherence"]["ppi"]["ci"]

        page.goto(f"{url}/dashboard")
        expect()(page.get_by_role("heading", name="Compare systems")).to_be_visible()
        settle(page)
        expect()(page.get_by_text("adherence: too few reviewed to correct yet: 80 more needed").first).to_be_visible()
        shown = f"{100 * low:+.1f} to {100 * high:+.1f}"
        table = page.locator('[data-testid="stTable"]')
        expect()(table).to_contain_text(shown)  # the corrected interval of adherence over all questions, as the CLI
        page.goto(f"{url}/explainer")
        expect()(page.get_by_text("Two systems compared")).to_be_visible()
        expect()(page.get_by_text(re.compile(r"on 158 questions both answered, 20 of them reviewed"))).to_be_visible()
    finally:
        server.stop()
