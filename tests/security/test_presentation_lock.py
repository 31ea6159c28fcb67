"""Issue 29 item 3, presentation mode is a lock; issue 28 item 5, viewers see and download nothing of anyone.

In a real browser (chromium, ``streamlit run``) every page opened with ``?present=1`` by the person at the
machine (an admin: every control exists for them) offers no enabled control that changes anything: every
enabled, visible control is one of the few that only change the view (:data:`VIEW_CONTROLS`); with "Show
corrections" off no text says what was corrected. The store holds corrections, an audit sample half
reviewed and a second annotator, so there is something to leak.
"""

from __future__ import annotations

import re

import pytest

from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import choose_queue, settle
from tests.browser_wait import expect as wait_expect
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

PAGES = ("", "data", "label", "review", "claims", "compare", "dashboard", "explainer", "export")
OTHER = "ana@example.org"

# What a presenter may still click: moving around and changing what is shown, never what is stored.
VIEW_CONTROLS = re.compile(
    r"^(Presentation mode(: on( · corrections shown)?)?|Show corrections|Queue(: all examples( · (no|\d+) filters?)?|: audit sample)?|Audit sample|Label set [AB].*|Compared against.*|Metric family"
    r"|Family|Per subset|Metric.*|Target ±.*|Example|Go to example.*|Filters|Next.*|Previous.*|◀.*|.*▶|Jump to.*"
    r"|Search.*|Subset.*|Only.*|Show.*|Page.*|Open an example|Sort.*|Collapse.*|Expand.*|Fold.*|View fullscreen"
    r"|Fullscreen|Close|Retrieval cut-off k|k|Pick an item.*|Item.*|Checking output.*|Loaded file.*"
    r"|Reviewed:.*|Status.*|adherence.*|Adherence.*|Dataset.*|Sentence.*|All|None|Has .*|Doc \d+: .*|Example #"
    r"|Find by uid|Compare the judge with|Cut-offs k.*|Other metric families|RagChecker files among the loaded data"
    r"|Show the examples|Current labels.*|Judge unsure)$",
    re.IGNORECASE,
)

CONTROLS_JS = """() => {
  const visible = e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const name = e => (e.getAttribute('aria-label') || e.innerText || e.value || e.placeholder || '').trim().split('\\n').map(x => x.trim()).filter(x => x).join(' | ');
  const label = e => { const w = e.closest('[data-testid^=st][class*=st-key-], [data-testid=stElementContainer]');
    const l = w && w.querySelector('label'); return l ? l.innerText.trim().split('\\n')[0] : ''; };
  const out = [];
  for (const e of document.querySelectorAll('button, input, textarea, select, [role=combobox], [role=switch], [contenteditable=true]')) {
    if (e.disabled || e.getAttribute('aria-disabled') === 'true' || !visible(e)) continue;
    if (e.closest('nav.rv-nav, header, [data-testid=stToolbar], [data-testid=stElementToolbar]')) continue;
    const kind = e.tagName.toLowerCase() + (e.type ? ':' + e.type : '');
    out.push({kind, name: name(e), label: label(e), cls: (e.closest('[class*=st-key-]') || {}).className || ''});
  }
  for (const f of document.querySelectorAll('iframe')) { if (visible(f)) out.push({kind: 'iframe', name: f.title || '', label: '', cls: ''}); }
  return out;
}"""


def _seed_store(db) -> None:
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(db) as store:
        sample = store.audits.draw_sample(ds.uids, 10, "browser-tester", seed=5)
        for k, uid in enumerate(sample.members[:6]):
            ex = ds.example(ds.index_of(uid))
            who = "browser-tester" if k % 2 else OTHER
            old = field_value(store.current_labels(ex, who), "relevant_keys")
            store.record(uid, who, [Change("relevant_keys", old, []), Change(REVIEW_FIELD, None, REVIEWED)], example=ex)


@pytest.fixture
def presented_server(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _seed_store(tmp_path / "labels.db")
    server = StreamlitServer(db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log")
    server.start()
    yield server
    server.stop()


def _writing_controls(page) -> list[dict]:
    found = page.evaluate(CONTROLS_JS)
    out = []
    for c in found:
        words = c["label"] or c["name"]
        if c["name"].startswith("Help for "):  # a tooltip
            continue
        if c["kind"] == "iframe":  # the Review page's text editor: drawn read-only in presentation mode
            continue
        if c["kind"] == "input:file" or not any(VIEW_CONTROLS.match(w) for w in (words or "-").split(" | ")):
            out.append(c)
    return out


def _look(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stSidebar"]')
    settle(page)
    page.wait_for_load_state("networkidle")
    settle(page)


def _leaks(page, name: str) -> list:
    """Enabled controls that write, and texts that say what was corrected or by whom, on the page shown."""
    text = page.locator('[data-testid="stMain"]').inner_text()
    found: list = [*_writing_controls(page)]
    leak_words = (
        OTHER,
        "browser-tester",
        "change(s)",
        "of 10 reviewed",
        "differ from the file",
        "Δ = now − judge",
        "What to review next",
    )
    found += [w for w in leak_words if w in text]
    if page.locator('[data-testid="stDownloadButton"]').count():
        found.append("a download button")
    if name == "claims" and "Pick a label in a cell" in text:
        found.append("the claims override caption")
    return found


def _popovers_opened(page, name: str) -> dict[str, list]:
    """The sidebar's closed popovers and disclosures (on Review the Queue, with the filters) opened one at a time,
    each judged as the page is: their controls are drawn only while open."""
    found: dict[str, list] = {}
    buttons = page.locator('[data-testid="stSidebar"] [data-testid="stPopoverButton"]')
    for k in range(buttons.count()):
        button = buttons.nth(k)
        if not button.is_visible():  # Streamlit's hidden copy that measures a button's width
            continue
        label = button.inner_text().splitlines()[0]
        button.click()
        body = page.get_by_test_id("stPopoverBody")
        wait_expect()(body).to_be_visible()
        page.wait_for_load_state("networkidle")
        settle(page)
        if leaks := _leaks(page, name):
            found[f"{name} ({label} open)"] = leaks
        page.keyboard.press("Escape")
        wait_expect()(body).to_have_count(0)
    # the sidebar's disclosures (on Review the Queue, with the filters): their panels are drawn only while open
    closed = page.locator('[data-testid="stSidebar"] .stElementContainer[class*="-rv_disclose"] button')
    for k in range(closed.count()):
        button = closed.nth(k)
        label = button.inner_text().splitlines()[0]
        button.click()
        wait_expect()(button).to_have_attribute("aria-expanded", "true")
        page.wait_for_load_state("networkidle")
        settle(page)
        if leaks := _leaks(page, name):
            found[f"{name} ({label} open)"] = leaks
        button.click()
        wait_expect()(button).to_have_attribute("aria-expanded", "false")
        settle(page)
    return found


def test_every_page_in_presentation_mode_offers_nothing_that_writes(presented_server, chromium_browser):
    import json

    context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    url = presented_server.url
    leaks: dict[str, list] = {}
    for name in PAGES:
        _look(page, f"{url}/{name}?present=1")
        if found := _leaks(page, name or "home"):
            leaks[name or "home"] = found
        leaks.update(_popovers_opened(page, name or "home"))
    # the Review page's audit queue and its other-families panel, opened
    _look(page, f"{url}/review?present=1")
    expect = wait_expect()  # waits up to browser_wait.WAIT, whichever test this worker ran first

    choose_queue(page, "Audit sample")
    expect(page.get_by_text("Audit sample 1: 10 examples")).to_be_visible()  # its size, not its progress
    settle(page)
    page.get_by_text("Other metric families").click()
    expect(page.get_by_text("Scores", exact=True)).to_be_visible()  # the panel, without the judge's column
    settle(page)
    if found := _leaks(page, "review"):
        leaks["review (audit queue, other families)"] = found
    context.close()
    assert not leaks, json.dumps(leaks, indent=0)
