"""The course's exercises as a student meets them: every exercise of notebooks 01 to 06 with its
solution (read back from the notebooks, so this table cannot drift from them), the mistakes each
checker names, and no hint that hands over an answer: wrong answers of every kind (the usual
mistakes, other exercises' solutions, each number off by one, wrong types) are checked against
every exercise's solution."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridelab as sl
from stridelab import exercises
from stridelab._validate import shown

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

# The names each notebook's exercise cells use, built as the notebooks build them.
GIVENS: dict[str, dict[str, Any]] = {
    "01": {
        "dhw": sl.TensorDesc("UINT8", (2, 2, 3)),
        "column_major": sl.TensorDesc("UINT8", (2, 3), sl.layout_strides("WH", (2, 3))),
    },
    "02": {},
    "03": {"nhwc_desc": sl.TensorDesc("FLOAT32", (1, 3, 2, 2), sl.layout_strides("NHWC", (1, 3, 2, 2)))},
    "04": {"x": np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], dtype=np.float32)},
    "05": {"x": np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)},
    "06": {},
}

# (notebook, the exercise cell's call, its solution, [(a usual mistake, the words its hint must say)]);
# solutions and mistakes worked out by hand from the notebooks' own numbers.
COURSE: list[tuple[str, str, Any, list[tuple[Any, str]]]] = [
    ("01", 'exercises.check_offset(answer, dhw, "K")', 10, [
        (20, "coordinates count from 0"),  # (2, 2, 2) . (6, 3, 1)
        (9, "dimension 2's term"),  # 10 - 1 * 1
        (7, "row-major and column-major swapped"),  # (1, 1, 1) . (1, 2, 4)
        (11, "offset 11 holds L, not K"),
    ]),
    ("01", 'exercises.check_strides(answer, (2, 3), "WH")', (1, 2), [
        ((3, 1), "row-major and column-major swapped"),
        ((2, 1), "listed in memory order (W, H)"),
        ((1, 3), "W's stride is off"),
    ]),
    ("01", "exercises.check_offset(answer, column_major, (1, 1))", 3, [
        (4, "row-major and column-major swapped"),  # (1, 1) . (3, 1)
        (2, "dimension 0's term"),  # 3 - 1 * 1
        (6, "coordinates count from 0"),  # (2, 2) . (1, 2)
    ]),
    ("02", 'exercises.check_buffer_size(answer, "FLOAT16", (2, 3), (4, 1))', 16, [
        (14, "4-byte rounding is forgotten"),  # 7 elements * 2 bytes
        (7, "counts elements"),
        (12, "counts the logical elements"),
    ]),
    ("02", 'exercises.check_buffer_size(answer, "INT16", (4, 3), (0, 1))', 8, [
        (24, "counts the logical elements"),
        (6, "4-byte rounding is forgotten"),
        (3, "counts elements"),
    ]),
    ("03", 'exercises.check_strides(answer, (1, 3, 2, 2), "NHWC")', (12, 1, 6, 3), [
        ((12, 4, 2, 1), "those are the NCHW strides"),
        ((12, 6, 3, 1), "listed in memory order (N, H, W, C)"),
        ((0, 1, 6, 3), "only the stride of N is off, a dimension of size 1"),
        ((12, 1, 6, 2), "W's stride is off"),
        ((12, 3, 6, 1), "innermost dimension (C) has stride 1"),
    ]),
    ("03", "exercises.check_offset(answer, nhwc_desc, (0, 2, 1, 0))", 8, [
        (10, "offset in the packed row-major layout (NCHW)"),  # (0, 2, 1, 0) . (12, 4, 2, 1)
        (32, "offset in bytes"),
        (7, "pairs the coordinates with the wrong strides"),  # (0, 1, 0, 2) . (12, 1, 6, 3)
        (6, "dimension 1's term"),  # 8 - 2 * 1
    ]),
    ("04", 'exercises.check_cumulative_summation(answer, x, axis=3, direction="decreasing", exclusive=True)',
     [[[[9, 8, 5, 0], [18, 10, 3, 0], [12, 6, 4, 0]]]], [
        ([[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]], "this sum is exclusive"),  # the page's example 3
        ([[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]], "runs the other way"),  # the page's example 2
        ([[[[9, 8, 5, 0], [18, 10, 3, 0], [12, 6, 4, 1]]]], "1 of 12 outputs differs, the first at output[0, 0, 2, 3]"),
    ]),
    ("04", "exercises.check_cumulative_summation(answer, x, axis=2, exclusive=True)",
     [[[[0, 0, 0, 0], [2, 1, 3, 5], [5, 9, 10, 8]]]], [
        ([[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]], "this sum is exclusive"),  # the page's example 4
        ([[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]], "sums along axis 3; this sum runs along axis 2"),
        ([[[[12, 14, 9, 7], [9, 6, 2, 4], [0, 0, 0, 0]]]], "that runs the other way"),  # decreasing, exclusive
    ]),
    ("05", "exercises.check_slice1(answer, x, (0, 0, 1, 0), (1, 1, 3, 4), (1, 1, 1, -3))",
     [[[[8, 5], [12, 9], [16, 13]]]], [
        ([[[[5, 8], [9, 12], [13, 16]]]], "window_strides[3] is negative"),
        ([[[[8, 5], [12, 9]]]], "end along dimension 2 is off by one"),
        ([[[[8, 4], [12, 9], [16, 13]]]], "1 of 6 outputs differs, the first at output[0, 0, 0, 1]"),
    ]),
    ("05", "exercises.check_slice1(answer, x, (0, 0, 1, 1), (1, 1, 2, 2), (1, 1, -1, -1))", [[[[11, 10], [7, 6]]]], [
        ([[[[7, 6], [11, 10]]]], "window_strides[2] is negative"),
        ([[[[10, 11], [6, 7]]]], "window_strides[3] is negative"),
        ([[[[6, 7], [10, 11]]]], "window_strides[2] and window_strides[3] are negative"),
    ]),
    ("06", 'exercises.check_strides(answer, (4, 3), "WH", data_type="FLOAT32")', (1, 4), [
        ((4, 16), "byte strides"),  # NumPy's a.T.strides
        ((3, 1), "row-major and column-major swapped"),
        ((4, 1), "listed in memory order (W, H)"),
    ]),
    ("06", 'exercises.check_strides(answer, (2, 3, 4, 4), "NHWC", data_type="FLOAT32")', (48, 1, 12, 3), [
        ((48, 16, 4, 1), "those are the NCHW strides"),
        ((192, 4, 48, 12), "byte strides"),
        ((48, 12, 3, 1), "listed in memory order (N, H, W, C)"),
        ((48, 1, 3, 12), "W's stride is off"),
    ]),
    ("06", 'exercises.check_buffer_size(answer, "FLOAT32", (4, 3), (0, 1))', 12, [
        (48, "counts the logical elements"),
        (3, "counts elements"),
    ]),
]  # fmt: skip
IDS = [f"{notebook}-{call.split('(')[0].split('.')[1]}-{i}" for i, (notebook, call, _, _) in enumerate(COURSE)]
WRONG_TYPES = [10.0, "10", None, {}, object(), 1 + 0j, True, np.float64(3.0), "[[1, 2]]", [[1.5, "x"]]]


def check(notebook: str, call: str, answer: Any) -> exercises.Feedback:
    namespace = {"exercises": exercises, "answer": answer, **GIVENS[notebook]}
    return eval(call, namespace)  # the exercise cell's own call


def test_the_table_is_the_notebooks_exercises_and_their_solutions():
    """Each exercise cell's call, and the solution its tagged solution cell checks, in order."""
    found = []
    for notebook in GIVENS:
        (path,) = NOTEBOOKS.glob(f"{notebook}-*.ipynb")
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        calls = [_call("".join(c["source"])) for c in cells if "answer = ...\n" in "".join(c["source"])]
        solutions = [_solution("".join(c["source"])) for c in cells if "solution" in c["metadata"].get("tags", [])]
        assert len(calls) == len(solutions), path.name
        found += [(notebook, *pair) for pair in zip(calls, solutions)]
    table = [(notebook, ast.dump(ast.parse(call)), solution) for notebook, call, solution, _ in COURSE]
    assert [(notebook, ast.dump(ast.parse(call)), solution) for notebook, call, solution in found] == table


def _call(source: str) -> str:
    """The checker call at the end of an exercise cell."""
    return source.strip().splitlines()[-1]


def _solution(markdown: str) -> Any:
    """The answer a solution cell's code block hands to its checker (a literal, or ``answer = ...``)."""
    code = re.search(r"```python\n(.*?)```", markdown, re.S)[1]
    statements = ast.parse(code).body
    first = statements[-1].value.args[0]
    if isinstance(first, ast.Name):
        (assignment,) = [s for s in statements if isinstance(s, ast.Assign) and s.targets[0].id == first.id]
        first = assignment.value
    return ast.literal_eval(first)


@pytest.mark.parametrize(("notebook", "call", "solution", "mistakes"), COURSE, ids=IDS)
def test_each_solution_is_right_and_each_usual_mistake_is_named(notebook, call, solution, mistakes):
    assert check(notebook, call, solution).correct
    for answer, words in mistakes:
        feedback = check(notebook, call, answer)
        assert feedback.correct is False and words in feedback.message, (answer, feedback.message)


def _forms(solution: Any) -> list[re.Pattern]:
    """How a hint would state ``solution``: a tuple or list in brackets of either kind, or an integer
    as an offset, a number of bytes or of elements."""
    if isinstance(solution, int):
        return [re.compile(rf"offset {solution}(?!\d)|(?<![\d.]){solution} (bytes|elements)")]
    flat = ",\\s*".join(str(v) for v in np.ravel(solution).tolist())
    depth = np.ndim(solution)
    return [re.compile(rf"[\[(]{{{depth}}}{flat}[\])]")] if depth == 1 else [re.compile(re.escape(str(solution)))]


def _wrong_answers(solution: Any) -> list[Any]:
    """Near misses of ``solution``: each number one off, scaled to bytes, reversed; wrong types."""
    if isinstance(solution, int):
        return [solution - 1, solution + 1, 2 * solution, 4 * solution, 0, -1, *WRONG_TYPES]
    values = np.array(solution)
    near = []
    for index in np.ndindex(values.shape):
        for step in (-1, 1):
            changed = values.copy()
            changed[index] += step
            near.append(changed.tolist())
    if values.ndim == 1:
        near += [tuple(values[::-1].tolist()), tuple((values * 4).tolist()), tuple(sorted(values.tolist()))]
    else:
        near += [values[..., ::-1].tolist(), values[..., ::-1, :].tolist(), values[..., :-1].tolist()]
    return [tuple(a) if values.ndim == 1 and isinstance(a, list) else a for a in near] + WRONG_TYPES


@pytest.mark.parametrize(("notebook", "call", "solution", "mistakes"), COURSE, ids=IDS)
def test_no_hint_contains_an_answer(notebook, call, solution, mistakes):
    """Not this exercise's answer, nor any other exercise's: only the student's own answer (echoed)
    and the exercise's givens may appear in a hint."""
    answers = [a for a, _ in mistakes] + [other for _, _, other, _ in COURSE] + _wrong_answers(solution)
    for answer in answers:
        if _equal(answer, solution):
            continue
        feedback = check(notebook, call, answer)
        assert feedback.correct is False, answer
        message = feedback.message.replace(shown(answer), "")  # the student's own answer, echoed
        for other in (other for _, _, other, _ in COURSE if not _equal(other, answer)):
            for form in _forms(other):
                assert not form.search(message), (answer, other, feedback.message)


def _equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is not str and np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    except ValueError:  # ragged
        return False


@pytest.mark.parametrize(("notebook", "call", "solution", "mistakes"), COURSE, ids=IDS)
@pytest.mark.parametrize("answer", WRONG_TYPES, ids=[type(a).__name__ + str(i) for i, a in enumerate(WRONG_TYPES)])
def test_any_wrong_type_of_answer_is_not_yet_with_the_type_to_give(notebook, call, solution, mistakes, answer):
    feedback = check(notebook, call, answer)
    assert feedback.correct is False and feedback.answered
    assert feedback.message.startswith("give ") and f"not {type(answer).__name__}" in feedback.message


def test_the_placeholder_and_the_verdicts_look_different_at_a_glance():
    notebook, call, solution, ((wrong, _), *_) = COURSE[0]
    placeholder, right, not_yet = (check(notebook, call, a) for a in (..., solution, wrong))
    texts = [f._repr_mimebundle_()["text/plain"] for f in (right, not_yet, placeholder)]
    assert texts == [
        "✓ right: element K, at (1, 1, 1), is at offset 10",
        "✗ not yet: coordinates count from 0: the first element along each dimension is at coordinate 0",
        "○ not yet: replace ... with your answer: an offset, in elements",
    ]
    html = [f._repr_mimebundle_()["text/html"] for f in (right, not_yet, placeholder)]
    colours = [re.search(r"border-left:6px solid (#[0-9a-f]{6})", h)[1] for h in html]
    assert len(set(colours)) == 3  # green, amber, grey
    assert html[0].endswith("<b>✓ right:</b> element K, at (1, 1, 1), is at offset 10</div>")
    assert html[1].count("not yet") == 1 and "✗" in html[1]
    assert (repr(right), str(not_yet)) == (right.message.join(["right: ", ""]), "not yet: " + not_yet.message)
