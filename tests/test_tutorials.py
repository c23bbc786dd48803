"""The teacher's copy and the student copy of the course: solutions are the cells tagged
``solution`` in the repository's notebooks, and ``stridelab lab --student DIR`` writes the
notebooks without them, never over a folder in use unless asked."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from stridelab import _tutorials, cli

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TUTORIAL_FILES = sorted([*(path.name for path in NOTEBOOKS), "gpu-results.json", "access-measured.json"])


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def is_solution(cell: dict) -> bool:
    return "solution" in cell["metadata"].get("tags", [])


def looks_like_a_solution(cell: dict) -> bool:
    return "<summary><b>Solution</b>" in "".join(cell["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_every_solution_of_the_course_is_a_cell_tagged_solution(path):
    """The teacher's copy: each collapsed Solution block is tagged, and only those are."""
    for cell in cells(path):
        assert is_solution(cell) == looks_like_a_solution(cell), "".join(cell["source"])[:80]


def test_the_repository_notebooks_keep_their_solutions():
    counts = {path.name[:2]: sum(map(is_solution, cells(path))) for path in NOTEBOOKS}
    assert {k: v for k, v in counts.items() if v} == {
        "01": 3,
        "02": 2,
        "03": 2,
        "04": 2,
        "05": 2,
        "06": 3,
        "07": 1,
        "08": 1,
    }


def test_a_student_copy_is_every_notebook_without_its_solution_cells(tmp_path):
    target = tmp_path / "class"
    written, left_out = _tutorials.copy_student_tutorials(target)
    assert sorted(path.name for path in written) == TUTORIAL_FILES
    assert left_out == 16  # 3 + 2 + 2 + 2 + 2 + 3 + 1 + 1
    for path in NOTEBOOKS:
        teacher, student = cells(path), cells(target / path.name)
        assert student == [cell for cell in teacher if not is_solution(cell)]  # the rest as it was, outputs too
        assert not any(is_solution(cell) for cell in student)
    copied = json.loads((target / NOTEBOOKS[1].name).read_text(encoding="utf-8"))
    original = json.loads(NOTEBOOKS[1].read_text(encoding="utf-8"))
    assert {k: v for k, v in copied.items() if k != "cells"} == {k: v for k, v in original.items() if k != "cells"}
    for data in ("gpu-results.json", "access-measured.json"):
        assert (target / data).read_bytes() == (ROOT / "benchmarks" / data).read_bytes()
    assert (target / _tutorials.STUDENT_MARK).is_file()


def test_a_student_copy_is_a_valid_notebook():
    nbformat = pytest.importorskip("nbformat")
    text, left_out = _tutorials.without_solutions(NOTEBOOKS[1].read_bytes())
    assert left_out == 3
    nbformat.validate(nbformat.reads(text.decode("utf-8"), as_version=4))


def test_a_student_copy_refuses_a_folder_in_use_unless_asked(tmp_path):
    target = tmp_path / "class"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="is not empty: a student copy goes into a new or empty folder"):
        _tutorials.copy_student_tutorials(target)
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]  # nothing written
    (target / "01-strides-basics.ipynb").write_text("an old copy")
    written, _ = _tutorials.copy_student_tutorials(target, overwrite=True)
    assert len(written) == len(TUTORIAL_FILES) and (target / "notes.txt").read_text() == "mine"
    assert not any(is_solution(cell) for cell in cells(target / "01-strides-basics.ipynb"))
    _tutorials.copy_student_tutorials(target, overwrite=True)  # again: the mark is replaced too


def test_a_student_copy_never_strips_the_teacher_s_notebooks_nor_writes_through_a_link(tmp_path):
    before = {path: path.read_bytes() for path in NOTEBOOKS}
    with pytest.raises(OSError, match="is the tutorials' own folder, which keeps the solutions"):
        _tutorials.copy_student_tutorials(ROOT / "notebooks", overwrite=True)
    assert {path: path.read_bytes() for path in NOTEBOOKS} == before
    target = tmp_path / "class"
    target.mkdir()
    elsewhere = tmp_path / "elsewhere.ipynb"
    elsewhere.write_text("not yours")
    os.symlink(elsewhere, target / "01-strides-basics.ipynb")
    with pytest.raises(OSError, match="is a symbolic link; the tutorials are not copied through links"):
        _tutorials.copy_student_tutorials(target, overwrite=True)
    assert elsewhere.read_text() == "not yours" and sorted(p.name for p in target.iterdir()) == [
        "01-strides-basics.ipynb"
    ]


def test_stridelab_lab_adds_a_missing_notebook_to_a_student_copy_without_its_solutions(tmp_path):
    target = tmp_path / "class"
    _tutorials.copy_student_tutorials(target)
    (target / "03-nchw-vs-nhwc.ipynb").unlink()  # "delete one to get a fresh copy"
    copied, kept = _tutorials.copy_tutorials(target)
    assert [path.name for path in copied] == ["03-nchw-vs-nhwc.ipynb"] and len(kept) == len(TUTORIAL_FILES) - 1
    assert not any(is_solution(cell) for cell in cells(target / "03-nchw-vs-nhwc.ipynb"))
    teacher = tmp_path / "teacher"  # no mark: the teacher's copy, solutions included
    _tutorials.copy_tutorials(teacher)
    assert sum(map(is_solution, cells(teacher / "03-nchw-vs-nhwc.ipynb"))) == 2


def test_the_command_writes_the_student_copy_and_exits(tmp_path, capsys):
    target = tmp_path / "class"
    assert cli.main(["lab", "--student", str(target)]) == 0
    assert capsys.readouterr().out == (
        f"stridelab: wrote {len(TUTORIAL_FILES)} tutorial files into {target}, leaving out 16 solutions\n"
        f"stridelab: students open them with: stridelab lab {target}\n"
    )
    assert cli.main(["lab", "--student", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"stridelab lab: error: {target} is not empty: a student copy goes into a new or empty folder "
        "(--overwrite replaces the tutorial files in it)\n"
    )
    assert cli.main(["lab", "--student", str(target), "--overwrite"]) == 0
    capsys.readouterr()
    assert cli.main(["lab", "--student", str(tmp_path / "other"), "--no-browser"]) == 2
    assert "--student writes a copy and starts no JupyterLab; options not used: --no-browser" in capsys.readouterr().err
    assert cli.main(["lab", str(tmp_path / "other"), "--overwrite"]) == 2
    assert "--overwrite goes with --student" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def _launched_argv(monkeypatch, tmp_path, runtime_dir: Path, *options: str) -> list[str]:
    """The arguments ``stridelab lab`` gives JupyterLab, with ``runtime_dir`` as Jupyter's runtime folder."""
    labapp = pytest.importorskip("jupyterlab.labapp", reason="jupyterlab is not installed")
    launched: list[list[str]] = []
    monkeypatch.setattr(labapp.LabApp, "launch_instance", lambda argv: launched.append(argv))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime_dir))
    assert cli.main(["lab", str(tmp_path / "course"), *options]) == 0
    (argv,) = launched
    return argv


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX systems only")
def test_stridelab_lab_reaches_kernels_over_unix_sockets_and_a_users_option_wins(tmp_path, monkeypatch, capsys):
    runtime = Path("/home/ada/.local/share/jupyter/runtime")  # Jupyter's default for a user ada
    argv = _launched_argv(monkeypatch, tmp_path, runtime, "--KernelManager.transport=tcp")
    assert argv[-2:] == ["--KernelManager.transport=ipc", "--KernelManager.transport=tcp"]  # the last one counts


def test_stridelab_lab_keeps_tcp_where_a_socket_path_would_be_too_long(tmp_path, monkeypatch, capsys):
    deep = tmp_path / ("r" * (cli.MAX_SOCKET_PATH - len(str(tmp_path))))
    argv = _launched_argv(monkeypatch, tmp_path, deep, "--no-browser")
    assert not any(option.startswith("--KernelManager.transport") for option in argv)
    assert argv[-1] == "--no-browser"


def _wait_for_ready(client, deadline: float) -> None:
    """Ask the kernel for its info until it answers on the shell and IOPub channels (the client's
    own wait_for_ready takes a first answer slower than a second, before any heartbeat, for a dead
    kernel)."""
    while time.monotonic() < deadline:
        client.kernel_info()
        try:
            client.get_shell_msg(timeout=2)
            client.get_iopub_msg(timeout=1)  # the request's status message: IOPub is connected too
        except queue.Empty:
            continue
        with contextlib.suppress(queue.Empty):
            while True:  # the rest of the request's status messages
                client.get_iopub_msg(timeout=0.2)
        return
    pytest.fail("the kernel did not answer within 60 s")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX systems only")
def test_a_kernel_of_stridelab_lab_runs_over_unix_sockets_without_the_tcp_warning(tmp_path):
    """A real ``stridelab lab`` and a kernel started through its REST API: the kernel answers over
    the Unix sockets its connection file names, and ipykernel's warning about unencrypted TCP is not
    in the log."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (pip install 'stridelab[lab]')")
    from jupyter_client import BlockingKernelClient

    runtime = Path(tempfile.mkdtemp(prefix="sl-"))  # short: a deep tmp_path leaves no room for socket names
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTERLAB_SETTINGS_DIR"):
        env[name] = str(tmp_path / name.lower())
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    token = secrets.token_hex(16)
    command = [sys.executable, "-m", "stridelab", "lab", str(tmp_path / "course"), "--no-browser", f"--port={port}"]
    command.append(f"--IdentityProvider.token={token}")
    log_path = tmp_path / "lab.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        kernel_id, deadline = None, time.monotonic() + 60
        while kernel_id is None:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/kernels?token={token}", method="POST")
            try:
                with urllib.request.urlopen(request, timeout=5) as reply:
                    kernel_id = json.load(reply)["id"]
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("stridelab lab did not start a kernel:\n" + log_path.read_text())
                time.sleep(0.3)
        client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel_id}.json"))
        client.load_connection_file()
        client.start_channels()
        outputs: list[dict] = []
        try:
            _wait_for_ready(client, deadline=time.monotonic() + 60)
            reply = client.execute_interactive("print(2 + 3)", timeout=60, output_hook=outputs.append)
        finally:
            client.stop_channels()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)
    assert client.transport == "ipc" and client.ip.startswith(str(runtime))
    assert reply["content"]["status"] == "ok"
    assert [m["content"]["text"] for m in outputs if m["msg_type"] == "stream"] == ["5\n"]
    assert "Kernel is running over TCP" not in log_path.read_text()
