"""The ``stridelab`` command: ``stridelab lab`` copies the tutorials without touching a student's
edits and serves them with JupyterLab (a real server on a free localhost port)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import stridelab
from stridelab import _tutorials, cli

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))
TUTORIAL_FILES = [*NOTEBOOKS, "gpu-results.json", "access-measured.json"]  # the notebooks, then 07-gpu's data


def test_the_tutorials_are_the_repository_notebooks_in_a_checkout():
    assert _tutorials.tutorials_dir() == ROOT / "notebooks"
    assert _tutorials.START in NOTEBOOKS


def test_copy_tutorials_copies_every_notebook_then_never_overwrites_an_edit(tmp_path):
    target = tmp_path / "course"
    copied, kept = _tutorials.copy_tutorials(target)
    assert [path.name for path in copied] == TUTORIAL_FILES and kept == []
    assert (target / _tutorials.START).read_bytes() == (ROOT / "notebooks" / _tutorials.START).read_bytes()
    results = (ROOT / "benchmarks" / "gpu-results.json").read_bytes()
    assert (target / "gpu-results.json").read_bytes() == results

    edited = target / NOTEBOOKS[1]
    edited.write_text("my answers")
    (target / NOTEBOOKS[2]).unlink()
    copied, kept = _tutorials.copy_tutorials(target)
    assert [path.name for path in copied] == [NOTEBOOKS[2]]
    assert sorted(path.name for path in kept) == sorted(set(TUTORIAL_FILES) - {NOTEBOOKS[2]})
    assert edited.read_text() == "my answers"


def test_copy_tutorials_onto_their_own_folder_copies_nothing():
    assert _tutorials.copy_tutorials(ROOT / "notebooks") == ([], [])


def test_copy_tutorials_into_a_file_is_refused(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("not a folder")
    with pytest.raises(NotADirectoryError, match="notes.txt: it is a file, not a folder"):
        _tutorials.copy_tutorials(target)


@pytest.mark.parametrize(("uid", "root_flag"), [(0, ["--allow-root"]), (1000, []), (None, [])])
def test_jupyterlab_binds_localhost_adds_allow_root_only_for_root_and_lets_options_win(uid, root_flag):
    argv = cli.jupyterlab_argv(Path("course"), ["--ip=0.0.0.0", "--no-browser"], uid=uid)
    assert argv == [
        "--ServerApp.root_dir=course",
        "--LabApp.default_url=/lab/tree/00-start-here.ipynb",
        "--ip=127.0.0.1",
        *root_flag,
        "--ip=0.0.0.0",
        "--no-browser",
    ]


def test_no_subcommand_prints_the_help_and_fails(capsys):
    assert cli.main([]) == 2
    help_text = capsys.readouterr().err
    assert help_text.startswith("usage: stridelab [-h] [--version] [--debug] COMMAND ...")
    assert "lab       open the tutorials in JupyterLab" in help_text


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"stridelab {stridelab.__version__}\n"


def test_a_file_as_the_tutorials_folder_is_one_line_and_status_2(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("")
    assert cli.main(["lab", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"stridelab lab: error: cannot copy the tutorials into {target}: it is a file, not a folder\n"
    )


def test_python_dash_m_stridelab_is_the_command():
    env = {**os.environ, "COLUMNS": "200"}
    command = [sys.executable, "-m", "stridelab", "lab", "--help"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.startswith("usage: stridelab lab [-h] [--student] [--overwrite] [DIR]")
    assert "./stridelab-tutorials" in result.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_stridelab_lab_serves_the_copied_tutorials_on_localhost(tmp_path):
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (pip install 'stridelab[lab]')")
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[name] = str(tmp_path / name.lower())
    # the student turned saving widget state off: stridelab's default must not override that
    widgets = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyter-widgets" / "jupyterlab-manager"
    widgets.mkdir(parents=True)
    (widgets / "plugin.jupyterlab-settings").write_text('{"saveState": false}')
    course, port, token = tmp_path / "course", _free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "stridelab", "lab", str(course), "--no-browser", f"--port={port}"]
    command.append(f"--IdentityProvider.token={token}")
    log_path = tmp_path / "lab.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        contents = None
        deadline = time.monotonic() + 60
        while contents is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=2) as reply:
                    contents = json.load(reply)
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("stridelab lab did not serve:\n" + log_path.read_text())
                time.sleep(0.2)
        plugin = "@jupyter-widgets/jupyterlab-manager:plugin"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab/api/settings/{plugin}?token={token}") as reply:
            widget_settings = json.load(reply)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    assert sorted(item["name"] for item in contents["content"]) == sorted(TUTORIAL_FILES)
    log = log_path.read_text()
    assert log.startswith(f"stridelab: copied {len(TUTORIAL_FILES)} tutorial files into {course}\n")
    # JupyterLab prints a token it was given as "token=...".
    assert f"http://127.0.0.1:{port}/lab/tree/00-start-here.ipynb?token=" in log
    # widget state is saved with a notebook by default (JupyterLab's own default: not), and the
    # student's own choice still wins
    assert widget_settings["schema"]["properties"]["saveState"]["default"] is True
    assert widget_settings["settings"]["saveState"] is False


def test_show_reads_what_people_paste_and_says_what_it_assumed(capsys):
    assert cli.main(["show", "[2,3]:[4,1] +5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # the example is the line as given, with a data type
    assert lines[:4] == [
        "data type: FLOAT32 assumed, since none is given (name one first, e.g. 'FLOAT16 (2,3):(4,1) +5')",
        "FLOAT32 · sizes [2, 3] · strides [4, 1] · layout HW",
        "padded · 6 logical elements · 7 physical slots (1 padding) · buffer 28 bytes",
        # 5 elements of 4 bytes before element (0, 0); then the tensor's 28 bytes
        "starts at element 5, byte 20 of its buffer · a buffer of at least 48 bytes holds it",
    ]
    # the buffer's own offsets: 0..4 before the tensor, A B C at 5..7, padding at 8, D E F at 9..11
    assert lines[-4:] == [
        "buffer (element offsets above, values below; x = padding, - = before the tensor):",
        "Offset:|0|1|2|3|4|5|6|7|8|9|10|11",
        "------:|-|-|-|-|-|-|-|-|-|-|--|--",
        " Value:|-|-|-|-|-|A|B|C|x|D| E| F",
    ]


def test_show_of_a_named_type_at_offset_0_prints_the_map_alone(capsys):
    assert cli.main(["show", "torch.float16 (2,3):(3,1)"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("FLOAT16 · sizes [2, 3] · strides [3, 1] · layout HW\n")
    assert "starts at" not in out and "before the tensor" not in out
    assert out.splitlines()[-1] == " Value:|A|B|C|D|E|F"
    assert cli.main(["show", "UINT8 (2,3):(3,1) +1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # 8 bytes (6 rounded up to 4's) after the 1 before it: A..F at 1..6, alignment at 7, 8
    assert lines[0] == "UINT8 · sizes [2, 3] · strides [3, 1] · layout HW"
    assert lines[2] == "starts at element 1, byte 1 of its buffer · a buffer of at least 9 bytes holds it"
    assert lines[-3:] == ["Offset:|0|1|2|3|4|5|6|7|8", "------:|-|-|-|-|-|-|-|-|-", " Value:|-|A|B|C|D|E|F|.|."]


def test_show_writes_its_picture_after_the_notes(tmp_path, capsys):
    svg, png = tmp_path / "map.svg", tmp_path / "map.png"
    assert cli.main(["show", "(2,3):(3,1) +2", "--svg", str(svg), "--png", str(png)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("data type: FLOAT32 assumed")
    assert lines[1:] == [f"wrote {svg}", f"wrote {png}"]
    drawing = svg.read_text()
    assert drawing.startswith("<svg") and drawing.count('class="slot before"') == 2
    # A, element (0, 0), at buffer element 2, byte 8
    assert 'data-coords="0,0" data-index="0" data-slot="2" data-label="A"' in drawing
    assert 'data-slot="2" data-byte="8" data-count="1" data-label="A"' in drawing
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[2,3):(3,1)", "a '[' is closed by ')'"),
        ("(2,3):(3,1) +-3", "offset '+-3' is not a whole number of 0 or more"),
        ("(2,3):(3,1) +" + "9" * 30, "pass 2**64 - 1 bytes"),
        ("(2,3):(3,1) +5 +5", "gives the offset twice"),
        ("torch.bfloat16 (2,3):(3,1)", "data_type 'torch.bfloat16' is not a DirectML data type; expected one of"),
    ],
)
def test_show_refuses_malformed_layouts_in_one_line(capsys, text, message):
    assert cli.main(["show", text]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("stridelab show: error: ") and message in captured.err
    assert captured.err.count("\n") == 1


def test_the_help_of_explain_and_show_gives_the_forms_of_a_layout():
    env = {**os.environ, "COLUMNS": "400"}
    for command in ("explain", "show"):
        result = subprocess.run(
            [sys.executable, "-m", "stridelab", command, "--help"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert "[DATA_TYPE] (sizes):(strides) [+OFFSET] [bytes=N]" in result.stdout
        assert "'(2,3):(3,1) +5' (no data type: FLOAT32; +5: element (0, 0) is buffer element 5)" in result.stdout
