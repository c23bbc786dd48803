"""The shared argument checks: integers with a lower bound, and keyword arguments a function takes."""

import numpy as np
import pytest

from stridelab import LayoutError
from stridelab._validate import at_least, int_tuple, int_value, known_keywords, layout_error, shown


def test_int_value_takes_integers_and_names_the_field_otherwise():
    assert int_value("n", 3) == 3
    for bad, text in ((True, "bool"), (2.0, "float (2.0)"), ("2", "str ('2')")):
        with pytest.raises(TypeError) as error:
            int_value("n", bad)
        assert str(error.value) == f"n must be an integer, not {text}"


def test_int_tuple_names_the_bad_entry():
    assert int_tuple("sizes", [1, 2]) == (1, 2)
    with pytest.raises(TypeError, match=r"^sizes\[1\] must be an integer, not float \(2.5\)$"):
        int_tuple("sizes", [1, 2.5])


def test_at_least_names_the_field_the_value_and_the_bound():
    assert at_least("limit", 1, 1) == 1
    with pytest.raises(LayoutError, match=r"^limit = 0: it must be at least 1$"):
        at_least("limit", 0, 1)


def test_known_keywords_refuses_what_the_function_does_not_take():
    @known_keywords
    def view(source, *, max_cells=5, columns=16):
        return source, max_cells, columns

    assert view(1, max_cells=2) == (1, 2, 16)
    assert view(source=1) == (1, 5, 16)
    with pytest.raises(TypeError) as error:
        view(1, maxcells=2)
    assert str(error.value) == (
        "view() got an unexpected keyword argument 'maxcells' (did you mean 'max_cells'?); "
        "it takes: source, max_cells, columns"
    )
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'zzz'; it takes"):
        view(1, zzz=2)


class CountedRepr:
    """An item that counts how often its repr is asked for."""

    calls = 0

    def __repr__(self):
        CountedRepr.calls += 1
        return "c"


class HugeSized:
    """A collection that says it is huge, and whose repr must never be asked for."""

    def __len__(self):
        return 10**9

    def __iter__(self):
        return iter(())

    def __repr__(self):
        raise AssertionError("the whole repr was built")


def test_shown_keeps_short_values_as_their_repr():
    assert shown([3]) == "[3]"
    assert shown((1,)) == "(1,)"
    assert shown(()) == "()"
    assert shown(set()) == "set()"
    assert shown({1, 3}) == "{1, 3}"
    assert shown(frozenset({2})) == "frozenset({2})"
    assert shown({"a": [1, 2]}) == "{'a': [1, 2]}"
    assert shown("FLOAT32") == "'FLOAT32'"
    assert shown(2**70) == "1180591620717411303424"
    assert shown(np.zeros((2, 3), np.float32)) == "of shape (2, 3) and dtype float32"


def test_shown_gives_a_long_sequence_by_its_first_items_and_length():
    assert shown([1] * 10**6, width=20) == "[1, 1, 1, 1, 1, ...] (1000000 items)"
    assert shown(tuple(range(100)), width=20) == "(0, 1, 2, 3, 4, ...) (100 items)"
    assert shown([[1] * 1000], width=30) == "[[1, 1, 1, 1, 1, 1, 1, 1, ...] (1000 items)]"


def test_shown_never_builds_the_repr_of_a_huge_value():
    CountedRepr.calls = 0
    text = shown([CountedRepr()] * 10**7)
    assert text.endswith("(10000000 items)") and len(text) < 100
    assert CountedRepr.calls <= 30  # only the items shown, of ten million
    assert shown(HugeSized()) == "<HugeSized of 1000000000 items>"
    assert shown([HugeSized()]) == "[<HugeSized of 1000000000 items>]"


def test_shown_gives_long_text_by_its_first_characters_and_length():
    assert shown("x" * 10**7, width=20) == "'xxxxxxxxxx'... (10000000 characters)"
    assert shown(b"\0" * 1000, width=20) == "b'\\x00\\x00'... (1000 bytes)"  # escapes count
    assert shown("x" * 61) == "'" + "x" * 50 + "'... (61 characters)"


def test_shown_survives_values_that_resist_being_shown():
    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert shown(Broken()) == "<Broken object>"
    assert shown(10**5000) == "an integer of 16610 bits"  # str() would refuse past 4300 digits
    deep: list = [1]
    for _ in range(10_000):
        deep = [deep]
    assert len(shown(deep)) < 100


def test_shown_in_json_style_writes_json_literals():
    value = {"DataType": "FLOAT", "Signed": True, "Default": None, "Sizes": (2, 3)}
    expected = '{"DataType": "FLOAT", "Signed": true, "Default": null, "Sizes": [2, 3]}'
    assert shown(value, json=True, width=80) == expected
    assert shown("FLOAT", json=True) == '"FLOAT"'
    assert shown("x" * 100, json=True) == '"' + "x" * 50 + '"... (100 characters)'


def test_layout_error_names_the_field_the_shortened_value_and_the_rule():
    error = layout_error("sizes", [1] * 10**6, "DirectML tensors have 1 to 8 dimensions")
    assert isinstance(error, LayoutError)
    assert str(error) == (
        "sizes = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ...] (1000000 items): "
        "DirectML tensors have 1 to 8 dimensions"
    )
