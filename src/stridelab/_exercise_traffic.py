"""The checker of the exercise on a layout's GPU memory traffic: sectors per request.

internal: public as ``stridelab.exercises.check_sectors_per_request``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._feedback import Feedback, not_a, reminder, wrong

__all__: list[str] = []


def check_sectors_per_request(answer: Any, layout: Any, **access: Any) -> Feedback:
    """Check the average sectors per request of a kernel that gives consecutive threads
    consecutive elements of ``layout`` (see :func:`stridelab.access_pattern`, which takes
    ``layout`` and the keyword arguments ``access``).

    Recognises: the bytes of a request given for its sectors, 128-byte lines counted instead of
    32-byte sectors, a sector per thread, the fewest sectors the bytes could fill (as if every
    request started on a sector boundary), and the first request's count taken for the average.

    >>> from stridelab import TensorDesc
    >>> rows = TensorDesc("FLOAT32", (64, 32), (40, 1))  # rows of 32 floats, 40 apart
    >>> check_sectors_per_request(4, rows)
    right: 4 sectors per request on average (256 sectors over 64 requests)
    """
    from ._access_report import access_pattern

    report = access_pattern(layout, **access)
    if answer is ...:
        return reminder("the average number of sectors per request (a number)")
    if not isinstance(answer, (int, float, np.integer, np.floating)) or isinstance(answer, (bool, np.bool_)):
        return not_a("the sectors per request as a number", answer)
    try:
        given = float(answer)
    except OverflowError:  # an int past any float: no count of sectors
        given = math.inf
    if abs(given - report.sectors_per_request) < 1e-9:
        average = f"{report.sectors_per_request:g} sectors per request on average"
        return Feedback(True, f"{average} ({report.sectors} sectors over {report.requests} requests)")
    per_request = [
        (
            report.bytes / report.requests,
            f"that is the bytes a request reads; a sector holds {report.sector_bytes} bytes, and is moved whole",
        ),
        (
            report.lines / report.requests,
            f"that counts {report.line_bytes}-byte lines; count the {report.sector_bytes}-byte sectors",
        ),
        (float(report.warp_size), "that is a sector per thread; here neighbouring threads share sectors"),
        (
            report.ideal_sectors_per_request,
            "that is the fewest sectors these bytes could fill; do the requests all "
            "start on a sector boundary? Work out where each one's first element lies",
        ),
        (
            float(len(report.request(0).sectors)),
            "that is what the first request moves; the others differ: average over every request",
        ),
        (
            float(max(len(report.request(i).sectors) for i in range(min(report.requests, 8)))),
            "that is what a request straddling a sector boundary moves; not every request does: average over "
            "every request",
        ),
    ]
    for value, hint in per_request:
        if abs(given - value) < 1e-9:
            return wrong(hint)
    return wrong(
        f"for each request, count the {report.sector_bytes}-byte sectors its threads' bytes fall in (a sector "
        "once, however many threads share it), then average over the requests"
    )
