"""``stridelab examples [DIR]``: the example DxDispatch models copied where a user can run them,
as safely as ``stridelab lab`` copies the tutorials, and each copied model writes only under its
own output folder when run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from stridelab import _tutorials, cli

ROOT = Path(__file__).resolve().parents[1]
MODELS = [
    "broadcast-input.json",
    "cumulative-product.json",
    "nhwc-cumulative-sum.json",
    "padded-to-packed.json",
    "reversing-slice1.json",
    "uint16-wrap-in-place.json",
]


def run(capsys, *argv: str) -> tuple[int, list[str], str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def test_the_repository_holds_the_six_models_the_command_copies():
    assert sorted(path.name for path in (ROOT / "examples").glob("*")) == MODELS
    assert _tutorials.examples_dir() == ROOT / "examples"  # a checkout reads them in place


def test_copies_every_model_and_says_what_to_run_next(tmp_path, capsys):
    target = tmp_path / "models"
    status, out, err = run(capsys, "examples", str(target))
    assert (status, err) == (0, "")
    assert out == [
        f"stridelab: copied 6 example models into {target}:",
        *(f"  {name}" for name in MODELS),
        f"stridelab: try: stridelab dispatch {target}/reversing-slice1.json",
    ]
    for name in MODELS:
        assert (target / name).read_bytes() == (ROOT / "examples" / name).read_bytes()


def test_the_default_folder_is_stridelab_examples_in_the_current_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "examples")
    assert status == 0
    assert sorted(os.listdir(tmp_path)) == ["stridelab-examples"]
    assert sorted(os.listdir(tmp_path / "stridelab-examples")) == MODELS
    assert out[-1] == "stridelab: try: stridelab dispatch stridelab-examples/reversing-slice1.json"


def test_an_edited_model_is_kept_and_a_deleted_one_copied_again(tmp_path, capsys):
    target = tmp_path / "models"
    run(capsys, "examples", str(target))
    (target / "reversing-slice1.json").write_text("my edits")
    (target / "cumulative-product.json").unlink()
    status, out, _ = run(capsys, "examples", str(target))
    assert status == 0
    assert out == [
        f"stridelab: copied 1 example models into {target}:",
        "  cumulative-product.json",
        f"stridelab: left the 5 example files already in {target} as they are (delete one to get a fresh copy)",
        f"stridelab: try: stridelab dispatch {target}/reversing-slice1.json",
    ]
    assert (target / "reversing-slice1.json").read_text() == "my edits"


def test_a_folder_name_with_a_space_is_quoted_in_the_command_to_try(tmp_path, capsys):
    target = tmp_path / "my models"
    _, out, _ = run(capsys, "examples", str(target))
    assert out[-1] == f"stridelab: try: stridelab dispatch '{target}/reversing-slice1.json'"


def test_control_characters_in_the_folder_name_are_printed_as_escapes(tmp_path, capsys):
    target = tmp_path / "a\x1b]0;x\x07b"
    status, out, _ = run(capsys, "examples", str(target))
    assert status == 0 and (target / "padded-to-packed.json").is_file()
    assert all("\x1b" not in line and "\x07" not in line for line in out)
    assert out[0] == f"stridelab: copied 6 example models into {tmp_path}/a\\x1b]0;x\\x07b:"


def test_a_file_as_the_folder_is_one_line_and_status_2(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("not a folder")
    status, out, err = run(capsys, "examples", str(target))
    assert (status, out) == (2, [])
    assert err == f"stridelab examples: error: cannot copy the examples into {target}: it is a file, not a folder\n"
    assert target.read_text() == "not a folder"


def test_nothing_is_written_through_a_link_planted_in_the_folder(tmp_path, capsys):
    target, elsewhere = tmp_path / "models", tmp_path / "elsewhere.json"
    target.mkdir()
    elsewhere.write_text("someone else's file")
    (target / "reversing-slice1.json").symlink_to(elsewhere)
    status, out, err = run(capsys, "examples", str(target))
    assert (status, out) == (2, [])
    link = target / "reversing-slice1.json"
    assert err == f"stridelab examples: error: {link} is a symbolic link; the examples are not copied through links\n"
    assert elsewhere.read_text() == "someone else's file"
    assert sorted(os.listdir(target)) == ["reversing-slice1.json"]  # checked before any copy: nothing copied


def test_a_folder_in_place_of_a_model_is_refused(tmp_path, capsys):
    target = tmp_path / "models"
    (target / "padded-to-packed.json").mkdir(parents=True)
    status, _, err = run(capsys, "examples", str(target))
    assert status == 2
    assert err == (
        f"stridelab examples: error: {target / 'padded-to-packed.json'} is there but is not a regular file; "
        "move it away first\n"
    )
    assert sorted(os.listdir(target)) == ["padded-to-packed.json"]


def test_the_examples_own_folder_copies_nothing(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    status, out, _ = run(capsys, "examples", "examples")
    assert status == 0
    assert out == [
        "stridelab: examples is where the example models are kept; nothing to copy",
        "stridelab: try: stridelab dispatch examples/reversing-slice1.json",
    ]


def test_missing_examples_are_one_line_naming_where_they_were_looked_for(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_tutorials, "_PACKAGED_EXAMPLES", tmp_path / "packaged")
    monkeypatch.setattr(_tutorials, "_CHECKOUT_EXAMPLES", tmp_path / "checkout")
    status, _, err = run(capsys, "examples", str(tmp_path / "models"))
    assert status == 2
    assert err.startswith("stridelab examples: error: stridelab's example models are missing: neither ")
    assert str(tmp_path / "packaged") in err and "reversing-slice1.json" in err
    assert not (tmp_path / "models").exists()


def test_a_stray_option_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["examples", str(tmp_path), "--no-browser"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --no-browser" in capsys.readouterr().err


def test_the_help_lists_the_command(capsys):
    cli.main([])
    assert "examples  copy the example DxDispatch models into a folder" in capsys.readouterr().err


def test_every_copied_model_runs_and_writes_only_under_its_own_output_folder(tmp_path, capsys, monkeypatch):
    models, work = tmp_path / "models", tmp_path / "work"
    run(capsys, "examples", str(models))
    work.mkdir()
    monkeypatch.chdir(work)
    for name in MODELS:
        status, out, err = run(capsys, "dispatch", str(models / name))
        assert (status, err) == (0, ""), name
        assert out[0].startswith("Running on ")
    written = sorted(str(path.relative_to(work)) for path in work.rglob("*"))
    assert written == ["padded-to-packed-output", "padded-to-packed-output/packed.npy"]
    packed = np.load(work / "padded-to-packed-output" / "packed.npy")
    assert packed.dtype == np.float16 and packed.tolist() == [[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]]
    assert sorted(os.listdir(models)) == MODELS  # the models' own folder gets nothing


def test_the_readme_and_notebook_08_tell_a_pip_user_how_to_get_the_examples():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`stridelab examples` copies them into\n`./stridelab-examples`" in readme
    notebook = json.loads((ROOT / "notebooks" / "08-dxdispatch-models.ipynb").read_text(encoding="utf-8"))
    markdown = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    assert "stridelab examples" in markdown and "stridelab-examples/reversing-slice1.json" in markdown
