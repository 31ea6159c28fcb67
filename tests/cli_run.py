"""The CLI as a person runs it: ``python -m ragviz ARGS`` in a subprocess, its output captured as text (for the
tests that check what reaches the terminal: one-line errors, exit codes, no traceback). Tests that only need
the result call ``ragviz.cli.main.main`` in-process, which is much cheaper."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

from tests.sample import ROOT

__all__ = ["ragviz"]


def ragviz(
    *args: object,
    cwd: str | os.PathLike[str] = ROOT,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ragviz`` with *args* (each ``str()``-ed) in *cwd*, under *env* (default: this process's)."""
    return subprocess.run(
        [sys.executable, "-m", "ragviz", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=None if env is None else dict(env),
        timeout=timeout,
    )
