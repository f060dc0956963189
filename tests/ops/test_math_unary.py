"""acosh, asinh, atanh and log_sigmoid against numpy, special values included."""

import numpy as np

from tests.helpers import Rand

_R = Rand(15)


def test_inverse_hyperbolic_and_log_sigmoid(run):
    x = _R.of((3, 4), "float32", -3, 3)
    special = np.array([1.0, -1.0, 0.0, np.inf, -np.inf, np.nan, 0.999, 1e-3], np.float32)
    out = run(
        "[tf.acosh(x1), tf.asinh(x), tf.atanh(x4), tf.log_sigmoid(x), tf.acosh(s), tf.asinh(s), "
        "tf.atanh(s), tf.log_sigmoid(s), tf.acosh(i), tf.log_sigmoid(b)]",
        x=x,
        x1=np.abs(x) + 1,
        x4=x / 4,
        s=special,
        i=np.array([1, 2, 3], np.int32),
        b=np.array([True, False]),
    )
    tol = dict(rtol=run.tol * 10, atol=run.tol * 10)
    with np.errstate(all="ignore"):
        refs = [np.arccosh(np.abs(x) + 1), np.arcsinh(x), np.arctanh(x / 4), -np.logaddexp(0, -x),
                np.arccosh(special), np.arcsinh(special), np.arctanh(special), -np.logaddexp(0, -special),
                np.arccosh([1.0, 2, 3]), -np.logaddexp(0, -np.array([1.0, 0.0]))]  # fmt: skip
    for got, ref in zip(out, refs, strict=True):
        assert got.dtype == np.float32 and got.shape == np.shape(ref)
        np.testing.assert_allclose(got, ref, **tol)
