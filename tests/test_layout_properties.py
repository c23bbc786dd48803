"""Property tests: the layout core against numpy and against brute-force enumeration."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stridelab import DATA_TYPES, StridedTensor, TensorDesc, calc_buffer_tensor_size, data_type, layout_strides


@st.composite
def descriptions(draw, max_rank=5, max_size=4, max_stride=12):
    rank = draw(st.integers(1, max_rank))
    sizes = tuple(draw(st.lists(st.integers(1, max_size), min_size=rank, max_size=rank)))
    strides = tuple(draw(st.lists(st.integers(0, max_stride), min_size=rank, max_size=rank)))
    dtype = draw(st.sampled_from(DATA_TYPES))
    required = calc_buffer_tensor_size(dtype, sizes, strides)
    total = draw(st.sampled_from([None, required, required + 4 * draw(st.integers(1, 3))]))
    return TensorDesc(dtype, sizes, strides, total)


def brute_force_offsets(desc):
    return {c: sum(i * s for i, s in zip(c, desc.strides)) for c in itertools.product(*map(range, desc.sizes))}


def round_up_4(n):
    return -(-n // 4) * 4


@settings(max_examples=300, deadline=None)
@given(descriptions())
def test_offsets_match_numpy_as_strided_over_a_buffer(desc):
    itemsize = 8
    buffer = np.arange(desc.last_offset + 1, dtype=np.int64)  # buffer[i] = i, so a view shows offsets
    view = np.lib.stride_tricks.as_strided(buffer, desc.sizes, tuple(s * itemsize for s in desc.strides))
    np.testing.assert_array_equal(desc.memory_map().offsets, view)
    coords = tuple(n - 1 for n in desc.sizes)
    assert desc.offset_of(coords) == view[coords]


@settings(max_examples=300, deadline=None)
@given(descriptions())
def test_buffer_size_matches_brute_force(desc):
    offsets = brute_force_offsets(desc)
    esize = data_type(desc.data_type).element_size
    one_past_last = max(offsets.values()) + 1
    assert calc_buffer_tensor_size(desc.data_type, desc.sizes, desc.strides) == round_up_4(one_past_last * esize)
    assert calc_buffer_tensor_size(desc.data_type, desc.sizes) == round_up_4(len(offsets) * esize)


@settings(max_examples=400, deadline=None)
@given(descriptions())
def test_classification_matches_brute_force(desc):
    offsets = brute_force_offsets(desc)
    esize = data_type(desc.data_type).element_size
    last = max(offsets.values())
    used = set(offsets.values())
    by_offset = {}
    for c, o in offsets.items():
        by_offset.setdefault(o, []).append(c)
    zero_stride_dims = {i for i, s in enumerate(desc.strides) if s == 0}

    def explained_by_zero_strides(a, b):
        return all(i in zero_stride_dims for i in range(len(a)) if a[i] != b[i])

    overlapping = any(
        not explained_by_zero_strides(a, b) for group in by_offset.values() for a, b in itertools.combinations(group, 2)
    )
    packed = sorted(offsets.values()) == list(range(last + 1))
    slots = desc.buffer_size // esize
    alignment = set(range(last + 1, calc_buffer_tensor_size(desc.data_type, desc.sizes, desc.strides) // esize))
    padded = any(s not in used and s not in alignment for s in range(slots))
    broadcast = any(s == 0 and n > 1 for n, s in zip(desc.sizes, desc.strides))
    assert (desc.is_packed, desc.is_padded, desc.is_broadcast, desc.is_overlapping) == (
        packed, padded, broadcast, overlapping,
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(descriptions())
def test_memory_map_slots_match_brute_force(desc):
    m = desc.memory_map()
    offsets = brute_force_offsets(desc)
    assert m.slot_count == desc.buffer_size // data_type(desc.data_type).element_size
    for slot in range(m.slot_count):
        expected = sorted(c for c, o in offsets.items() if o == slot)
        assert m.elements_at(slot) == expected
        assert m.slot_counts[slot] == len(expected)
    labels = m.element_labels()
    for c, o in offsets.items():
        assert labels[c] == m.slot_labels()[o]


@st.composite
def permuted_layouts(draw):
    rank = draw(st.integers(1, 8))
    sizes = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    order = tuple(draw(st.permutations(range(rank))))
    return sizes, order


@settings(max_examples=300, deadline=None)
@given(permuted_layouts())
def test_permuted_layout_strides_match_a_transposed_numpy_array(case):
    sizes, order = case
    in_memory_order = np.empty(tuple(sizes[i] for i in order), dtype=np.int8)  # outermost first
    canonical = in_memory_order.transpose(np.argsort(order))
    assert canonical.shape == sizes
    # numpy's strides for size-1 dimensions are arbitrary; only compare where they matter
    expected = [s if n > 1 else None for n, s in zip(sizes, canonical.strides)]
    got = [s if n > 1 else None for n, s in zip(sizes, layout_strides(order, sizes))]
    assert got == expected
    t = StridedTensor.from_array(canonical)
    assert t.desc.is_packed


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_padding_adds_slots_after_each_run(data):
    sizes = tuple(data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=4)))
    order = tuple(data.draw(st.permutations(range(len(sizes)))))
    pads = {i: data.draw(st.integers(0, 3)) for i in order[1:]}
    strides = layout_strides(order, sizes, padding=pads)
    # the same layout as a slice of a larger packed array in memory order
    big_shape = tuple(sizes[i] + pads.get(i, 0) for i in order)
    big = np.empty(big_shape, dtype=np.uint8)
    window = big[tuple(slice(0, sizes[i]) for i in order)].transpose(np.argsort(order))
    expected = [s if n > 1 else None for n, s in zip(sizes, window.strides)]
    assert [s if n > 1 else None for n, s in zip(sizes, strides)] == expected
