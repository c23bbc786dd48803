"""Kernels compiled on demand: which variants precompile() chooses, how it refuses bad requests,
and the one-time announcement of a slow compile (the GPU side is in tests/test_gpu_backend.py)."""

import importlib.util
import logging

import pytest

import stridelab.ops as ops
from stridelab import LayoutError
from stridelab.ops import _cupy, _cupy_plan
from stridelab.ops._precompile import kernel_names


def test_the_variants_follow_the_operators_and_their_data_types():
    assert kernel_names(["cumulative_summation"]) == list(_cupy_plan.SCAN_KERNELS)
    assert sorted(kernel_names(["element_wise_identity"])) == sorted(_cupy_plan.COPY_KERNELS)
    assert sorted(kernel_names()) == sorted(_cupy_plan.SCAN_KERNELS + _cupy_plan.COPY_KERNELS)
    half = kernel_names(["cumulative_summation"], ["FLOAT16"])  # and FLOAT32, for its partial sums
    assert {name.split("<")[1].split(",")[0] for name in half} == {"F16", "F32"}
    one_byte = kernel_names(["slice1"], ["UINT8", "INT8"])
    assert one_byte and all(name.split("<")[1].startswith("1,") for name in one_byte)
    assert len(one_byte) == len(set(one_byte))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"operators": ["cumsum"]}, LayoutError, "operators holds 'cumsum', which is none of cumulative_summation"),
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
