"""Kernels compiled on demand: which variants precompile() chooses, how it refuses bad requests,
and the one-time announcement of a slow compile (the GPU side is in tests/test_gpu_backend.py)."""

import importlib.util
import logging

import pytest

import stridelab.ops as ops
from stridelab import LayoutError
from stridelab.ops._precompile import kernel_names
from stridelab.ops.cupy import runtime as _cupy
from stridelab.ops.cupy.copy_plan import COPY_KERNELS
from stridelab.ops.cupy.scan_plan import SCAN_TYPES, scan_kernels


def test_the_variants_follow_the_operators_and_their_data_types():
    every_sum = [k for t in SCAN_TYPES for k in scan_kernels(t, "Sum")]
    every_product = [k for t in SCAN_TYPES for k in scan_kernels(t, "Product")]
    assert sorted(kernel_names(["cumulative_summation"])) == sorted(set(every_sum))
    assert sorted(kernel_names(["cumulative_product"])) == sorted(set(every_product))
    assert sorted(kernel_names(["element_wise_identity"])) == sorted(COPY_KERNELS)
    assert sorted(kernel_names()) == sorted(set(every_sum + every_product + list(COPY_KERNELS)))
    half = kernel_names(["cumulative_summation"], ["FLOAT16"])  # and FLOAT32, for its partial sums
    assert {name.split("<")[2].split(",")[0] for name in half} == {"F16", "F32"}
    assert all(name.split(">")[0].endswith(", Sum") for name in half)
    one_byte = kernel_names(["slice1"], ["UINT8", "INT8"])
    assert one_byte and all(name.split("<")[1].startswith("1,") for name in one_byte)
    assert len(one_byte) == len(set(one_byte))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"operators": ["cumsum"]}, LayoutError,
         "operators holds 'cumsum', which is none of cumulative_product, cumulative_summation, "
         "element_wise_identity, slice1"),
        ({"data_types": ["FLOAT8"]}, LayoutError, "FLOAT8"),
        ({"operators": ["cumulative_summation"], "data_types": ["INT8"]}, LayoutError,
         "data_types holds INT8, which none of cumulative_summation takes"),
        ({"operators": "slice1"}, TypeError, "operators must be a list of names, not the string 'slice1'"),
        ({"data_type": ["FLOAT32"]}, TypeError, "data_type"),
    ],
)  # fmt: skip
def test_bad_requests_are_refused_before_anything_compiles(kwargs, error, message):
    with pytest.raises(error, match=message):
        ops.precompile(**kwargs)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed here")
def test_without_cupy_precompile_names_the_extra():
    with pytest.raises(ImportError, match=r"needs cupy, which is not installed: pip install 'stridelab\[gpu-cuda12\]'"):
        ops.precompile(["slice1"])


def test_a_slow_compile_is_announced_once_through_logging_not_as_a_warning(caplog, capsys, monkeypatch):
    monkeypatch.setattr(_cupy, "_announced", type(_cupy._announced)())
    with caplog.at_level(logging.INFO, logger="stridelab"):
        _cupy._announce("sl_copy_rows<4, 4, 0>")
        _cupy._announce("sl_copy_rows<4, 4, 1>")
    (record,) = caplog.records
    assert record.levelno == logging.INFO and "compiling the CUDA kernel sl_copy_rows<4, 4, 0>" in record.message
    assert capsys.readouterr().err == ""  # stderr is no terminal under pytest
