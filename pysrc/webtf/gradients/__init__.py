"""Gradients of kernels, registered by kernel name, and the API that computes them (tf.grad, ...).

While a gradient is computed the engine records every kernel call on a tape (tape.py); backprop looks up
each kernel's GradConfig (registry.py). The configs live by family in the modules imported below.
"""

from . import (  # noqa: F401  (register the gradients)
    activation,
    binary,
    complex,
    conv,
    conv3d,
    image,
    matmul,
    norm,
    pool,
    reduce,
    shape,
    slicing,
    unary,
)
from .api import (
    ValueAndGrad,
    ValueAndGrads,
    custom_grad,
    dispose_variables,
    grad,
    grads,
    value_and_grad,
    value_and_grads,
    variable_grads,
)
from .registry import (
    GradConfig,
    GradFunc,
    get_gradient,
    register_gradient,
    registered_gradients,
    unregister_gradient,
)

__all__ = [
    "GradConfig", "GradFunc", "ValueAndGrad", "ValueAndGrads", "custom_grad", "dispose_variables", "get_gradient",
    "grad", "grads", "register_gradient", "registered_gradients", "value_and_grad", "value_and_grads",
    "variable_grads", "unregister_gradient",
]  # fmt: skip
