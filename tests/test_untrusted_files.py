"""DxDispatch models and files from someone else, run as a user would (``stridelab dispatch`` in a
child process, with a time limit) in a sandbox folder that holds canary files outside the model's
folder: every refusal is one line with the documented exit status and no traceback, nothing is
written outside the output folder, no canary value is printed, and nothing hangs.

Layout of each sandbox: ``outside/`` (the canaries), ``models/`` (the model and its data files),
``work/`` (the current directory; the default output folder is ``work/model-output``).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import stridelab
from stridelab import _tutorials
from stridelab.dxdispatch import list_files, load

#: The children import the stridelab under test, wherever they run from.
CHILD_ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(
        [str(Path(stridelab.__file__).parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
    ),
}
#: No case may take longer (a blocked FIFO would take forever).
CASE_TIMEOUT_S = 60
#: The canary's values, and how DxDispatch's print would show them: none may ever be printed.
CANARY = np.array([1234.5678, 8765.4321, 4242.4242, 31337.0], np.float32)
CANARY_TEXTS = ("1234.57", "8765.43", "4242.42", "31337")
OK, REFUSED, FAILED = 0, 2, 1


@dataclass
class Sandbox:
    root: Path
    argv: list[str] = field(default_factory=list)
    output: str = "work/model-output"  # the folder the run may write in, relative to root

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def work(self) -> Path:
        return self.root / "work"

    def model(self, source: object = None, target: object = "out.npy", **changes: object) -> Path:
        """models/model.json: resource A (inline 1, 2, 3, 4, or ``source`` as its sourcePath), a
        cumulative sum into Out, print Out, and writeFile Out to ``target`` (None: no writeFile)."""
        values = [1, 2, 3, 4] if source is None else {"sourcePath": source}
        tensor = {"DataType": "FLOAT32", "Sizes": [4]}
        model: dict = {
            "resources": {
                "A": {"initialValuesDataType": "FLOAT32", "initialValues": values},
                "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}},
            },
            "dispatchables": {
                "sum": {
                    "type": "CUMULATIVE_SUMMATION",
                    "desc": {
                        "InputTensor": tensor,
                        "OutputTensor": tensor,
                        "Axis": 0,
                        "AxisDirection": "INCREASING",
                        "HasExclusiveSum": False,
                    },
                }
            },
            "commands": [
                {"type": "dispatch", "dispatchable": "sum", "bindings": {"InputTensor": "A", "OutputTensor": "Out"}},
                {"type": "print", "resource": "Out"},
            ],
        }
        if target is not None:
            model["commands"].append({"type": "writeFile", "resource": "Out", "targetPath": target})
        for key, value in changes.items():
            model[key] = value
        path = self.models / "model.json"
        path.write_text(json.dumps(model))
        return path


def with_big_resource(sandbox: Sandbox, count: int, *commands: dict) -> None:
    """The sandbox's model (no writeFile of Out) with a UINT8 resource ``Big`` of ``count`` sevens,
    and ``commands`` appended."""
    path = sandbox.model(target=None)
    model = json.loads(path.read_text())
    model["resources"]["Big"] = {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": count, "value": 7}}
    model["commands"] += commands
    path.write_text(json.dumps(model))


def vm_size_of_stridelab() -> int:
    """The address space a process that imported the command takes (VmSize): where a limit starts."""
    probe = subprocess.run(
        [sys.executable, "-c", "import stridelab.cli; print(open('/proc/self/status').read())"],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
    )
    return next(int(line.split()[1]) * 1024 for line in probe.stdout.splitlines() if line.startswith("VmSize:"))


def make_sandbox(root: Path) -> Sandbox:
    sandbox = Sandbox(root)
    for folder in (sandbox.outside, sandbox.models, sandbox.work):
        folder.mkdir()
    CANARY.tofile(sandbox.outside / "secret.dat")
    (sandbox.outside / "canary.txt").write_text("canary: must never change")
    np.arange(1, 5, dtype=np.float32).tofile(sandbox.models / "ones.dat")
    return sandbox


def snapshot(root: Path, skip: Path) -> dict[str, tuple]:
    """Every entry under ``root`` except the ``skip`` folder: its kind, size, modification time and
    link target, and for a small file its bytes' hash."""
    entries: dict[str, tuple] = {}
    for folder, names, files in os.walk(root):
        for name in names + files:
            path = Path(folder) / name
            if path == skip or skip in path.parents:
                continue
            info = os.lstat(path)
            small = stat.S_ISREG(info.st_mode) and info.st_size < 2**24
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if small else ""
            link = os.readlink(path) if path.is_symlink() else ""
            changed = 0 if stat.S_ISDIR(info.st_mode) else info.st_mtime_ns  # a folder changes as the output is made
            entries[str(path.relative_to(root))] = (info.st_mode, info.st_size, changed, digest, link)
    return entries


def run_stridelab(
    sandbox: Sandbox, argv: list[str], limits: dict[int, int] | None = None
) -> subprocess.CompletedProcess:
    def set_limits() -> None:
        for which, value in (limits or {}).items():
            resource.setrlimit(which, (value, value))

    return subprocess.run(
        [sys.executable, "-m", "stridelab", *argv],
        cwd=sandbox.work,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=CASE_TIMEOUT_S,
        preexec_fn=set_limits if limits else None,
        env=CHILD_ENV,
    )


# -- the cases: each sets up its sandbox and returns (argv, exit status, text the output must hold) ----
Case = Callable[[Sandbox], tuple[list[str], int, str]]
CASES: dict[str, Case] = {}


def case(name: str) -> Callable[[Case], Case]:
    def register(function: Case) -> Case:
        CASES[name] = function
        return function

    return register


def dispatch(sandbox: Sandbox, *extra: str) -> list[str]:
    return ["dispatch", str(sandbox.models / "model.json"), *extra]


@case("inline model runs and writes in its output folder")
def _(sb: Sandbox):
    sb.model()
    return dispatch(sb), OK, f"written to '{sb.work / 'model-output' / 'out.npy'}'"


@case("sourcePath absolute")
def _(sb: Sandbox):
    sb.model(source=str(sb.outside / "secret.dat"))
    return dispatch(sb), REFUSED, "an absolute path"


@case("sourcePath ../ traversal")
def _(sb: Sandbox):
    sb.model(source="../outside/secret.dat")
    return dispatch(sb), REFUSED, "leaves the model's folder through '..'"


@case("sourcePath traversal after a folder")
def _(sb: Sandbox):
    (sb.models / "sub").mkdir()
    sb.model(source="sub/../../outside/secret.dat")
    return dispatch(sb), REFUSED, "leaves the model's folder"


@case("sourcePath .. that stays inside")
def _(sb: Sandbox):
    (sb.models / "sub").mkdir()
    sb.model(source="sub/../ones.dat")
    return dispatch(sb), OK, "Resource 'Out': 1, 3, 6, 10"


@case("sourcePath a link to a file outside")
def _(sb: Sandbox):
    (sb.models / "link.dat").symlink_to(sb.outside / "secret.dat")
    sb.model(source="link.dat")
    return dispatch(sb), REFUSED, "is a symbolic link"


@case("sourcePath through a linked folder outside")
def _(sb: Sandbox):
    (sb.models / "data").symlink_to(sb.outside)
    sb.model(source="data/secret.dat")
    return dispatch(sb), REFUSED, "leads through a link out of"


@case("sourcePath a link to a file inside")
def _(sb: Sandbox):
    (sb.models / "alias.dat").symlink_to(sb.models / "ones.dat")
    sb.model(source="alias.dat")
    return dispatch(sb), REFUSED, "links are not followed"


@case("sourcePath through a linked folder inside")
def _(sb: Sandbox):
    (sb.models / "sub").mkdir()
    (sb.models / "sub" / "x.dat").write_bytes((sb.models / "ones.dat").read_bytes())
    (sb.models / "alias").symlink_to(sb.models / "sub")
    sb.model(source="alias/x.dat")
    return dispatch(sb), OK, "Resource 'Out': 1, 3, 6, 10"


@case("sourcePath a hidden folder")
def _(sb: Sandbox):
    (sb.models / ".ssh").mkdir()
    (sb.models / ".ssh" / "id.dat").write_bytes(CANARY.tobytes())
    sb.model(source=".ssh/id.dat")
    return dispatch(sb), REFUSED, "the hidden name '.ssh'"


@case("sourcePath a hidden file")
def _(sb: Sandbox):
    (sb.models / ".env").write_bytes(CANARY.tobytes())
    sb.model(source=".env")
    return dispatch(sb), REFUSED, "the hidden name '.env'"


@case("sourcePath a FIFO")
def _(sb: Sandbox):
    os.mkfifo(sb.models / "pipe.dat")
    sb.model(source="pipe.dat")
    return dispatch(sb), REFUSED, "is not a regular file (a FIFO)"


@case("sourcePath /proc/self/environ, any path allowed")
def _(sb: Sandbox):
    sb.model(source="/proc/self/environ")
    return dispatch(sb, "--allow-any-path"), REFUSED, "is a file of /proc, /sys or /dev"


@case("sourcePath /proc/self/mem, any path allowed")
def _(sb: Sandbox):
    sb.model(source="/proc/self/mem")
    return dispatch(sb, "--allow-any-path"), REFUSED, "is a file of /proc, /sys or /dev"


@case("sourcePath a device, any path allowed")
def _(sb: Sandbox):
    sb.model(source="/dev/zero")
    return dispatch(sb, "--allow-any-path"), REFUSED, "is not a regular file (a character device)"


@case("sourcePath only in the current directory")
def _(sb: Sandbox):
    (sb.work / "here.dat").write_bytes(CANARY.tobytes())
    sb.model(source="here.dat")
    return dispatch(sb), REFUSED, "is not a file in"


@case("sourcePath found in --input-dir")
def _(sb: Sandbox):
    (sb.root / "data").mkdir()
    np.arange(1, 5, dtype=np.float32).tofile(sb.root / "data" / "in.dat")
    sb.model(source="in.dat")
    return dispatch(sb, "--input-dir", str(sb.root / "data")), OK, "Resource 'Out': 1, 3, 6, 10"


@case("sourcePath absolute, any path allowed")
def _(sb: Sandbox):
    sb.model(source=str(sb.models / "ones.dat"))
    sb.output = "work"  # DxDispatch's output folder: the current directory
    return dispatch(sb, "--allow-any-path"), OK, "Resource 'Out': 1, 3, 6, 10"


@case("sourcePath a sparse file of 1 TiB")
def _(sb: Sandbox):
    with open(sb.models / "huge.dat", "wb") as huge:
        huge.truncate(2**40)
    sb.model(source="huge.dat")
    return dispatch(sb), REFUSED, "reading the 1099511627776 bytes of"


@case("sourcePath a .npy holding objects")
def _(sb: Sandbox):
    np.save(sb.models / "objects.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
    sb.model(source="objects.npy")
    return dispatch(sb), REFUSED, "holds Python objects"


@case("sourcePath with a newline")
def _(sb: Sandbox):
    sb.model(source="a\nb.dat")
    return dispatch(sb), REFUSED, "U+000A"


@case("sourcePath with a NUL")
def _(sb: Sandbox):
    sb.model(source="a\u0000b.dat")
    return dispatch(sb), REFUSED, "cannot hold a NUL character"


@case("targetPath absolute")
def _(sb: Sandbox):
    sb.model(target=str(sb.outside / "canary.txt"))
    return dispatch(sb), REFUSED, "an absolute path"


@case("targetPath ../ traversal")
def _(sb: Sandbox):
    sb.model(target="../../outside/x.npy")
    return dispatch(sb), REFUSED, "leaves the output folder through '..'"


@case("targetPath a Python module beside a notebook")
def _(sb: Sandbox):
    sb.model(target="numpy.py")
    return dispatch(sb), REFUSED, "a model writes data files only"


@case("targetPath an IPython startup file")
def _(sb: Sandbox):
    sb.model(target="profile_default/startup/00-x.py")
    return dispatch(sb), REFUSED, "a model writes data files only"


@case("targetPath a hidden file")
def _(sb: Sandbox):
    sb.model(target=".bashrc.npy")
    return dispatch(sb), REFUSED, "the hidden name '.bashrc.npy'"


@case("targetPath a hidden folder")
def _(sb: Sandbox):
    sb.model(target="sub/.config/x.npy")
    return dispatch(sb), REFUSED, "the hidden name '.config'"


@case("targetPath with an escape sequence")
def _(sb: Sandbox):
    sb.model(target="\u001b]0;pwned\u0007.npy")
    return dispatch(sb), REFUSED, "U+001B"


@case("targetPath in a subfolder of the output folder")
def _(sb: Sandbox):
    sb.model(target="results/out.bin")
    return dispatch(sb), OK, f"written to '{sb.work / 'model-output' / 'results' / 'out.bin'}'"


@case("targetPath a planted link out of the output folder")
def _(sb: Sandbox):
    (sb.work / "model-output").mkdir()
    (sb.work / "model-output" / "out.npy").symlink_to(sb.outside / "canary.txt")
    sb.model()
    return dispatch(sb), FAILED, "a symbolic link is there"


@case("targetPath through a planted linked folder")
def _(sb: Sandbox):
    (sb.work / "model-output").mkdir()
    (sb.work / "model-output" / "sub").symlink_to(sb.outside)
    sb.model(target="sub/x.npy")
    return dispatch(sb), FAILED, "no file is written through a link"


@case("targetPath a planted FIFO")
def _(sb: Sandbox):
    (sb.work / "model-output").mkdir()
    os.mkfifo(sb.work / "model-output" / "out.npy")
    sb.model()
    return dispatch(sb), FAILED, "a FIFO is there"


@case("targetPath replaces a regular file in the output folder")
def _(sb: Sandbox):
    (sb.work / "model-output").mkdir()
    (sb.work / "model-output" / "out.npy").write_text("an old result")
    sb.model()
    return dispatch(sb), OK, "written to"


@case("targetPath /dev/stdout, any path allowed")
def _(sb: Sandbox):
    sb.model(target="/dev/stdout")
    sb.output = "work"
    return dispatch(sb, "--allow-any-path"), FAILED, "a file of /proc, /sys or /dev is not written"


@case("--output-dir names the folder")
def _(sb: Sandbox):
    sb.model()
    sb.output = "results"
    return dispatch(sb, "--output-dir", str(sb.root / "results")), OK, f"'{sb.root / 'results' / 'out.npy'}'"


@case("writes past --max-written-bytes")
def _(sb: Sandbox):
    sb.model(target="a.bin")
    return dispatch(sb, "--max-written-bytes", "8"), REFUSED, "more than the 8 a run writes at most"


@case("writes past the default 256 MiB")
def _(sb: Sandbox):
    with_big_resource(
        sb, 90 * 2**20, *({"type": "writeFile", "resource": "Big", "targetPath": f"{i}.bin"} for i in range(3))
    )
    return dispatch(sb), REFUSED, "more than the 268435456 a run writes at most"


@case("a file system full (RLIMIT_FSIZE)")
def _(sb: Sandbox):
    with_big_resource(sb, 2**21, {"type": "writeFile", "resource": "Big", "targetPath": "big.bin"})
    sb.argv = ["fsize"]
    return dispatch(sb), FAILED, "Failed to write resource to file 'big.bin': File too large"


@case("a valueCount of 10**12")
def _(sb: Sandbox):
    with_big_resource(sb, 10**12)
    return dispatch(sb), REFUSED, "needs 1000000000000 bytes"


@case("a model larger than 1 MiB")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text() + " " * 2**20)
    return dispatch(sb), REFUSED, "more than the 1048576 read at most"


@case("a model larger than 1 MiB, limit raised")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text() + " " * 2**20)
    return dispatch(sb, "--max-model-bytes", "2M"), OK, "Resource 'Out': 1, 3, 6, 10"


@case("a model that is a FIFO")
def _(sb: Sandbox):
    os.mkfifo(sb.models / "model.json")
    return dispatch(sb), REFUSED, "is not a regular file (a FIFO)"


@case("show of a model that is a FIFO")
def _(sb: Sandbox):
    os.mkfifo(sb.models / "model.json")
    return ["show", str(sb.models / "model.json")], REFUSED, "is not a regular file (a FIFO)"


@case("a model linked to /proc/self/mem")
def _(sb: Sandbox):
    (sb.models / "model.json").symlink_to("/proc/self/mem")
    return dispatch(sb), REFUSED, "is a file of /proc, /sys or /dev"


@case("a model with a byte order mark")
def _(sb: Sandbox):
    path = sb.model()
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return dispatch(sb), OK, "Resource 'Out': 1, 3, 6, 10"


@case("a model that is not UTF-8")
def _(sb: Sandbox):
    (sb.models / "model.json").write_bytes(b'{"resources": "\xff"}')
    return dispatch(sb), REFUSED, "not UTF-8 text"


@case("a resource name that retitles the terminal")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text().replace('"Out"', '"Out\\u001b]0;pwned\\u0007"'))
    return dispatch(sb), REFUSED, "U+001B"


@case("a dispatchable name that forges a timing line")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text().replace('"sum"', "\"sum\\nDispatch 'x': 1 iterations\""))
    return dispatch(sb), REFUSED, "U+000A"


@case("a name with a right-to-left override")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text().replace('"Out"', '"Out\\u202e"'))
    return dispatch(sb), REFUSED, "U+202E"


@case("show reads no resource file")
def _(sb: Sandbox):
    os.mkfifo(sb.models / "pipe.dat")
    sb.model(source="pipe.dat")
    return ["show", str(sb.models / "model.json")], OK, "== sum.InputTensor"


@case("show --svg to a FIFO")
def _(sb: Sandbox):
    os.mkfifo(sb.work / "picture.svg")
    return ["show", "FLOAT32 (2,3):(3,1)", "--svg", "picture.svg"], REFUSED, "cannot write 'picture.svg'"


@case("--list-io lists and runs nothing")
def _(sb: Sandbox):
    sb.model(source="ones.dat")
    return dispatch(sb, "--list-io"), OK, f"write    command 2 (writeFile)    {sb.work / 'model-output' / 'out.npy'}"


@case("--list-io marks what a run refuses")
def _(sb: Sandbox):
    sb.model(source="../outside/secret.dat", target="/etc/x.npy")
    return dispatch(sb, "--list-io"), REFUSED, "refused  command 2 (writeFile)"


@case("sourcePath /proc/cmdline, which reports a size")
def _(sb: Sandbox):
    sb.model(source="/proc/cmdline")
    return dispatch(sb, "--allow-any-path"), REFUSED, "is a file of /proc, /sys or /dev"


@case("sourcePath with an escape, any path allowed")
def _(sb: Sandbox):
    sb.model(source="a\u001b[31m.dat")
    return dispatch(sb, "--allow-any-path"), REFUSED, "U+001B"


@case("sourcePath with a trailing slash keeps its suffix")
def _(sb: Sandbox):
    np.save(sb.models / "in.npy", np.arange(1, 5, dtype=np.float32))
    sb.model(source="in.npy/")
    return dispatch(sb), OK, "Resource 'Out': 1, 3, 6, 10"


@case("targetPath nine folders deep")
def _(sb: Sandbox):
    sb.model(target="a/" * 8 + "x.bin")
    return dispatch(sb), REFUSED, "a path has at most 8 parts"


@case("targetPath with a 300-character name")
def _(sb: Sandbox):
    sb.model(target="x" * 300 + ".bin")
    return dispatch(sb), REFUSED, "of at most 255 bytes each"


@case("a resource name of 5000 characters")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text().replace('"Out"', '"' + "O" * 5000 + '"'))
    return dispatch(sb), REFUSED, "a name has at most 256 characters"


@case("a dispatchable type with an escape sequence")
def _(sb: Sandbox):
    path = sb.model()
    path.write_text(path.read_text().replace('"CUMULATIVE_SUMMATION"', '"DML_OPERATOR_\\u001b[2J\\nX"'))
    return dispatch(sb), REFUSED, "\\x1b[2J\\nX"


@case("a model file named with an escape sequence")
def _(sb: Sandbox):
    sb.model().rename(sb.models / "m\u001b]0;pwned\u0007.json")
    sb.output = "work/m\u001b]0;pwned\u0007-output"
    return ["dispatch", str(sb.models / "m\u001b]0;pwned\u0007.json")], OK, "m\\x1b]0;pwned\\x07-output"


@case("the default output folder is a planted link")
def _(sb: Sandbox):
    (sb.work / "model-output").symlink_to(sb.outside)
    sb.model()
    sb.output = "work/nothing-may-be-written"  # the link itself is checked as unchanged
    return dispatch(sb), REFUSED, "is a symbolic link; give its real path"


@case("--output-dir is a file")
def _(sb: Sandbox):
    (sb.work / "results").write_text("a file")
    sb.model()
    return dispatch(sb, "--output-dir", "results"), REFUSED, "is not a folder"


@case("a hard link in the output folder is replaced, not written through")
def _(sb: Sandbox):
    (sb.work / "model-output").mkdir()
    os.link(sb.outside / "canary.txt", sb.work / "model-output" / "out.npy")
    sb.model()
    return dispatch(sb), OK, "written to"


@case("printing past the written budget")
def _(sb: Sandbox):
    with_big_resource(sb, 4 * 2**20, *({"type": "print", "resource": "Big", "verbose": True} for _ in range(5)))
    return dispatch(sb), REFUSED, "writeFile and print commands write up to"


@case("--list-io refuses what a run refuses")
def _(sb: Sandbox):
    os.mkfifo(sb.models / "pipe.dat")
    sb.model(source="pipe.dat")
    return dispatch(sb, "--list-io"), REFUSED, "is not a regular file (a FIFO)"


@pytest.mark.parametrize("name", list(CASES))
def test_a_file_from_someone_else_reaches_nothing_past_what_it_names(tmp_path, name):
    sandbox = make_sandbox(tmp_path)
    argv, status, expected = CASES[name](sandbox)
    allowed = tmp_path / sandbox.output
    before = snapshot(tmp_path, allowed)
    limits = {resource.RLIMIT_FSIZE: 2**20} if sandbox.argv == ["fsize"] else None
    run = run_stridelab(sandbox, argv, limits)
    output = run.stdout + run.stderr
    assert run.returncode == status, output[-2000:]
    assert expected in output, output[-2000:]
    assert "Traceback" not in output
    assert "\x1b" not in output and "\x07" not in output  # no control character reaches the terminal
    if status == REFUSED:
        assert run.stdout == "" or "--list-io" in argv, run.stdout
        assert len(run.stderr.splitlines()) == 1 or "--list-io" in argv, run.stderr
    for text in CANARY_TEXTS:
        assert text not in output
    assert snapshot(tmp_path, allowed) == before  # nothing outside the output folder changed
    if status == REFUSED and "--list-io" not in argv:
        assert not allowed.exists() or allowed == tmp_path / "work"  # a refused model writes nothing


def test_a_failed_write_leaves_the_old_file_whole_and_no_partial_one(tmp_path):
    sandbox = make_sandbox(tmp_path)
    CASES["a file system full (RLIMIT_FSIZE)"](sandbox)
    (sandbox.work / "model-output").mkdir()
    (sandbox.work / "model-output" / "big.bin").write_bytes(b"the previous result")
    run = run_stridelab(sandbox, dispatch(sandbox), {resource.RLIMIT_FSIZE: 2**20})
    assert run.returncode == FAILED
    assert [p.name for p in (sandbox.work / "model-output").iterdir()] == ["big.bin"]
    assert (sandbox.work / "model-output" / "big.bin").read_bytes() == b"the previous result"


def test_a_hard_link_in_the_output_folder_keeps_its_other_name_unchanged(tmp_path):
    sandbox = make_sandbox(tmp_path)
    argv, _, _ = CASES["a hard link in the output folder is replaced, not written through"](sandbox)
    assert run_stridelab(sandbox, argv).returncode == OK
    assert (sandbox.outside / "canary.txt").read_text() == "canary: must never change"
    assert np.load(sandbox.work / "model-output" / "out.npy").tolist() == [1, 3, 6, 10]


def test_loading_counts_its_arrays_before_making_them(tmp_path):
    """30 sequences of 60 MiB each (each made twice: the steps, then their sums) under a limit of
    1 GiB more than the interpreter needs: refused while loading, before they are made."""
    sandbox = make_sandbox(tmp_path)
    path = sandbox.model(target=None)
    model = json.loads(path.read_text())
    sequence = {"valueCount": 15 * 2**20, "valueStart": 0, "valueDelta": 1}
    for i in range(30):
        model["resources"][f"S{i}"] = {"initialValuesDataType": "FLOAT32", "initialValues": sequence}
    path.write_text(json.dumps(model))
    run = run_stridelab(sandbox, dispatch(sandbox), {resource.RLIMIT_AS: vm_size_of_stridelab() + 2**30})
    assert run.returncode == REFUSED, run.stderr[-2000:]
    assert "needs 125829120 bytes; with the" in run.stderr and "free in host memory" in run.stderr


def test_a_memory_limited_run_of_a_big_model_ends_in_one_line(tmp_path):
    """Under ``ulimit -v`` (RLIMIT_AS) of 1 GiB more than the interpreter needs, a model needing 2 GiB
    is refused at load with the budget's figures, not a MemoryError traceback."""
    sandbox = make_sandbox(tmp_path)
    with_big_resource(sandbox, 2**31)
    run = run_stridelab(sandbox, dispatch(sandbox), {resource.RLIMIT_AS: vm_size_of_stridelab() + 2**30})
    assert run.returncode == REFUSED, run.stderr[-2000:]
    assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr
    assert "needs 2147483648 bytes" in run.stderr or "bytes this process may still allocate" in run.stderr


def test_printing_a_large_resource_costs_its_text_not_80_bytes_a_value(tmp_path):
    """2 M UINT8 values printed under a 400 MiB address-space margin: formatting them all at once
    took about 155 MiB more than the text."""
    sandbox = make_sandbox(tmp_path)
    with_big_resource(sandbox, 2 * 10**6, {"type": "print", "resource": "Big"})
    run = run_stridelab(sandbox, dispatch(sandbox), {resource.RLIMIT_AS: vm_size_of_stridelab() + 400 * 2**20})
    assert run.returncode == OK, run.stderr[-2000:]
    line = run.stdout.splitlines()[-1]
    assert line.startswith("Resource 'Big': 7, 7, ") and line.count("7") == 2 * 10**6


def test_python_api_keeps_the_same_rules(tmp_path, monkeypatch):
    sandbox = make_sandbox(tmp_path)
    monkeypatch.chdir(sandbox.work)
    sandbox.model(source="../outside/secret.dat")
    with pytest.raises(Exception, match="leaves the model's folder"):
        load(sandbox.models / "model.json")
    sandbox.model(source=str(sandbox.models / "ones.dat"))
    result = load(sandbox.models / "model.json", allow_any_path=True).run(output_dir=tmp_path / "out")
    assert result["Out"].tolist() == [1, 3, 6, 10]
    assert np.load(tmp_path / "out" / "out.npy").tolist() == [1, 3, 6, 10]
    uses = list_files(sandbox.models / "model.json")
    assert [use.action for use in uses] == ["refused", "write"]


@pytest.mark.parametrize("planted", [_tutorials.START, _tutorials.DATA_FILES[-1]])
def test_the_tutorials_are_never_copied_through_a_planted_link(tmp_path, planted):
    """A dangling link named like a tutorial would have made the copy land outside the folder; one
    named like the last file is found before anything is copied."""
    target = tmp_path / "tutorials"
    target.mkdir()
    (target / planted).symlink_to(tmp_path / "planted")
    with pytest.raises(OSError, match="is a symbolic link; the tutorials are not copied through links"):
        _tutorials.copy_tutorials(target)
    assert not (tmp_path / "planted").exists() and [p.name for p in target.iterdir()] == [planted]


def test_a_fifo_named_like_a_tutorial_is_refused(tmp_path):
    os.mkfifo(tmp_path / _tutorials.START)
    with pytest.raises(OSError, match="is not a regular file"):
        _tutorials.copy_tutorials(tmp_path)


def test_lab_refuses_a_file_before_starting_jupyterlab(tmp_path):
    (tmp_path / "notes.txt").write_text("not a folder")
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "stridelab", "lab", str(tmp_path / "notes.txt")],
        capture_output=True,
        text=True,
        timeout=CASE_TIMEOUT_S,
        env=CHILD_ENV,
    )
    assert run.returncode == REFUSED and "it is a file, not a folder" in run.stderr
    assert "jupyterlab" not in run.stderr.replace("stridelab lab", "")  # -X importtime lists every import
