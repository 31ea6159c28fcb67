"""The README is a page (what ragviz is, the two commands, a screenshot, links into the manual), and the
manual's examples and figures that moved there from it run as written and stay true."""

from __future__ import annotations

import json
import re

import pytest

from tests.sample import ROOT, SAMPLE_DATA

LIBRARY = ROOT / "docs" / "how-to" / "library.md"
INTERVALS = ROOT / "docs" / "concepts" / "intervals.md"


def test_the_readme_is_a_page_whose_links_and_picture_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 120
    assert "make run" in text and "make test" in text
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert any(t.endswith(".png") for t in targets), "a screenshot"
    for section in ("tutorial.md", "how-to/", "reference/cli.md", "concepts/"):
        assert any(section in t for t in targets), section
    missing = [t for t in targets if not t.startswith("http") and not (ROOT / t).exists()]
    assert not missing, missing


def _library_snippet() -> str:
    text = LIBRARY.read_text(encoding="utf-8")
    section = text.split("## Library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/how-to/library.md: no python block under '## Library'"
    return match.group(1)


def test_library_example_runs_and_exports_every_example(tmp_path, monkeypatch):
    (tmp_path / "sample_data").symlink_to(SAMPLE_DATA)
    monkeypatch.chdir(tmp_path)
    snippet = _library_snippet()
    assert len(snippet.strip().splitlines()) == 5
    scope: dict = {}
    exec(compile(snippet, str(LIBRARY), "exec"), scope)  # noqa: S102 - the manual's own example

    assert scope["result"].ok
    n = len(scope["result"].dataset)
    assert n == len(scope["records"]) > 0
    assert {"relevance", "utilization", "completeness", "adherence"} <= set(scope["records"][0])
    rows = [json.loads(line) for line in (tmp_path / "corrected.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == n
    assert (tmp_path / "labels.db").is_file()


def test_the_manual_and_estimate_help_give_the_same_coverage_figures(capsys):
    """Issue 29 item 9: one source (ragviz.analysis.estimates.report.INTERVAL_COVERAGE) for both."""
    import re

    from ragviz.analysis.estimates.report import INTERVAL_COVERAGE
    from ragviz.cli.main import main

    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    readme = " ".join(INTERVALS.read_text(encoding="utf-8").split())
    for figures in INTERVAL_COVERAGE.values():
        assert figures in help_text and figures in readme, figures
    coverage = re.compile(r"\d\d(?:\.\d)?[–-]\d\d(?:\.\d)? ?%")
    section = readme[readme.index("The corrected (PPI++) intervals") :][:600]
    assert set(coverage.findall(section)) == set(coverage.findall(" ".join(INTERVAL_COVERAGE.values())))
