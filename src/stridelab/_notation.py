"""Layouts as one line of text: stridelab's ``FLOAT16 (1,1,2,3):(0,0,5,1)`` and CuTe's ``shape:stride``.

Both write sizes and strides as CuTe does, ``(sizes):(strides)``, with the same meaning: the element
at coordinates ``c`` lives at ``dot(c, strides)``. This module only reads and writes the text, and
coalesces; :class:`~stridelab.desc.TensorDesc` builds descriptions from what it reads, so every rule
on sizes and strides is checked in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._validate import shown, wrong_type
from .errors import LayoutError

__all__ = ["MAX_TEXT_CHARACTERS", "check_length", "coalesce", "format_layout", "parse_cute", "parse_notation"]

UINT_LIMIT = 2**32 - 1

_TYPE = re.compile(r"[ \t]*([A-Za-z][A-Za-z0-9_]*)")
_BYTES = re.compile(r"[ \t]*=[ \t]*([0-9]+)[ \t]*")
_TOKEN = re.compile(r"[ \t\r\n]*(?:(?P<open>\()|(?P<close>\))|(?P<comma>,)|(?P<int>-?_?[0-9]+)|(?P<other>[^ \t\r\n]))")
#: Deeper nesting than this describes no layout of at most 8 dimensions worth reading.
MAX_DEPTH = 16
#: The longest text read as a layout or description: a description of 8 dimensions, even as JSON
#: with comments, takes far fewer characters, and longer text is refused before it is read.
MAX_TEXT_CHARACTERS = 2**16
#: More digits than any buffer of 8 dimensions of 32-bit sizes and strides needs (22): longer
#: numbers are refused before Python converts them.
_MAX_DIGITS = 40


def format_layout(sizes: Sequence[int], strides: Sequence[int]) -> str:
    """``(1,1,2,3):(0,0,5,1)``: sizes and strides in CuTe's ``shape:stride`` form (rank 1: ``(5):(1)``)."""
    return f"({','.join(map(str, sizes))}):({','.join(map(str, strides))})"


def parse_notation(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int | None]:
    """Read ``DATA_TYPE (sizes):(strides)`` with an optional `` bytes=N``: the data type name, the
    sizes, the strides and the byte count (None where not given). Spaces are allowed anywhere
    between the parts."""
    check_length(text, "a tensor description")
    head = _TYPE.match(text)
    if head is None or not text[head.end() :].strip():
        raise LayoutError(
            f"cannot read {_quote(text)} as a tensor description; expected 'DATA_TYPE (sizes):(strides)' with an "
            "optional ' bytes=N', e.g. 'FLOAT16 (1,1,2,3):(0,0,5,1)', or JSON with DxDispatch's field names"
        )
    layout, total = text[head.end() :], None
    before, word, after = layout.rpartition("bytes")
    count = _BYTES.fullmatch(after) if word and before[-1:] in (" ", "\t") else None
    if count is not None:
        layout, total = before, _number(count[1], text, "bytes")
    sizes, strides = parse_cute(layout.strip(), nested=False)
    return head[1], sizes, strides, total


def _number(digits: str, text: str, what: str) -> int:
    if len(digits.lstrip("-_0")) > _MAX_DIGITS:
        raise LayoutError(
            f"layout {_quote(text)}: {what} {digits[:12]}... has {len(digits)} digits, more than any layout needs"
        )
    return int(digits.replace("_", ""))


def _quote(text: str) -> str:
    """``text`` for an error message: quoted, and shortened where it is long."""
    return shown(text, width=80)


def check_length(text: str, what: str) -> None:
    """Refuse ``text`` longer than :data:`MAX_TEXT_CHARACTERS` before reading it as ``what``."""
    if len(text) > MAX_TEXT_CHARACTERS:
        raise LayoutError(
            f"cannot read {what} from {_quote(text)}: it has more than {MAX_TEXT_CHARACTERS} characters, "
            "far more than any description of at most 8 dimensions takes"
        )


def parse_cute(text: str, *, nested: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Read a CuTe layout ``shape:stride`` into flat sizes and strides.

    Nested modes are flattened in order (``((2,2),3):((1,4),2)`` gives sizes (2, 2, 3) and strides
    (1, 4, 2)); a mode may be a bare integer (``8:1``) and CuTe's static integers may carry their
    underscore (``_8:_1``). The stride must have the shape's nesting. ``nested=False`` accepts only
    the flat, parenthesised form of stridelab's one-line notation.
    """
    if not isinstance(text, str):
        raise wrong_type("text", "a layout given as text, e.g. '(2,3):(3,1)'", text)
    check_length(text, "a layout")
    shape_text, colon, stride_text = text.partition(":")
    if not colon:
        raise LayoutError(
            f"layout {_quote(text)} has no ':stride' part; give the strides too (CuTe's default strides are "
            "column-major, DirectML's row-major, so stridelab does not guess)"
        )
    shape = _parse_tree(shape_text, text, "shape")
    stride = _parse_tree(stride_text, text, "stride")
    if not nested and (isinstance(shape, int) or any(isinstance(mode, tuple) for mode in shape)):
        raise LayoutError(f"layout {_quote(text)}: write the sizes and strides as flat lists, e.g. (1,1,2,3):(0,0,5,1)")
    _check_congruent(shape, stride, text)
    sizes, strides = tuple(_flatten(shape)), tuple(_flatten(stride))
    negative = [s for s in strides if s < 0]
    if negative:
        raise LayoutError(
            f"layout {_quote(text)} has the negative stride {negative[0]}; DirectML strides are unsigned "
            "(reverse with SLICE1's negative window strides instead)"
        )
    return sizes, strides


def _parse_tree(part: str, text: str, what: str) -> int | tuple:
    tokens = [(m.lastgroup, m[m.lastgroup]) for m in _TOKEN.finditer(part.strip()) if m.lastgroup]
    position = 0

    def fail(reason: str) -> LayoutError:
        return LayoutError(f"cannot read the {what} of layout {_quote(text)}: {reason}")

    def node(depth: int) -> int | tuple:
        nonlocal position
        if position >= len(tokens):
            raise fail("it ends too early")
        kind, value = tokens[position]
        position += 1
        if kind == "int":
            return _number(value, text, what)
        if kind != "open":
            raise fail(f"unexpected {shown(value)}")
        if depth >= MAX_DEPTH:
            raise fail(f"modes are nested deeper than {MAX_DEPTH} levels")
        children = [node(depth + 1)]
        while position < len(tokens) and tokens[position][0] == "comma":
            position += 1
            children.append(node(depth + 1))
        if position >= len(tokens):
            raise fail("a '(' is not closed")
        if tokens[position][0] != "close":
            raise fail(f"unexpected {shown(tokens[position][1])}")
        position += 1
        return tuple(children)

    tree = node(0)
    if position != len(tokens):
        raise fail(f"unexpected {shown(tokens[position][1])} after the end")
    return tree


def _check_congruent(shape: int | tuple, stride: int | tuple, text: str) -> None:
    if isinstance(shape, int) != isinstance(stride, int) or (
        isinstance(shape, tuple) and len(shape) != len(stride)  # type: ignore[arg-type]
    ):
        raise LayoutError(f"layout {_quote(text)}: the stride {stride} does not have the shape {shape}'s nesting")
    if isinstance(shape, tuple):
        for s, d in zip(shape, stride):  # type: ignore[arg-type]
            _check_congruent(s, d, text)


def _flatten(tree: int | tuple) -> list[int]:
    return [tree] if isinstance(tree, int) else [leaf for child in tree for leaf in _flatten(child)]


def coalesce(sizes: Sequence[int], strides: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The fewest dimensions giving every element, in row-major order, the same offset: CuTe's
    ``coalesce``, but in row-major order where CuTe's is column-major (CuTe keeps ``(2,3):(3,1)``,
    which here is ``(6):(1)``). Size-1 dimensions are dropped, and a dimension merges into the one outside it
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
