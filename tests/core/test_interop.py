"""numpy interop on both host backends: Tensor.numpy() / numpy_async() / np.asarray(t), tf.tensor from numpy
arrays and scalars, memoryview, array.array and bytes-like objects, and the path where numpy is absent."""

import os
import subprocess
import sys
from array import array
from pathlib import Path

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync

SHAPES = [(), (0,), (3,), (2, 0, 4), (2, 3), (2, 3, 4)]
NP = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}
rng = np.random.default_rng(22)


def _values(shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int32":
        return rng.integers(-(2**31), 2**31, size=shape, dtype=np.int64).astype(np.int32)
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture(params=["cpu", "numpy"])
def backend(request):
    """Each test on both host backends; tf.memory().num_tensors must come back to where it started."""
    previous = tf.get_backend()
    assert run_sync(tf.set_backend(request.param))
    before = tf.memory().num_tensors
    yield request.param
    assert tf.memory().num_tensors == before, "tensors leaked"
    run_sync(tf.set_backend(previous))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trip_per_dtype_and_shape(backend, dtype, shape):
    src = _values(shape, dtype)
    t = tf.tensor(src)
    assert (t.dtype, t.shape) == (dtype, shape)
    out = t.numpy()
    assert out.dtype == NP[dtype] and out.shape == shape
    np.testing.assert_array_equal(out, src)
    np.testing.assert_array_equal(np.asarray(t), src)
    np.testing.assert_array_equal(run_sync(t.numpy_async()), src)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert out.flags.writeable and out.flags.c_contiguous
    out[...] = 0  # a copy: the tensor keeps its values
    np.testing.assert_array_equal(t.numpy(), src)
    t.dispose()


def test_array_of_a_tensor_never_views(backend):
    t = tf.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="copy=False"):
        t.__array__(copy=False)
    t.dispose()


@pytest.mark.parametrize(
    ("src", "dtype", "want"),
    [
        (
            np.array([1.5, -2.25, 1e300, np.nan]),
            "float32",
            np.array([1.5, -2.25, np.inf, np.nan], np.float32),
        ),
        (np.array([0.5, 2.0], np.float16), "float32", np.array([0.5, 2.0], np.float32)),
        (
            np.array([1, 2**31, -(2**31) - 1, 2**40 + 7], np.int64),
            "int32",
            np.array([1, -(2**31), 2**31 - 1, 7]),
        ),
        (np.array([0, 255], np.uint8), "int32", np.array([0, 255])),
        (np.array([2**32 - 1], np.uint32), "int32", np.array([-1])),
        (np.array([-3], np.int8), "int32", np.array([-3])),
        (np.array([True, False]), "bool", np.array([True, False])),
    ],
)
def test_tensor_from_ndarray_casts_like_tfjs(backend, src, dtype, want):
    t = tf.tensor(src)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), want.astype(NP[dtype]))
    t.dispose()


def test_explicit_dtype_casts_like_typed_arrays(backend):
    x = np.array([1.7, -1.7, np.nan, np.inf, 2.0**33 + 5, 0.0])
    checks = [
        (tf.tensor(x, dtype="int32"), [1, -1, 0, 0, 5, 0]),
        (tf.tensor(x, dtype="bool"), [True, True, True, True, True, False]),
        (tf.tensor(np.array([0, 3, -2]), dtype="float32"), [0.0, 3.0, -2.0]),
        (tf.tensor(np.array([True, False]), dtype="int32"), [1, 0]),
    ]
    for t, want in checks:
        assert t.numpy().tolist() == want
    tf.dispose([t for t, _ in checks])


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a.T,
        lambda a: a[::2, ::-1],
        lambda a: np.asfortranarray(a),
        lambda a: a[:, 1],
        lambda a: np.broadcast_to(a[:1], (3, 4)),
    ],
)
def test_non_contiguous_arrays(backend, view):
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    src = view(base)
    t = tf.tensor(src)
    assert t.shape == src.shape
    np.testing.assert_array_equal(t.numpy(), src.astype(np.float32))
    base[...] = -1  # one copy at creation: the tensor does not alias the source
    assert (t.numpy() >= 0).all()
    t.dispose()


def test_shape_argument_and_reshape(backend):
    t = tf.tensor(np.arange(6, dtype=np.int64), [2, 3])
    assert t.shape == (2, 3) and t.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="Error in tensor: based on the provided shape"):
        tf.tensor(np.arange(6), [4])
    t.dispose()


def test_numpy_scalars(backend):
    cases = [
        (np.float32(2.5), "float32", 2.5),
        (np.float64(-1.25), "float32", -1.25),
        (np.int64(7), "int32", 7),
    ]
    cases.append((np.bool_(True), "bool", True))
    for value, dtype, want in cases:
        for t in (tf.tensor(value), tf.scalar(value)):
            assert (t.dtype, t.shape, t.numpy().item()) == (dtype, (), want)
            t.dispose()
    t = tf.tidy(lambda: tf.add(tf.scalar(1.0), np.float32(2)))
    assert t.numpy().item() == 3.0
    t.dispose()


def test_memoryview_array_and_bytes(backend):
    cases = [
        (memoryview(np.arange(6, dtype=np.float64).reshape(2, 3)), "float32", (2, 3), [[0, 1, 2], [3, 4, 5]]),
        (memoryview(np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::2]), "int32", (2, 2), [[0, 2], [3, 5]]),
        (array("d", [0.5, 1.5]), "float32", (2,), [0.5, 1.5]),
        (array("b", [-1, 2]), "int32", (2,), [-1, 2]),
        (b"\x01\xff", "int32", (2,), [1, 255]),
        (bytearray(b"\x00\x02"), "int32", (2,), [0, 2]),
    ]
    for src, dtype, shape, want in cases:
        t = tf.tensor(src)
        assert (t.dtype, t.shape, t.numpy().tolist()) == (dtype, shape, want)
        t.dispose()


def test_unsupported_buffers_name_the_op(backend):
    with pytest.raises(TypeError, match=r"Error in tensor: argument 'values'.*kind 'c'"):
        tf.tensor(np.array([1 + 2j]))
    with pytest.raises(TypeError, match=r"Error in tensor: argument 'values'.*kind 'U'"):
        tf.tensor(np.array(["a"]))


def test_without_numpy_numpy_raises_and_data_remains(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now raises ImportError
    t = tf.tensor([[1, 2], [3, 4]])
    with pytest.raises(ImportError, match=r"Tensor.numpy\(\) needs numpy.*data_sync\(\)"):
        t.numpy()
    with pytest.raises(ImportError, match="needs numpy"):
        run_sync(t.numpy_async())
    assert run_sync(t.data()).tolist() == [1, 2, 3, 4]
    mixed = [
        (memoryview(array("d", [1.5, -2.0])), "float32", [1.5, -2.0]),
        (memoryview(array("f", [0.25])), "float32", [0.25]),
        (memoryview(array("f", [1, 2, 3, 4]))[::-2], "float32", [4.0, 2.0]),
        (memoryview(array("q", [2**40 + 3, -1])), "int32", [3, -1]),
        (b"\x03\x04", "int32", [3, 4]),
        (memoryview(bytes([1, 0, 1])).cast("?"), "bool", [1, 0, 1]),
    ]
    for src, dtype, want in mixed:
        u = tf.tensor(src)
        assert (u.dtype, u.data_sync().tolist()) == (dtype, want)
        u.dispose()
    u = tf.tensor(memoryview(array("d", [1.9, -1.9, float("nan")])), dtype="int32")
    assert u.data_sync().tolist() == [1, -1, 0]
    tf.dispose([t, u])


def test_import_without_numpy_registers_no_numpy_backend():
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import webtf as tf\n"
        "assert 'numpy' not in tf.ENGINE.factories, tf.ENGINE.factories\n"
        "assert tf.get_backend() == 'cpu'\n"
        "print(tf.tensor([1.0, 2.0]).add(1).data_sync().tolist())\n"
    )
    pysrc = str(Path(__file__).resolve().parents[2] / "pysrc")
    env = {**os.environ, "PYTHONPATH": pysrc}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[2.0, 3.0]"


def test_numpy_backend_is_the_host_default():
    assert tf.ENGINE.factories["numpy"][1] > tf.ENGINE.factories["cpu"][1]
    engine = tf.ENGINE.__class__()
    for name, (factory, priority) in tf.ENGINE.factories.items():
        engine.register_backend(name, factory, priority)
    assert engine.backend_name is None and engine.backend.name == "numpy"
