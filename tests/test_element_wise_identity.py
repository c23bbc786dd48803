"""ELEMENT_WISE_IDENTITY: layout conversions, every data type, and the rules every operator shares
about ``x`` and ``out`` (this operator has no parameters but those two)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_reference import (
    descs,
    flips_for,
    forbid_work,
    operator_input,
    poisoned,
    random_values,
    reference_element_wise_identity,
    refused,
    same_bits,
    sizes,
    tensor_on,
    to_host,
)

import stridelab as sl


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch)


def test_nchw_to_nhwc(xp):
    x = xp.arange(12, dtype=xp.float32).reshape(1, 2, 2, 3)  # C=2 planes of 2x3
    out = sl.StridedTensor.empty(sl.TensorDesc("FLOAT32", (1, 2, 2, 3), sl.layout_strides("NHWC", (1, 2, 2, 3))), xp)
    assert sl.element_wise_identity(x, out) is out
    assert to_host(out.buffer).tolist() == [0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]  # channels interleaved


def test_packs_a_padded_tensor(xp):
    padded = sl.StridedTensor(sl.TensorDesc("UINT8", (2, 3), (5, 1)), xp.asarray([1, 2, 3, 0, 0, 4, 5, 6], xp.uint8))
    out = sl.StridedTensor.empty(sl.TensorDesc("UINT8", (2, 3)), xp)
    sl.element_wise_identity(padded, out)
    assert to_host(out.buffer)[:6].tolist() == [1, 2, 3, 4, 5, 6]


def test_materialises_a_broadcast(xp):
    row = sl.StridedTensor(sl.TensorDesc("INT64", (3, 2), (0, 1)), xp.asarray([7, -8], xp.int64))
    out = sl.StridedTensor.empty(sl.TensorDesc("INT64", (3, 2)), xp)
    sl.element_wise_identity(row, out)
    assert to_host(out.to_array()).tolist() == [[7, -8], [7, -8], [7, -8]]


@pytest.mark.parametrize("data_type", sl.DATA_TYPES)
def test_every_data_type(xp, data_type):
    dtype = sl.data_type(data_type).numpy_dtype
    values = random_values(np.random.default_rng(0), data_type, 24).reshape(2, 3, 4)
    out = sl.StridedTensor.empty(sl.TensorDesc(data_type, (2, 3, 4), sl.layout_strides((2, 0, 1), (2, 3, 4))), xp)
    sl.element_wise_identity(xp.asarray(values)[:, ::-1], out)
    got = to_host(out.to_array())
    assert got.dtype == dtype and same_bits(got, np.ascontiguousarray(values[:, ::-1]))


@st.composite
def cases(draw: st.DrawFn) -> tuple:
    data_type = draw(st.sampled_from(sl.DATA_TYPES))
    shape = draw(sizes())
    x_desc = draw(descs(data_type, shape))
    out_desc = draw(descs(data_type, shape, output=True))
    return x_desc, out_desc, draw(flips_for(len(shape))), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_matches_the_reference(xp, case):
    x_desc, out_desc, flips, seed = case
    x_buffer = random_values(np.random.default_rng(seed), x_desc.data_type, x_desc.slot_count)
    x, ref_desc, ref_buffer = operator_input(xp, x_desc, x_buffer, flips)
    out_buffer = poisoned(out_desc)
    expected = reference_element_wise_identity(ref_desc, ref_buffer, out_desc, out_buffer)
    out = tensor_on(xp, out_desc, out_buffer)
    sl.element_wise_identity(x, out)
    assert same_bits(to_host(out.buffer), expected)  # padding slots included: they keep the sentinel


# -- the rules on x and out that every operator shares ---------------------------------------------

SIZES = (1, 1, 3, 4)
OPERATORS = {
    "CUMULATIVE_SUMMATION": lambda x, out: sl.cumulative_summation(x, 3, out=out),
    "SLICE1": lambda x, out: sl.slice1(x, (0, 0, 0, 0), SIZES, (1, 1, 1, 1), out=out),
    "ELEMENT_WISE_IDENTITY": lambda x, out: sl.element_wise_identity(x, out),
}


@pytest.fixture(params=list(OPERATORS))
def operator(request: pytest.FixtureRequest) -> tuple:
    return request.param, OPERATORS[request.param]


def tensor(xp, data_type: str = "FLOAT32", sizes=SIZES, strides=None, total=None) -> sl.StridedTensor:
    desc = sl.TensorDesc(data_type, sizes, strides, total)
    return sl.StridedTensor(desc, xp.asarray(poisoned(desc)))


def x_tensor(xp) -> sl.StridedTensor:
    return sl.StridedTensor.from_array(xp.arange(12, dtype=xp.float32).reshape(SIZES))


def refused_untouched(call, out: sl.StridedTensor, *fragments: str) -> None:
    before = to_host(out.buffer)
    refused(call, *fragments)
    assert same_bits(to_host(out.buffer), before)


def test_out_is_required(no_work):
    refused(lambda: sl.element_wise_identity(x_tensor(np), None), "out must be a StridedTensor", error=TypeError)


def test_out_data_type(xp, no_work, operator):
    name, run = operator
    out = tensor(xp, "FLOAT16")
    fragments = ("out data type FLOAT16 differs from x data type FLOAT32", f"{name} requires the same data type")
    refused_untouched(lambda: run(x_tensor(xp), out), out, *fragments)


def test_out_dimension_count(xp, no_work, operator):
    _, run = operator
    out = tensor(xp, sizes=(1, 3, 4))
    refused_untouched(lambda: run(x_tensor(xp), out), out, "out has 3 dimensions but x has 4", "dimension count")


@pytest.mark.parametrize("name", ["CUMULATIVE_SUMMATION", "ELEMENT_WISE_IDENTITY"])
def test_out_sizes(xp, no_work, name):
    out = tensor(xp, sizes=(1, 1, 4, 3))
    refused_untouched(
        lambda: OPERATORS[name](x_tensor(xp), out),
        out,
        "out sizes [1, 1, 4, 3] differ from x sizes [1, 1, 3, 4]",
        f"{name} requires the same sizes",
    )


@pytest.mark.parametrize(
    ("strides", "kind"), [((12, 12, 0, 1), "broadcast"), ((12, 12, 2, 1), "overlapping"), ((0, 0, 0, 0), "broadcast")]
)
def test_out_elements_sharing_slots(xp, no_work, operator, strides, kind):
    _, run = operator
    out = tensor(xp, strides=strides)
    refused_untouched(lambda: run(x_tensor(xp), out), out, f"out strides {list(strides)}", kind, "share slots")


def test_out_sharing_memory_with_x(xp, operator):
    _, run = operator
    arena = xp.arange(24, dtype=xp.float32)
    x = sl.StridedTensor(sl.TensorDesc("FLOAT32", SIZES), arena[:12])
    run(x, sl.StridedTensor(x.desc, arena[12:]))  # two halves of one allocation: disjoint, fine
    for out, fragment in (
        # same memory, transposed: several elements coincide (the corners, for one)
        (sl.StridedTensor(sl.TensorDesc("FLOAT32", SIZES, (12, 12, 1, 3)), arena[:12]), "is x element"),
        (sl.StridedTensor(x.desc, arena[11:23]), "out element (0, 0, 0, 0) is x element (0, 0, 2, 3)"),  # one in common
    ):  # fmt: skip
        refused_untouched(lambda out=out: run(x, out), x, fragment, "(the same memory)")


def test_out_interleaved_with_x_is_written_without_touching_it(xp, operator):
    _, run = operator
    arena = xp.zeros(24, dtype=xp.float32)
    arena[0::2] = xp.arange(1, 13, dtype=xp.float32)
    every_other = sl.TensorDesc("FLOAT32", SIZES, (24, 24, 8, 2))
    x = sl.StridedTensor(every_other, arena)  # the even slots
    out = sl.StridedTensor(every_other, arena[1:])  # the odd ones, within the same memory
    expected = run(sl.StridedTensor.from_array(x.to_array()), tensor(xp)).to_array()  # on a packed copy
    run(x, out)
    assert to_host(arena[0::2]).tolist() == list(range(1, 13))
    assert to_host(out.to_array()).tolist() == to_host(expected).tolist()


def test_slice1_has_no_in_place_form(xp, no_work):
    x = x_tensor(xp)
    refused_untouched(lambda: OPERATORS["SLICE1"](x, x), x, "SLICE1 has no in-place form")


def test_identity_onto_itself_copies_nothing(xp, no_work):
    x = x_tensor(xp)
    before = to_host(x.buffer)
    assert sl.element_wise_identity(x, x) is x
    assert same_bits(to_host(x.buffer), before)
    shifted = sl.StridedTensor(sl.TensorDesc("FLOAT32", SIZES, (12, 12, 1, 3)), x.buffer)  # same memory, transposed
    refused_untouched(lambda: sl.element_wise_identity(x, shifted), x, "only in place, with out addressing exactly")


def test_read_only_out(no_work, operator):
    _, run = operator
    out = tensor(np)
    out.buffer.flags.writeable = False
    refused(lambda: run(x_tensor(np), out), "out buffer is read-only")


@pytest.mark.gpu
def test_x_and_out_on_two_devices(no_work, operator):
    import cupy

    _, run = operator
    refused(
        lambda: run(x_tensor(np), tensor(cupy)), "x lives in numpy (CPU) but out lives in cupy (GPU)", error=TypeError
    )
    refused(
        lambda: run(x_tensor(cupy), tensor(np)), "x lives in cupy (GPU) but out lives in numpy (CPU)", error=TypeError
    )


def test_the_numpy_path_never_imports_cupy():
    script = (
        "import sys, numpy as np, stridelab as sl\n"
        "x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)\n"
        "sl.cumulative_summation(x, 3); sl.slice1(x, (0, 0, 0, 0), (1, 1, 3, 4), (1, 1, 1, -1))\n"
        "sl.element_wise_identity(x, sl.StridedTensor.empty(sl.TensorDesc('FLOAT32', (1, 1, 3, 4))))\n"
        "assert 'cupy' not in sys.modules, 'cupy was imported'\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=root)
