"""``import stridelab`` and its NumPy path work without, and never import, cupy or the view stack;
each feature that needs one of them names the extra that installs it."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEAVY = ("cupy", "matplotlib", "ipywidgets", "anywidget", "jupyterlab", "IPython")


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter where every HEAVY package is missing."""
    blocker = textwrap.dedent(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {HEAVY!r}:
                    raise ModuleNotFoundError("blocked for this test: " + name, name=name)
        sys.meta_path.insert(0, Block())
        """
    )
    return subprocess.run(
        [sys.executable, "-c", blocker + textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )


def test_layout_core_runs_with_the_heavy_packages_absent():
    result = run_isolated(
        f"""
        import numpy as np
        import stridelab as sl
        d = sl.TensorDesc("FLOAT16", (1, 2, 3, 4), sl.layout_strides("NHWC", (1, 2, 3, 4)))
        assert d.is_packed and sl.calc_buffer_tensor_size("UINT8", (5,)) == 8
        m = d.memory_map()
        print(m.table().splitlines()[0][:13])
        t = sl.StridedTensor.from_array(np.ones((2, 3), np.float32).T)
        assert t.to_array().shape == (3, 2)
        loaded = sorted(name for name in sys.modules if name.split(".")[0] in {HEAVY!r})
        assert not loaded, loaded
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Offset:|0|1|2", "ok"]


def test_each_optional_feature_names_the_extra_that_brings_it():
    result = run_isolated(
        """
        import stridelab as sl

        class CudaArray:
            __cuda_array_interface__ = {"shape": (2,), "typestr": "<f4", "data": (0, False), "version": 3}

        d = sl.TensorDesc("FLOAT32", (2, 3))
        uses = {
            "MemoryMapView": lambda: sl.MemoryMapView(d),
            "explore": lambda: sl.explore(),
            "draw_memory_map": lambda: sl.draw_memory_map(None, d),
            "from_array": lambda: sl.StridedTensor.from_array(CudaArray()),
        }
        for name, use in uses.items():
            try:
                use()
            except ImportError as error:
                print(name, "|", type(error).__name__, "|", error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "MemoryMapView | ImportError | stridelab's widgets (MemoryMapView, explore, compare, the explorers) needs"
        " anywidget, which is not installed: pip install 'stridelab[widgets]'",
        "explore | ImportError | stridelab's widgets (MemoryMapView, explore, compare, the explorers) needs"
        " anywidget, which is not installed: pip install 'stridelab[widgets]'",
        "draw_memory_map | ImportError | sl.draw_memory_map needs matplotlib, which is not installed:"
        " pip install 'stridelab[plot]'",
        "from_array | ImportError | a CUDA array (one with __cuda_array_interface__ or a CUDA __dlpack__) needs"
        " cupy, which is not installed: pip install 'stridelab[gpu-cuda12]' or 'stridelab[gpu-cuda13]',"
        " matching your CUDA major version",
    ]


def test_stridelab_lab_without_jupyterlab_names_the_lab_extra_and_copies_nothing(tmp_path):
    target = tmp_path / "tutorials"
    result = run_isolated(f"import sys; from stridelab.cli import main; sys.exit(main(['lab', {str(target)!r}]))")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "stridelab lab: error: stridelab lab needs jupyterlab, which is not installed: pip install 'stridelab[lab]'\n"
    )
    assert not target.exists()
