"""The CLI as a person runs it: ``python -m ragviz ARGS`` in a subprocess, its output captured as text (for the
tests that check what reaches the terminal through the real entry point: one-line errors, exit codes, no
traceback). :func:`ragviz_here` runs the same ``ragviz.cli.main.main`` in this process and answers the same way,
without a Python start-up and the imports (seconds of CPU each): for the steps of a longer story."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Mapping

from tests.sample import ROOT

__all__ = ["ragviz", "ragviz_here"]


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


def ragviz_here(*args: object) -> subprocess.CompletedProcess[str]:
    """``ragviz.cli.main.main`` with *args* (each ``str()``-ed) in this process, its stdout and stderr captured as
    text, as :func:`ragviz` answers (argparse's exit is the return code). An exception ``main`` lets through
    fails the test where a subprocess would print a traceback."""
    from ragviz.cli.main import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return subprocess.CompletedProcess(["ragviz", *argv], code, out.getvalue(), err.getvalue())
