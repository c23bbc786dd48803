"""The verdict of an exercise's checker, and the replies every checker shares.

internal: :class:`Feedback` is public as ``stridelab.exercises.Feedback``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ._validate import shown

__all__: list[str] = []

#: Each verdict's mark, and its box's border, background and text colours.
_STYLES = {
    "right": ("✓", "#1a7f37", "#e6f4ea", "#0b3d1a"),
    "not yet": ("✗", "#b35c00", "#fff4e5", "#4d2800"),
    "unanswered": ("○", "#6e7781", "#f3f4f6", "#24292f"),
}


@dataclass(frozen=True)
class Feedback:
    """A checker's verdict: ``correct``, and a message that never gives the answer away.

    ``answered`` is False for the reply to the ``...`` placeholder. In Jupyter a verdict shows as a
    box: green with ✓ when right, amber with ✗ when not yet, grey with ○ while no answer is
    written; its plain text there starts with the same mark and words (``✓ right: ...``).

    >>> verdict = Feedback(True, "element (1, 0) is at offset 3")
    >>> verdict, bool(verdict)
    (right: element (1, 0) is at offset 3, True)
    """

    correct: bool
    message: str
    answered: bool = True

    def __bool__(self) -> bool:
        return self.correct

    def __repr__(self) -> str:
        return f"{'right' if self.correct else 'not yet'}: {self.message}"

    __str__ = __repr__

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        verdict = "right" if self.correct else "not yet"
        mark, border, background, ink = _STYLES[verdict if self.answered else "unanswered"]
        style = f"border-left:6px solid {border};background:{background};color:{ink};padding:6px 10px;margin:2px 0"
        html = f'<div style="{style}"><b>{mark} {verdict}:</b> {escape(self.message, quote=False)}</div>'
        return {"text/plain": f"{mark} {self}", "text/html": html}


def wrong(message: str) -> Feedback:
    return Feedback(False, message)


def reminder(what: str) -> Feedback:
    """The reply to an answer still left as the exercise's ``...`` placeholder."""
    return Feedback(False, f"replace ... with your answer: {what}", answered=False)


def not_a(what: str, answer: Any) -> Feedback:
    """The reply to an answer of the wrong type: what to give instead."""
    return wrong(f"give {what}, not {type(answer).__name__} {shown(answer)}")


def integer_answer(answer: Any) -> int | None:
    """``answer`` as a Python int, or None for anything that is not an integer (bools included)."""
    if isinstance(answer, (bool, np.bool_)):
        return None
    try:
        return operator.index(answer)
    except TypeError:
        return None
