"""The numpy backend itself: every cpu kernel has a vectorized twin, and float math never warns (as in JS).

The op suite (tests/ops, target host-numpy) checks the kernels' values against numpy oracles."""

import warnings

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf.backends.cpu import KERNELS as CPU_KERNELS
from webtf.backends.numpy import NATIVE


def test_every_cpu_kernel_is_vectorized():
    assert sorted(set(CPU_KERNELS) - set(NATIVE)) == [], "cpu kernels that run as fallbacks on numpy"


@pytest.fixture
def on_numpy():
    previous = tf.get_backend()
    assert run_sync(tf.set_backend("numpy"))
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before
    run_sync(tf.set_backend(previous))


def test_float_edge_cases_give_inf_and_nan_silently(on_numpy):
    def work():
        x = tf.tensor([0.0, -1.0, 1e30, float("inf")])
        return [tf.div(1.0, x), tf.log(x), tf.exp(tf.mul(x, 1e10)), tf.sub(x, x), tf.cast(x, "int32")]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = tf.tidy(work)
    got = [t.numpy() for t in outs]
    tf.dispose(outs)
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(got[0], np.float32([inf, -1.0, np.float32(1) / np.float32(1e30), 0.0]))
    np.testing.assert_array_equal(got[1], np.float32([-inf, nan, np.log(np.float32(1e30)), inf]))
    np.testing.assert_array_equal(got[2], np.float32([1.0, 0.0, inf, inf]))
    np.testing.assert_array_equal(got[3], np.float32([0.0, 0.0, 0.0, nan]))
    np.testing.assert_array_equal(got[4], [0, -1, 0, 0])  # an Int32Array stores inf as 0; 1e30 wraps to 0


def test_cpu_kernels_run_on_numpy_storage(on_numpy):
    """The cpu table's kernels read values() and write output() here too (the fallback seam)."""
    x = tf.tensor([[1.0, -2.0], [3.0, 4.0]])
    info = CPU_KERNELS["Relu"](tf.backend(), {"x": x}, {})
    y = tf.ENGINE.wrap(info, tf.backend())
    assert y.numpy().tolist() == [[1.0, 0.0], [3.0, 4.0]]
    tf.dispose([x, y])
