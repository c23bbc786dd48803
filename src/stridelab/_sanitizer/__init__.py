"""The layout sanitizer: does a function give the right answer for every layout its callers can pass?

internal: :mod:`stridelab.testing` and :mod:`stridelab` export what users need of it.
"""

from ._catalogue import KINDS, ProbeLayout, catalogue
from ._generated import generated
from ._report import VERDICTS, LayoutCheck, LayoutFailure
from ._run import check_layouts

__all__ = [
    "KINDS",
    "VERDICTS",
    "LayoutCheck",
    "LayoutFailure",
    "ProbeLayout",
    "catalogue",
    "check_layouts",
    "generated",
]
