"""The shared argument checks: integers with a lower bound, and keyword arguments a function takes."""

import pytest

from stridelab import LayoutError
from stridelab._validate import at_least, int_tuple, int_value, known_keywords


def test_int_value_takes_integers_and_names_the_field_otherwise():
    assert int_value("n", 3) == 3
    for bad, shown in ((True, "bool"), (2.0, "float (2.0)"), ("2", "str ('2')")):
        with pytest.raises(TypeError) as error:
            int_value("n", bad)
        assert str(error.value) == f"n must be an integer, not {shown}"


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
