"""Issue 40: the Data page suggested ``../shared/ragbench``, a folder that exists only in ragviz's own
development setup; what it suggests must make sense on a user's machine."""

from __future__ import annotations

from tests.apptest_helpers import open_page


def test_the_path_box_suggests_no_development_folder(app_env):
    at = open_page("pages/data.py")
    label = at.text_input(key="data.path").label
    assert "RAGBench" in label and "shared" not in label and "../" not in label
