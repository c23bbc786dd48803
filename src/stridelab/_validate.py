"""The argument checks every public function shares: integers, keyword arguments.

Each raises ``TypeError`` for a wrong type and :class:`~stridelab.LayoutError` for a wrong value,
naming the parameter, the value and the rule.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import itertools
import operator
import sys
from collections.abc import Callable, Mapping, Sequence, Sized
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from .errors import LayoutError

F = TypeVar("F", bound=Callable[..., Any])


#: Characters of a value a message shows before shortening it.
WIDTH = 60
#: The most entries a per-dimension argument may have: DirectML tensors have at most 8 dimensions.
MAX_ITEMS = 8
_BRACKETS: dict[type, tuple[str, str]] = {
    list: ("[", "]"),
    tuple: ("(", ")"),
    set: ("{", "}"),
    frozenset: ("frozenset({", "})"),
    dict: ("{", "}"),
}
_JSON_WORDS = {None: "null", True: "true", False: "false"}


def shown(value: Any, *, json: bool = False, width: int = WIDTH) -> str:
    """``value`` as a message shows it: its repr (``json``: its JSON text), shortened past ``width``
    characters without ever building the whole text of a large value.

    Sequences, sets and dicts show their first items and their length, text its first characters
    and its length, an array (anything with ``shape`` and ``dtype``) its shape and dtype.

    >>> shown([1] * 10**6, width=20)
    '[1, 1, 1, 1, 1, ...] (1000000 items)'
    >>> shown("x" * 10**6, width=20)
    "'xxxxxxxxxx'... (1000000 characters)"
    >>> shown({"DataType": "FLOAT", "Signed": True, "Default": None}, json=True)
    '{"DataType": "FLOAT", "Signed": true, "Default": null}'
    """
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type):
        return f"of shape {_shape(value.shape)} and dtype {value.dtype}"
    return _shown(value, json, max(width, 8))


def _shape(shape: Any) -> str:
    return repr(tuple(shape)) if isinstance(shape, tuple) and len(shape) <= 64 else shown(shape)


def _shown(value: Any, json: bool, width: int) -> str:
    if width < 5:  # deep in a nested value: each level of brackets takes two characters of the width
        return "..."
    kind = type(value)
    if kind in (str, bytes, bytearray):
        return _text(value, json, width)
    if kind in _BRACKETS:
        return _items(value, json, width)
    if json and (value is None or kind is bool):
        return _JSON_WORDS[value]
    if kind is int and value.bit_length() > 4 * width:  # decimal text costs time, past 4300 digits an error
        return f"an integer of {value.bit_length()} bits"
    if json and kind is float:
        return _json_text(value)
    if kind is not int and isinstance(value, Sized) and _length(value) > width:
        return f"<{kind.__name__} of {_length(value)} items>"  # its repr could be any size
    try:
        text = repr(value)
    except Exception:  # a repr that fails must not hide the error being reported
        return f"<{kind.__name__} object>"
    return text if len(text) <= width else text[: width - 3] + "..."


def _length(value: Sized) -> int:
    try:
        return len(value)
    except Exception:
        return 0


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value)


def _text(value: str | bytes | bytearray, json: bool, width: int) -> str:
    def render(text: Any) -> str:
        return _json_text(text) if json and isinstance(text, str) else repr(text)

    if len(value) <= width:
        text = render(value)
        if len(text) <= width + 2:
            return text
    unit = "characters" if isinstance(value, str) else "bytes"
    count = max(width - 10, 1)
    text = render(value[:count])
    while len(text) > width and count > 1:  # escapes take several characters each
        count //= 2
        text = render(value[:count])
    return f"{text}... ({len(value)} {unit})"


def _items(value: Any, json: bool, width: int) -> str:
    """A list, tuple, set or dict as its repr (or JSON) shows it, up to ``width`` characters of items."""
    kind = type(value)
    opening, closing = ("{", "}") if kind is dict else ("[", "]") if json else _BRACKETS[kind]
    if kind is set and not value:
        return "set()"
    parts: list[str] = []
    used = len(opening) + len(closing)
    pairs = value.items() if kind is dict else value
    for i, item in enumerate(pairs):
        room = width - used
        if i and room < 5:
            parts.append("...")
            break
        part = _pair(item, json, room) if kind is dict else _shown(item, json, room)
        if i and len(part) > room:
            parts.append("...")
            break
        parts.append(part)
        used += len(part) + 2
    text = opening + ", ".join(parts) + ("," if kind is tuple and len(value) == 1 and not json else "") + closing
    return text if parts[-1:] != ["..."] else f"{text} ({_count(len(value), 'item')})"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _pair(item: tuple[Any, Any], json: bool, width: int) -> str:
    key, value = item
    key_text = _shown(key if isinstance(key, str) or not json else str(key), json, width // 2)
    return f"{key_text}: {_shown(value, json, width - len(key_text) - 2)}"


def layout_error(field: str, value: Any, rule: str) -> LayoutError:
    """The LayoutError for ``field`` given ``value``, which breaks ``rule``.

    >>> print(layout_error("sizes", [2, 0], "every size must be at least 1"))
    sizes = [2, 0]: every size must be at least 1
    """
    return LayoutError(f"{field} = {shown(value)}: {rule}")


def wrong_type(field: str, expected: str, value: Any) -> TypeError:
    """The TypeError for ``field`` given ``value`` where ``expected`` was wanted.

    >>> print(wrong_type("desc", "a TensorDesc", "FLOAT32"))
    desc must be a TensorDesc, not str 'FLOAT32'
    """
    return TypeError(f"{field} must be {expected}, not {type(value).__name__} {shown(value)}")


def int_tuple(
    field: str, values: Any, *, max_items: int = MAX_ITEMS, rule: str = "entries; a tensor has at most 8 dimensions"
) -> tuple[int, ...]:
    """``values`` as a tuple of Python ints; TypeError naming ``field`` for anything else,
    including unordered collections (a set's order is arbitrary, so it gives no per-dimension values).

    At most ``max_items + 1`` items are read, so an endless iterator is refused at once: more than
    ``max_items`` is a LayoutError that reads "it has N " followed by ``rule``.

    >>> int_tuple("sizes", {3, 1})
    Traceback (most recent call last):
    ...
    TypeError: sizes must be an ordered sequence of integers (a tuple or list), not set {1, 3}
    >>> import itertools
    >>> int_tuple("sizes", itertools.repeat(1))
    Traceback (most recent call last):
    ...
    stridelab.errors.LayoutError: sizes = repeat(1): it has more than 8 entries; a tensor has at most 8 dimensions
    """
    if type(values) in (tuple, list) and len(values) <= max_items and all(type(v) is int for v in values):
        return tuple(values)  # the common case, quickly
    if isinstance(values, (str, bytes, AbstractSet, Mapping)) or (
        not isinstance(values, Sequence) and not hasattr(values, "__iter__")
    ):
        raise wrong_type(field, "an ordered sequence of integers (a tuple or list)", values)
    if isinstance(values, Sized) and _length(values) > max_items:
        raise layout_error(field, values, f"it has {_length(values)} {rule}")
    try:
        items = list(itertools.islice(values, max_items + 1))
    except TypeError:  # e.g. a 0-d array: iterable by type, not in fact
        raise wrong_type(field, "an ordered sequence of integers (a tuple or list)", values) from None
    if len(items) > max_items:
        raise layout_error(field, values, f"it has more than {max_items} {rule}")
    result = []
    for i, v in enumerate(items):
        if isinstance(v, bool):
            raise TypeError(f"{field}[{i}] must be an integer, not bool")
        try:
            result.append(operator.index(v))
        except TypeError:
            raise TypeError(f"{field}[{i}] must be an integer, not {type(v).__name__} ({shown(v)})") from None
    return tuple(result)


def int_value(field: str, value: Any) -> int:
    """``value`` as a Python int; TypeError naming ``field`` for bools, floats and the like."""
    if isinstance(value, bool):
        raise TypeError(f"{field} must be an integer, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{field} must be an integer, not {type(value).__name__} ({shown(value)})") from None


def at_least(field: str, value: Any, minimum: int) -> int:
    """``value`` as a Python int of at least ``minimum``.

    >>> at_least("max_cells", 0, 1)
    Traceback (most recent call last):
    ...
    stridelab.errors.LayoutError: max_cells = 0: it must be at least 1
    """
    number = int_value(field, value)
    if number < minimum:
        raise LayoutError(f"{field} = {number}: it must be at least {minimum}")
    return number


def known_keywords(function: F) -> F:
    """Refuse keyword arguments ``function`` does not take with a ``TypeError`` that names the
    misspelt one, the closest accepted name and every accepted name (for a class, decorate its
    ``__init__``)."""
    parameters = inspect.signature(function).parameters.values()
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    accepted = [name for name in accepted if name != "self"]
    where = function.__qualname__.split(".")[-2] if function.__name__ == "__init__" else function.__name__

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        unknown = [name for name in kwargs if name not in accepted]
        if unknown:
            raise TypeError(unknown_keyword_message(where, unknown[0], accepted))
        return function(*args, **kwargs)

    return checked  # type: ignore[return-value]


def unknown_keyword_message(where: str, name: str, accepted: Sequence[str]) -> str:
    """The message for an unknown keyword argument ``name`` of ``where``.

    >>> print(unknown_keyword_message("view", "maxcells", ["source", "max_cells"]))
    view() got an unexpected keyword argument 'maxcells' (did you mean 'max_cells'?); it takes: source, max_cells
    """
    close = difflib.get_close_matches(name, accepted, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}() got an unexpected keyword argument {name!r}{hint}; it takes: {', '.join(accepted)}"


def refuse_masked(field: str, value: Any) -> None:
    """Refuse a NumPy masked array, whose mask would otherwise be dropped without a word
    (``np.ma.cumsum`` skips masked elements; a strided read adds the values under the mask).

    >>> import numpy as np
    >>> refuse_masked("x", np.ma.masked_array([1, 2], mask=[0, 1]))
    Traceback (most recent call last):
    ...
    TypeError: x: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data
    """
    ma = sys.modules.get("numpy.ma")  # a masked array exists only once numpy.ma is imported
    if ma is not None and isinstance(value, ma.MaskedArray):
        raise TypeError(
            f"{field}: masked arrays are not supported (numpy.ma.MaskedArray); pass x.filled(value) or x.data"
        )
