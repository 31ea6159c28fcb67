"""Real browser: a person draws an audit sample on the Review page, reviews members of it (and one example
outside it), then reads the corrected estimates on the Dashboard and in plain words on the Explainer."""

from __future__ import annotations

import re

import pytest

from ragviz.data.load import load
from ragviz.store.audit_samples import draw_order
from ragviz.store.label_store import LabelStore
from tests.browser_wait import choose_queue, expect, queue_panel, settle, shows_uid, sidebar
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

SEED = 11
SIZE = 6


def test_a_person_audits_a_random_sample_and_reads_the_corrected_estimates(streamlit_server, page, screenshot):
    url = streamlit_server.url
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    uids = load([SAMPLE_DATA]).dataset.uids
    order = draw_order(uids, SEED)
    outside = next(u for u in uids if u not in order[:SIZE])

    # an example triage led to (outside any sample), reviewed in the normal queue
    page.goto(f"{url}/review?uid={outside}")
    accept = page.get_by_role("button", name="Accept as shown")
    expect()(accept).to_be_enabled(timeout=60_000)
    settle(page)
    accept.click()
    expect()(sidebar(page)).to_contain_text("1 / 22 reviewed", timeout=60_000)

    # Review: Queue -> Audit sample, draw 6 with seed 11
    settle(page)
    choose_queue(page, "Audit sample")
    expect()(sidebar(page).get_by_text("No audit sample for the loaded data yet.")).to_be_visible(timeout=60_000)
    examples = sidebar(page).get_by_label("Examples", exact=True)
    examples.fill(str(SIZE))
    examples.press("Enter")
    seed = sidebar(page).get_by_label("Seed (empty: a random one, recorded)")
    seed.fill(str(SEED))
    seed.press("Enter")
    settle(page)
    sidebar(page).get_by_role("button", name="Draw sample").click()
    line = page.get_by_text(re.compile(r"Audit sample \d+: 0 of 6 reviewed"))
    expect()(line).to_be_visible(timeout=60_000)
    expect()(page).to_have_url(re.compile(re.escape(order[0].replace("/", "%2F")) + "|" + re.escape(order[0])))
    shows_uid(page, order[0])  # the queue opens the first member of the random order
    screenshot(page, "audit-review")

    # review three members in the sample's order
    for k in range(3):
        settle(page)
        shows_uid(page, order[k])
        page.get_by_role("button", name="Accept as shown").click()
        expect()(page.get_by_text(re.compile(rf"Audit sample \d+: {k + 1} of 6 reviewed"))).to_be_visible(
            timeout=60_000
        )
        settle(page)
        page.get_by_role("button", name="Next in sample ▶").click()
        expect()(page).not_to_have_url(re.compile(re.escape(order[k].split("/")[1])), timeout=60_000)
    expect()(page.get_by_text(re.compile(r"1 reviewed examples outside it are not in the estimate"))).to_be_visible()

    # grow the sample to 8: the next two of the same random order join it
    settle(page)
    grow = sidebar(page).get_by_label("Grow this sample to")
    grow.fill("8")
    grow.press("Enter")
    settle(page)
    sidebar(page).get_by_role("button", name="Grow sample").click()
    expect()(page.get_by_text(re.compile(r"Audit sample \d+: 3 of 8 reviewed"))).to_be_visible(timeout=60_000)

    with LabelStore(streamlit_server.db) as store:
        (sample,) = store.audits.list_samples()
        assert (sample.seed, sample.members) == (SEED, tuple(order[: SIZE + 2]))
        assert store.reviewed_uids("browser-tester") == {outside, *order[:3]}

    # Dashboard: the panel with the three estimates, the excluded review named, the planner
    page.goto(f"{url}/dashboard")
    panel_head = page.get_by_role("heading", name="What people would say")
    expect()(panel_head).to_be_visible(timeout=60_000)
    main = page.locator('[data-testid="stMain"]')
    expect()(main).to_contain_text("3 reviewed members are the audit", timeout=60_000)
    settle(page)
    screenshot(page, "audit-dashboard")
    expect()(main).to_contain_text("1 reviewed examples are outside the audit sample and not in the estimate")
    expect()(main).to_contain_text("not a random sample")
    expect()(main).to_contain_text("Too few reviewed to correct yet: 97 more needed")  # 3 audited, under the minimum
    expect()(main).to_contain_text(re.compile(r"±0\.02 on adherence( needs about n = [\d,]+|: not reachable)"))
    chart = page.locator('[data-testid="stVegaLiteChart"]').filter(has=page.locator("svg, canvas"))
    expect()(chart.first).to_be_visible(timeout=60_000)
    expect()(main).to_contain_text("corrected 95% CI")

    # Explainer: the plain-words version
    page.goto(f"{url}/explainer")
    expect()(main.get_by_text("In plain words")).to_be_visible(timeout=60_000)
    expect()(main).to_contain_text(
        re.compile(r"The judge says \d+% of answers are supported; too few reviewed to correct yet: 97 more needed")
    )
    screenshot(page, "audit-explainer")
    assert dialogs == []


def test_the_audit_queue_walks_one_order_says_where_it_is_and_stays_chosen(streamlit_server, page):
    """Issue 29: in the audit queue, J / K walk the sample's random order (as Next in sample does),
    the header says "Audit sample #1: member 2 of 6, 0 reviewed" (it said "Example 14 of 22 ·
    filter: 2 of 6 match" with no filter set), the "Accept moves to the next unreviewed" toggle is
    gone (Accept stays there), and a reload keeps the queue (it fell back to All examples)."""
    url = streamlit_server.url
    uids = load([SAMPLE_DATA]).dataset.uids
    with LabelStore(streamlit_server.db) as store:
        sample = store.audits.draw_sample(uids, SIZE, "lead", seed=SEED)
    order = list(sample.members)
    page.goto(f"{url}/review")
    header = page.locator('[data-testid="stMain"]').get_by_text(re.compile(r"^(Example \d+ of 22|Audit sample #)"))
    expect()(header.first).to_be_visible(timeout=60_000)
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    expect()(queue).to_have_text(re.compile(r"Queue: all examples · no filters · Accept → next unreviewed"))
    queue.click()  # its panel: the Queue radio and, in this queue, the "moves on" toggle
    body = queue_panel(page)
    expect()(body.get_by_text("Accept moves to the next unreviewed")).to_be_visible()
    body.locator('[data-testid="stRadio"]').get_by_text("Audit sample", exact=True).click()
    expect()(header).to_have_text(re.compile(r"^Audit sample #1: member 1 of 6, 0 reviewed"))
    shows_uid(page, order[0])
    expect()(queue).to_have_accessible_name("Queue: audit sample")  # Accept stays: nothing to say about it
    settle(page)
    expect()(body.locator('[data-testid="stRadio"]')).to_be_visible()  # the panel still open: the toggle is gone
    expect()(body.get_by_text("Accept moves to the next unreviewed")).to_have_count(0)
    queue.click()  # closed again
    expect()(body).to_have_count(0)

    for k in (1, 2):  # J: the next member in the random order, not the next row
        settle(page)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("j")
        expect()(header).to_have_text(re.compile(rf"^Audit sample #1: member {k + 1} of 6, 0 reviewed"))
        shows_uid(page, order[k])
    settle(page)
    page.keyboard.press("k")
    expect()(header).to_have_text(re.compile(r"^Audit sample #1: member 2 of 6, 0 reviewed"))
    shows_uid(page, order[1])

    settle(page)
    page.reload()  # F5: the same queue, the same member
    expect()(header).to_have_text(re.compile(r"^Audit sample #1: member 2 of 6, 0 reviewed"), timeout=60_000)
    shows_uid(page, order[1])
    expect()(queue).to_have_accessible_name("Queue: audit sample")
    queue.click()
    radio = body.locator('[data-testid="stRadio"]').get_by_role("radio", name="Audit sample")
    expect()(radio).to_be_checked()


def test_a_person_draws_a_stratified_sample_on_the_page_as_the_cli_does(streamlit_server, page, tmp_path):
    from ragviz.analysis.audits.samples import draw_design

    url = streamlit_server.url
    page.goto(f"{url}/review?queue=audit")
    expect()(sidebar(page).get_by_text("No audit sample for the loaded data yet.")).to_be_visible(timeout=60_000)
    settle(page)
    sidebar(page).get_by_text("Stratified", exact=True).click()
    expect()(sidebar(page).get_by_text("Stratify by")).to_be_visible(timeout=60_000)
    settle(page)
    sidebar(page).get_by_text("Neyman: judge's confidence").click()
    # the sample data has no confidence column: said, and Draw is off until another allocation is chosen
    expect()(sidebar(page).get_by_text(re.compile("No judge confidence column"))).to_be_visible(timeout=60_000)
    expect()(sidebar(page).get_by_role("button", name="Draw sample")).to_be_disabled()
    settle(page)
    sidebar(page).get_by_text("Proportional to size").click()
    settle(page)
    examples = sidebar(page).get_by_label("Examples", exact=True)
    examples.fill("12")
    examples.press("Enter")
    seed = sidebar(page).get_by_label("Seed (empty: a random one, recorded)")
    seed.fill("21")
    seed.press("Enter")
    settle(page)
    sidebar(page).get_by_role("button", name="Draw sample").click()
    expect()(sidebar(page).get_by_text(re.compile(r"Drew stratified sample 1: 12 examples, seed 21"))).to_be_visible(
        timeout=60_000
    )
    with LabelStore(streamlit_server.db) as store:
        (drawn,) = store.audits.list_samples()
    with LabelStore(tmp_path / "cli.db") as other:
        cli = draw_design(other, load([SAMPLE_DATA]).dataset, "stratified", 12, "cli", 21, "dataset_name")
    assert drawn.design == "stratified" and drawn.members == cli.members
    assert drawn.params["counts"] == cli.params["counts"]
