"""Issue 27, the stakeholder report (``ragviz report``, the app's "Download report"): one self-contained HTML
file with the corrected numbers first, the judge's trustworthiness second, the evidence and provenance after;
byte-identical for the same inputs; every text escaped; no API key, password or server path in it; PDF
through WeasyPrint."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import html5lib
import pytest

from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.export.report import ReportError, ReportRequest, report_bytes
from ragviz.export.report.build import PDF_INSTALL, html_to_pdf
from ragviz.export.report.html import SECTIONS
from ragviz.export.report.provenance import rebuild_command
from ragviz.store.label_store import LabelStore
from tests.export.report_setup import review_audit
from tests.sample import SAMPLE_DATA, SAMPLE_JSONL

DATE = "2026-11-26"
CHARTS = ("estimates", "kappa", "bias", "scatter", "histogram", "means")
SMALL_AUDIT_CHARTS = tuple(c for c in CHARTS if c != "bias")  # under 100 audited: no corrected figure, no bias
HOSTILE = '<script>alert("x")</script>'
HOSTILE_ATTR = '"><img src=x onerror=alert(1)>'


def audited_store(path: Path, paths: list[str], size: int = 16, reviewed: int = 14) -> Path:
    data = load(paths).dataset
    with LabelStore(path) as store:
        review_audit(store, data, size, reviewed)
    return path


def run_report(tmp_path: Path, *args: str, name: str = "report.html") -> tuple[int, Path]:
    out = tmp_path / name
    return main(["report", *args, "-o", str(out), "--date", DATE]), out


def parse_strict(text: str):
    """html5lib in strict mode: a parse error raises."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def charts_of(text: str) -> dict[str, str]:
    return dict(re.findall(r'<figure class="chart" data-chart="([a-z]+)">(<svg.*?</svg>)', text, re.S))


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("report")
    db = audited_store(tmp / "labels.db", [str(SAMPLE_JSONL)])
    code, out = run_report(tmp, str(SAMPLE_JSONL), "--db", str(db))
    assert code == 0
    return tmp, out.read_text(encoding="utf-8")


def test_the_report_has_every_section_in_order_and_every_chart_drawn(sample_report):
    _, text = sample_report
    ids = re.findall(r'<section id="([a-z]+)">', text)
    assert ids == ["compare", *(key for key, _ in SECTIONS)]  # the sample data holds two systems: theirs first
    drawn = charts_of(text)
    assert set(drawn) == set(SMALL_AUDIT_CHARTS)
    for name, svg in drawn.items():
        marks = len(re.findall(r"<(?:path|rect|circle|line)\b", svg))
        assert marks > 10, (name, marks)
    assert len(re.findall(r'id="([^"]+)"', text)) == len(set(re.findall(r'id="([^"]+)"', text)))  # ids unique


def test_the_headline_says_what_people_would_say_per_trace_metric(sample_report):
    _, text = sample_report
    headline = text.split('<section id="headline">')[1].split("</section>")[0]
    for metric in ("relevance", "utilization", "completeness", "adherence"):
        assert f"<td>{metric}</td>" in headline
    # 13 audited pairs: under the 100 a corrected figure needs (ragviz.analysis.coverage.MIN_AUDITED)
    assert "The judge says 81% of answers are supported; too few reviewed to correct yet: 87 more needed" in headline
    assert "too few reviewed: 87 more needed" in headline
    assert "14 of the 16 examples drawn (sample 1, seed 7)" in headline
    trust = text.split('<section id="trust">')[1].split("</section>")[0]
    assert "answers fully supported (adherence): " in trust and "Cohen&#x27;s κ" in trust
    assert trust.count("too few audited to say") == 4 and "bias per metric" not in trust


def test_worked_examples_show_the_typical_error_with_keys_and_formulas(sample_report):
    _, text = sample_report
    examples = text.split('<section id="examples">')[1].split("</section>")[0]
    cards = re.findall(r'<div class="card example" data-uid="([^"]+)">', examples)
    assert 2 <= len(cards) <= 3
    assert examples.count("adherence: the judge says higher than people") == len(cards)
    assert "the judge says supported, people say unsupported" in examples
    assert re.search(r"relevance</b> = \|R\| / N = <b>\d+ / \d+ = 0\.\d{3}</b>", examples)
    assert '<span class="key">0a</span>' in examples
    # issue 40: documents numbered as the keys and the app number them; no "unsupported (supported by …)"
    assert '<div class="legend">document 0</div>' in examples
    assert not re.search(r"<b>unsupported</b> <i>\(supported by", examples)


def test_method_names_files_hashes_annotators_audit_and_the_command(sample_report):
    tmp, text = sample_report
    method = text.split('<section id="method">')[1].split("</section>")[0]
    import hashlib

    assert hashlib.sha256(SAMPLE_JSONL.read_bytes()).hexdigest() in method
    assert "<td>ragviz_sample.jsonl</td><td class=num>22</td>" in method
    assert "<td>ana</td><td class=num>7</td>" in method and "<td>ben</td><td class=num>7</td>" in method
    assert "seed 7" in method and "gpt-4o" in method
    assert "ragviz report ragviz_sample.jsonl --db labels.db -o report.html" in method
    assert f"--date {DATE}" in method
    assert str(tmp) not in text and str(SAMPLE_DATA) not in text  # no server path


def test_the_report_is_strict_html5_and_byte_identical_twice(sample_report, tmp_path):
    tmp, text = sample_report
    parse_strict(text)
    code, again = run_report(tmp_path, str(SAMPLE_JSONL), "--db", str(tmp / "labels.db"))
    assert code == 0 and again.read_text(encoding="utf-8") == text


def test_without_an_audit_each_section_says_so(tmp_path):
    code, out = run_report(tmp_path, str(SAMPLE_JSONL))
    text = out.read_text(encoding="utf-8")
    assert code == 0
    parse_strict(text)
    assert "No audit yet" in text and "no audit yet" in text
    assert "too few audited to say" in text
    assert "No worked example: no audit yet." in text
    assert set(charts_of(text)) == {"estimates", "histogram", "means"}


def _hostile_copy(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["question"] = HOSTILE + " " + row["question"]
        row["dataset_name"] = HOSTILE_ATTR + row["dataset_name"]
        row["annotating_model_name"] = "<b>judge</b>"
        row["id"] = HOSTILE_ATTR + row["id"]
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_every_text_from_data_people_and_options_is_escaped(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-report-test-secret")
    data = _hostile_copy(tmp_path)
    db = tmp_path / "labels.db"
    loaded = load([str(data)]).dataset
    with LabelStore(db) as store:
        review_audit(store, loaded, 16, 14, annotators=("<i>ana</i>", HOSTILE_ATTR))
    code, out = run_report(tmp_path, str(data), "--db", str(db), "--title", HOSTILE)
    text = out.read_text(encoding="utf-8")
    assert code == 0
    parse_strict(text)
    assert "<script" not in text and "<img" not in text and "<i>ana" not in text and "<b>judge" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text  # the title and the questions
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in text  # ids, subsets, an annotator
    assert "&lt;i&gt;ana&lt;/i&gt;" in text and "&lt;b&gt;judge&lt;/b&gt;" in text
    assert "sk-report-test-secret" not in text and str(tmp_path) not in text


def test_the_command_line_never_names_a_password_or_a_server_path():
    request = ReportRequest(
        paths=("/srv/team/data/run.parquet", "shards/"),
        db="postgresql://ann:s3cret@db.example:5432/labels",
        date=DATE,
        output="/home/lead/out/report.html",
    )
    command = rebuild_command(request)
    assert "s3cret" not in command and "/srv" not in command and "/home" not in command
    assert command.startswith("ragviz report run.parquet shards/ --db 'postgresql://ann:***@db.example:5432/labels'")


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    code, _ = run_report(tmp_path, str(SAMPLE_JSONL), "--db", str(tmp_path / "none.db"))
    assert code == 2 and "none.db: no label store here" in capsys.readouterr().err
    assert main(["report", str(SAMPLE_JSONL), "-o", str(tmp_path / "r.html"), "--date", "26/11/2026"]) == 2
    assert "--date: expected YYYY-MM-DD, got '26/11/2026'" in capsys.readouterr().err
    code, _ = run_report(tmp_path, str(SAMPLE_JSONL), "--sample", "3")
    assert code == 2 and "--sample: no audit sample 3 in no label store" in capsys.readouterr().err
    code, _ = run_report(tmp_path, str(tmp_path / "missing.jsonl"))
    assert code == 2 and "Traceback" not in capsys.readouterr().err


def test_without_weasyprint_the_pdf_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "weasyprint", None)  # import fails as when it is not installed
    with pytest.raises(ReportError, match="pip install weasyprint"):
        html_to_pdf("<p>x</p>")
    code, _ = run_report(tmp_path, str(SAMPLE_JSONL), name="report.pdf")
    assert code == 2 and PDF_INSTALL in capsys.readouterr().err


def test_without_weasyprint_the_pdf_is_refused_before_any_work(monkeypatch, tmp_path, capsys):
    """Issue 40: the message came after ~4 s of loading and building; now before the data is even read."""
    import sys

    import ragviz.data.load

    monkeypatch.setitem(sys.modules, "weasyprint", None)
    monkeypatch.setattr(ragviz.data.load, "load", lambda *a, **k: pytest.fail("loaded the data first"))
    code, _ = run_report(tmp_path, str(SAMPLE_JSONL), name="report.pdf")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "pip install 'ragviz[pdf]'" in err and "apt-get install" in err
    assert not (tmp_path / "report.pdf").exists()


def test_the_pdf_has_the_same_content_and_renders_to_pages(sample_report, tmp_path):
    pytest.importorskip("weasyprint")
    tmp, _ = sample_report
    code, out = run_report(tmp_path, str(SAMPLE_JSONL), "--db", str(tmp / "labels.db"), name="report.pdf")
    assert code == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 50_000
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is missing")
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(out), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 5
    from PIL import Image

    for page in pages:
        colors = Image.open(page).convert("L").getextrema()
        assert colors[0] < 100, page  # something dark is drawn on every page


def test_report_bytes_is_what_the_app_calls(tmp_path):
    data = load([str(SAMPLE_JSONL)]).dataset
    request = ReportRequest(paths=(str(SAMPLE_JSONL),), date=DATE)
    first = report_bytes(data, None, request)
    assert first == report_bytes(data, None, request)
    with pytest.raises(ReportError, match="--format"):
        report_bytes(data, None, ReportRequest(paths=(str(SAMPLE_JSONL),), date=DATE, format="docx"))


def test_a_report_from_either_store_backend_names_it_without_a_password(db_target, tmp_path):
    data = load([str(SAMPLE_JSONL)]).dataset
    with LabelStore(db_target) as store:
        review_audit(store, data, 10, 8)
        store.judge.save(data.uids[0], data.example(0).judge_labels)  # a judge label set in the store
        request = ReportRequest(paths=(str(SAMPLE_JSONL),), db=db_target, date=DATE)
        text = report_bytes(data, store, request).decode("utf-8")
    parse_strict(text)
    assert "8 of the 10 examples drawn" in text
    assert "in the label store" in text  # the stored judge label set, by judge and prompt version
    if db_target.startswith("postgresql"):
        from urllib.parse import urlsplit

        password = urlsplit(db_target).password
        assert password is None or password not in text
        assert "--db postgresql://" in text or "--db &#x27;postgresql://" in text
    assert str(tmp_path) not in text


def test_a_viewers_report_names_no_one(sample_report):
    tmp, named = sample_report
    data = load([str(SAMPLE_JSONL)]).dataset
    with LabelStore(tmp / "labels.db") as store:
        text = report_bytes(
            data, store, ReportRequest(paths=(str(SAMPLE_JSONL),), db=str(tmp / "labels.db"), date=DATE, names=False)
        ).decode()
    assert "<td>ana</td>" in named and "by ana" in named
    assert "<td>ana</td>" not in text and "<td>ben</td>" not in text and "by ana" not in text
    assert "<td>annotator 1</td><td class=num>7</td>" in text


def test_annotators_count_only_the_loaded_examples_and_say_what_else_they_reviewed(sample_report, tmp_path):
    """Issue 36: a store whose reviews cover examples not loaded must not count them as reviews of this data."""
    tmp, _ = sample_report
    part = tmp_path / "half.jsonl"
    part.write_text("".join(SAMPLE_JSONL.read_text(encoding="utf-8").splitlines(keepends=True)[:11]), encoding="utf-8")
    data = load([str(part)]).dataset
    loaded = set(data.uids)
    with LabelStore(tmp / "labels.db") as store:
        mine = {who: store.reviewed_uids(who) for who in ("ana", "ben")}
        text = report_bytes(data, store, ReportRequest(paths=(str(part),), db=str(tmp / "labels.db"), date=DATE))
    method = text.decode().split('<section id="method">')[1].split("</section>")[0]
    inside = {who: len(uids & loaded) for who, uids in mine.items()}
    outside = {who: len(uids - loaded) for who, uids in mine.items()}
    assert 0 < inside["ana"] < 7 and outside["ana"] > 0  # the half file holds some of ana's reviews, not all
    for who in ("ana", "ben"):
        assert f"<td>{who}</td><td class=num>{inside[who]}</td>" in method
    assert "Examples reviewed that are not in the loaded data, not counted here: " in method
    assert f"ana {outside['ana']}" in method


def test_subset_means_below_the_minimum_say_too_few_instead_of_an_interval(sample_report):
    """The sample's subsets hold 5-7 examples, under MIN_EXAMPLES (20): their means carry no interval (one from a
    percentile bootstrap at n = 5 covered about 81 %, benchmarks/bench_mean_intervals.py); ALL's 22 keep one."""
    _, text = sample_report
    section = text[text.index("<h3>Mean per") :]
    section = section[: section.index("</table>")]
    rows = dict(re.findall(r"<tr><td>([a-zA-Z_]+)</td>(.*?)</tr>", section, re.S))
    assert "too few examples to say (5 of 20)" in rows["medqa_sample"], rows.get("medqa_sample")
    assert " – " not in rows["medqa_sample"]
    assert "too few" not in rows["ALL"] and " – " in rows["ALL"]


@pytest.mark.parametrize("sample", [[], ["--sample", "1"]], ids=["team's sample", "--sample"])
def test_a_report_fingerprints_the_loaded_examples_once(monkeypatch, tmp_path, sample):
    """The samples drawn from the loaded examples are asked for once for every section (the headline's audit and
    the two systems' comparison): each ask hashed every uid again (~0.1 s on 100k examples)."""
    import ragviz.store.audit_samples as audit_samples

    db = audited_store(tmp_path / "labels.db", [str(SAMPLE_JSONL)])
    hashed = []
    real = audit_samples.population_fingerprint
    monkeypatch.setattr(audit_samples, "population_fingerprint", lambda uids: hashed.append(1) or real(uids))
    code, out = run_report(tmp_path, str(SAMPLE_JSONL), "--db", str(db), *sample)
    assert code == 0 and "sample 1, seed 7" in out.read_text(encoding="utf-8")
    assert len(hashed) == 1


def test_a_sample_drawn_from_other_examples_is_refused_in_one_line(tmp_path, capsys):
    data = load([str(SAMPLE_JSONL)]).dataset
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        store.audits.draw_sample(data.uids[:-1], 4, "ana", seed=1)
    code, out = run_report(tmp_path, str(SAMPLE_JSONL), "--db", str(db), "--sample", "1")
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "--sample: audit sample 1 was drawn from 21 other examples than DATA's" in err and err.count("\n") == 1
