"""A model's commands: ``dispatch`` (with its bindings), ``print`` and ``writeFile``.

Reading a command checks its fields and that the names it refers to exist; binding a dispatch's
tensors to buffers and checking them is :mod:`stridelab.dxdispatch.model`'s work.

internal: the public names are :mod:`stridelab.dxdispatch`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from .._json_fields import Fields, boolean, did_you_mean, uint
from .._validate import shown
from ..errors import LayoutError
from .files import output_target
from .operators import Dispatchable
from .resources import Resource

__all__: list[str] = []

_COMMAND_TYPES = {"dispatch": "dispatch", "print": "print", "writefile": "writeFile"}
#: The most dimensions a .npy file written by NumPy 1 may have.
_NPY_MAX_DIMENSIONS = 32


@dataclass(frozen=True)
class Binding:
    """A bind point's buffer: ``resource`` from ``byte_offset`` on (``elementOffset`` elements of
    ``element_size`` bytes, the resource's own element size unless the binding gives one)."""

    resource: str
    element_offset: int
    byte_offset: int

    def describe(self) -> str:
        return repr(self.resource) + (f" at element {self.element_offset}" if self.element_offset else "")


@dataclass(frozen=True)
class Dispatch:
    index: int
    dispatchable: str
    bindings: dict[str, Binding]

    def describe(self) -> str:
        bound = ", ".join(f"{point} = {binding.describe()}" for point, binding in self.bindings.items())
        return f"dispatch {self.dispatchable!r} with {bound}"


@dataclass(frozen=True)
class Print:
    index: int
    resource: str
    verbose: bool

    def describe(self) -> str:
        return f"print {self.resource!r}" + (" (verbose)" if self.verbose else "")


@dataclass(frozen=True)
class WriteFile:
    index: int
    resource: str
    target: str
    dimensions: tuple[int, ...] | None

    def describe(self) -> str:
        shape = "" if self.dimensions is None else f" as {list(self.dimensions)}"
        return f"writeFile {self.resource!r} to {self.target!r}{shape}"


Command = Union[Dispatch, Print, WriteFile]  # noqa: UP007 (a runtime alias)


def read_command(
    index: int,
    obj: Any,
    resources: dict[str, Resource],
    dispatchables: dict[str, Dispatchable],
    allow_any_path: bool = False,
) -> Command:
    """Command ``index`` of the model's ``commands`` array; a ``writeFile``'s ``targetPath`` is
    held to :mod:`stridelab.dxdispatch.files`'s rules unless ``allow_any_path``."""
    where = f"command {index}"
    fields = Fields(obj, where, "a command")
    kind = fields.required("type")
    if not isinstance(kind, str) or kind.lower() not in _COMMAND_TYPES:
        hint = did_you_mean(str(kind), _COMMAND_TYPES.values())
        raise LayoutError(f"{where}: type = {shown(kind, json=True)} is not dispatch, print or writeFile{hint}")
    kind = _COMMAND_TYPES[kind.lower()]
    where = f"command {index} ({kind})"
    fields.where = where
    if kind == "dispatch":
        name = _name(fields, "dispatchable", dispatchables, "dispatchable")
        bindings = _bindings(fields, name, dispatchables[name], resources)
        groups = fields.optional("threadGroupCount")
        if groups is not None:  # HLSL's; DxDispatch reads and ignores it for DirectML operators too
            if not isinstance(groups, list) or len(groups) != 3:
                raise LayoutError(f"{fields.at('threadGroupCount')} = {shown(groups, json=True)}: expected 3 integers")
            for i, count in enumerate(groups):
                uint(f"{fields.at('threadGroupCount')}[{i}]", count)
        fields.done()
        return Dispatch(index, name, bindings)
    resource = _name(fields, "resource", resources, "resource")
    if kind == "print":
        verbose = fields.optional("verbose", default=False)
        fields.done()
        return Print(index, resource, boolean(fields.at("verbose"), verbose))
    target = fields.required("targetPath")
    dimensions = fields.optional("dimensions")
    fields.done()
    shape = _dimensions(fields, dimensions, resources[resource])
    return WriteFile(index, resource, output_target(fields.at("targetPath"), target, allow_any_path), shape)


def _name(fields: Fields, field: str, known: dict[str, Any], what: str) -> str:
    name = fields.required(field)
    if not isinstance(name, str):
        raise LayoutError(f"{fields.at(field)} = {shown(name, json=True)}: expected the name of a {what}")
    if name not in known:
        raise LayoutError(
            f"{fields.at(field)} = {name!r}: no {what} of that name in the model{did_you_mean(name, known)}; "
            f"it has: {', '.join(map(repr, known)) or 'none'}"
        )
    return name


def _bindings(
    fields: Fields, name: str, dispatchable: Dispatchable, resources: dict[str, Resource]
) -> dict[str, Binding]:
    where = fields.at("bindings")
    given = fields.required("bindings")
    if not isinstance(given, dict):
        raise LayoutError(f"{where} = {shown(given, json=True)}: expected an object mapping bind points to resources")
    points = tuple(dispatchable.tensors)
    result = {}
    for point, source in given.items():
        if point not in points:
            raise LayoutError(
                f"{where}: {point!r} is not a bind point of DML_OPERATOR_{dispatchable.operator}"
                f"{did_you_mean(point, points)}; its bind points are: {', '.join(points)}"
            )
        if isinstance(source, list):
            if len(source) != 1:
                raise LayoutError(f"{where}: Bind point {point!r} requires 1 resources, but {len(source)} were bound.")
            source = source[0]
        result[point] = _binding(f"{where}.{point}", source, resources)
    missing = [point for point in points if point not in result]
    if missing:
        raise LayoutError(f"{where}: the bind point {missing[0]!r} of dispatchable {name!r} is not bound to a resource")
    return {point: result[point] for point in points}


def _binding(where: str, source: Any, resources: dict[str, Resource]) -> Binding:
    if isinstance(source, str):
        source = {"name": source}
    fields = Fields(source, where, "a binding (name, elementOffset, elementSizeInBytes, elementCount)")
    resource = _name(fields, "name", resources, "resource")
    offset = uint(fields.at("elementOffset"), fields.optional("elementOffset", default=0), limit=None)
    size = fields.optional("elementSizeInBytes")
    size = resources[resource].element_size if size is None else uint(fields.at("elementSizeInBytes"), size)
    if size < 1:
        raise LayoutError(f"{fields.at('elementSizeInBytes')} = 0: an element has at least 1 byte")
    count = fields.optional("elementCount")
    if count is not None:  # read by DxDispatch for HLSL views only; checked, then unused as there
        uint(fields.at("elementCount"), count, limit=None)
    fields.done()
    return Binding(resource, offset, offset * size)


def _dimensions(fields: Fields, dimensions: Any, resource: Resource) -> tuple[int, ...] | None:
    if dimensions is None:
        return None
    where = fields.at("dimensions")
    if not isinstance(dimensions, list) or not dimensions:
        raise LayoutError(f"{where} = {shown(dimensions, json=True)}: expected a non-empty array of sizes")
    if len(dimensions) > _NPY_MAX_DIMENSIONS:
        raise LayoutError(
            f"{where} has {len(dimensions)} sizes: a .npy array has at most {_NPY_MAX_DIMENSIONS} dimensions"
        )
    shape = tuple(uint(f"{where}[{i}]", n, limit=None) for i, n in enumerate(dimensions))
    count = 1
    for n in shape:
        count *= n
    capacity = resource.size_in_bytes // resource.element_size
    if not 1 <= count <= capacity:
        raise LayoutError(
            f"{where} = {list(shape)} hold {count} elements, but resource {resource.name!r} has room for "
            f"1 to {capacity} {resource.data_type.name} elements"
        )
    return shape
