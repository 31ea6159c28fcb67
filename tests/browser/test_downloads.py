"""No unguarded download (issue 34): every CSV the app offers an admin, an annotator or a viewer is downloaded and
opened in LibreOffice headless, as a person who double-clicks it would: no cell is a formula, though the data's
ids and model names are formulas. The tables' own toolbar offers no "Download as CSV" (it writes cells unguarded).

When LibreOffice is not installed the cells are checked with a strict CSV parse instead (no text cell starts
with =, +, - or @), and the LibreOffice part skips (fails in CI, where .ci/run installs it)."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ragviz.data.labels import RELEVANT_FIELD
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import FRESH, expect, settle
from tests.conftest import StreamlitServer, in_ci
from tests.sample import SAMPLE_JSONL

pytestmark = pytest.mark.browser

FORMULAS = {"ml-vs-programming": "=1+2", "tech-001": "-2+3"}  # id -> a formula in its place
MODEL_FORMULA = "@SUM(1+1)"  # and one generation model name
ROLES = {"lead": "admin", "ana": "annotator", "guest": "viewer"}
OFFERED = {  # page -> the CSV downloads an admin and an annotator are offered there
    "export": ["Download metrics (CSV)"],
    "compare": ["Download the diff (CSV)"],
    "data": [],  # tables for everyone (the subsets, the label-quality report): no download of their own
}


def _poisoned(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines() if line]
    for row in rows:
        row["id"] = FORMULAS.get(row["id"], row["id"])
        if row["id"] == "tech-002":
            row["generation_model_name"] = MODEL_FORMULA
    path = tmp_path / "data" / "poisoned.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _decide(db: Path, data: Path) -> None:
    """Each reviewer changed the labels of the examples whose ids are formulas, so Compare has a diff."""
    ds = load([data]).dataset
    with LabelStore(db) as store:
        for who in ("lead", "ana"):
            for uid in ds.uids:
                example = ds.example(ds.index_of(uid))
                if example.id in FORMULAS.values() or example.generation_model == MODEL_FORMULA:
                    store.record(uid, who, [(RELEVANT_FIELD, list(example.labels.relevant_keys), [])], example=example)


def libreoffice_formulas(path: Path, workdir: Path) -> list[str]:
    """The formulas LibreOffice finds when it opens the CSV *path* (its default import: comma-separated,
    formulas evaluated): it saves the sheet as flat ODS XML, whose formula cells carry ``table:formula``."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    assert soffice is not None
    out = workdir / "lo-out"
    out.mkdir(exist_ok=True)
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation=file://{workdir / 'lo-profile'}",
            "--headless",
            "--norestore",
            "--infilter=CSV:44,34,76,1",
            "--convert-to",
            "fods",
            "--outdir",
            str(out),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    sheet = (out / (path.stem + ".fods")).read_text(encoding="utf-8")
    return re.findall(r'table:formula="([^"]*)"', sheet)


def strict_formula_cells(path: Path) -> list[str]:
    """Text cells a spreadsheet would read as a formula (starting with =, +, - or @); numbers aside."""
    out = []
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.reader(f, strict=True):
            for cell in row:
                try:
                    float(cell)
                except ValueError:
                    if cell[:1] in ("=", "+", "-", "@"):
                        out.append(cell)
    return out


def _csv_buttons(page) -> list[str]:
    buttons = page.locator(f'{FRESH} [data-testid="stDownloadButton"] button')
    return [t.strip().splitlines()[-1] for t in buttons.all_inner_texts() if "CSV" in t]  # after an icon's name


def _no_toolbar_download(page) -> int:
    """Hover every table shown on the page (a collapsed expander's aside): how many there were. Fails when one
    offers its own CSV download."""
    tables = page.locator(f'{FRESH} [data-testid="stDataFrame"]:visible')
    n = tables.count()
    for i in range(n):
        tables.nth(i).scroll_into_view_if_needed()
        tables.nth(i).hover()
        expect()(page.locator('[data-testid="stElementToolbar"]').first).to_be_attached()
        assert page.get_by_role("button", name="Download as CSV").count() == 0
    return n


@pytest.fixture(scope="module")
def lo_check(tmp_path_factory):
    """LibreOffice, checked to read an unguarded formula cell as a formula (else the test could not fail)."""
    if not (shutil.which("soffice") or shutil.which("libreoffice")):
        if in_ci():
            pytest.fail("LibreOffice (soffice) not found (CI=true: .ci/run installs libreoffice-calc-nogui)")
        return None
    work = tmp_path_factory.mktemp("lo")
    raw = work / "raw.csv"
    raw.write_text("id,model\n=1+2,@SUM(1+1)\n")
    assert libreoffice_formulas(raw, work), "LibreOffice did not read =1+2 as a formula: the check proves nothing"
    return work


@pytest.mark.parametrize("who", list(ROLES))
def test_every_offered_csv_opens_without_a_formula(who, tmp_path, chromium_browser, lo_check, monkeypatch):
    data = _poisoned(tmp_path)
    db = tmp_path / "labels.db"
    _decide(db, data)
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", "ana")
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(db=db, home=home, log=tmp_path / "app.log", data=str(data), annotator=who)
    server.start()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    downloaded: list[Path] = []
    tables = 0
    try:
        for name, labels in OFFERED.items():
            page.goto(f"{server.url}/{name}")
            expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text(f"({ROLES[who]})")
            settle(page)
            if name == "export" and ROLES[who] != "viewer":
                page.get_by_role("radiogroup", name="Format").get_by_text("Metrics (CSV)").click()
                expect()(page.get_by_text("Download metrics (CSV)")).to_be_visible()
            if name == "compare" and ROLES[who] != "viewer":
                expect()(page.get_by_text("Download the diff (CSV)")).to_be_visible()
            settle(page)
            offered = _csv_buttons(page)
            if name == "data":
                expect()(page.locator(f'{FRESH} [data-testid="stDataFrame"]').first).to_be_visible()
            assert offered == ([] if ROLES[who] == "viewer" else labels)
            tables += _no_toolbar_download(page)
            for label in offered:
                with page.expect_download() as got:
                    page.locator('[data-testid="stDownloadButton"] button').filter(has_text=label).click()
                path = tmp_path / f"{name}-{got.value.suggested_filename}"
                got.value.save_as(path)
                downloaded.append(path)
    finally:
        context.close()
        server.stop()
    assert tables >= (1 if ROLES[who] == "viewer" else 3)  # the Data page's; the per-example metrics, the diff
    assert len(downloaded) == (0 if ROLES[who] == "viewer" else 2)
    for path in downloaded:
        text = path.read_text(encoding="utf-8")
        assert all(f in text for f in ("1+2", "SUM(1+1)")), f"{path.name} lacks the formula-like ids"
        assert strict_formula_cells(path) == [], path.name
        if lo_check is not None:
            assert libreoffice_formulas(path, tmp_path) == [], f"{path.name} opens with formulas in LibreOffice"
