"""Layouts as one line of text: stridelab's ``FLOAT16 (1,1,2,3):(0,0,5,1)`` and CuTe's ``shape:stride``.

Both write sizes and strides as CuTe does, ``(sizes):(strides)``, with the same meaning: the element
at coordinates ``c`` lives at ``dot(c, strides)``. stridelab's line may leave out the data type, write
its lists in brackets as NumPy and PyTorch print them (``[2,3]:[3,1]``), and end with where the
tensor starts in its buffer (`` +5``, or `` offset=5``) and the buffer's bytes (`` bytes=N``). This
module only reads and writes the text, and coalesces; :class:`~stridelab.desc.TensorDesc` builds
descriptions from what it reads, so every rule on data types, sizes and strides is checked in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ._validate import shown, wrong_type
from .errors import LayoutError

__all__ = [
    "MAX_TEXT_CHARACTERS",
    "Notation",
    "check_length",
    "coalesce",
    "format_layout",
    "format_notation",
    "parse_cute",
    "parse_notation",
]

UINT_LIMIT = 2**32 - 1

_TYPE = re.compile(r"[ \t\r\n]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)")
_EXTRA = re.compile(r"[ \t\r\n]*(?:(?P<key>bytes|offset)[ \t]*=[ \t]*|(?P<plus>\+)[ \t]*)(?P<value>[^ \t\r\n]*)")
_TOKEN = re.compile(
    r"[ \t\r\n]*(?:(?P<open>[(\[])|(?P<close>[)\]])|(?P<comma>,)|(?P<int>-?_?[0-9]+)|(?P<other>[^ \t\r\n]))"
)
_CLOSING = {"(": ")", "[": "]"}
_EXPECTED = (
    "expected '[DATA_TYPE] (sizes):(strides)' with an optional ' +OFFSET' and ' bytes=N', e.g. "
    "'FLOAT16 (1,1,2,3):(0,0,5,1)' or '[2,3]:[3,1] +5', or JSON with DxDispatch's field names"
)
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


def format_notation(
    data_type: str, sizes: Sequence[int], strides: Sequence[int], *, offset: int = 0, total: int | None = None
) -> str:
    """``FLOAT32 (2,3):(5,1) +5 bytes=40``: the one line :func:`parse_notation` reads (no `` +0``)."""
    extras = (f" +{offset}" if offset else "") + ("" if total is None else f" bytes={total}")
    return f"{data_type} {format_layout(sizes, strides)}{extras}"


class Notation(NamedTuple):
    """What one line of notation says: ``data_type`` (None where it names none), ``sizes``,
    ``strides``, ``total`` (the `` bytes=N``, or None) and ``offset`` (0 where not given)."""

    data_type: str | None
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    total: int | None
    offset: int


def parse_notation(text: str) -> Notation:
    """Read ``[DATA_TYPE] (sizes):(strides)``, then optionally `` +OFFSET`` (or `` offset=OFFSET``)
    and `` bytes=N`` in either order. Either list may be in brackets, ``[2,3]``, but one list in one
    kind; spaces are allowed anywhere between the parts. The data type is a name as written, not
    checked here."""
    check_length(text, "a tensor description")
    head = _TYPE.match(text)
    if head is None and text.lstrip()[:1] in _CLOSING:
        data_type, rest = None, text
    elif head is not None and text[head.end() :].strip():
        data_type, rest = head[1], text[head.end() :]
        _check_after_type(text, data_type, rest)
    else:
        raise LayoutError(f"cannot read {_quote(text)} as a tensor description; {_EXPECTED}")
    end = _layout_end(rest)
    extras = _extras(rest[end:], text) if rest[end:].strip() else {}
    sizes, strides = parse_cute(rest[:end].strip(), nested=False)
    return Notation(data_type, sizes, strides, extras.get("bytes"), extras.get("offset", 0))


def _check_after_type(text: str, data_type: str, rest: str) -> None:
    """Refuse a data type name with more glued to it (``torch.``) or a word after it where the
    layout goes (``FLOAT32 FLOAT32``), naming what was written."""
    if not rest[0].isspace() and rest[0] not in _CLOSING:
        word = re.match(r"[^ \t\r\n(\[]*", text.lstrip())[0]  # type: ignore[index]  # matches "" at least
        raise LayoutError(
            f"cannot read the data type {shown(word, width=30)} of {_quote(text)}: a data type is a name such as "
            "FLOAT16, float16, np.float16 or torch.float16, then a space and the layout"
        )
    word = re.match(r"[A-Za-z_.][A-Za-z0-9_.]*", rest.lstrip())
    if word is not None:
        raise LayoutError(
            f"cannot read {_quote(text)}: after the data type {data_type} comes the layout '(sizes):(strides)', "
            f"not {shown(word[0], width=30)}"
        )


def _layout_end(rest: str) -> int:
    """Where ``(sizes):(strides)`` ends in ``rest``: after the strides' closing bracket where
    whitespace or a ``+`` follows it; else the end of ``rest`` (the layout's reader names whatever
    is wrong)."""
    colon = rest.find(":")
    start = len(rest) - len(rest[colon + 1 :].lstrip()) if colon >= 0 else len(rest)
    if start >= len(rest) or rest[start] not in _CLOSING:
        return len(rest)
    depth = 0
    for i in range(start, len(rest)):
        depth += (rest[i] in _CLOSING) - (rest[i] in ")]")
        if depth == 0:
            after = rest[i + 1 : i + 2]
            return i + 1 if after in ("", "+") or after.isspace() else len(rest)
    return len(rest)


def _extras(tail: str, text: str) -> dict[str, int]:
    """The `` +OFFSET``, `` offset=OFFSET`` and `` bytes=N`` after the layout, by name."""
    found: dict[str, int] = {}
    position, tail = 0, tail.rstrip()
    while position < len(tail):
        match = _EXTRA.match(tail, position)
        if match is None:
            raise LayoutError(
                f"cannot read {shown(tail[position:].strip(), width=30)} after the layout in {_quote(text)}; "
                "expected ' +OFFSET' (or ' offset=OFFSET') and ' bytes=N', e.g. 'FLOAT32 (2,3):(3,1) +5'"
            )
        name, value = match["key"] or "offset", match["value"]
        written = f"+{value}" if match["plus"] else f"{name}={value}"
        if not value.isascii() or not value.isdigit():
            rule = "the element where coordinate 0 lies" if name == "offset" else "the buffer's size"
            raise LayoutError(
                f"layout {_quote(text)}: {name} {shown(written, width=30)} is not a whole number of 0 or more "
                f"({rule}, e.g. {'+5' if name == 'offset' else 'bytes=64'})"
            )
        if name in found:
            raise LayoutError(f"layout {_quote(text)} gives the {name} twice; give it once")
        found[name] = _number(value, text, name)
        position = match.end()
    return found


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
    underscore (``_8:_1``). The stride must have the shape's nesting. Brackets may stand for
    parentheses (``[2,3]:[3,1]``), one kind for each list, and a list may end in a comma (``(4,)``).
    ``nested=False`` accepts only the flat, bracketed form of stridelab's one-line notation.
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
    negative = [i for i, s in enumerate(strides) if s < 0]
    if negative:
        raise LayoutError(
            f"layout {_quote(text)} has the negative stride {strides[negative[0]]} at strides[{negative[0]}]; "
            "DirectML strides are unsigned (a reversed view needs a copy, or SLICE1 with a negative window stride)"
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
            if position < len(tokens) and tokens[position][0] == "close":  # Python's (4,)
                break
            children.append(node(depth + 1))
        if position >= len(tokens):
            raise fail(f"a {shown(value)} is not closed")
        kind, closing = tokens[position]
        if kind != "close":
            raise fail(f"unexpected {shown(closing)}")
        if closing != _CLOSING[value]:
            raise fail(f"a {shown(value)} is closed by {shown(closing)}; write each list in one kind of brackets")
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
