"""Testing helpers: does a function give the right answer for every layout its callers can pass?

:func:`check_layouts` builds each input's values in every layout of a catalogue (packed,
column-major, channels-last, permutations, padding after each dimension, every 2nd element,
negative strides, a storage offset, size-1 dimensions with odd strides, broadcast), over buffers
whose other slots hold poison, and compares the function's answer with its answer for packed
inputs. :func:`generated` makes inputs of small whole numbers (compared within a tiny bound, shrunk to the
smallest failing shape); ``check_layouts(..., isolate=True)`` calls a function that may crash or
fault the GPU in a worker process. :func:`assert_layouts_ok` raises where a layout fails;
:func:`layouts_for` lists the layouts for ``pytest.mark.parametrize``. Neither pytest nor
hypothesis is needed; where hypothesis is installed, :func:`strided_arrays` draws arrays in random
exact layouts over poisoned buffers.

>>> import numpy as np
>>> from stridelab.testing import assert_layouts_ok, layouts_for
>>> assert_layouts_ok(lambda x: x.max(axis=1), np.arange(6.0).reshape(2, 3))
>>> [str(layout) for layout in layouts_for((2, 3), kinds=["negative"])]
['(2,3):(-3,1)+3', '(2,3):(3,-1)+2']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._sanitizer import KINDS, VERDICTS, LayoutCheck, LayoutFailure, ProbeLayout, catalogue, check_layouts, generated
from ._sanitizer._strategies import strided_arrays

__all__ = [
    "KINDS",
    "VERDICTS",
    "LayoutCheck",
    "LayoutFailure",
    "ProbeLayout",
    "assert_layouts_ok",
    "check_layouts",
    "generated",
    "layouts_for",
    "strided_arrays",
]


def assert_layouts_ok(fn: Callable[..., Any], *inputs: Any, **options: Any) -> None:
    """:func:`check_layouts` (same arguments), raising AssertionError that names the first failing
    layouts and what went wrong.

    Examples
    --------
    >>> import numpy as np
    >>> from stridelab.testing import assert_layouts_ok
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> assert_layouts_ok(lambda x: x.sum(axis=0), x)
    >>> assert_layouts_ok(lambda x: x.ravel(order="K").reshape(x.shape), x)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    AssertionError: <lambda> gives wrong answers for ...
    """
    check_layouts(fn, *inputs, **options).assert_ok()


def layouts_for(shape: Sequence[int], kinds: Iterable[str] | None = None) -> list[ProbeLayout]:
    """The catalogue's layouts of ``shape`` (of the given ``kinds``, default all), in a fixed order.

    Each layout's ``str`` is its one-line notation, which pytest shows as the test id::

        @pytest.mark.parametrize("layout", layouts_for((2, 3)), ids=str)

    Examples
    --------
    >>> from stridelab.testing import layouts_for
    >>> [str(layout) for layout in layouts_for((2, 3), kinds=["column-major", "padded"])]
    ['(2,3):(1,2)+0', '(2,3):(6,1)+0']
    """
    return catalogue(shape, kinds)
