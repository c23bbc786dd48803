"""The PNG beside the SVG: painted by Pillow from the same scene, decoded here and checked against
the SVG's own geometry and the palette's literal colours."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")  # Pillow comes with the plot extra (matplotlib needs it)

import stridelab as sl
from stridelab.render import png
from stridelab.render.scene import build_scene

SVG = "{http://www.w3.org/2000/svg}"
PADDED = sl.TensorDesc("FLOAT32", (2, 3), (5, 1))  # the strides page's height-stride 5: slots 3, 4 padding
INK = (0x1A, 0x1A, 0x1A)
LIGHT_BLUE, ORANGE = (0x77, 0xAA, 0xDD), (0xEE, 0x88, 0x66)  # Paul Tol's light scheme, first two
PADDING_FILL, PADDING_HATCH = (0xDD, 0xDD, 0xDD), (0x77, 0x77, 0x77)


def decoded(data: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def boxes(svg: str, cls: str) -> dict[str, tuple[int, int, int, int]]:
    """``data-coords`` (cells) or ``data-slot`` (slots) -> the rect's x, y, width, height in the SVG."""
    key = "data-coords" if cls == "cell" else "data-slot"
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if (g.get("class") or "").split()[:1] == [cls]:
            r = g.find(f"{SVG}rect")
            out[g.get(key)] = tuple(int(r.get(a)) for a in ("x", "y", "width", "height"))
    return out


def inside(pixels: np.ndarray, box: tuple[int, int, int, int], scale: int = 2) -> np.ndarray:
    """The pixels of a box, its border left out, as a list of RGB triples."""
    x, y, w, h = box
    return pixels[(y + 2) * scale : (y + h - 2) * scale, (x + 2) * scale : (x + w - 2) * scale].reshape(-1, 3)


def count(pixels: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int(np.all(pixels == colour, axis=-1).sum())


def test_the_png_is_the_svg_at_twice_its_size():
    data, metadata = PADDED._repr_mimebundle_()
    svg = data["image/svg+xml"]
    root = ET.fromstring(svg)
    width, height = int(root.get("width")), int(root.get("height"))
    pixels = decoded(png.pictures_png([build_scene(PADDED)], [""]))
    assert pixels.shape == (2 * height, 2 * width, 3)
    assert metadata["image/png"] == {"width": width, "height": height}


def test_cells_and_slots_are_filled_where_the_svg_puts_them():
    svg = sl.render_svg(PADDED)
    pixels = decoded(png.pictures_png([build_scene(PADDED)], [""]))
    cells, slots = boxes(svg, "cell"), boxes(svg, "slot")
    # row 0 (A B C) light blue, row 1 (D E F) orange, in the logical view and on the strip
    for coords in ("0,0", "0,1", "0,2"):
        assert count(inside(pixels, cells[coords]), LIGHT_BLUE) > 0.6 * inside(pixels, cells[coords]).shape[0]
    for slot in ("5", "6", "7"):
        assert count(inside(pixels, slots[slot]), ORANGE) > 0.6 * inside(pixels, slots[slot]).shape[0]
    # the padding slots are hatched: grey with dark lines, no element colour
    for slot in ("3", "4"):
        box = inside(pixels, slots[slot])
        assert count(box, PADDING_FILL) > 0.4 * box.shape[0] and count(box, PADDING_HATCH) > 20
        assert count(box, LIGHT_BLUE) == count(box, ORANGE) == 0


def test_letters_are_drawn_in_ink():
    svg = sl.render_svg(PADDED)
    pixels = decoded(png.pictures_png([build_scene(PADDED)], [""]))
    for box in (*boxes(svg, "cell").values(), *boxes(svg, "slot").values()):
        assert count(inside(pixels, box), INK) > 15  # a letter (A..F) or the padding's x
    # the summary line across the top: bold ink from x = 10 for about 340 pixels
    summary = pixels[2 * 8 : 2 * 24, 2 * 10 : 2 * 350]
    assert count(summary, INK) > 1000


def test_alignment_and_gaps_are_dashed_and_shared_slots_carry_their_count():
    uint8 = sl.TensorDesc("UINT8", (3,))  # 3 bytes round up to 4: one alignment slot
    svg = sl.render_svg(uint8)
    pixels = decoded(png.pictures_png([build_scene(uint8)], [""]))
    x, y, w, _ = boxes(svg, "slot")["3"]
    top_edge = pixels[y * 2, x * 2 : (x + w) * 2]
    assert 0 < count(top_edge, (0x33, 0x33, 0x33)) < 0.8 * top_edge.shape[0]  # dashes, not a line
    # "×2" in the top right corner of a shared slot: ink that the same slot of a packed map lacks
    corner_ink = []
    for desc in (sl.TensorDesc("FLOAT32", (2, 3), (0, 1)), sl.TensorDesc("FLOAT32", (2, 3))):
        pixels = decoded(png.pictures_png([build_scene(desc)], [""]))
        x, y, w, _ = boxes(sl.render_svg(desc), "slot")["0"]
        corner_ink.append(count(pixels[(y + 1) * 2 : (y + 7) * 2, (x + w - 14) * 2 : (x + w - 1) * 2], INK))
    assert corner_ink[0] > 10 and corner_ink[1] == 0


def test_stacked_scenes_share_one_picture_under_their_names():
    second = sl.TensorDesc("FLOAT32", (1, 3, 2, 2), sl.layout_strides("NHWC", (1, 3, 2, 2)))
    scenes = [build_scene(PADDED), build_scene(second)]
    pixels = decoded(png.pictures_png(scenes, ["NCHW", "NHWC"]))
    width = max(s.width for s in scenes)
    second_top = 22 + scenes[0].height + 10  # caption, first scene, gap
    assert pixels.shape[:2] == (2 * (second_top + 22 + scenes[1].height), 2 * width)
    # each scene is drawn as it is alone, 22 pixels under its name's band
    for top, scene in ((0, scenes[0]), (second_top, scenes[1])):
        alone = decoded(png.pictures_png([scene], [""]))
        band = pixels[2 * (top + 22) : 2 * (top + 22 + scene.height), : 2 * scene.width]
        assert np.array_equal(band, alone)
        name = pixels[2 * top : 2 * (top + 22), : 2 * width]
        assert count(name[:, : 2 * 60], INK) > 100 and count(name[:, 2 * 60 :], INK) == 0  # "NCHW", "NHWC" in bold


def test_letters_render_without_system_fonts(tmp_path):
    # An empty fontconfig: no system font is found, as in a bare container. The font is read from
    # the file matplotlib's wheel ships, by path.
    config = tmp_path / "fonts.conf"
    config.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig></fontconfig>')
    out = tmp_path / "padded.png"
    code = (
        "import sys, stridelab as sl; from stridelab.render import png; "
        "from stridelab.render.scene import build_scene; "
        f"open(sys.argv[1], 'wb').write(png.pictures_png([build_scene(sl.{PADDED!r})], ['']))"
    )
    env = {**os.environ, "FONTCONFIG_FILE": str(config), "FONTCONFIG_PATH": str(tmp_path), "HOME": str(tmp_path)}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(sl.__file__).parents[1]), env.get("PYTHONPATH", "")])
    subprocess.run([sys.executable, "-c", code, str(out)], env=env, check=True, timeout=60)
    pixels = decoded(out.read_bytes())
    x, y, w, h = boxes(sl.render_svg(PADDED), "cell")["0,0"]
    assert count(inside(pixels, (x, y, w, h)), INK) > 15  # the letter A


def test_the_font_is_dejavu_sans_from_a_file():
    pytest.importorskip("matplotlib")
    assert png.font_file().name == "DejaVuSans.ttf" and png.font_file(bold=True).name == "DejaVuSans-Bold.ttf"
    assert png._font(24, False).path == str(png.font_file())


def test_without_matplotlib_pillows_own_font_draws_the_letters(monkeypatch):
    monkeypatch.setattr(png, "font_file", lambda bold=False: None)
    png._font.cache_clear()
    try:
        pixels = decoded(png.pictures_png([build_scene(PADDED)], [""]))
    finally:
        png._font.cache_clear()
    x, y, w, h = boxes(sl.render_svg(PADDED), "cell")["0,0"]
    assert count(inside(pixels, (x, y, w, h)), INK) > 10


def test_without_pillow_the_display_is_the_svg_and_the_text_and_says_nothing():
    code = (
        "import sys; sys.modules['PIL'] = None\n"
        "import stridelab as sl\n"
        "data, metadata = sl.TensorDesc('FLOAT32', (2, 3))._repr_mimebundle_()\n"
        "print(sorted(data), metadata)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(sl.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "['image/svg+xml', 'text/plain'] {}\n" and done.stderr == ""


def test_the_same_scene_gives_the_same_bytes():
    assert png.pictures_png([build_scene(PADDED)], [""]) == png.pictures_png([build_scene(PADDED)], [""])
