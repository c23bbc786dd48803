"""Reading DxDispatch's JSON objects strictly, one field at a time.

DxDispatch looks up only the field names it knows and ignores the rest, so a misspelt optional
field (``"Stride"`` for ``"Strides"``) silently changes a model. Here every object is read through
:class:`Fields`, which refuses, with a "did you mean", any field nobody asked for; and every value is
checked for the JSON type DirectML's field has (``UINT``, ``INT``, ``BOOL``, ``FLOAT``, an enum).
Messages start with where the value is, e.g. ``dispatchable 'slice': desc.Strides[1] = -2``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._validate import shown
from .errors import LayoutError

__all__ = ["Fields", "boolean", "data_type_name", "did_you_mean", "enum", "integer_list", "number", "uint"]

UINT_MAX = 2**32 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def did_you_mean(name: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'X'?)`` for the closest of ``choices``, or nothing."""
    if len(name) > 100:  # no name is this long, and comparing it would take time
        return ""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Fields:
    """The fields of one JSON object, found by name; :meth:`done` refuses those never asked for.

    ``where`` prefixes every message (e.g. ``"resource 'A'"``); ``kind`` names what the object is
    (e.g. ``"DML_SLICE1_OPERATOR_DESC"``) in the message for an unknown field.
    """

    def __init__(self, obj: Any, where: str, kind: str) -> None:
        if not isinstance(obj, Mapping):
            value = "" if obj is None else f" {shown(obj, json=True)}"
            raise LayoutError(f"{where}: expected a JSON object ({kind}), not {json_type(obj)}{value}")
        self.obj, self.where, self.kind = obj, where, kind
        self._asked: list[str] = []

    def __contains__(self, name: str) -> bool:
        return name in self.obj

    def at(self, name: str) -> str:
        """``where`` followed by the field's name: the prefix of a message about its value."""
        return f"{self.where}: {name}"

    def required(self, name: str, *aliases: str) -> Any:
        """The value of ``name`` (or of one of its ``aliases``, e.g. ``type`` for ``Type``)."""
        value = self.optional(name, *aliases, default=_MISSING)
        if value is _MISSING:
            unknown = [key for key in self.obj if key not in self._asked]
            close = difflib.get_close_matches(name, unknown, n=1, cutoff=0.6)
            found = f"; {shown(close[0])} is given: did you mean {name!r}?" if close else ""
            raise LayoutError(f"{self.where}: the field {name!r} is required ({self.kind}){found}")
        return value

    def optional(self, name: str, *aliases: str, default: Any = None) -> Any:
        self._asked.extend((name, *aliases))
        present = [n for n in (name, *aliases) if n in self.obj]
        if len(present) > 1:
            raise LayoutError(f"{self.where}: give one of the fields {present}, not both")
        return self.obj[present[0]] if present else default

    def done(self) -> None:
        """Refuse every field that was not asked for."""
        for name in self.obj:
            if name not in self._asked:
                fields = ", ".join(n for n in dict.fromkeys(self._asked))
                raise LayoutError(
                    f"{self.where}: {shown(name)} is not a field of {self.kind}{did_you_mean(name, self._asked)}; "
                    f"its fields are: {fields}"
                )


_MISSING = object()


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def uint(where: str, value: Any, *, limit: int | None = UINT_MAX, type_name: str = "UINT") -> int:
    """A JSON integer in ``0..limit`` (DirectML's ``UINT`` by default; None: any size)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutError(f"{where} = {shown(value, json=True)}: expected a non-negative integer ({type_name})")
    if value < 0:
        raise LayoutError(f"{where} = {shown(value, json=True)}: a {type_name} is 0 or more")
    if limit is not None and value > limit:
        raise LayoutError(f"{where} = {shown(value, json=True)}: a {type_name} is 0 to {limit}")
    return value


def integer_list(
    where: str, value: Any, *, signed: bool = False, max_items: int | None = None, rule: str = ""
) -> tuple[int, ...]:
    """A JSON array of ``UINT`` (or, ``signed``, ``INT``) values; more than ``max_items`` (None: any
    number) are refused before any is read, with ``rule`` as the reason."""
    if not isinstance(value, list):
        raise LayoutError(f"{where} = {shown(value, json=True)}: expected an array of integers")
    if max_items is not None and len(value) > max_items:
        raise LayoutError(f"{where} = {shown(value, json=True)}: it has {len(value)} entries; {rule}")
    result = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int):
            raise LayoutError(f"{where}[{i}] = {shown(v, json=True)}: expected an integer")
        low, high, name = (INT_MIN, INT_MAX, "an INT") if signed else (0, UINT_MAX, "a UINT")
        if not low <= v <= high:
            raise LayoutError(f"{where}[{i}] = {shown(v, json=True)}: {name} is {low} to {high}")
        result.append(v)
    return tuple(result)


def boolean(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise LayoutError(f"{where} = {shown(value, json=True)}: expected true or false")
    return value


_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def number(where: str, value: Any) -> float:
    """A JSON number, or one of the strings ``"nan"``, ``"inf"``, ``"-inf"`` (any case)."""
    if isinstance(value, str) and value.lower() in _NON_FINITE:
        return _NON_FINITE[value.lower()]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LayoutError(f'{where} = {shown(value, json=True)}: expected a number (or "nan", "inf", "-inf")')
    try:
        return float(value)
    except OverflowError:
        raise LayoutError(f"{where} = {shown(value, json=True)}: the number is too large for a double") from None


def data_type_name(where: str, value: Any, names: Sequence[str]) -> str:
    """A ``DML_TENSOR_DATA_TYPE`` written in full or as its suffix (``"FLOAT32"``), case-sensitive
    as in DxDispatch: the short name."""
    return enum(where, value, "DML_TENSOR_DATA_TYPE_", names)


def enum(where: str, value: Any, prefix: str, names: Sequence[str]) -> str:
    """One of ``names``, written as ``prefix + name`` or ``name`` alone (case-sensitive, as in
    DxDispatch): the short name."""
    if not isinstance(value, str):
        raise LayoutError(f"{where} = {shown(value, json=True)}: expected one of {', '.join(names)}")
    name = value[len(prefix) :] if value.startswith(prefix) else value
    if name not in names:
        hint = did_you_mean(name, names)
        if not hint:
            upper = [n for n in names if n == name.upper().removeprefix(prefix)]
            hint = f" (did you mean {upper[0]!r}? names are case-sensitive)" if upper else ""
        raise LayoutError(f"{where} = {shown(value, json=True)} is not one of {', '.join(names)}{hint}")
    return name
