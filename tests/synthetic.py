"""The benchmarks' synthetic RAGBench-shaped rows (`benchmarks/make_synthetic.py`) for tests."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.sample import ROOT


def make_synthetic() -> ModuleType:
    """The `benchmarks/make_synthetic.py` module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("make_synthetic", ROOT / "benchmarks" / "make_synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_synthetic", module)
    spec.loader.exec_module(module)
    return module
