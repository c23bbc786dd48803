"""Masked arrays are refused where the operators read arrays (the views: test_widgets.py): a strided read would
use the values under the mask (``np.ma.cumsum([1, --, 3, 4])`` is ``[1, --, 4, 8]``, a plain sum
over the data ``[1, 3, 6, 10]``), so the mask would be lost without a word."""

from __future__ import annotations

import re

import numpy as np
import pytest

import stridelab as sl
from stridelab.ops import _engine

MASKED = np.ma.array(np.array([1, 2, 3, 4], np.float32), mask=[False, True, False, False])


def message(field: str) -> str:
    return re.escape(f"{field}: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data")


@pytest.mark.parametrize(
    "call",
    [
        lambda x: sl.cumulative_summation(x, 0),
        lambda x: sl.cumulative_product(x, 0),
        lambda x: sl.slice1(x, (0,), (2,), (1,)),
        lambda x: sl.element_wise_identity(x, sl.StridedTensor.from_array(np.zeros(4, np.float32))),
    ],
)
def test_operators_refuse_a_masked_input_before_any_work(call, monkeypatch):
    monkeypatch.setattr(_engine, "execute", lambda *args: pytest.fail("ran a masked input"))
    with pytest.raises(TypeError, match=message("x")):
        call(MASKED)


def test_what_the_message_offers_works():
    # filled(0): the masked element counts as 0; data: the value under the mask counts
    assert sl.cumulative_summation(MASKED.filled(0), 0).tolist() == [1, 1, 4, 8]
    assert sl.cumulative_summation(MASKED.data, 0).tolist() == [1, 3, 6, 10]


def test_a_masked_array_with_nothing_masked_is_refused_too():
    with pytest.raises(TypeError, match=message("x")):
        sl.cumulative_summation(np.ma.masked_array(np.ones(3, np.float32)), 0)
