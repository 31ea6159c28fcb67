"""Issue 16, the label store: a store written by a newer ragviz or with a damaged schema (a dropped
table or column) is refused with a message naming the store, on SQLite and PostgreSQL; the store file
and uploads are created 0600 and their folders 0700."""

from __future__ import annotations

import os
import re
import stat

import pytest

from ragviz.store.database import open_database
from ragviz.store.label_store import LabelStore, StoreError
from ragviz.store.postgres import is_url, mask_url


def _location(db_target: str) -> str:
    return mask_url(db_target) if is_url(db_target) else db_target


def _run(db_target: str, *statements: str) -> None:
    db = open_database(db_target, StoreError)
    for statement in statements:
        db.execute(statement)
    db.close()


def test_a_store_of_a_newer_ragviz_is_refused_naming_it(db_target):
    LabelStore(db_target).close()
    _run(db_target, "INSERT INTO schema_migrations VALUES ('core', '950_from_the_future', 'x')")
    with pytest.raises(StoreError) as refused:
        LabelStore(db_target)
    message = str(refused.value)
    assert message.startswith(_location(db_target)) and "newer ragviz" in message and "950_from_the_future" in message


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ("ALTER TABLE label_events DROP COLUMN new_value", "table label_events lacks column new_value"),
        ("DROP TABLE annotator_positions", "table annotator_positions is missing"),
    ],
)
def test_a_damaged_schema_is_refused_naming_the_store_and_what_is_missing(db_target, damage, named):
    with LabelStore(db_target) as store:
        store.save_position("ana", "ex-1")
    _run(db_target, damage)
    with pytest.raises(StoreError, match=re.escape(f"{_location(db_target)}: cannot open label store")) as refused:
        LabelStore(db_target)
    assert named in str(refused.value) and "damaged" in str(refused.value)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_store_file_uploads_and_their_folders_are_private(tmp_path):
    os.umask(0o022)
    db = tmp_path / "new" / "deeper" / "labels.db"
    with LabelStore(db) as store:
        store.save_position("ana", "ex-1")
        upload = store.sources.save_upload("rows.jsonl", b'{"id": 1}\n')
        assert _mode(db) == 0o600 and _mode(db.parent) == 0o700 and _mode(db.parent.parent) == 0o700
        for side in (db.with_name("labels.db-wal"), db.with_name("labels.db-shm")):
            if side.exists():
                assert _mode(side) == 0o600, side
        assert _mode(upload) == 0o600 and _mode(upload.parent) == 0o700


def test_an_existing_folder_keeps_its_mode(tmp_path):
    os.umask(0o022)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    LabelStore(shared / "labels.db").close()
    assert _mode(shared) == 0o755 and _mode(shared / "labels.db") == 0o600
