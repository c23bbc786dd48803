"""stridelab.access_pattern: the sectors, lines and requests of a warp-per-consecutive-elements
kernel, against a brute-force count written here, NVIDIA's documented arithmetic and NumPy."""

from __future__ import annotations

import itertools
import random
from math import prod

import numpy as np
import pytest

import stridelab as sl
from stridelab import _access_count

ELEMENT_BYTES = {"INT8": 1, "FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8}


def brute_force(sizes, strides, esize, *, order=None, offset=0, per_thread=1, warp=32, sector=32):
    """Every warp's byte addresses listed one by one: (requests, sectors, lines, bytes, ideal)."""
    order = tuple(range(len(sizes))) if order is None else order
    lowest = sum((n - 1) * s for n, s in zip(sizes, strides) if s < 0)
    element0 = offset - lowest * esize
    walked = [range(sizes[d]) for d in order]
    threads = []
    for index in itertools.product(*walked):
        coords = [0] * len(sizes)
        for d, i in zip(order, index):
            coords[d] = i
        threads.append(element0 + sum(c * s for c, s in zip(coords, strides)) * esize)
    # a thread reading per_thread elements at once takes per_thread consecutive walk positions
    threads = threads[::per_thread]
    width = esize * per_thread
    totals = [0, 0, 0, 0, 0]
    for first in range(0, len(threads), warp):
        touched = {a + b for a in threads[first : first + warp] for b in range(width)}
        totals[0] += 1
        totals[1] += len({b // sector for b in touched})
        totals[2] += len({b // (4 * sector) for b in touched})
        totals[3] += len(touched)
        totals[4] += -(-len(touched) // sector)
    return tuple(totals)


def counted(report):
    return (report.requests, report.sectors, report.lines, report.bytes, report.ideal_sectors)


def random_layout(rng: random.Random):
    rank = rng.randint(1, 4)
    sizes = tuple(rng.choice([1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 33]) for _ in range(rank))
    while prod(sizes) > 600:
        sizes = sizes[1:]
        rank -= 1
    data_type = rng.choice(list(ELEMENT_BYTES))
    strides = tuple(rng.choice([0, 1, 1, 2, 3, 5, 8, 17, 40, -1, -3, -16]) for _ in range(rank))
    order = tuple(rng.sample(range(rank), rank))
    kwargs = dict(
        order=order,
        offset=rng.randint(0, 300),
        warp_size=rng.choice([32, 32, 32, 16, 8, 4]),
        sector_bytes=rng.choice([32, 32, 32, 16, 64]),
    )
    inner = order[-1]
    per_thread = 1
    if strides[inner] == 1 and rng.random() < 0.3 and ELEMENT_BYTES[data_type] <= 8:
        per_thread = rng.choice([p for p in (2, 4) if sizes[inner] % p == 0] or [1])
    if per_thread > 1:  # a vector load needs every thread's address to be a multiple of its bytes
        strides = tuple(s if d == inner else s * per_thread for d, s in enumerate(strides))
        width = per_thread * ELEMENT_BYTES[data_type]
        kwargs["offset"] -= kwargs["offset"] % width
    return sizes, strides, data_type, per_thread, kwargs


@pytest.mark.parametrize("folded", [False, True], ids=["listed", "folded"])
def test_3000_random_small_layouts_equal_a_brute_force_count(folded, monkeypatch):
    """Both ways of counting (listing every request, and folding residues: what big tensors take)
    give exactly the brute-force count."""
    if folded:
        monkeypatch.setattr(_access_count, "LISTED_REQUESTS", 0)
    rng = random.Random(20261128)
    for _ in range(3000):
        sizes, strides, data_type, per_thread, kwargs = random_layout(rng)
        esize = ELEMENT_BYTES[data_type]
        report = sl.access_pattern((sizes, strides), data_type=data_type, bytes_per_thread=per_thread * esize, **kwargs)
        expected = brute_force(
            sizes,
            strides,
            esize,
            per_thread=per_thread,
            order=kwargs["order"],
            offset=kwargs["offset"],
            warp=kwargs["warp_size"],
            sector=kwargs["sector_bytes"],
        )
        assert counted(report) == expected, (sizes, strides, data_type, per_thread, kwargs)


def test_packed_and_transposed_float32_reads_move_4_and_32_sectors_per_request():
    # NVIDIA's coalescing arithmetic: 32 threads x 4 B = 128 B = 4 sectors when consecutive; one
    # sector per thread when each thread is a row (1024 floats) apart.
    packed = sl.access_pattern(sl.TensorDesc("FLOAT32", (1024, 1024)))
    transposed = sl.access_pattern(sl.TensorDesc("FLOAT32", (1024, 1024), (1, 1024)))
    assert (packed.requests, packed.sectors, packed.sectors_per_request) == (32768, 131072, 4.0)
    assert (transposed.requests, transposed.sectors, transposed.sectors_per_request) == (32768, 1048576, 32.0)
    assert (packed.efficiency, transposed.efficiency) == (1.0, 0.125)
    assert transposed.lines == 1048576 and packed.lines == 32768


def test_a_huge_layout_is_counted_exactly_without_listing_it():
    # 4096 rows of 2**20 float32, each row padded by 8 floats (32 B): 2**32 threads, 2**27
    # requests of 128 consecutive bytes, 4 sectors each. Row r starts at byte 32 * r modulo 128,
    # so warps of every fourth row lie in one line and the others' straddle two: 7/4 lines a warp.
    padded = ((4096, 2**20), (2**20 + 8, 1))
    report = sl.access_pattern(padded, data_type="FLOAT32")
    assert (report.requests, report.sectors, report.lines) == (2**27, 2**29, 7 * 2**25)
    # at byte offset 16 every warp straddles five sectors and two lines
    shifted = sl.access_pattern(padded, data_type="FLOAT32", offset=16)
    assert (shifted.sectors, shifted.lines) == (5 * 2**27, 2 * 2**27)


def test_broadcast_reads_share_one_sector():
    # every thread of a warp reads the same float: one sector per request (the hardware's broadcast)
    report = sl.access_pattern(sl.TensorDesc("FLOAT32", (64, 64), (0, 0)))
    assert (report.requests, report.sectors, report.bytes, report.ideal_sectors) == (128, 128, 512, 128)
    assert report.efficiency == 1.0


def test_nhwc_read_in_nchw_order_and_in_its_own_order():
    sizes = (1, 64, 32, 32)
    nhwc = sl.TensorDesc("FLOAT32", sizes, sl.layout_strides("NHWC", sizes))
    # C order over NCHW: consecutive threads step W, 64 floats = 256 B apart: a sector each
    assert sl.access_pattern(nhwc).sectors_per_request == 32
    own = sl.access_pattern(nhwc, order=(0, 2, 3, 1))
    assert (own.requests, own.sectors) == (2048, 8192)
    lines = [str(d) for d in sl.access_pattern(nhwc).dimensions()]
    assert lines == [
        "a warp along dimension 1 touches 4 sectors: stride 1 element = 4 B",
        "a warp along dimension 2 touches 32 sectors: stride 2048 elements = 8192 B",
        "a warp along dimension 3 touches 32 sectors: stride 64 elements = 256 B",
    ]


def test_a_placed_desc_and_an_offset_move_the_first_sector():
    desc = sl.TensorDesc("FLOAT32", (32,))
    assert sl.access_pattern(desc).sectors == 4
    assert sl.access_pattern(desc.placed(2)).sectors == 5  # element 0 at byte 8
    assert sl.access_pattern(desc.placed(2), offset=24).sectors == 4  # byte 32: a sector boundary
    assert sl.access_pattern(desc.placed(2), offset=24).request(0).sectors == (1, 2, 3, 4)


def test_a_numpy_view_with_negative_strides_is_read_with_its_own_strides():
    base = np.zeros((8, 64), np.float16)
    view = base[::-1, ::2]  # strides (-64, 2) elements
    report = sl.access_pattern(view)  # counted from offset 0, not where NumPy put the array
    assert (report.sizes, report.strides) == ((8, 32), (-64, 2))
    # each warp reads one row's 32 halves 4 B apart: 128 B = 4 sectors; the buffer starts at the
    # lowest element (the last row), so row 7 of the view starts at byte 0
    assert (report.requests, report.sectors) == (8, 32)
    assert report.request(0).addresses[:3] == (7 * 128, 7 * 128 + 4, 7 * 128 + 8)


def test_vector_loads_take_several_elements_per_thread():
    report = sl.access_pattern(sl.TensorDesc("FLOAT32", (64, 64)), bytes_per_thread=16)
    # 32 threads x 16 B = 512 B = 16 sectors per request, a quarter as many requests
    assert (report.requests, report.sectors_per_request) == (32, 16.0)
    assert report.request(0).coordinates[:2] == ((0, 0), (0, 4))


def test_request_lists_each_lane():
    report = sl.access_pattern(sl.TensorDesc("FLOAT32", (2, 20)), offset=8)
    first = report.request(0)
    assert first.coordinates[:2] == ((0, 0), (0, 1)) and first.coordinates[20] == (1, 0)
    assert first.addresses[0] == 8 and first.addresses[31] == 8 + 31 * 4
    assert first.sectors == (0, 1, 2, 3, 4)
    last = report.request(1)
    assert last.coordinates[8:] == (None,) * 24 and last.addresses[7] == 8 + 39 * 4


F32_2X3 = sl.TensorDesc("FLOAT32", (2, 3))


@pytest.mark.parametrize(
    ("layout", "kwargs", "error", "message"),
    [
        (((4,), (1,)), {}, TypeError, "needs data_type="),
        ("FLOAT32 (4)", {}, TypeError, "layout must be a TensorDesc"),
        (F32_2X3, {"order": (0, 0)}, sl.LayoutError, "permutation of 0..1"),
        (F32_2X3, {"order": "NC"}, TypeError, "order must be an ordered sequence"),
        (F32_2X3, {"offset": -1}, sl.LayoutError, "offset = -1"),
        (F32_2X3, {"offset": 1.5}, TypeError, "offset must be an integer"),
        (F32_2X3, {"warp_size": 24}, sl.LayoutError, "warp_size = 24: it must be a power of two"),
        (F32_2X3, {"sector_bytes": 0}, sl.LayoutError, "sector_bytes = 0"),
        (
            F32_2X3,
            {"bytes_per_thread": 6},
            sl.LayoutError,
            "bytes_per_thread = 6: it must be a power of two from 1 to 32",
        ),
        (F32_2X3, {"bytes_per_thread": 2**32}, sl.LayoutError, "power of two from 1 to 32"),
        (F32_2X3, {"bytes_per_thread": 2}, sl.LayoutError, "multiple of the element size"),
        (F32_2X3, {"bytes_per_thread": 8}, sl.LayoutError, "multiple of 2"),
        (
            sl.TensorDesc("FLOAT32", (2, 4)),
            {"bytes_per_thread": 16, "offset": 4},
            sl.LayoutError,
            "element 0 lies at byte 4",
        ),
        (
            sl.TensorDesc("FLOAT32", (2, 4), (6, 1)),
            {"bytes_per_thread": 16},
            sl.LayoutError,
            "strides of \\(24, 4\\) bytes",
        ),
        (F32_2X3, {"warp_size": 128}, sl.LayoutError, "from 1 to 64"),
        (F32_2X3, {"sector_bytes": 256}, sl.LayoutError, "from 1 to 128"),
        (((), ()), {"data_type": "FLOAT32"}, sl.LayoutError, "has 0 dimensions"),
        (np.zeros((), np.float32), {}, sl.LayoutError, "no dimensions"),
        (np.zeros((0, 4), np.float32), {}, sl.LayoutError, "hold no element"),
        (np.zeros((1,) * 9, np.float32), {}, sl.LayoutError, "at most 8"),
        (((32,), (2**59,)), {"data_type": "FLOAT32"}, sl.LayoutError, "less than 2\\*\\*62 bytes"),
        (sl.TensorDesc("FLOAT32", (2, 4), (1, 2)), {"bytes_per_thread": 8}, sl.LayoutError, "stride 1"),
        (((4,), (1, 2)), {"data_type": "FLOAT32"}, sl.LayoutError, "has 2 entries"),
        (sl.TensorDesc("FLOAT32", (4,)), {"data_type": "FLOAT16"}, sl.LayoutError, "own data type"),
    ],
)
def test_bad_arguments_are_refused_with_the_field_and_the_rule(layout, kwargs, error, message):
    with pytest.raises(error, match=message):
        sl.access_pattern(layout, **kwargs)


def test_huge_offsets_and_addresses_stay_exact():
    # only the buffer's place in a 128-byte line matters to the counts; the addresses are its own
    desc = sl.TensorDesc("FLOAT32", (4, 4))
    far = sl.access_pattern(desc, offset=2**70 + 8)
    assert (far.sectors, far.ideal_sectors) == (sl.access_pattern(desc, offset=8).sectors, 2) == (3, 2)
    assert far.request(0).addresses[:2] == (2**70 + 8, 2**70 + 12)
    assert far.request(0).sectors == ((2**70 + 8) // 32, (2**70 + 8) // 32 + 1, (2**70 + 8) // 32 + 2)
    placed = sl.access_pattern(sl.PlacedDesc(sl.TensorDesc("UINT8", (64,)), 2**63))
    assert (placed.sectors, placed.request(1).addresses[0]) == (2, 2**63 + 32)
    # a valid TensorDesc spanning 2**64 bytes: its last request's addresses are exact Python ints
    wide = sl.access_pattern(sl.TensorDesc("UINT8", (2**31, 2), (2**31, 1)))
    assert wide.request(wide.requests - 1).addresses[-1] == (2**31 - 1) * 2**31 + 1


def test_a_request_past_the_last_is_refused():
    with pytest.raises(sl.LayoutError, match="numbered 0..0"):
        sl.access_pattern(sl.TensorDesc("FLOAT32", (4,))).request(1)


def test_a_layout_no_memory_map_can_draw_displays_as_text():
    report = sl.access_pattern(((4, 4), (2**40, 1)), data_type="FLOAT32")
    data, metadata = report._repr_mimebundle_()
    assert list(data) == ["text/plain"] and metadata == {}
    assert data["text/plain"].startswith("1 request of 32 threads x 4 B: 4 sectors")  # 4 rows of 16 B
    assert "not drawn: strides[0] = 1099511627776 exceeds 4294967295" in data["text/plain"]
