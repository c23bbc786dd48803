"""The argument checks every public function shares: integers, keyword arguments.

Each raises ``TypeError`` for a wrong type and :class:`~stridelab.LayoutError` for a wrong value,
naming the parameter, the value and the rule.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import operator
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from .errors import LayoutError

F = TypeVar("F", bound=Callable[..., Any])


def shown(value: Any) -> str:
    """``repr(value)`` for a message, cut after 60 characters; an array by its shape and dtype."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type):
        return f"of shape {tuple(value.shape)} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def wrong_type(field: str, expected: str, value: Any) -> TypeError:
    """The TypeError for ``field`` given ``value`` where ``expected`` was wanted.

    >>> print(wrong_type("desc", "a TensorDesc", "FLOAT32"))
    desc must be a TensorDesc, not str 'FLOAT32'
    """
    return TypeError(f"{field} must be {expected}, not {type(value).__name__} {shown(value)}")


def int_tuple(field: str, values: Any) -> tuple[int, ...]:
    """``values`` as a tuple of Python ints; TypeError naming ``field`` for anything else,
    including unordered collections (a set's order is arbitrary, so it gives no per-dimension values).

    >>> int_tuple("sizes", {3, 1})
    Traceback (most recent call last):
    ...
    TypeError: sizes must be an ordered sequence of integers (a tuple or list), not set {1, 3}
    """
    if type(values) in (tuple, list) and all(type(v) is int for v in values):  # the common case, quickly
        return tuple(values)
    if isinstance(values, (str, bytes, AbstractSet, Mapping)) or (
        not isinstance(values, Sequence) and not hasattr(values, "__iter__")
    ):
        raise TypeError(
            f"{field} must be an ordered sequence of integers (a tuple or list), not {type(values).__name__} "
            f"{shown(values)}"
        )
    result = []
    try:
        items = list(values)
    except TypeError:  # e.g. a 0-d array: iterable by type, not in fact
        raise wrong_type(field, "an ordered sequence of integers (a tuple or list)", values) from None
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
