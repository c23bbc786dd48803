"""The public API's types as a user's code sees them: checked by mypy (``make test``), never run.

Each ``assert_type`` fails the type check where an annotation changes what a call gives.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # checked by mypy; pytest's --doctest-modules imports this file, and nothing runs
    from typing import Any

    import numpy as np
    import numpy.typing as npt
    from typing_extensions import assert_type

    import stridelab as sl
    from stridelab import dxdispatch

    x32 = np.zeros((1, 2, 3, 4), np.float32)
    x16 = np.zeros((2, 3), np.float16)
    desc = sl.TensorDesc("FLOAT32", (1, 2, 3, 4))
    tensor = sl.StridedTensor.empty(desc)

    # a result of the input's kind and dtype, or out where it is given
    assert_type(sl.cumulative_summation(x32, 3), npt.NDArray[np.float32])
    assert_type(sl.cumulative_summation(x16, 0, direction="decreasing", exclusive=True), npt.NDArray[np.float16])
    assert_type(sl.cumulative_summation(tensor, 1), sl.StridedTensor)
    assert_type(sl.cumulative_summation(x32, 1, out=tensor), sl.StridedTensor)
    assert_type(sl.cumulative_product(x32, 2), npt.NDArray[np.float32])
    assert_type(sl.cumulative_product(tensor, 0, out=tensor), sl.StridedTensor)
    assert_type(sl.slice1(x32, (0, 0, 0, 0), (1, 2, 3, 4), (1, 1, 1, -1)), npt.NDArray[np.float32])
    assert_type(sl.slice1(tensor, (0, 0, 0, 0), (1, 2, 3, 4), (1, 1, 1, 1)), sl.StridedTensor)
    assert_type(sl.slice1(x32, (0, 0, 0, 0), (1, 2, 3, 4), (1, 1, 1, 1), out=tensor), sl.StridedTensor)
    assert_type(sl.element_wise_identity(x32, tensor), sl.StridedTensor)

    # NumPy integers and bools wherever an int or a bool is taken (they are accepted at run time)
    three = np.int64(3)
    assert_type(sl.cumulative_summation(x32, three, exclusive=np.True_), npt.NDArray[np.float32])
    assert_type(sl.slice1(x32, (three, 0, 0, 0), (1, 2, 3, 4), (1, 1, 1, 1)), npt.NDArray[np.float32])
    assert_type(sl.TensorDesc("FLOAT32", (three, 2)), sl.TensorDesc)
    assert_type(sl.calculate_strides("NCHW", (three, 2, 3, 4), broadcast=(np.False_,) * 4), tuple[int, int, int, int])
    assert_type(sl.overlap(desc, desc, a_offset=three), "tuple[tuple[int, ...], tuple[int, ...]] | None")

    # descriptions and layouts
    assert_type(desc.sizes, tuple[int, ...])
    assert_type(desc.buffer_size, int)
    assert_type(sl.TensorDesc.parse("FLOAT32 (2,3):(3,1)"), sl.TensorDesc)
    assert_type(sl.calculate_strides("NHWC", (1, 2, 3, 4)), tuple[int, int, int, int])
    assert_type(sl.layout_strides("HW", (2, 3), padding={"W": 2}), tuple[int, ...])
    assert_type(sl.overlap(desc, desc, a_offset=0, b_offset=1), "tuple[tuple[int, ...], tuple[int, ...]] | None")
    assert_type(sl.explain(desc), sl.LayoutReport)
    assert_type(sl.render_svg(desc), str)
    assert_type(tensor.to_array(), Any)

    # DxDispatch models
    model = dxdispatch.load("model.json")
    assert_type(model, dxdispatch.Model)
    assert_type(model.run("numpy", 3), dict[str, Any])
