"""The picture of an :class:`~stridelab.AccessReport`: the layout's memory map with its cells
coloured by the request (warp) that reads them, the sectors of the first requests outlined in the
buffer strip, sector boundaries marked, and the report's numbers below.

The drawing is the memory map's own :class:`~stridelab.render.scene.Scene` (the same window, strip,
labels and palette), recoloured by request and drawn through a window over the first requests'
threads; what a memory map has no place for (the outlines, the boundaries, the request legend) is
an :class:`AccessDrawing` around it, painted by :mod:`.access_paint`.

>>> import stridelab as sl
>>> drawing = access_drawing(sl.access_pattern(sl.TensorDesc("FLOAT32", (8, 8), (1, 8))))
>>> drawing.requests, [len(s) for s in drawing.sectors]   # the transposed 8x8: 8 sectors a request
((0, 1), [8, 8])

internal: used by ``AccessReport``'s display and ``MemoryMapView(..., access=True)``.
"""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .._validate import at_least
from ..desc import TensorDesc
from ..memmap import DEFAULT_LIMIT, SlotKind
from .access_flip import flipped_scene
from .layout import MARGIN, Text, text_right
from .options import DEFAULT_MAX_CELLS, DrawOptions
from .palette import CELL_H, FILLS, TEXT_ROLES, text_width
from .scene import WRAP_WIDTH, Scene, scene_for
from .window import flat_indices

if TYPE_CHECKING:
    from .._access_report import AccessReport

__all__: list[str] = []

#: The fill of cells and slots read by requests the drawing does not outline.
OTHER_FILL = "#E4E4E4"
#: Outline dashes per drawn request (solid, dashed, dotted, dash-dot, ...), so that they read without colour.
DASHES: tuple[tuple[int, ...] | None, ...] = (None, (6, 3), (2, 2), (8, 3, 2, 3))
#: Pixels each further request touching the same sector is outlined inside the one before.
INSET = 3
_LINE = 16
_SWATCH = 18


def stroke_of(fill: str) -> str:
    """The outline colour of a request filled ``fill``: the same hue, dark enough to read on it.

    >>> stroke_of("#77AADD")   # 0x77 * 0.55 = 65.45 -> 0x41
    '#415E7A'
    """
    return "#" + "".join(f"{round(int(fill[i : i + 2], 16) * 0.55):02X}" for i in (1, 3, 5))


@dataclass(frozen=True)
class SectorOutline:
    """The drawn slots of ``sector`` that drawn request ``request`` touches, as one rectangle per
    row of the strip (``x, y, w, h``), ``inset`` pixels inside the slots' edges; ``colour`` indexes
    :attr:`AccessDrawing.strokes`."""

    request: int
    sector: int
    colour: int
    inset: int
    rects: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True, eq=False)
class AccessDrawing:
    """A memory map recoloured by request, and what goes around it (see the module).

    ``requests`` are the request numbers outlined, ``sectors`` each one's sectors (all of them, drawn
    or not); per drawn cell its thread, the byte range its thread reads and, per drawn slot, the
    first and last sector its bytes fall in (a slot may span two where a sector is smaller than an
    element); ``boundaries`` the top left corner of each drawn slot that begins a sector."""

    scene: Scene
    report: AccessReport
    requests: tuple[int, ...]
    sectors: tuple[tuple[int, ...], ...]
    strokes: tuple[str, ...]
    outlines: tuple[SectorOutline, ...]
    boundaries: tuple[tuple[int, int], ...]
    legend: tuple[tuple[int, int, int], ...]  # (x, y, drawn request position) of each swatch
    cell_threads: tuple[int, ...]
    cell_bytes: tuple[tuple[int, int], ...]  # per cell: its thread's first and last byte address
    slot_sectors: tuple[tuple[int, int], ...]

    @property
    def width(self) -> int:
        return self.scene.width

    @property
    def height(self) -> int:
        return self.scene.height

    @cached_property
    def _slot_sector_ends(self) -> tuple[list[int], list[int]]:
        """Each drawn slot's first and last sector, as two lists in slot order (both increase)."""
        return [s[0] for s in self.slot_sectors], [s[1] for s in self.slot_sectors]

    def lit_slots(self, cell: int) -> tuple[int, int]:
        """The drawn slots (positions ``start`` to ``stop - 1``) in the sectors cell ``cell``'s
        thread reads: what pointing at the cell lights."""
        first, last = (b // self.report.sector_bytes for b in self.cell_bytes[cell])
        starts, ends = self._slot_sector_ends
        return bisect_left(ends, first), bisect_right(starts, last)

    def cell_text(self, cell: int) -> str:
        """``thread t of request r: address A, sector S`` for drawn cell ``cell``."""
        thread = self.cell_threads[cell]
        address, last = self.cell_bytes[cell]
        first_sector, last_sector = address // self.report.sector_bytes, last // self.report.sector_bytes
        sectors = f"sector {first_sector}"
        if last_sector != first_sector:
            sectors = f"sectors {first_sector} to {last_sector}"
        return f"thread {thread} of request {thread // self.report.warp_size}: address {address}, {sectors}"


def access_drawing(
    report: AccessReport,
    *,
    requests: int = 4,
    max_cells: int = DEFAULT_MAX_CELLS,
    columns: int = 16,
    start: tuple[int, ...] | None = None,
    window: Sequence[tuple[int, int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    width: int = WRAP_WIDTH,
) -> AccessDrawing:
    """Lay out the picture of ``report``: the first ``requests`` requests' threads (as many of them
    as ``max_cells`` cells hold) in the logical view, coloured by request, their sectors outlined in
    the buffer strip; or the window at ``start`` / ``window`` (see
    :func:`~stridelab.render.scene.build_scene`), its first ``requests`` requests outlined."""
    wanted = min(at_least("requests", requests, 1), report.requests)
    desc, placed_at, flipped = drawable(report)
    pairs = None
    if start is None and window is None:
        pairs, wanted = _requests_window(report, wanted, max_cells)
    if pairs is not None:
        options = DrawOptions(max_cells, columns, None, _flipped_pairs(pairs, desc.sizes, flipped), None, limit)
    else:
        options = DrawOptions(max_cells, columns, start, window, None, limit)
    scene = scene_for(desc, options, width, offset=placed_at)
    if flipped:
        scene = flipped_scene(scene, flipped, report.strides)
    threads = _threads(report, scene.cell_coords)
    first = 0 if pairs is not None else min(threads, default=0) // report.warp_size
    drawn = tuple(range(first, min(first + wanted, report.requests)))
    scene = _recoloured(scene, report.offset, threads, report.warp_size, drawn)
    slot_sectors = _slot_sectors(report, scene)
    sectors = tuple(report.request(r).sectors for r in drawn)
    outlines = _outlines(scene, drawn, sectors, slot_sectors)
    boundaries = tuple(
        (x, y)
        for x, y, address in zip(scene.slot_x.tolist(), scene.slot_y.tolist(), _slot_addresses(report, scene))
        if address % report.sector_bytes == 0
    )
    scene, legend = _with_texts(scene, report, drawn, sectors, outlines)
    cell_bytes = tuple((a, a + report.bytes_per_thread - 1) for a in _thread_addresses(report, scene.cell_coords))
    return AccessDrawing(
        scene,
        report,
        drawn,
        sectors,
        tuple(stroke_of(FILLS[i % len(FILLS)]) for i in range(len(drawn))),
        outlines,
        boundaries,
        legend,
        tuple(threads),
        cell_bytes,
        tuple(slot_sectors),
    )


def drawable(report: AccessReport) -> tuple[TensorDesc, int, tuple[int, ...]]:
    """The description a memory map draws for ``report``'s layout, the buffer element its element 0
    lies at, and the dimensions it runs backwards along: a layout with negative strides is drawn as
    the one with their absolute values, from its lowest element (the buffer starts there), its
    coordinates mirrored back along those dimensions (:func:`.access_flip.flipped_scene`)."""
    size = _element_size(report)
    flipped = tuple(d for d, (n, s) in enumerate(zip(report.sizes, report.strides)) if s < 0 and n > 1)
    strides = tuple(abs(s) for s in report.strides)
    lowest = sum((n - 1) * s for n, s in zip(report.sizes, report.strides) if s < 0)
    element0 = (report._origin - report.offset) // size + lowest
    return TensorDesc(report.data_type, report.sizes, strides), element0, flipped


def _element_size(report: AccessReport) -> int:
    from ..dtypes import data_type

    return data_type(report.data_type).element_size


def _requests_window(report: AccessReport, wanted: int, max_cells: int) -> tuple[list[tuple[int, int]] | None, int]:
    """The smallest window holding the threads of the first ``wanted`` requests (fewer where they do
    not fit ``max_cells``), as (start, count) pairs, and how many requests it holds; None where
    not even the first request's fits (the drawing then windows from its first thread)."""
    rank = len(report.sizes)
    lanes = [c for r in range(wanted) for c in report.request(r).coordinates if c is not None]
    per = report.bytes_per_thread // _element_size(report)
    inner = report.order[-1] if report.order else 0
    for count in range(wanted, 0, -1):
        threads = lanes[: count * report.warp_size]
        pairs = []
        for d in range(rank):
            low = min(c[d] for c in threads)
            high = max(c[d] for c in threads) + (per - 1 if d == inner else 0)
            pairs.append((threads[0][d], 1) if d < rank - 4 else (low, high - low + 1))
        if math.prod(n for _, n in pairs) <= max_cells:
            return pairs, count
    return None, wanted


def _flipped_pairs(pairs: list[tuple[int, int]], sizes: tuple[int, ...], flipped: tuple[int, ...]) -> list:
    """A window over the layout as the window over its mirrored drawing (see :func:`drawable`)."""
    return [(sizes[d] - s - n, n) if d in flipped else (s, n) for d, (s, n) in enumerate(pairs)]


def _threads(report: AccessReport, coords: np.ndarray) -> list[int]:
    """The thread that reads each row of ``coords`` (logical coordinates)."""
    if not len(report.sizes):
        return [0] * len(coords)
    per = report.bytes_per_thread // _element_size(report)
    walked = coords[:, list(report.order)].copy()
    walked[:, -1] //= per
    sizes = [report.sizes[d] for d in report.order]
    sizes[-1] //= per
    return [int(t) for t in flat_indices(walked, sizes).tolist()]


def _thread_addresses(report: AccessReport, coords: np.ndarray) -> list[int]:
    """The byte address each row of ``coords``' thread reads from (the first element of its vector)."""
    per = report.bytes_per_thread // _element_size(report)
    size = _element_size(report)
    inner = report.order[-1] if report.order else None
    out = []
    for c in coords.tolist():
        if inner is not None:
            c[inner] -= c[inner] % per
        out.append(report._origin + sum(i * s for i, s in zip(c, report.strides)) * size)
    return out


def _recoloured(scene: Scene, address0: int, threads: list[int], warp: int, drawn: tuple[int, ...]) -> Scene:
    """``scene`` with each cell labelled by the thread that reads it and filled by that thread's
    request where it is a drawn one (grey otherwise); each slot as its first such cell; the strip's
    byte labels are addresses from ``address0``."""
    first, count = (drawn[0], len(drawn)) if drawn else (0, 0)
    colour = [t // warp - first if first <= t // warp < first + count else count for t in threads]
    slot_colour = np.full(scene.slot_count, count, dtype=np.int64)
    np.minimum.at(slot_colour, scene.cell_slot, np.asarray(colour, dtype=np.int64))
    held = (scene.slot_kinds == SlotKind.ELEMENT) | (scene.slot_kinds == SlotKind.SHARED)
    slot_colour[~held] = -1
    slot_thread: dict[int, int] = {}
    for slot, t in zip(scene.cell_slot.tolist(), threads):
        slot_thread[slot] = min(slot_thread.get(slot, t), t)
    labels = tuple(
        str(slot_thread[k]) if k in slot_thread else "" if on else label
        for k, (label, on) in enumerate(zip(scene.slot_labels, held.tolist()))
    )
    fills = (*(FILLS[i % len(FILLS)] for i in range(count)), OTHER_FILL)
    fields = {f.name: getattr(scene, f.name) for f in dataclasses.fields(scene)}
    fields.update(slot_colours=slot_colour, fills=fills, slot_labels=labels, address0=address0)
    texts = [_addresses_legend(t) for t in scene.texts]
    return Scene(**{**fields, "texts": tuple(texts)})


def _addresses_legend(t: Text) -> Text:
    """The strip's legend line, saying that byte addresses are given below the slots."""
    if t.role == "legend" and t.text.startswith("buffer strip:"):
        return Text(
            t.x,
            t.y,
            "buffer strip: element offset above a slot, byte address below; the numbers inside: threads",
            t.role,
        )
    return t


def _slot_addresses(report: AccessReport, scene: Scene) -> list[int]:
    """The byte address of each drawn slot."""
    size = scene.desc.element_size
    return [report.offset + (scene.offset + slot) * size for slot in scene.slot_offsets.tolist()]


def _slot_sectors(report: AccessReport, scene: Scene) -> list[tuple[int, int]]:
    """Per drawn slot, the first and last sector its bytes fall in."""
    size, sector = scene.desc.element_size, report.sector_bytes
    return [(a // sector, (a + size - 1) // sector) for a in _slot_addresses(report, scene)]


def _outlines(
    scene: Scene, drawn: tuple[int, ...], sectors: tuple[tuple[int, ...], ...], slot_sectors: list[tuple[int, int]]
) -> tuple[SectorOutline, ...]:
    """One outline per (drawn request, sector it touches with a drawn slot), nested where several
    requests touch one sector; ``sectors``: each drawn request's."""
    by_sector: dict[int, list[int]] = {}
    for position, touched in enumerate(sectors):
        for s in touched:
            by_sector.setdefault(s, []).append(position)
    in_sector: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(slot_sectors):
        for s in range(a, b + 1):
            in_sector.setdefault(s, []).append(k)
    xs, ys, w = scene.slot_x.tolist(), scene.slot_y.tolist(), scene.cell_w
    out = []
    for position, (r, touched) in enumerate(zip(drawn, sectors)):
        for s in touched:
            slots = in_sector.get(s)
            if not slots:
                continue
            inset = INSET * by_sector[s].index(position)
            out.append(SectorOutline(r, s, position, inset, tuple(_runs(slots, xs, ys, w, inset))))
    return tuple(out)


def _runs(slots: list[int], xs: list[int], ys: list[int], w: int, inset: int) -> list[tuple[int, int, int, int]]:
    """Rectangles around runs of adjacent drawn slots (one per strip row they cover), ``inset`` inside."""
    rects: list[list[int]] = []
    for k in slots:
        if rects and rects[-1][1] == ys[k] and rects[-1][0] + rects[-1][2] == xs[k]:
            rects[-1][2] += w
        else:
            rects.append([xs[k], ys[k], w])
    return [(x + inset, y + inset, width - 2 * inset, CELL_H - 2 * inset) for x, y, width in rects]


def summary_lines(report: AccessReport) -> list[str]:
    """The report in words: its numbers, then what a warp along each dimension alone touches."""
    order = ", ".join(map(str, report.order))
    lines = [
        f"warps of {report.warp_size} consecutive threads, walking dimensions ({order}) outermost first",
        str(report),
    ]
    return lines + [str(d) for d in report.dimensions()]


def _with_texts(
    scene: Scene, report: AccessReport, drawn: tuple[int, ...], sectors: tuple, outlines: tuple[SectorOutline, ...]
) -> tuple[Scene, tuple[tuple[int, int, int], ...]]:
    """``scene`` with the request legend and the report's lines below it, grown to hold them."""
    texts = list(scene.texts)
    y = scene.height - MARGIN + 4
    texts.append(Text(MARGIN, y + 4, f"sectors of {report.sector_bytes} B: a bar marks where each begins", "legend"))
    legend, x, y = [], MARGIN, y + 12
    total = math.prod(report.sizes) // (report.bytes_per_thread // _element_size(report))
    for position, (r, touched) in enumerate(zip(drawn, sectors)):
        shown_count = sum(1 for o in outlines if o.request == r)
        last = min((r + 1) * report.warp_size, total) - 1
        words = f"request {r}: {len(touched)} sector{'s' * (len(touched) != 1)} (threads {r * report.warp_size}-{last})"
        if shown_count != len(touched):
            words += f" ({shown_count} drawn)"
        item = _SWATCH + 6 + text_width(words, TEXT_ROLES["legend"].size) + 14
        if x > MARGIN and x + item > max(scene.width, WRAP_WIDTH) - MARGIN:
            x, y = MARGIN, y + 20
        legend.append((x, y, position))
        texts.append(Text(x + _SWATCH + 6, y + 12, words, "legend"))
        x += item
    y += 20 + 14
    lines = summary_lines(report)
    for i, line in enumerate(lines):
        texts.append(Text(MARGIN, y + i * _LINE, line, "summary" if i == 1 else "detail"))
    bottom = y + (len(lines) - 1) * _LINE + 8
    right = max([scene.width - MARGIN, *(text_right(t) for t in texts[len(scene.texts) :])])
    title = f"{scene.title} · {report}"
    grown = dataclasses.replace(scene, texts=tuple(texts), height=bottom + MARGIN, width=right + MARGIN, title=title)
    return grown, tuple(legend)
