"""``import stridelab`` and its NumPy path work without, and never import, cupy or the view stack."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEAVY = ("cupy", "matplotlib", "ipywidgets", "anywidget", "jupyterlab", "IPython")


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter where importing any HEAVY package fails."""
    blocker = textwrap.dedent(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {HEAVY!r}:
                    raise ImportError("blocked for this test: " + name)
        sys.meta_path.insert(0, Block())
        """
    )
    return subprocess.run(
        [sys.executable, "-c", blocker + textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
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
