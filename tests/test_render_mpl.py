"""draw_memory_map: the SVG's picture on a matplotlib axes, artists returned, never shown."""

from __future__ import annotations

import subprocess
import sys

import pytest

matplotlib = pytest.importorskip("matplotlib")  # an optional dependency (the lab extra)
matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.text import Text

import stridelab as sl
from stridelab.render.mpl import figure_size
from stridelab.render.scene import build_scene

PADDED = sl.TensorDesc("FLOAT32", (2, 3), (5, 1), total_tensor_size_in_bytes=40)


@pytest.fixture
def ax():
    fig = plt.figure(figsize=figure_size(build_scene(PADDED)))
    yield fig.add_axes((0, 0, 1, 1))
    plt.close(fig)


def test_returns_the_artists_it_drew_on_the_axes(ax):
    artists = sl.draw_memory_map(ax, PADDED)
    texts = [a for a in artists if isinstance(a, Text)]
    assert set(texts) <= set(ax.texts) and len(texts) == len(ax.texts)
    assert all(a.axes is ax for a in artists)
    strings = [t.get_text() for t in texts]
    # 6 cells + 10 slots labelled as on the strides page, padding marked x
    for label in "ABCDEF":
        assert strings.count(label) == 2
    assert strings.count("x") == 4 + 1  # four padding slots and the legend's mark
    assert "FLOAT32 · sizes [2, 3] · strides [5, 1] · layout HW" in strings


def test_padding_is_hatched_and_alignment_dashed(ax):
    artists = sl.draw_memory_map(ax, PADDED)
    hatched = [a for a in artists if isinstance(a, PatchCollection) and a.get_hatch()]
    assert len(hatched) == 1 and len(hatched[0].get_paths()) == 4 + 1  # four slots and the legend box
    fig, ax2 = plt.subplots()
    artists = sl.draw_memory_map(ax2, sl.TensorDesc("UINT8", (2, 3)))
    dashed = [a for a in artists if isinstance(a, PatchCollection) and a.get_linestyle()[0][1] is not None]
    assert dashed and len(dashed[0].get_paths()) == 2 + 1  # two alignment slots and the legend box
    plt.close(fig)


def test_shared_slots_carry_their_count(ax):
    artists = sl.draw_memory_map(ax, sl.TensorDesc("FLOAT32", (2, 3), (0, 1)))
    assert [a.get_text() for a in artists if isinstance(a, Text)].count("×2") == 3


def test_never_shows(ax, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("draw_memory_map called plt.show()")

    monkeypatch.setattr(plt, "show", refuse)
    sl.draw_memory_map(ax, PADDED)


def test_axes_hold_the_whole_picture(ax):
    sl.draw_memory_map(ax, PADDED)
    scene = build_scene(PADDED)
    assert ax.get_xlim() == (0, scene.width) and ax.get_ylim() == (scene.height, 0)
    assert not ax.axison


def _pixels(obj) -> np.ndarray:
    fig = plt.figure(figsize=(6, 2), dpi=80)
    sl.draw_memory_map(fig.add_subplot(), obj)
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba()).copy()
    plt.close(fig)
    return pixels


def test_map_and_description_draw_the_same_picture():
    assert np.array_equal(_pixels(PADDED.memory_map()), _pixels(PADDED))
    assert not np.array_equal(_pixels(PADDED), _pixels(sl.TensorDesc("FLOAT32", (2, 3))))


def test_importing_stridelab_does_not_import_matplotlib():
    code = "import sys, stridelab, stridelab.render; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_refuses_what_it_cannot_draw(ax):
    with pytest.raises(TypeError, match="not list"):
        sl.draw_memory_map(ax, [1, 2, 3])


def test_an_axes_that_is_not_one_is_a_type_error():
    with pytest.raises(TypeError) as error:
        sl.draw_memory_map(None, sl.TensorDesc("FLOAT32", (2, 3)))
    assert str(error.value) == "ax must be a matplotlib Axes (e.g. from plt.subplots()), not NoneType"
