"""The manual (docs/, mkdocs.yml) builds with ``mkdocs build --strict`` and its reference stays true to the
code: every command and option, every environment variable the code reads, every TRACe formula; and every
table cell in the repository's Markdown stays readable (at most 300 characters)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ragviz.cli.manual import cli_reference, export_schema, metrics_reference, option_strings
from tests.conftest import in_ci
from tests.sample import ROOT

DOCS = ROOT / "docs"
MAX_CELL = 300


def test_the_manual_builds_strict(tmp_path):
    try:
        import material  # noqa: F401  (mkdocs-material)
        import mkdocs  # noqa: F401
    except ImportError:
        if in_ci():
            pytest.fail("mkdocs / mkdocs-material missing (requirements-dev.txt; CI=true: the manual must build)")
        pytest.skip("mkdocs / mkdocs-material not installed (pip install -r requirements-dev.txt)")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "generated:" not in cli and "ragviz audit draw" in cli  # the hook ran
    built = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))
    for outside in ("fonts.googleapis.com", "fonts.gstatic.com"):
        assert outside not in built, f"the manual asks {outside} for something"


def test_every_command_and_option_is_in_the_cli_reference():
    reference = cli_reference()
    commands = option_strings()
    assert {"ragviz audit draw", "ragviz team assign", "ragviz judge compare", "ragviz label"} <= set(commands)
    for path, options in commands.items():
        found = re.search(rf"^#+ {re.escape(f'`{path}`')}$", reference, re.M)
        assert found, f"no section for {path}"
        section = reference[found.end() :].split("\n#", 1)[0]
        for option in options:
            assert f"`{option}" in section or f", {option}" in section, f"{path}: {option} not in the reference"
    assert "%%" not in reference
    assert "<!-- generated: cli -->" in (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")


def test_the_metrics_reference_gives_every_trace_formula_from_its_docstring():
    from ragviz.metrics.trace import TRACE_METRICS

    reference = metrics_reference()
    for name in TRACE_METRICS:
        assert re.search(rf"### `{name}`\n\n.+\n\n```text\n.*{name}.*=", reference), name
    assert "<!-- generated: metrics -->" in (DOCS / "reference" / "metrics.md").read_text(encoding="utf-8")


def test_the_export_schema_names_every_exported_column():
    from ragviz.data.schema import CANONICAL_TYPES

    schema = export_schema()
    for column in CANONICAL_TYPES:
        assert f"| `{column}` |" in schema
    assert "<!-- generated: export-schema -->" in (DOCS / "reference" / "data-formats.md").read_text(encoding="utf-8")


_ENV = re.compile(r"""["']((?:RAGVIZ|OPENAI|AZURE_OPENAI)_[A-Z_]+)["']""")


def test_every_environment_variable_the_code_reads_is_documented():
    page = (DOCS / "reference" / "environment.md").read_text(encoding="utf-8")
    sources = [*(ROOT / "ragviz").rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").glob("*.py")]
    read = {name for path in sources for name in _ENV.findall(path.read_text(encoding="utf-8"))}
    assert {"RAGVIZ_DB", "RAGVIZ_ADMINS", "OPENAI_API_KEY"} <= read
    missing = sorted(name for name in read if f"`{name}`" not in page)
    assert not missing, f"docs/reference/environment.md does not name {missing}"


def _markdown_files() -> list[Path]:
    top = [ROOT / n for n in ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "BENCHMARKS.md")]
    return [p for p in top if p.exists()] + sorted(DOCS.rglob("*.md"))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def test_every_table_cell_is_at_most_300_characters():
    long = []
    for path in _markdown_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("|"):
                longest = max(_cells(line), key=len)
                if len(longest) > MAX_CELL:
                    long.append(f"{path.relative_to(ROOT)}:{number}: {len(longest)} characters")
    assert not long, "\n".join(long)


def test_the_cell_check_sees_a_long_cell():
    assert max(map(len, _cells("| a | " + "x" * 301 + " |"))) == 301
    assert _cells(r"| a \| b | c |") == [r"a \| b", "c"]
