"""The JSON dialect of DxDispatch models: JSON with ``//`` and ``/* */`` comments and trailing
commas in arrays and objects, and no ``NaN``/``Infinity`` literals (models write the strings
``"nan"``, ``"inf"``, ``"-inf"`` instead).

Two deliberate differences from DxDispatch's parser, which are stricter: text after the root value is
an error (DxDispatch stops reading there and ignores it), and so is a key given twice in one object
(DxDispatch keeps both and finds the first).
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._validate import shown
from .errors import LayoutError

__all__ = ["loads"]


def loads(text: str, source: str) -> Any:
    """Parse ``text`` (read from ``source``, named in messages) as DxDispatch's JSON dialect."""
    plain = _plain_json(text, source)
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_float=_finite)
    start = len(plain) - len(plain.lstrip())
    try:
        value, end = decoder.raw_decode(plain, start)
    except json.JSONDecodeError as error:
        raise LayoutError(
            f"{source}: not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except _DialectError as error:
        raise LayoutError(f"{source}: {error}") from None
    except RecursionError:
        raise LayoutError(f"{source}: the JSON is nested too deeply to be read") from None
    except ValueError as error:  # an integer of more digits than Python converts
        raise LayoutError(f"{source}: a number in the JSON cannot be read: {error}") from None
    rest = plain[end:]
    if rest.strip():
        line, column = _position(plain, end + len(rest) - len(rest.lstrip()))
        raise LayoutError(f"{source}: text after the end of the JSON value at line {line}, column {column}")
    return value


class _DialectError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DialectError(f"the key {shown(key)} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise _DialectError(f'{name} is not JSON; write non-finite numbers as the strings "nan", "inf" or "-inf"')


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _DialectError(f"the number {text[:20]} is too large for a double")
    return value


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _plain_json(text: str, source: str) -> str:
    """``text`` with comments and trailing commas turned into spaces (newlines kept), so that
    standard JSON's line and column numbers are the original text's."""
    out = list(text)
    i, n = 0, len(text)
    last_comma = None  # index of a comma not yet followed by a value
    after_value = False  # whether a value (or a closing bracket) came last: a comma after one may trail
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            last_comma, after_value = None, True
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                line, column = _position(text, i)
                raise LayoutError(f"{source}: the comment at line {line}, column {column} is never closed with */")
            out[i : end + 2] = [ch if ch == "\n" else " " for ch in text[i : end + 2]]
            i = end + 2
            continue
        if c in "]}" and last_comma is not None:
            out[last_comma] = " "
        if c == ",":
            last_comma = i if after_value else None  # '[,]' stays an error, as in DxDispatch
            after_value = False
        elif not c.isspace():
            last_comma, after_value = None, c not in "[{:"
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """The index after the string literal opening at ``start`` (its end, if it is never closed:
    the JSON parser then reports it)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)
