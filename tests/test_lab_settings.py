"""stridelab lab's JupyterLab default (widget state saved with each notebook): written beside
what a configuration folder holds, never over a choice made elsewhere, refused on a broken file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("jupyterlab", reason="stridelab lab needs JupyterLab (the lab extra)")

from stridelab._lab_settings import OVERRIDES, lab_defaults, write_lab_defaults

PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A Jupyter configuration of the user's own in tmp_path/user, and none from the environment."""
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "user"))
    monkeypatch.delenv("JUPYTER_CONFIG_PATH", raising=False)
    return tmp_path / "user"


def test_the_default_joins_the_settings_already_there(tmp_path):
    path = tmp_path / OVERRIDES
    path.parent.mkdir()
    theme = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}
    path.write_text(json.dumps({**theme, PLUGIN: {"x": 1}}))
    assert write_lab_defaults(tmp_path) == path
    assert json.loads(path.read_text()) == {**theme, PLUGIN: {"x": 1, "saveState": True}}
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_an_empty_file_is_no_settings(tmp_path):
    path = tmp_path / OVERRIDES
    path.parent.mkdir()
    path.write_text("\n")
    write_lab_defaults(tmp_path)
    assert json.loads(path.read_text()) == {PLUGIN: {"saveState": True}}


@pytest.mark.parametrize("text", ["{bad", "[]", "null", json.dumps({PLUGIN: None}), json.dumps({PLUGIN: [1]})])
def test_a_file_that_is_not_settings_is_refused_and_left_as_it_is(tmp_path, text):
    path = tmp_path / OVERRIDES
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ValueError, match="not a JSON object"):
        write_lab_defaults(tmp_path)
    assert path.read_text() == text


def test_a_relative_folder_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="must be an absolute path"):
        write_lab_defaults(Path(""))
    assert list(tmp_path.iterdir()) == []


def test_the_default_is_added_for_the_server_and_taken_away_after(isolated):
    with lab_defaults() as folder:
        assert folder is not None
        assert os.environ["JUPYTER_CONFIG_PATH"] == str(folder)
        assert json.loads((folder / OVERRIDES).read_text()) == {PLUGIN: {"saveState": True}}
    assert "JUPYTER_CONFIG_PATH" not in os.environ and not folder.exists()


def test_a_configuration_path_of_the_users_own_comes_back_unchanged(isolated, monkeypatch, tmp_path):
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "site"))
    with pytest.raises(RuntimeError), lab_defaults() as folder:
        assert os.environ["JUPYTER_CONFIG_PATH"] == os.pathsep.join([str(tmp_path / "site"), str(folder)])
        raise RuntimeError("the server stopped")
    assert os.environ["JUPYTER_CONFIG_PATH"] == str(tmp_path / "site") and not folder.exists()


@pytest.mark.parametrize("where", ["user", "path"])
def test_a_default_chosen_in_the_users_configuration_wins(isolated, monkeypatch, tmp_path, where):
    folder = isolated if where == "user" else tmp_path / "site"
    if where == "path":
        monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(folder))
    (folder / OVERRIDES).parent.mkdir(parents=True)
    (folder / OVERRIDES).write_text(json.dumps({PLUGIN: {"saveState": False}}))
    before = os.environ.get("JUPYTER_CONFIG_PATH")
    with lab_defaults() as added:
        assert added is None
        assert os.environ.get("JUPYTER_CONFIG_PATH") == before
