"""The picture of an AccessReport (render/access*.py) and MemoryMapView(..., access=True).

Expected sectors are worked out here from each layout's strides by hand (address = offset +
element size * dot(coords, strides), sector = address // 32), never read from access_pattern.
"""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import stridelab as sl

SVG = "{http://www.w3.org/2000/svg}"


def sectors_by_hand(sizes, strides, size, offset=0, warp=32, per_thread=1):
    """Per request, the sectors its threads read: C-order threads, ``per_thread`` elements each."""
    coords = list(np.ndindex(*sizes))[::per_thread]
    origin = offset - size * sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    out = []
    for first in range(0, len(coords), warp):
        touched = set()
        for c in coords[first : first + warp]:
            address = origin + size * sum(i * s for i, s in zip(c, strides))
            touched.update(range(address // 32, (address + size * per_thread - 1) // 32 + 1))
        out.append(sorted(touched))
    return out


def outlined(svg: str) -> dict[int, list[int]]:
    """Request -> the sectors outlined for it in ``svg``."""
    root = ET.fromstring(svg)
    out: dict[int, list[int]] = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "sector":
            out.setdefault(int(g.get("data-request")), []).append(int(g.get("data-sector")))
            assert g.findall(f"{SVG}rect"), "an outline has its rectangles"
    return out


def legend(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(f"{SVG}text") if t.text and t.text.startswith("request ")]


NHWC = sl.TensorDesc("FLOAT32", (1, 3, 4, 5), sl.layout_strides("NHWC", (1, 3, 4, 5)))


def test_nhwc_at_offset_8_outlines_each_requests_sectors():
    assert NHWC.strides == (60, 1, 15, 3)
    report = sl.access_pattern(NHWC, offset=8)
    data, metadata = report._repr_mimebundle_()
    expected = sectors_by_hand((1, 3, 4, 5), (60, 1, 15, 3), 4, offset=8)
    assert [len(s) for s in expected] == [8, 8]  # 60 elements at bytes 8..247: sectors 0..7, read by both
    assert outlined(data["image/svg+xml"]) == {0: expected[0], 1: expected[1]}
    assert legend(data["image/svg+xml"]) == [
        "request 0: 8 sectors (threads 0-31)",
        "request 1: 8 sectors (threads 32-59)",
    ]
    # a sector begins at address 32: element 6 of the buffer (8 + 6 * 4), drawn from its byte address
    starts = re.findall(r'<line class="sector-start"', data["image/svg+xml"])
    assert len(starts) == 7  # 32, 64, ..., 224: the buffer's first slot (address 8) begins none
    assert data["text/plain"] == str(report)
    assert base64.b64decode(data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"  # untrusted notebooks show this
    assert set(metadata["image/png"]) == {"width", "height"}


def test_transposed_8x8_nests_the_outlines_of_requests_sharing_a_sector():
    report = sl.access_pattern(sl.TensorDesc("FLOAT32", (8, 8), (1, 8)))
    svg = sl.render_svg(report)
    # thread t reads (t // 8, t % 8) at 4 * (t // 8) + 32 * (t % 8): rows 0-3, then rows 4-7, of every sector
    assert sectors_by_hand((8, 8), (1, 8), 4) == [list(range(8)), list(range(8))]
    assert outlined(svg) == {0: list(range(8)), 1: list(range(8))}
    root = ET.fromstring(svg)
    rects = {
        int(g.get("data-request")): g.find(f"{SVG}rect")
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "sector" and g.get("data-sector") == "0"
    }
    slot0 = next(g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("slot") and g.get("data-slot") == "0")
    x0 = int(slot0.find(f"{SVG}rect").get("x"))
    assert [int(rects[r].get("x")) - x0 for r in (0, 1)] == [0, 3]  # request 1 inside request 0
    assert legend(svg) == ["request 0: 8 sectors (threads 0-31)", "request 1: 8 sectors (threads 32-63)"]
    # cells and slots name the thread that reads them: (2, 3) is thread 19, stored at element 2 + 8 * 3
    cell = next(g for g in root.iter(f"{SVG}g") if g.get("data-coords") == "2,3")
    assert (cell.get("data-slot"), cell.get("data-label")) == ("26", "19")
    with pytest.raises(TypeError, match="colour_by does not apply"):
        sl.render_svg(report, colour_by=0)


@pytest.mark.parametrize(
    ("layout", "kwargs", "by_hand"),
    [
        (sl.TensorDesc("FLOAT16", (2, 32), (1, 2)), {}, ((2, 32), (1, 2), 2, 0, 1)),
        (sl.TensorDesc("INT8", (4, 64)), {}, ((4, 64), (64, 1), 1, 0, 1)),
        (sl.TensorDesc("FLOAT64", (3, 4), (0, 1)), {}, ((3, 4), (0, 1), 8, 0, 1)),  # broadcast
        (sl.TensorDesc("FLOAT32", (1, 64)), {"bytes_per_thread": 16}, ((1, 64), (64, 1), 4, 0, 4)),
        (sl.TensorDesc("FLOAT32", (3, 5)).placed(3), {"offset": 4}, ((3, 5), (5, 1), 4, 16, 1)),
    ],
    ids=["float16-transposed", "int8", "float64-broadcast", "float32x4-vectors", "placed"],
)
def test_every_drawn_requests_sectors_are_outlined(layout, kwargs, by_hand):
    sizes, strides, size, offset, per = by_hand
    expected = sectors_by_hand(sizes, strides, size, offset=offset, per_thread=per)
    svg = sl.render_svg(sl.access_pattern(layout, **kwargs))
    drawn = outlined(svg)
    assert drawn == {r: expected[r] for r in drawn}
    assert 0 in drawn
    assert len(legend(svg)) == len(drawn)


def test_negative_strides_draw_the_buffer_from_the_lowest_element():
    a = np.arange(16, dtype=np.float32).reshape(4, 4)[::-1]  # strides (-4, 1) elements
    data, _ = sl.access_pattern(a)._repr_mimebundle_()
    svg = data["image/svg+xml"]
    root = ET.fromstring(svg)
    cell = next(g for g in root.iter(f"{SVG}g") if g.get("data-coords") == "0,0")
    # a[0, 0] is the highest row in memory: buffer element 12, byte 48, read by thread 0
    assert (cell.get("data-slot"), cell.get("data-label")) == ("12", "0")
    assert outlined(svg) == {0: sectors_by_hand((4, 4), (-4, 1), 4)[0]} == {0: [0, 1]}
    assert "strides [-4, 1]: negative" in svg
    assert ">0</text>" in svg  # the row index texts name the array's own rows


def test_a_large_layout_draws_a_window_over_its_first_requests():
    desc = sl.TensorDesc("FLOAT32", (1, 64, 32, 32), sl.layout_strides("NHWC", (1, 64, 32, 32)))
    svg = sl.render_svg(sl.access_pattern(desc))
    assert svg.count('class="cell"') == 64  # two requests of 32 threads along W
    drawn = outlined(svg)
    assert drawn == {0: list(range(0, 256, 8)), 1: list(range(256, 512, 8))}  # stride 256 B: a sector each
    assert "a warp along dimension 3 touches 32 sectors: stride 64 elements = 256 B" in svg


# -- MemoryMapView(..., access=True) -------------------------------------------------------------------

pytest.importorskip("anywidget")


def test_access_view_sends_what_a_hovered_thread_lights():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (8, 8), (1, 8)), access=True)
    (panel,) = view.panels
    i = panel["cells"]["coords"].index("2,3")
    # thread 19 reads (2, 3) at 4 * 2 + 32 * 3 = 104: sector 3, the slots at elements 24 to 31
    assert panel["access"]["info"][i] == "thread 19 of request 0: address 104, sector 3"
    start, stop = panel["access"]["slots"][i]
    assert panel["slots"]["offset"][start:stop] == list(range(24, 32))
    sectors = re.findall(r'<g class="sector" data-request="(\d+)" data-sector="(\d+)">', panel["svg"])
    assert [sectors[o] for o in panel["access"]["outlines"][i]] == [("0", "3"), ("1", "3")]
    json.dumps(view.get_state())
    data, _ = view._repr_mimebundle_()
    assert {"image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json"} <= set(data)
    assert data["text/plain"].splitlines() == [repr(view), str(view.report)]
    assert 'class="sector"' in view.to_svg()


def test_access_view_passes_order_and_vectors_to_access_pattern():
    nhwc = sl.TensorDesc("FLOAT32", (1, 8, 4, 4), sl.layout_strides("NHWC", (1, 8, 4, 4)))
    # C order: threads 0-31 read channels 0-1 of 16 pixels 32 B apart, a sector per pixel
    assert sl.MemoryMapView(nhwc, access=True).report.sectors_per_request == 16
    # memory order: 32 consecutive floats, 128 B
    assert sl.MemoryMapView(nhwc, access=True, order=(0, 2, 3, 1)).report.sectors_per_request == 4
    # memory order, 4 floats a thread: 32 threads read 512 B
    walked = sl.MemoryMapView(nhwc, access=True, order=(0, 2, 3, 1), bytes_per_thread=16)
    assert walked.report.sectors_per_request == 16
    panel = walked.panels[0]
    info = dict(zip(panel["cells"]["coords"], panel["access"]["info"]))
    assert info["0,1,0,0"] == "thread 0 of request 0: address 0, sector 0"  # channel 1 is in thread 0's vector
    assert info["0,0,0,1"] == "thread 2 of request 0: address 32, sector 1"  # the next pixel, 8 floats on


def test_views_without_access_are_unchanged():
    view = sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3)))
    assert "access" not in view.panels[0]
    assert view.report is None
    assert repr(view) == "MemoryMapView(TensorDesc('FLOAT32', sizes=(2, 3), strides=(3, 1)))"
    assert 'class="sector"' not in view.to_svg()
    with pytest.raises(TypeError, match="access must be True or False"):
        sl.MemoryMapView(sl.TensorDesc("FLOAT32", (2, 3)), access="yes")
