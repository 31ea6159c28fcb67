"""One root for the exceptions ragviz raises on purpose: every domain error is bad input a person can fix,
every service failure a ragviz error, and ``ragviz`` reports each as one line, never a traceback."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import ragviz
from ragviz.cli.main import main
from ragviz.errors import BadInput, RagvizError


def _exception_classes() -> dict[str, type[BaseException]]:
    found = {}
    for info in pkgutil.walk_packages(ragviz.__path__, "ragviz."):
        if info.name.startswith("ragviz.ui") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            # private ones (``_TooLarge``) are signals caught inside their module, never seen outside it
            public = not name.startswith("_")
            if public and inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{info.name}.{name}"] = obj
    return found


def test_every_ragviz_exception_has_the_one_root():
    classes = _exception_classes()
    assert len(classes) >= 20
    assert [name for name, cls in classes.items() if not issubclass(cls, RagvizError)] == []


def test_a_domain_error_is_bad_input_and_keeps_its_old_base():
    from ragviz.analysis.audits.designs import DesignError
    from ragviz.store.errors import StaleEdit, StoreError

    err = DesignError("size must be at least 1")
    assert isinstance(err, BadInput) and isinstance(err, ValueError)
    assert str(err) == "size must be at least 1" and err.lines() == ["size must be at least 1"]
    assert issubclass(StaleEdit, StoreError) and not issubclass(StoreError, BadInput)


def test_cli_reports_a_ragviz_error_as_one_line(tmp_path, capsys):
    db = tmp_path / "labels.db"
    db.write_bytes(b"not a database at all" * 100)
    assert main(["team", "status", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0] and "labels.db" in err[0]
