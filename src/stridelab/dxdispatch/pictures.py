"""What a model's drawing shows (``stridelab show MODEL.json``, a model in Jupyter): every tensor of
every dispatchable, each with a line saying where its letters come from.

An input keeps its own letters (A, B, ... in logical order; row-major indices past 26 elements). An
output whose every element is a copy of one input element (SLICE, SLICE1, ELEMENT_WISE_IDENTITY)
shows that element's letter and colour: the operator itself is run, on the input's element indices
(as UINT32, through the model's own sizes and strides), so the letters follow exactly what a run
copies where. A cumulative output keeps its own letters, since each of its elements combines
several input elements; the line says so.

Nothing but the dispatchables is read: no resource, no file the model names, no command run.

>>> import numpy as np
>>> from stridelab.dxdispatch.operators import read_dispatchable
>>> tensor = {"DataType": "INT32", "Sizes": [2, 3]}
>>> flip = read_dispatchable("flip", {"type": "SLICE1", "desc": {
...     "InputTensor": tensor, "OutputTensor": tensor, "DimensionCount": 2,
...     "InputWindowOffsets": [0, 0], "InputWindowSizes": [2, 3], "InputWindowStrides": [1, -1]}})
>>> [(p.name, p.labels_from.text) for p in panels({"flip": flip})]  # doctest: +NORMALIZE_WHITESPACE
[('flip.InputTensor', 'letters: its own, A, B, C, ... in logical order'),
 ('flip.OutputTensor', 'letters from InputTensor: each element shows the InputTensor element SLICE1 copies into it')]
>>> panels({"flip": flip})[1].labels_from.elements.tolist()
[[2, 1, 0], [5, 4, 3]]

internal: used by ``stridelab show`` and :class:`~stridelab.dxdispatch.Model`'s display.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._analysis import logical_offsets
from ..desc import TensorDesc
from ..errors import LayoutError
from ..memmap import DEFAULT_LIMIT, LETTER_LABELS_UP_TO
from ..ops import _engine
from ..render.options import LabelSource
from ..tensor import StridedTensor
from .operators import Dispatchable

__all__: list[str] = []

#: The operators whose every output element is a copy of one input element (SLICE runs as SLICE1).
COPIES = ("SLICE", "SLICE1", "ELEMENT_WISE_IDENTITY")
#: The most elements, and slots, of an input or output whose letters are traced through a run on
#: indices: as many as a memory map is built for (past it, the drawings label with numbers anyway).
TRACE_LIMIT = DEFAULT_LIMIT
_INDEX_TYPE = "UINT32"  # SLICE1 and ELEMENT_WISE_IDENTITY both take it; it counts TRACE_LIMIT elements
_NOT_WRITTEN = np.iinfo(np.uint32).max


class Panel(NamedTuple):
    """One tensor of a model's drawing: ``"<dispatchable>.<bind point>"``, its description, and
    where its labels come from."""

    name: str
    desc: TensorDesc
    labels_from: LabelSource


def panels(dispatchables: dict[str, Dispatchable]) -> list[Panel]:
    """Every tensor of ``dispatchables``, in the order of :func:`~stridelab.dxdispatch.read_tensors`,
    with its labels: the input's own, the output's carried from the input where it copies it."""
    out = []
    for name, d in dispatchables.items():
        x, y = d.tensors["InputTensor"], d.tensors["OutputTensor"]
        out.append(Panel(f"{name}.InputTensor", x, LabelSource(_own(x))))
        out.append(Panel(f"{name}.OutputTensor", y, _output_labels(d)))
    return out


def _word(desc: TensorDesc) -> str:
    """What a drawing of ``desc`` labels its elements with (see :mod:`stridelab.render.scene`)."""
    mapped = max(desc.element_count, desc.slot_count) <= DEFAULT_LIMIT
    return "letters" if mapped and desc.element_count <= LETTER_LABELS_UP_TO else "numbers"


def _own(desc: TensorDesc, why: str = "") -> str:
    if _word(desc) == "letters":
        return f"letters: its own, A, B, C, ... in logical order{why}"
    return f"numbers: its own, each element's row-major index{why}"


def _output_labels(d: Dispatchable) -> LabelSource:
    x, y = d.tensors["InputTensor"], d.tensors["OutputTensor"]
    if d.operator not in COPIES:
        verb, total = ("sums", "sum") if d.operator == "CUMULATIVE_SUMMATION" else ("multiplies", "product")
        axis = d.run.arguments["axis"]
        return LabelSource(
            f"{_word(y)}: its own; each element {verb} several InputTensor elements "
            f"(a running {total} along axis {axis})"
        )
    if max(x.element_count, x.slot_count, y.element_count, y.slot_count) > TRACE_LIMIT:
        return LabelSource(_own(y, f" (more than {TRACE_LIMIT} elements or slots to trace to InputTensor)"))
    try:
        elements = copied_from(d)
    except (LayoutError, TypeError):  # show reads a model without checking it; dispatch says what is wrong
        return LabelSource(_own(y, f" ({d.operator} refuses these tensors: stridelab dispatch says why)"))
    scaled = " (scaled and biased)" if d.run.scale_bias is not None else ""
    word = _word(x)
    shows = "the" if word == "letters" else "the index of the"
    return LabelSource(
        f"{word} from InputTensor: each element shows {shows} InputTensor element {d.operator} copies into it{scaled}",
        x,
        elements,
    )


def copied_from(d: Dispatchable) -> np.ndarray:
    """For each element of ``d``'s output (an array of its sizes), the row-major index of the input
    element the operator copies there: the operator run on a buffer that holds, in each input
    element's slot, that element's index (a slot several elements share holds one of them).

    Raises what a run of ``d`` would raise (LayoutError or TypeError), checked on the tensors'
    own data types first."""
    x, y = d.tensors["InputTensor"], d.tensors["OutputTensor"]
    d.check(*(StridedTensor(t, np.empty(t.last_offset + 1, t.dtype.numpy_dtype)) for t in (x, y)))
    x_offsets = logical_offsets(x.sizes, x.strides).ravel()
    indices = np.full(x.last_offset + 1, _NOT_WRITTEN, dtype=np.uint32)
    indices[x_offsets] = np.arange(x_offsets.size, dtype=np.uint32)
    out = np.full(y.last_offset + 1, _NOT_WRITTEN, dtype=np.uint32)
    source = StridedTensor(TensorDesc(_INDEX_TYPE, x.sizes, x.strides), indices)
    target = StridedTensor(TensorDesc(_INDEX_TYPE, y.sizes, y.strides), out)
    _engine.call(_engine.OPERATORS[d.run.operator], source, target, *d.run.arguments.values())
    elements = out[logical_offsets(y.sizes, y.strides)]
    assert not (elements == _NOT_WRITTEN).any(), f"{d.operator} left an output element unwritten"
    return elements
