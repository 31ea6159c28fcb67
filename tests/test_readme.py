"""The README's library example runs as written and does what its comments say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _library_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README.md: no python block under '## Library'"
    return match.group(1)


def test_library_example_runs_and_exports_every_example(tmp_path, monkeypatch):
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data")
    monkeypatch.chdir(tmp_path)
    snippet = _library_snippet()
    assert len(snippet.strip().splitlines()) == 5
    scope: dict = {}
    exec(compile(snippet, "README.md", "exec"), scope)  # noqa: S102 - the README's own example

    assert scope["result"].ok
    n = len(scope["result"].dataset)
    assert n == len(scope["records"]) > 0
    assert {"relevance", "utilization", "completeness", "adherence"} <= set(scope["records"][0])
    rows = [json.loads(line) for line in (tmp_path / "corrected.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == n
    assert (tmp_path / "labels.db").is_file()


def test_readme_and_estimate_help_give_the_same_coverage_figures(capsys):
    """Issue 29 item 9: one source (ragviz.analysis.estimates.report.INTERVAL_COVERAGE) for both."""
    import re

    from ragviz.analysis.estimates.report import INTERVAL_COVERAGE
    from ragviz.cli.main import main

    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    readme = " ".join((ROOT / "README.md").read_text().split())
    for figures in INTERVAL_COVERAGE.values():
        assert figures in help_text and figures in readme, figures
    coverage = re.compile(r"\d\d(?:\.\d)?[–-]\d\d(?:\.\d)? ?%")
    section = readme[readme.index("The corrected (PPI++) intervals") :][:600]
    assert set(coverage.findall(section)) == set(coverage.findall(" ".join(INTERVAL_COVERAGE.values())))
