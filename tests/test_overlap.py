"""sl.overlap and a description's own overlap, against brute force, np.shares_memory, and large cases
decided exactly (the arithmetic worked out in the comments)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridelab as sl
from stridelab import LayoutError, TensorDesc, _search
from stridelab._analysis import self_collision
from stridelab._search import Term, Work, last_search, scan, solve


@st.composite
def small_descs(draw, max_rank=3):
    rank = draw(st.integers(1, max_rank))
    sizes = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    strides = draw(st.lists(st.integers(0, 9), min_size=rank, max_size=rank))
    return TensorDesc("INT32", sizes, strides)


def offsets(desc, start=0):
    return {c: start + sum(i * s for i, s in zip(c, desc.strides)) for c in itertools.product(*map(range, desc.sizes))}


@settings(max_examples=3000, deadline=None)
@given(small_descs(), small_descs(), st.integers(0, 12), st.integers(0, 12))
def test_overlap_agrees_with_brute_force(a, b, a_offset, b_offset):
    pair = sl.overlap(a, b, a_offset=a_offset, b_offset=b_offset)
    shared = set(offsets(a, a_offset).values()) & set(offsets(b, b_offset).values())
    assert (pair is None) == (not shared)
    if pair is not None:
        assert a_offset + a.offset_of(pair[0]) == b_offset + b.offset_of(pair[1])


@settings(max_examples=2000, deadline=None)
@given(small_descs(max_rank=4))
def test_a_descriptions_own_collision_agrees_with_brute_force(desc):
    by_offset: dict[int, list] = {}
    for c, o in offsets(desc).items():
        by_offset.setdefault(o, []).append(c)
    moving = [i for i, s in enumerate(desc.strides) if s]  # pairs apart only along stride 0 are broadcast
    collide = any(
        len({tuple(c[i] for i in moving) for c in coords}) > 1 for coords in by_offset.values() if len(coords) > 1
    )
    pair = self_collision(desc.sizes, desc.strides)
    assert (pair is not None) == collide == desc.is_overlapping
    if pair is not None:
        first, second = pair
        assert desc.offset_of(first) == desc.offset_of(second)
        assert any(first[i] != second[i] for i in moving)


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_overlap_agrees_with_numpy_shares_memory_on_views(data):
    buffer = np.zeros(64, dtype=np.int16)

    def view():
        rank = data.draw(st.integers(1, 3))
        shape = data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
        strides = data.draw(st.lists(st.integers(0, 6), min_size=rank, max_size=rank))
        last = sum((n - 1) * s for n, s in zip(shape, strides))
        start = data.draw(st.integers(0, 63 - last))
        array = np.lib.stride_tricks.as_strided(buffer[start:], shape, [s * buffer.itemsize for s in strides])
        return array, TensorDesc("INT16", shape, strides), start

    (x, a, a_start), (y, b, b_start) = view(), view()
    pair = sl.overlap(a, b, a_offset=a_start, b_offset=b_start)
    assert (pair is not None) == np.shares_memory(x, y, max_work=None)


def test_the_large_cases_are_decided_exactly():
    # (3001, 2): 3001 and 2 are coprime, so equal multiples need 2 steps of 3001 against 3001 of 2,
    # and there are only 3000 columns: no collision
    assert not TensorDesc("FLOAT32", (3000, 3000), (3001, 2)).is_overlapping
    # (2999, 2): 2 rows down (5998) is 2999 columns across, within 3000
    desc = TensorDesc("FLOAT32", (3000, 3000), (2999, 2))
    assert desc.is_overlapping
    first, second = self_collision(desc.sizes, desc.strides)
    assert first != second and desc.offset_of(first) == desc.offset_of(second)
    # a 4-D NHWC interleave: the gcd of all strides (2) does not divide the distance (1)
    even = TensorDesc("FLOAT16", (8, 64, 128, 128), (2097152, 2, 16384, 128))
    assert sl.overlap(even, even, b_offset=1) is None
    assert sl.overlap(even, even, b_offset=2) is not None


def test_the_issues_output_runs_and_an_interleaved_output_leaves_its_input_untouched():
    x = np.ones((3000, 3000), np.float32)
    out = sl.StridedTensor(TensorDesc("FLOAT32", (3000, 3000), (3001, 2)), np.zeros(9005998, np.float32))
    sl.cumulative_summation(x, 1, out=out)
    np.testing.assert_array_equal(out.to_array()[:, -1], np.full(3000, 3000, np.float32))

    arena = np.zeros(2 * 3000 * 3000, np.float32)
    arena[0::2] = np.tile(np.arange(3000, dtype=np.float32), 3000)
    every_other = TensorDesc("FLOAT32", (3000, 3000), (6000, 2))
    source, target = sl.StridedTensor(every_other, arena), sl.StridedTensor(every_other, arena[1:])
    sl.element_wise_identity(source, target)
    np.testing.assert_array_equal(arena[0::2], np.tile(np.arange(3000, dtype=np.float32), 3000))
    np.testing.assert_array_equal(arena[1::2], arena[0::2])


def test_an_undecided_overlap_names_the_budget():
    # sorted strides 3, 1000, 160000: the inner two nest (1000 >= 1 + 169 * 3), but 160000 is
    # less than their span (1 + 169 * 3 + 169 * 1000), and 170**3 elements exceed the budget
    desc = TensorDesc("UINT8", (170, 170, 170), (160000, 1000, 3))
    with pytest.raises(LayoutError, match=r"would enumerate 4913000 elements \(budget 4000000\)"):
        _ = desc.is_overlapping
    assert "overlap: undecided" in sl.render_svg(desc)


def test_overlap_refuses_what_it_cannot_compare():
    a = TensorDesc("FLOAT32", (2, 3))
    with pytest.raises(TypeError, match="a has 4-byte elements .FLOAT32. but b has 2-byte ones"):
        sl.overlap(a, TensorDesc("FLOAT16", (2, 3)))
    with pytest.raises(TypeError, match=r"b must be a TensorDesc, not ndarray of shape \(3,\) and dtype float64"):
        sl.overlap(a, np.zeros(3))
    with pytest.raises(LayoutError, match="b_offset = -1: an offset into the buffer is 0 or more"):
        sl.overlap(a, a, b_offset=-1)
    with pytest.raises(TypeError, match="overlap\\(\\) got an unexpected keyword argument 'offset'"):
        sl.overlap(a, a, offset=1)


def test_two_nesting_layouts_past_the_enumeration_budget_are_searched_in_chunks():
    # rows of 2048 interleaved with rows of another tensor: 4.2M elements a side, each decoded in
    # the other's nested strides
    n = 2048
    rows = TensorDesc("FLOAT32", (n, n), (2 * n, 1))
    assert sl.overlap(rows, rows, b_offset=n) is None
    first, second = sl.overlap(rows, rows, b_offset=n + 5)
    assert rows.offset_of(first) == n + 5 + rows.offset_of(second)
    arena = np.zeros((n, 2, n), np.float32)
    arena[:, 0, :] = 1
    sl.element_wise_identity(arena[:, 0, :], sl.StridedTensor(rows, arena.reshape(-1)[n:]))
    assert arena[:, 1, :].min() == 1 and arena[:, 0, :].max() == 1


def test_offsets_past_64_bits_are_exact():
    top = 2**32 - 1
    a = TensorDesc("UINT8", (2, 2, 2), (top, top - 1, 3))
    b = TensorDesc("UINT8", (2, 2, 2), (top, top - 2, 5))
    assert sl.overlap(a, b, a_offset=2**63, b_offset=2**63) == ((0, 0, 0), (0, 0, 0))
    for shift in (2, 3, 4):  # a starts 2**64 + shift, b at 2**64: checked against brute force
        pair = sl.overlap(a, b, a_offset=2**64 + shift, b_offset=2**64)
        brute = {shift + a.offset_of(c) for c in np.ndindex(2, 2, 2)} & {b.offset_of(c) for c in np.ndindex(2, 2, 2)}
        assert (pair is None) == (not brute)
        if pair is not None:
            assert shift + a.offset_of(pair[0]) == b.offset_of(pair[1])


# -- bounded work: arithmetic first, then a search of at most STEP_BUDGET steps ------------------------


def test_the_same_strides_at_different_offsets_are_decided_by_arithmetic():
    # the issue's case: 3001 * 1 == 1 + 2 * 1500, one row down from a is 1500 columns across from b
    # (1 element further on); 2 steps at most, where a search would have enumerated 9M elements
    d = TensorDesc("FLOAT32", (3000, 3000), (3001, 2))
    first, second = sl.overlap(d, d, b_offset=1)
    assert 3001 * first[0] + 2 * first[1] == 1 + 3001 * second[0] + 2 * second[1]
    assert last_search().spent <= 2
    # 4001 = 2 * 2000 + 1: one row down is one column too many; three rows down, 6002 columns
    rows = TensorDesc("FLOAT32", (2000, 2000), (4001, 2))
    assert sl.overlap(rows, rows, b_offset=1) is None
    assert last_search().spent <= 2


def brute_force(a, a_offset, b, b_offset):
    """Every offset each description uses, listed element by element."""
    ours = {a_offset + sum(c * s for c, s in zip(coords, a.strides)) for coords in np.ndindex(*a.sizes)}
    theirs = {b_offset + sum(c * s for c, s in zip(coords, b.strides)) for coords in np.ndindex(*b.sizes)}
    return ours & theirs


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_one_description_against_itself_shifted_agrees_with_brute_force(data):
    rank = data.draw(st.integers(1, 4))
    sizes = data.draw(st.lists(st.integers(1, 9), min_size=rank, max_size=rank))
    strides = data.draw(st.lists(st.integers(0, 40), min_size=rank, max_size=rank))
    desc = TensorDesc("INT32", sizes, strides)
    a_offset, b_offset = data.draw(st.integers(0, 60)), data.draw(st.integers(0, 60))
    pair = sl.overlap(desc, desc, a_offset=a_offset, b_offset=b_offset)
    assert (pair is None) == (not brute_force(desc, a_offset, desc, b_offset))
    if pair is not None:
        assert a_offset + desc.offset_of(pair[0]) == b_offset + desc.offset_of(pair[1])


@settings(max_examples=1500, deadline=None)
@given(small_descs(max_rank=4), small_descs(max_rank=4), st.integers(0, 30), st.integers(0, 30))
def test_overlap_of_up_to_eight_dimensions_between_them_agrees_with_brute_force(a, b, a_offset, b_offset):
    pair = sl.overlap(a, b, a_offset=a_offset, b_offset=b_offset)
    assert (pair is None) == (not brute_force(a, a_offset, b, b_offset))
    if pair is not None:
        assert a_offset + a.offset_of(pair[0]) == b_offset + b.offset_of(pair[1])


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_solve_and_scan_agree_with_brute_force(data):
    count = data.draw(st.integers(0, 4))
    terms = [
        Term(data.draw(st.sampled_from([-7, -3, -2, -1, 1, 2, 5, 6, 11])), low, low + data.draw(st.integers(0, 5)))
        for low in data.draw(st.lists(st.integers(-4, 4), min_size=count, max_size=count))
    ]
    target = data.draw(st.integers(-30, 30))
    values = solve(terms, target, Work("test"))
    ranges = [range(t.low, t.high + 1) for t in terms]
    solvable = any(sum(t.coefficient * v for t, v in zip(terms, vs)) == target for vs in itertools.product(*ranges))
    assert (values is not None) == solvable
    if values is not None:
        assert sum(t.coefficient * v for t, v in zip(terms, values)) == target
        assert all(v in r for v, r in zip(values, ranges))
    # the same question as a scan: our offsets (moved by shift) looked up among theirs, sorted or decoded
    ours = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)), None
    ours = ours[0], data.draw(st.lists(st.integers(1, 9), min_size=len(ours[0]), max_size=len(ours[0])))
    theirs = [3, 2], [1, 3]  # offsets 0..5, nested
    shift = data.draw(st.integers(-20, 5))
    found = scan(ours, shift, theirs, data.draw(st.booleans()), Work("test"))
    mine = {shift + sum(c * s for c, s in zip(cs, ours[1])) for cs in itertools.product(*map(range, ours[0]))}
    assert (found is not None) == bool(mine & set(range(6)))
    if found is not None:
        assert shift + sum(c * s for c, s in zip(found[0], ours[1])) == sum(c * s for c, s in zip(found[1], [1, 3]))


def test_a_search_past_its_budget_stops_there_and_names_it(monkeypatch):
    # three dimensions a side, with strides that neither nest nor match: 6 unknowns, whose ranges
    # nothing narrows; the cheapest search looks 64000 offsets of one side up among the other's
    a = TensorDesc("UINT8", (40, 40, 40), (1601, 41, 1))
    b = TensorDesc("UINT8", (40, 40, 40), (1607, 43, 3))
    assert sl.overlap(a, b, b_offset=1) is not None and last_search().spent <= 3 * 64000
    monkeypatch.setattr(_search, "STEP_BUDGET", 50_000)  # not enough to sort the other side's offsets
    with pytest.raises(LayoutError, match=r"share an element is not decided within the search budget of 50000 steps"):
        sl.overlap(a, b, b_offset=1)
    assert last_search().spent == 0


def test_the_issues_searches_end_within_the_budget():
    # two 125M-element layouts that neither nest nor share strides: every way to decide it costs more
    # than the budget, so it is refused before any work
    a = TensorDesc("UINT8", (500, 500, 500), (250001, 499, 1))
    b = TensorDesc("UINT8", (500, 500, 500), (250003, 503, 3))
    with pytest.raises(LayoutError, match=rf"within the search budget of {_search.STEP_BUDGET} steps"):
        sl.overlap(a, b, b_offset=7)
    assert last_search().spent == 0
    # a search that may stop early runs in chunks and stops at the budget
    chunked = Work("a test", budget=3 * _search.CHUNK + 5)
    with pytest.raises(LayoutError, match=r"after 196613 steps without finding a shared element"):
        solve([Term(2, 0, 999), Term(4, 0, 999), Term(6, -(10**6), 10**6), Term(8, -(10**6), 10**6)], 1, chunked)
    assert chunked.spent == 3 * 65536 + 5 == 196613


def test_an_output_interleaved_with_its_input_is_checked_in_two_steps():
    # out and x: (2000, 2000):(4001, 2), one element apart; the search it once took (3.8 s) is
    # now two equations in the row and column differences
    rows = TensorDesc("FLOAT32", (2000, 2000), (4001, 2))
    arena = np.arange(rows.last_offset + 2, dtype=np.float32)  # below 2**24: each value exact
    expected = np.lib.stride_tricks.as_strided(arena, (2000, 2000), (4001 * 4, 2 * 4)).copy()
    out = sl.StridedTensor(rows, arena[1:])
    sl.element_wise_identity(sl.StridedTensor(rows, arena), out)
    assert last_search().spent <= 2
    np.testing.assert_array_equal(np.lib.stride_tricks.as_strided(arena[1:], (2000, 2000), (4001 * 4, 8)), expected)


def test_placed_descriptions_bring_their_offsets():
    whole = TensorDesc.parse("UINT8 (3,4):(4,1)")  # buffer elements 0 to 11
    # 11 + 4i + j meets 4k + l (k < 3, l < 4) only at i = j = 0: element 11 is (2, 3)
    assert sl.overlap(TensorDesc.parse_placed("UINT8 (2,2):(4,1) +11"), whole) == ((0, 0), (2, 3))
    assert sl.overlap(whole, TensorDesc.parse_placed("UINT8 (2,2):(4,1) +11")) == ((2, 3), (0, 0))
    assert sl.overlap(TensorDesc.parse_placed("UINT8 (2):(1) +12"), whole) is None  # 12 and 13: past 11
    odd = TensorDesc.parse_placed("UINT8 (3):(2) +1")  # 1, 3, 5
    assert sl.overlap(odd, TensorDesc.parse("UINT8 (3):(2)")) is None  # 0, 2, 4
    # 3, 5, 7 against 1, 3, 5: elements 3 and 5
    assert sl.overlap(odd, TensorDesc.parse_placed("UINT8 (3):(2) +3")) in (((1,), (0,)), ((2,), (1,)))


def test_an_offset_given_twice_is_refused():
    placed = TensorDesc("UINT8", (2, 3)).placed(4)
    with pytest.raises(LayoutError, match=r"a_offset = 1 but a = 'UINT8 \(2,3\):\(3,1\) \+4' starts at element 4"):
        sl.overlap(placed, placed, a_offset=1)
    (i, j), (k, m) = sl.overlap(placed, TensorDesc("UINT8", (2, 3)), b_offset=4)
    assert 4 + 3 * i + j == 4 + 3 * k + m
