"""Issue 16, served mode: typed server paths open only under RAGVIZ_DATA_ROOT, refused with one message
that does not tell whether a path exists; OS errors on a typed path are messages, never tracebacks."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import ragviz
from ragviz.store.paths import PathRefused, is_served, refused_message, resolve_typed, typing_off_reason
from tests.apptest_helpers import open_page, open_page_as
from tests.sample import SAMPLE_DATA, SAMPLE_JSONL


def test_served_is_any_non_loopback_address_or_the_flag():
    assert not is_served("localhost", {}) and not is_served("127.0.0.1", {}) and not is_served("::1", {})
    assert is_served("0.0.0.0", {}) and is_served("10.1.2.3", {}) and is_served(None, {})  # Streamlit binds all then
    assert is_served("127.0.0.1", {"RAGVIZ_SERVED": "1"})
    assert not is_served("0.0.0.0", {"RAGVIZ_SERVED": "0"})


def test_served_paths_resolve_under_the_root_only(tmp_path):
    root = (tmp_path / "data").resolve()
    (root / "sub").mkdir(parents=True)
    inside = root / "sub" / "rows.jsonl"
    inside.write_text("{}\n")
    outside = tmp_path / "secret.jsonl"
    outside.write_text("{}\n")
    (root / "link.jsonl").symlink_to(outside)
    (root / "up").symlink_to(tmp_path)

    assert resolve_typed(str(inside), served=True, root=root) == inside
    assert resolve_typed("sub/rows.jsonl", served=True, root=root) == inside  # relative to the root
    refusals = [
        str(outside),
        "link.jsonl",  # a symlink out of the root
        "up/secret.jsonl",
        "sub/../../secret.jsonl",
        "/etc/passwd",
        "/proc/self/environ",
        "/no/such/file",
        "sub/missing.jsonl",
    ]
    for typed in refusals:
        with pytest.raises(PathRefused) as refused:
            resolve_typed(typed, served=True, root=root)
        assert str(refused.value) == refused_message(typed)  # the same sentence, existing or not
    with pytest.raises(PathRefused, match="RAGVIZ_DATA_ROOT"):
        resolve_typed(str(inside), served=True, root=None)
    assert (
        typing_off_reason(True, None)
        and typing_off_reason(True, root) is None
        and typing_off_reason(False, None) is None
    )
    assert resolve_typed("~/x.jsonl", served=False, root=None) == Path("~/x.jsonl").expanduser()


def test_an_unreadable_folder_is_an_error_naming_it(tmp_path, monkeypatch):
    shutil.copytree(SAMPLE_DATA, tmp_path / "data")
    locked = tmp_path / "data" / "locked"
    locked.mkdir()
    (locked / "rows.jsonl").write_text("{}\n")
    real_scandir = os.scandir

    def scandir(path=".", *args, **kwargs):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(locked))
        return real_scandir(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    result = ragviz.load([tmp_path / "data"])
    assert [str(e) for e in result.errors] == [f"{locked}: path: cannot read: Permission denied"]


def test_a_path_one_may_not_stat_is_an_error_not_a_traceback(tmp_path, monkeypatch):
    given = tmp_path / "forbidden"
    real_stat = Path.stat

    def stat(self, *args, **kwargs):
        if self == given:
            raise PermissionError(13, "Permission denied", str(given))
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    result = ragviz.load([given])
    assert [str(e) for e in result.errors] == [f"{given}: path: cannot read: Permission denied"]


def _data_page_open(at, typed: str):
    at.text_input(key="data.path").input(typed).run()
    at.button(key="data.open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return "\n".join(h.value for h in at.get("html")) + "\n".join(e.value for e in at.error)


ADMIN = "lead@example.org"


def test_data_page_served_without_root_disables_the_path_field(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", ADMIN)
    at = open_page_as("pages/data.py", ADMIN)
    assert at.text_input(key="data.path").disabled
    assert at.button(key="data.open").disabled
    assert any("RAGVIZ_DATA_ROOT" in c.value for c in at.caption)


def test_data_page_served_refuses_paths_outside_the_root(app_env, monkeypatch, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(SAMPLE_DATA, root / "sample")
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_DATA_ROOT", str(root))
    monkeypatch.setenv("RAGVIZ_ADMINS", ADMIN)
    at = open_page_as("pages/data.py", ADMIN)
    for typed in ["/etc", "/proc", "/", str(SAMPLE_DATA), "/no/such/dir"]:
        shown = _data_page_open(at, typed)
        assert refused_message(typed).replace("'", "&#x27;") in shown, shown
        assert "no such file" not in shown and "Permission" not in shown
    shown = _data_page_open(at, "sample")  # relative to the root
    assert "Cannot open" not in shown
    assert tuple(at.session_state["ragviz.paths"]) == (str((root / "sample").resolve()),)


def test_data_page_locally_a_forbidden_path_is_a_message(app_env, monkeypatch, tmp_path):
    given = tmp_path / "forbidden"
    real_exists = Path.exists

    def exists(self):
        if self == given:
            raise PermissionError(13, "Permission denied", str(given))
        return real_exists(self)

    monkeypatch.setattr(Path, "exists", exists)
    at = open_page("pages/data.py")
    shown = _data_page_open(at, str(given))
    assert f"{given}: path: cannot read: Permission denied" in shown


def test_claims_page_served_does_not_tell_whether_a_path_exists(app_env, monkeypatch, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_DATA_ROOT", str(root))
    monkeypatch.setenv("RAGVIZ_ADMINS", ADMIN)
    at = open_page_as("pages/claims.py", ADMIN)
    texts = []
    for typed in ["/etc/passwd", "/etc/no-such-file"]:
        at.text_input(key="claims.path").set_value(typed)
        at.button(key="claims.open_path").click().run()
        assert not at.exception
        shown = "\n".join(h.value for h in at.get("html"))
        assert "no such file" not in shown
        texts.append(shown.replace(typed.replace("'", "&#x27;"), "PATH"))
    assert texts[0] == texts[1] and "only files and folders inside" in texts[0]


def test_claims_page_served_without_root_disables_the_path_field(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", ADMIN)
    at = open_page_as("pages/claims.py", ADMIN)
    assert at.text_input(key="claims.path").disabled
    assert at.button(key="claims.open_path").disabled


# -- issue 28 item 7: a symlink inside a typed folder -------------------------------------------------
def _linked_root(tmp_path: Path) -> Path:
    """A data root whose ``sub`` holds a link to a loadable file outside it, ``sub2`` a link to
    /proc/self/environ, ``ok`` a real file and a link to it inside the root."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.jsonl"
    shutil.copy(SAMPLE_JSONL, secret)
    for name in ("sub", "sub2", "ok"):
        (root / name).mkdir(parents=True)
    (root / "sub" / "x.jsonl").symlink_to(secret)
    (root / "sub2" / "env.jsonl").symlink_to("/proc/self/environ")
    shutil.copy(SAMPLE_JSONL, root / "ok" / "rows.jsonl")
    (root / "ok" / "again.jsonl").symlink_to(root / "ok" / "rows.jsonl")
    return root.resolve()


def test_a_link_out_of_the_root_in_a_typed_folder_is_not_read(tmp_path, monkeypatch):
    root = _linked_root(tmp_path)
    read: list[str] = []
    real_open = Path.open

    def spying_open(self, *args, **kwargs):
        read.append(str(self.resolve()))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spying_open)
    for folder, link in [("sub", "x.jsonl"), ("sub2", "env.jsonl")]:
        result = ragviz.load([root / folder], within=root)
        assert len(result.dataset) == 0
        assert [str(e) for e in result.errors] == [
            f"{root / folder / link}: path: not read: it is a link to a file outside the server's data folder "
            "(RAGVIZ_DATA_ROOT)"
        ]
    assert not [p for p in read if "outside" in p or p.startswith("/proc")]
    inside = ragviz.load([root / "ok"], within=root)  # a link that stays inside the root is read
    assert inside.ok and len(inside.dataset) > 0
    assert len(ragviz.load([root / "sub"]).dataset) > 0  # locally (no root) links are followed as before


def test_data_page_served_does_not_follow_a_link_out_of_the_root(app_env, monkeypatch, tmp_path):
    root = _linked_root(tmp_path)
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_DATA_ROOT", str(root))
    monkeypatch.setenv("RAGVIZ_ADMINS", ADMIN)
    monkeypatch.setenv("RAGVIZ_DATA", "")
    at = open_page_as("pages/data.py", ADMIN)
    for typed in ("sub", "sub2"):
        shown = _data_page_open(at, typed)
        assert "outside the server&#x27;s data folder" in shown or "outside the server's data folder" in shown, shown
        assert tuple(at.session_state["ragviz.paths"]) == ()
    assert "PATH=" not in "\n".join(h.value for h in at.get("html"))  # nothing of the environment shown
