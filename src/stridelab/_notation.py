"""Layouts as one line of text: stridelab's ``FLOAT16 (1,1,2,3):(0,0,5,1)`` and CuTe's ``shape:stride``.

Both write sizes and strides as CuTe does, ``(sizes):(strides)``, with the same meaning: the element
at coordinates ``c`` lives at ``dot(c, strides)``. This module only reads and writes the text, and
coalesces; :class:`~stridelab.desc.TensorDesc` builds descriptions from what it reads, so every rule
on sizes and strides is checked in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .errors import LayoutError

__all__ = ["coalesce", "format_layout", "parse_cute", "parse_notation"]

UINT_LIMIT = 2**32 - 1

_NOTATION = re.compile(
    r"""\s*(?P<type>[A-Za-z][A-Za-z0-9_]*)\s*
        (?P<layout>\(.*?\)\s*:\s*\(.*?\))
        (?:\s+bytes\s*=\s*(?P<bytes>\d+))?\s*""",
    re.X,
)
_TOKEN = re.compile(r"\s*(?:(?P<open>\()|(?P<close>\))|(?P<comma>,)|(?P<int>-?_?\d+)|(?P<other>\S))")


def format_layout(sizes: Sequence[int], strides: Sequence[int]) -> str:
    """``(1,1,2,3):(0,0,5,1)``: sizes and strides in CuTe's ``shape:stride`` form (rank 1: ``(5):(1)``)."""
    return f"({','.join(map(str, sizes))}):({','.join(map(str, strides))})"


def parse_notation(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int | None]:
    """Read ``DATA_TYPE (sizes):(strides)`` with an optional `` bytes=N``: the data type name, the
    sizes, the strides and the byte count (None where not given). Spaces are allowed anywhere
    between the parts."""
    match = _NOTATION.fullmatch(text)
    if match is None:
        raise LayoutError(
            f"cannot read {text!r} as a tensor description; expected 'DATA_TYPE (sizes):(strides)' with an "
            "optional ' bytes=N', e.g. 'FLOAT16 (1,1,2,3):(0,0,5,1)', or JSON with DxDispatch's field names"
        )
    sizes, strides = parse_cute(match["layout"], nested=False)
    total = None if match["bytes"] is None else int(match["bytes"])
    return match["type"], sizes, strides, total


def parse_cute(text: str, *, nested: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Read a CuTe layout ``shape:stride`` into flat sizes and strides.

    Nested modes are flattened in order (``((2,2),3):((1,4),2)`` gives sizes (2, 2, 3) and strides
    (1, 4, 2)); a mode may be a bare integer (``8:1``) and CuTe's static integers may carry their
    underscore (``_8:_1``). The stride must have the shape's nesting. ``nested=False`` accepts only
    the flat, parenthesised form of stridelab's one-line notation.
    """
    if not isinstance(text, str):
        raise TypeError(f"a layout must be given as text, not {type(text).__name__}")
    shape_text, colon, stride_text = text.partition(":")
    if not colon:
        raise LayoutError(
            f"layout {text!r} has no ':stride' part; give the strides too (CuTe's default strides are "
            "column-major, DirectML's row-major, so stridelab does not guess)"
        )
    shape = _parse_tree(shape_text, text, "shape")
    stride = _parse_tree(stride_text, text, "stride")
    if not nested and (isinstance(shape, int) or any(isinstance(mode, tuple) for mode in shape)):
        raise LayoutError(f"layout {text!r}: write the sizes and strides as flat lists, e.g. (1,1,2,3):(0,0,5,1)")
    _check_congruent(shape, stride, text)
    sizes, strides = tuple(_flatten(shape)), tuple(_flatten(stride))
    negative = [s for s in strides if s < 0]
    if negative:
        raise LayoutError(
            f"layout {text!r} has the negative stride {negative[0]}; DirectML strides are unsigned "
            "(reverse with SLICE1's negative window strides instead)"
        )
    return sizes, strides


def _parse_tree(part: str, text: str, what: str) -> int | tuple:
    tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(part.strip())]
    position = 0

    def fail(reason: str) -> LayoutError:
        return LayoutError(f"cannot read the {what} of layout {text!r}: {reason}")

    def node() -> int | tuple:
        nonlocal position
        if position >= len(tokens):
            raise fail("it ends too early")
        kind, value = tokens[position]
        position += 1
        if kind == "int":
            return int(value.replace("_", ""))
        if kind != "open":
            raise fail(f"unexpected {value!r}")
        children = [node()]
        while position < len(tokens) and tokens[position][0] == "comma":
            position += 1
            children.append(node())
        if position >= len(tokens) or tokens[position][0] != "close":
            raise fail("a '(' is not closed")
        position += 1
        return tuple(children)

    tree = node()
    if position != len(tokens):
        raise fail(f"unexpected {tokens[position][1]!r} after the end")
    return tree


def _check_congruent(shape: int | tuple, stride: int | tuple, text: str) -> None:
    if isinstance(shape, int) != isinstance(stride, int) or (
        isinstance(shape, tuple) and len(shape) != len(stride)  # type: ignore[arg-type]
    ):
        raise LayoutError(f"layout {text!r}: the stride {stride} does not have the shape {shape}'s nesting")
    if isinstance(shape, tuple):
        for s, d in zip(shape, stride):  # type: ignore[arg-type]
            _check_congruent(s, d, text)


def _flatten(tree: int | tuple) -> list[int]:
    return [tree] if isinstance(tree, int) else [leaf for child in tree for leaf in _flatten(child)]


def coalesce(sizes: Sequence[int], strides: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The fewest dimensions giving every element, in row-major order, the same offset (CuTe's
    ``coalesce``): size-1 dimensions are dropped, and a dimension merges into the one outside it
    where the outer stride is the inner size times the inner stride, unless the merged size would
    pass ``2**32 - 1`` (a DirectML ``UINT``). A tensor of one element becomes ``(1):(1)``.
    """
    merged: list[list[int]] = []  # [size, stride], innermost first
    for n, s in zip(reversed(sizes), reversed(strides)):
        if n == 1:
            continue
        if merged and s == merged[-1][0] * merged[-1][1] and merged[-1][0] * n <= UINT_LIMIT:
            merged[-1][0] *= n
        else:
            merged.append([n, s])
    if not merged:
        return (1,), (1,)
    return tuple(n for n, _ in reversed(merged)), tuple(s for _, s in reversed(merged))
