"""The GPU launch planners (:mod:`stridelab.ops.cupy.scan_plan`, :mod:`~stridelab.ops.cupy.copy_plan`)
are plain Python: what they can plan is
checked here on any machine, without CuPy or a GPU. (Whether the planned kernels compute the right
thing is ``tests/test_gpu_backend.py``'s work, on a GPU.)"""

from __future__ import annotations

import random

import pytest

import stridelab.ops  # noqa: F401  (defines the scan operators)
from stridelab.ops._engine import OPERATORS
from stridelab.ops._primitives import canonical_pair
from stridelab.ops.cupy import copy_plan, geometry, scan_plan, tuning

H200_SHARED = 232448  # shared memory a block may opt into on an H100 or H200 (227 KiB)


def _random_view(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Sizes and element strides of a source (any strides, reversed or broadcast ones included)
    and of a destination (a permuted packed layout, as a new or channels-last result has)."""
    nd = rng.randint(1, 5)
    sizes = tuple(rng.choice([1, 2, 3, 8, 16, 24, 64, 256, 300]) for _ in range(nd))

    def packed(order: list[int]) -> tuple[int, ...]:
        strides, step = [0] * nd, 1
        for d in reversed(order):
            strides[d], step = step, step * sizes[d]
        return tuple(strides)

    order = list(range(nd))
    rng.shuffle(order)
    src = packed(order) if rng.random() < 0.6 else tuple(rng.choice([0, 1, -1, 2, 8, -8, 64, 4096]) for _ in sizes)
    rng.shuffle(order)
    return sizes, src, packed(order)


def _kernels(plan: scan_plan.ScanPlan) -> list[str]:
    names = [plan.launch.kernel] + ([plan.first.kernel] if plan.first else [])
    return names + (_kernels(plan.partial_plan) if plan.partial_plan else [])


def test_every_planned_kernel_is_one_the_loader_compiles():
    """A plan that named a template instantiation missing from scan_kernels() or COPY_KERNELS
    would fail only when it first ran on a GPU; 4,000 random views on devices of 1 to 132
    multiprocessors, with and without room for the staged tiles, for both operators."""
    rng = random.Random(11)
    copies = set(copy_plan.COPY_KERNELS)
    seen = set()
    for _ in range(4000):
        sizes, src, dst = _random_view(rng)
        name = rng.choice(list(scan_plan.SCAN_TYPES))
        operator = rng.choice([op.scan.cuda for op in OPERATORS.values() if op.scan is not None])
        scans = set(scan_plan.scan_kernels(name, operator))
        esize = scan_plan.SCAN_TYPES[name].esize
        align = (rng.choice([0, esize, 8]) // esize * esize, rng.choice([0, 8]))
        sm_count, shared = rng.choice([1, 4, 132]), rng.choice([geometry.SHARED_DEFAULT, H200_SHARED])
        axis = rng.randrange(len(sizes))
        exclusive = rng.random() < 0.3
        pair = canonical_pair(sizes, src, dst, axis)
        plan = scan_plan.plan_scan(name, pair, exclusive, *align, sm_count, operator=operator, shared_limit=shared)
        for kernel in _kernels(plan):
            assert kernel in scans, (kernel, sizes, src, dst, axis)
            assert f", {operator}>" in kernel, kernel  # partial-total scans keep the operator
            seen.add(geometry.template_of(kernel))
        copy = copy_plan.plan_copy(esize, canonical_pair(sizes, src, dst), *align)
        assert copy.launch.kernel in copies, (copy.launch.kernel, sizes, src, dst)
    assert {"sl_scan_lines", "sl_scan_cols", "sl_scan_cols_split", "sl_scan_tile_staged"} <= seen


def _nhwc_to_nchw_along_h(name: str, n: int, sm_count: int, shared_limit: int) -> scan_plan.ScanPlan:
    sizes = (n, 64, 256, 256)
    nhwc = (256 * 256 * 64, 1, 256 * 64, 64)
    packed = (64 * 256 * 256, 256 * 256, 256, 1)
    pair = canonical_pair(sizes, nhwc, packed, 2)
    return scan_plan.plan_scan(name, pair, False, 0, 0, sm_count, shared_limit=shared_limit)


@pytest.mark.parametrize("name", ["FLOAT16", "FLOAT32"])
def test_the_staged_tile_is_planned_only_where_its_shared_memory_fits(name):
    esize = scan_plan.SCAN_TYPES[name].esize
    tx, ty, ch, stages = tuning.SCAN_STAGED_TILES[esize]
    need = stages * ch * ty * tx * esize
    fits = _nhwc_to_nchw_along_h(name, 16, 132, need)
    assert fits.launch.kernel.startswith("sl_scan_tile_staged<") and fits.launch.shared == need
    short = _nhwc_to_nchw_along_h(name, 16, 132, need - 1)
    assert short.launch.kernel.startswith("sl_scan_tile_an<") and short.launch.shared == 0


def test_few_float16_tiles_keep_the_tile_with_more_blocks():
    """One staged block a tile walks its chunks one after another: with fewer float16 tiles than
    half the multiprocessors the element-by-element tile (more, smaller blocks) is planned."""
    assert _nhwc_to_nchw_along_h("FLOAT16", 1, 132, H200_SHARED).launch.kernel.startswith("sl_scan_tile_an<")
    assert _nhwc_to_nchw_along_h("FLOAT16", 16, 132, H200_SHARED).launch.kernel.startswith("sl_scan_tile_staged<")
    assert _nhwc_to_nchw_along_h("FLOAT32", 1, 132, H200_SHARED).launch.kernel.startswith("sl_scan_tile_staged<")


def _across(name: str, sizes, src, dst, axis: int) -> str:
    pair = canonical_pair(sizes, src, dst, axis)
    return scan_plan.plan_scan(name, pair, False, 0, 0, 132, shared_limit=H200_SHARED).launch.kernel


def test_tiles_across_a_short_axis_take_the_widest_vectors_that_fit():
    """NCHW -> NHWC along N: float32 moves 64 x 64 tiles of 16-byte vectors, or 32 x 32 tiles of
    8-byte ones where C is no multiple of 4; float16 along 16 steps is not staged."""
    sizes = (16, 64, 256, 256)
    nchw, nhwc = (64 * 256 * 256, 256 * 256, 256, 1), (256 * 256 * 64, 1, 256 * 64, 64)
    assert _across("FLOAT32", sizes, nchw, nhwc, 0) == "sl_scan_tile_an<Scan<F32, Sum>, 64, 2, 4, 0>"
    odd = (16, 62, 256, 256)
    odd_nchw, odd_nhwc = (62 * 256 * 256, 256 * 256, 256, 1), (256 * 256 * 62, 1, 256 * 62, 62)
    assert _across("FLOAT32", odd, odd_nchw, odd_nhwc, 0) == "sl_scan_tile_an<Scan<F32, Sum>, 32, 8, 2, 0>"
    assert _across("FLOAT16", sizes, nchw, nhwc, 0) == "sl_scan_tile_an<Scan<F16, Sum>, 64, 2, 4, 0>"
    assert _across("FLOAT16", sizes, nchw, nhwc, 2) == "sl_scan_tile_staged<Scan<F16, Sum>, 64, 32, 8, 2, false>"


def test_float32_along_64_channels_into_nhwc_takes_16_lanes_of_4():
    sizes = (16, 64, 256, 256)
    nchw, nhwc = (64 * 256 * 256, 256 * 256, 256, 1), (256 * 256 * 64, 1, 256 * 64, 64)
    assert _across("FLOAT32", sizes, nchw, nhwc, 1) == "sl_scan_tile_ay<Scan<F32, Sum>, 4, 32, true, 0, 16>"


def test_float16_transposing_copies_take_16_byte_vectors_where_they_fit():
    def kernel(c: int) -> str:
        sizes = (2, c, 16, 16)
        nchw, nhwc = (c * 256, 256, 16, 1), (256 * c, 1, 16 * c, c)
        return copy_plan.plan_copy(2, canonical_pair(sizes, nchw, nhwc), 0, 0).launch.kernel

    assert (kernel(64), kernel(68), kernel(66)) == (
        "sl_copy_tiled<2, 64, 8>",
        "sl_copy_tiled<2, 64, 4>",
        "sl_copy_tiled<2, 64, 1>",
    )


def _geometry(launch: geometry.Launch) -> dict:
    """``launch.geo`` by ``struct Geo`` field name (array fields as lists, innermost first)."""
    values, out = list(launch.geo), {}
    for name, count in geometry.GEO_FIELDS:
        out[name] = values[:count] if count > 1 else values[0]
        values = values[count:]
    return out


def _strided_view(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Two permuted layouts of the same sizes, each padded or subsampled at random (every stride
    scaled by 1, 2 or 8, some dimensions' extents padded), so that vectors fit some views and not
    others."""
    nd = rng.randint(2, 4)
    sizes = tuple(rng.choice([2, 7, 8, 16, 24, 33, 64, 128, 256]) for _ in range(nd))

    def layout() -> tuple[int, ...]:
        order = list(range(nd))
        rng.shuffle(order)
        strides, step = [0] * nd, rng.choice([1, 1, 1, 2, 8])
        for d in reversed(order):
            strides[d] = step
            step *= sizes[d] + rng.choice([0, 0, 0, 1, 8])
        return tuple(-s if rng.random() < 0.1 else s for s in strides)

    return sizes, layout(), layout()


def test_vector_kernels_are_planned_only_where_every_vector_is_aligned():
    """The staged tile copies 16-byte vectors along X (source stride 1) and stores them along Y
    (destination stride 1); the split columns load and store vectors along their innermost
    dimension. For every such plan among 20,000 random strided views (strides that are and are not
    multiples of a vector, element 0 on and off 16-byte boundaries), every stride the kernel steps
    by is a whole number of vectors and element 0 of both views lies on a vector boundary."""
    rng = random.Random(12)
    planned = {"staged": 0, "split": 0}
    for _ in range(20000):
        sizes, src, dst = _strided_view(rng)
        name = rng.choice(list(scan_plan.SCAN_TYPES))
        esize = scan_plan.SCAN_TYPES[name].esize
        align = (rng.choice([0, 0, esize, 8]) // esize * esize, rng.choice([0, 0, esize, 8]) // esize * esize)
        axis = rng.randrange(len(sizes))
        plan = scan_plan.plan_scan(
            name, canonical_pair(sizes, src, dst, axis), False, *align, 1, shared_limit=H200_SHARED
        )
        kernel, g = plan.launch.kernel, _geometry(plan.launch)
        outer = g["s"][: g["nd"]] + g["d"][: g["nd"]]
        if kernel.startswith("sl_scan_tile_staged<"):
            v = 16 // esize
            assert g["sx"] == 1 and g["dy"] == 1, (sizes, src, dst, axis)
            steps = [g["sy"], g["dx"], g["sa"], g["da"], *outer, g["nx"], g["ny"]]
            planned["staged"] += 1
        elif kernel.startswith("sl_scan_cols_split<"):
            v = int(kernel.split(">, ")[1].split(",")[0])  # the argument after Scan<...>
            if v == 1:
                continue
            assert g["nd"] >= 1 and g["s"][0] == g["d"][0] == v, (sizes, src, dst, axis)
            steps = [g["sa"], g["da"], *outer]
            planned["split"] += 1
        else:
            continue
        assert all(step % v == 0 for step in steps), (kernel, sizes, src, dst, axis, g)
        assert (align[0] + plan.src_shift * esize) % (v * esize) == 0, (kernel, sizes, src, align)
        assert (align[1] + plan.dst_shift * esize) % (v * esize) == 0, (kernel, sizes, dst, align)
    assert planned["staged"] >= 20 and planned["split"] >= 10, planned  # the seed keeps both exercised


def test_the_operator_changes_the_kernels_names_only():
    """Sum and Product share every plan: the same launches, grids and geometry, with only the
    operator argument of the traits different (so product rows run the tuned summation shapes)."""
    rng = random.Random(13)
    for _ in range(2000):
        sizes, src, dst = _random_view(rng)
        name = rng.choice(list(scan_plan.SCAN_TYPES))
        axis = rng.randrange(len(sizes))
        args = (name, canonical_pair(sizes, src, dst, axis), rng.random() < 0.3, 0, 0, rng.choice([1, 132]))
        summation = scan_plan.plan_scan(*args, operator="Sum", shared_limit=H200_SHARED)
        product = scan_plan.plan_scan(*args, operator="Product", shared_limit=H200_SHARED)
        assert repr(product) == repr(summation).replace(", Sum>", ", Product>")


def test_an_operator_must_be_a_trait_name():
    with pytest.raises(ValueError, match=r"operator 'a \+ b' is no CUDA operator trait name"):
        scan_plan.plan_scan("FLOAT32", canonical_pair((4,), (1,), (1,), 0), False, 0, 0, 1, operator="a + b")


def test_a_gpu_primitive_plans_its_launches_once_per_device_and_alignment(monkeypatch):
    """The engine's plan keeps the layout; the call's pointers and device pick the launches, looked
    up per call in the primitive (planned on first use), on the buffers' device."""
    import contextlib
    from types import SimpleNamespace

    from stridelab.ops.cupy import runtime

    resolved, started, used = [], [], []
    monkeypatch.setattr(runtime, "_resolve", lambda p, *key: resolved.append(key) or key)
    monkeypatch.setattr(runtime, "_run_copy", lambda ready, sp, dp: started.append((ready, sp, dp)))

    @contextlib.contextmanager
    def use(device):
        used.append(device)
        yield

    pair = canonical_pair((4, 8), (8, 1), (8, 1))
    primitive = runtime.Primitive(pair, 4, None, "", False, {}, lambda: 0, use)

    def buffer(ptr, device=0):
        return SimpleNamespace(data=SimpleNamespace(ptr=ptr, device_id=device))

    primitive(buffer(1024), 1, buffer(4096), 2)
    primitive(buffer(2048), 1, buffer(8192), 2)  # the same alignment: no new plan
    primitive(
        buffer(1024),
        2,
        buffer(4096),
        2,
    )
    primitive(buffer(1024, 1), 1, buffer(4096, 1), 2)  # another device: planned and run there
    assert resolved == [(0, 4, 8), (0, 8, 8), (1, 4, 8)]
    assert [s[1:] for s in started] == [(1028, 4104), (2052, 8200), (1032, 4104), (1028, 4104)]
    assert used == [1]
