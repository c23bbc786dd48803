"""The one error family stridelab raises for descriptions, buffers and operator parameters.

internal: ``LayoutError`` is public as ``stridelab.LayoutError``.
"""

from __future__ import annotations

__all__: list[str] = []


class LayoutError(ValueError):
    """A tensor description, buffer or operator parameter breaks a rule.

    The message names the field, the offending value and the rule, e.g.
    ``window_offsets[2] + window_sizes[2] = 6 exceeds input sizes[2] = 4``.
    Wrong *types* raise :class:`TypeError` instead.

    Examples
    --------
    >>> import stridelab as sl
    >>> sl.TensorDesc("FLOAT32", (2, 0))
    Traceback (most recent call last):
        ...
    stridelab.errors.LayoutError: sizes[1] = 0: every size must be at least 1 (DirectML has no empty tensors)
    """
