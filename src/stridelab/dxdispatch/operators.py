"""The DirectML operators a model may dispatch, read from their ``DML_*_OPERATOR_DESC`` JSON.

Each reader checks the desc's fields (names, JSON types, enums, ``DimensionCount``) and returns a
:class:`Dispatchable`: the tensors by bind point and the stridelab operator call that runs it on
tensors bound to buffers. Everything an operator checks about tensors bound to buffers (sizes, data
types, axis range, windows, aliasing) is checked by stridelab's operator itself, before a model
runs, by planning the call (:func:`~stridelab.ops._engine.plan`, which runs nothing) with the
desc's field names, so that its messages speak of ``InputTensor`` and ``InputWindowOffsets``.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from .._json_desc import read_json_desc
from .._json_fields import Fields, boolean, did_you_mean, enum, integer_list, number, uint
from .._validate import shown
from ..desc import TensorDesc
from ..errors import LayoutError
from ..ops import _engine
from ..ops._operands import Names
from ..ops._scale_bias import scale_bias
from ..tensor import StridedTensor
from .tensors import json_desc_alignment

__all__: list[str] = []

#: The bind points of every operator here: DirectML's tensor field names.
BIND_POINTS = ("InputTensor", "OutputTensor")

_PREFIX = "DML_OPERATOR_"
_DIRECTIONS = ("INCREASING", "DECREASING")
_OTHER_KINDS = {"hlsl": "HLSL shaders", "onnx": "ONNX models", "dmlserializedgraph": "serialized DirectML graphs"}


def named_tensors(dispatchables: dict[str, Dispatchable]) -> dict[str, TensorDesc]:
    """Every tensor of ``dispatchables``, named ``"<dispatchable>.<bind point>"``."""
    return {f"{name}.{point}": desc for name, d in dispatchables.items() for point, desc in d.tensors.items()}


class Run(NamedTuple):
    """The stridelab call a dispatchable makes: ``operator`` (the engine's name, e.g. ``SLICE1``
    for a SLICE desc too) with keyword ``arguments`` (in the order the operator takes them), then,
    for ELEMENT_WISE_IDENTITY, a ``scale_bias`` (scale, bias) applied to the output."""

    operator: str
    arguments: dict[str, Any]
    scale_bias: tuple[float, float] | None = None


@dataclass(frozen=True, eq=False)
class Dispatchable:
    """A DirectML operator of a model: its ``tensors`` by bind point, the other desc fields as
    ``parameters`` (JSON values, for display), and the call it makes (``run``): ``check(input,
    output)`` validates it and ``apply(input, output)`` runs it, on StridedTensors over bound
    buffers."""

    name: str
    operator: str
    tensors: dict[str, TensorDesc]
    parameters: dict[str, Any]
    run: Run
    alignments: dict[str, int]  # per bind point: the byte alignment its bound offset must have

    def check(self, x: StridedTensor, out: StridedTensor) -> None:
        """Raise what running on ``x`` and ``out`` would raise, in the desc's words
        (``InputWindowOffsets``, ``InputTensor``), running nothing."""
        names = _DESC_NAMES.get(self.operator, _TENSOR_NAMES)
        _engine.plan(self.run.operator, x, out, names=names, **self.run.arguments)

    def apply(self, x: StridedTensor, out: StridedTensor) -> None:
        """Run the operator on ``x`` into ``out``."""
        _engine.call(_engine.OPERATORS[self.run.operator], x, out, *self.run.arguments.values())
        if self.run.scale_bias is not None:
            scale_bias(out, *self.run.scale_bias)

    def describe(self) -> str:
        """One line: the operator and its parameters, e.g. ``SLICE1 InputWindowOffsets=[0, 0, 1, 1] ...``."""
        return " ".join(
            [f"DML_OPERATOR_{self.operator}", *(f"{k}={json.dumps(v)}" for k, v in self.parameters.items())]
        )


def read_dispatchable(name: str, obj: Any) -> Dispatchable:
    """The dispatchable ``name`` from its JSON object (``type``, ``desc``, optional
    ``executionFlags``, ``dmlCompileType`` and ``bindings``)."""
    where = f"dispatchable {name!r}"
    fields = Fields(obj, where, "a DirectML operator dispatchable")
    kind = fields.required("type", "Type")
    if not isinstance(kind, str):
        raise LayoutError(
            f'{where}: type = {shown(kind, json=True)}: expected an operator name, e.g. "DML_OPERATOR_SLICE1"'
        )
    if kind.lower() in _OTHER_KINDS:
        raise LayoutError(
            f"{where}: type {kind!r}: stridelab runs DirectML operators ({', '.join(OPERATORS)}), not "
            f"{_OTHER_KINDS[kind.lower()]}"
        )
    operator = kind.removeprefix(_PREFIX)
    if operator not in OPERATORS:  # a close name is a typo; others are DirectML operators not run here
        hint = did_you_mean(operator, OPERATORS, cutoff=0.85)
        if operator.upper().removeprefix(_PREFIX) in OPERATORS:
            hint = f" (did you mean {operator.upper().removeprefix(_PREFIX)!r}? names are case-sensitive)"
        raise LayoutError(
            f"{where}: DML_OPERATOR_{operator} is not an operator stridelab runs{hint}; it runs {', '.join(OPERATORS)}"
        )
    desc = fields.optional("desc", "Desc")
    flags = fields.optional("executionFlags")
    if flags is not None:
        for i, flag in enumerate(flags if isinstance(flags, list) else [flags]):
            enum(f"{where}: executionFlags[{i}]", flag, "DML_EXECUTION_FLAG_", _EXECUTION_FLAGS)
    compile_type = fields.optional("dmlCompileType")
    if compile_type is not None and compile_type not in ("DmlCompileOp", "DmlCompileGraph"):
        raise LayoutError(
            f"{where}: dmlCompileType = {shown(compile_type, json=True)}: expected DmlCompileOp or DmlCompileGraph"
        )
    bindings = fields.optional("bindings")
    if bindings not in (None, {}):
        raise LayoutError(
            f"{where}: bindings {shown(bindings, json=True)}: initialization bindings are for tensors owned by "
            "DirectML, which stridelab does not support; bind every tensor in the dispatch command"
        )
    kind_name = f"DML_{operator}_OPERATOR_DESC"
    if desc is None:  # DxDispatch then reads the desc's fields from the dispatchable itself
        desc_fields = Fields({k: v for k, v in obj.items() if k not in _DISPATCHABLE_FIELDS}, where, kind_name)
    else:
        fields.done()
        desc_fields = Fields(desc, f"{where}: desc", kind_name)
    given = {point: desc_fields.required(point) for point in BIND_POINTS}
    tensors = {point: read_json_desc(obj, f"{where}: desc.{point}") for point, obj in given.items()}
    alignments = {point: json_desc_alignment(obj) for point, obj in given.items()}
    parameters, run = OPERATORS[operator](desc_fields, tensors)
    desc_fields.done()
    return Dispatchable(name, operator, tensors, parameters, run, alignments)


_TENSOR_NAMES = Names(x="InputTensor", out="OutputTensor")
#: What each desc calls an operator's fields (others keep stridelab's names).
_DESC_NAMES = {
    "SLICE1": _TENSOR_NAMES._replace(
        window_offsets="InputWindowOffsets", window_sizes="InputWindowSizes", window_strides="InputWindowStrides"
    ),
    "CUMULATIVE_SUMMATION": _TENSOR_NAMES._replace(axis="Axis"),
    "CUMULATIVE_PRODUCT": _TENSOR_NAMES._replace(axis="Axis"),
}
_DISPATCHABLE_FIELDS = ("type", "Type", "desc", "Desc", "executionFlags", "dmlCompileType", "bindings")
_EXECUTION_FLAGS = ("NONE", "ALLOW_HALF_PRECISION_COMPUTATION", "DISABLE_META_COMMANDS", "DESCRIPTORS_VOLATILE")

Reader = Callable[[Fields, dict[str, TensorDesc]], tuple[dict[str, Any], Run]]


def _scan(operator: str, exclusive_field: str) -> Reader:
    def read(fields: Fields, tensors: dict[str, TensorDesc]) -> tuple[dict[str, Any], Run]:
        axis = uint(fields.at("Axis"), fields.required("Axis"))
        direction = enum(
            fields.at("AxisDirection"), fields.required("AxisDirection"), "DML_AXIS_DIRECTION_", _DIRECTIONS
        )
        exclusive = boolean(fields.at(exclusive_field), fields.required(exclusive_field))
        rank = tensors["InputTensor"].dimension_count
        if axis >= rank:
            raise LayoutError(f"{fields.at('Axis')} = {axis} is out of range for InputTensor with {rank} dimensions")
        run = Run(operator, {"axis": axis, "direction": direction, "exclusive": exclusive})
        return {"Axis": axis, "AxisDirection": direction, exclusive_field: exclusive}, run

    return read


def _dimension_count(fields: Fields, tensors: dict[str, TensorDesc], arrays: dict[str, tuple[int, ...]]) -> int:
    count = uint(fields.at("DimensionCount"), fields.required("DimensionCount"))
    for what, length in (
        *((f"{point}.Sizes", desc.dimension_count) for point, desc in tensors.items()),
        *((name, len(values)) for name, values in arrays.items()),
    ):
        if length != count:
            raise LayoutError(f"{fields.where}: DimensionCount = {count} but {what} has {length} entries")
    return count


def _slice1(fields: Fields, tensors: dict[str, TensorDesc]) -> tuple[dict[str, Any], Run]:
    arrays = {
        name: integer_list(fields.at(name), fields.required(name), signed=name == "InputWindowStrides")
        for name in ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")
    }
    count = _dimension_count(fields, tensors, arrays)
    offsets, sizes, strides = (arrays[n] for n in ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"))
    run = Run("SLICE1", _window(offsets, sizes, strides))
    return {"DimensionCount": count, **{k: list(v) for k, v in arrays.items()}}, run


def _window(offsets: tuple[int, ...], sizes: tuple[int, ...], strides: tuple[int, ...]) -> dict[str, Any]:
    return {"window_offsets": offsets, "window_sizes": sizes, "window_strides": strides}


def _slice(fields: Fields, tensors: dict[str, TensorDesc]) -> tuple[dict[str, Any], Run]:
    """SLICE (version 1): ``Out[c] = In[Offsets + Strides * c]``, which is SLICE1 with window sizes
    ``(Sizes[i] - 1) * Strides[i] + 1``."""
    arrays = {name: integer_list(fields.at(name), fields.required(name)) for name in ("Offsets", "Sizes", "Strides")}
    count = _dimension_count(fields, tensors, arrays)
    offsets, sizes, strides = arrays["Offsets"], arrays["Sizes"], arrays["Strides"]
    input_sizes, output_sizes = tensors["InputTensor"].sizes, tensors["OutputTensor"].sizes
    if sizes != output_sizes:
        raise LayoutError(f"{fields.at('Sizes')} = {list(sizes)} differ from OutputTensor.Sizes {list(output_sizes)}")
    for i, (o, n, s, limit) in enumerate(zip(offsets, sizes, strides, input_sizes)):
        if s < 1:
            raise LayoutError(f"{fields.at('Strides')}[{i}] = {s}: SLICE strides are at least 1")
        if o + (n - 1) * s >= limit:
            raise LayoutError(
                f"{fields.where}: Offsets[{i}] + (Sizes[{i}] - 1) * Strides[{i}] = {o + (n - 1) * s} is outside "
                f"InputTensor.Sizes[{i}] = {limit}"
            )
    window = tuple((n - 1) * s + 1 for n, s in zip(sizes, strides))
    run = Run("SLICE1", _window(offsets, window, strides))
    return {"DimensionCount": count, **{k: list(v) for k, v in arrays.items()}}, run


def _identity(fields: Fields, tensors: dict[str, TensorDesc]) -> tuple[dict[str, Any], Run]:
    scale_bias = fields.optional("ScaleBias")
    if scale_bias is None:
        return {}, Run("ELEMENT_WISE_IDENTITY", {})
    pair = Fields(scale_bias, f"{fields.where}.ScaleBias", "DML_SCALE_BIAS")
    scale = number(pair.at("Scale"), pair.required("Scale"))
    bias = number(pair.at("Bias"), pair.required("Bias"))
    pair.done()
    output_type = tensors["OutputTensor"].dtype
    if output_type.numpy_dtype.kind != "f":
        raise LayoutError(
            f"{fields.where}.ScaleBias: a scale and bias apply to float tensors; OutputTensor is {output_type.name}"
        )
    return {"ScaleBias": {"Scale": scale, "Bias": bias}}, Run("ELEMENT_WISE_IDENTITY", {}, (scale, bias))


#: The operators stridelab runs, by their name after ``DML_OPERATOR_``.
OPERATORS: dict[str, Reader] = {
    "CUMULATIVE_PRODUCT": _scan("CUMULATIVE_PRODUCT", "HasExclusiveProduct"),
    "CUMULATIVE_SUMMATION": _scan("CUMULATIVE_SUMMATION", "HasExclusiveSum"),
    "ELEMENT_WISE_IDENTITY": _identity,
    "SLICE": _slice,
    "SLICE1": _slice1,
}
