"""The operators: each validates and plans in plain Python, then runs one backend primitive.

``cumulative_summation``, ``cumulative_product``, ``slice1`` and ``element_wise_identity`` follow the
DirectML operator pages (``DML_CUMULATIVE_SUMMATION_OPERATOR_DESC``,
``DML_CUMULATIVE_PRODUCT_OPERATOR_DESC``, ``DML_SLICE1_OPERATOR_DESC``,
``DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC``) on buffers with any strides. The work runs where the
input lives: ``_numpy`` for numpy buffers, ``cupy.runtime`` (imported only then) for cupy buffers; GPU
kernels are compiled on first use, or ahead with ``precompile``; ``traffic`` predicts the sectors and
requests of the kernels a call would launch.
"""

from ._precompile import precompile
from .cumulative_product import cumulative_product
from .cumulative_summation import cumulative_summation
from .element_wise_identity import element_wise_identity
from .slice1 import slice1
from .traffic import Traffic, TrafficDevice, traffic

__all__ = [
    "Traffic",
    "TrafficDevice",
    "cumulative_product",
    "cumulative_summation",
    "element_wise_identity",
    "precompile",
    "slice1",
    "traffic",
]
