"""MkDocs hook (mkdocs.yml ``hooks:``): a ``<!-- generated: NAME -->`` line in a docs page becomes the
Markdown that :data:`ragviz.cli.manual.SECTIONS` [NAME] builds from the code, so the reference never goes stale."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragviz.cli.manual import SECTIONS

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)


def on_page_markdown(markdown: str, **_: Any) -> str:
    def generated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in SECTIONS:
            raise ValueError(f"docs: unknown generated section {name!r} (known: {', '.join(SECTIONS)})")
        return SECTIONS[name]()

    return MARKER.sub(generated, markdown)
