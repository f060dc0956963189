"""Host tests of the engine: memory accounting, tidy/dispose/keep, backends, kernels, profile, modes."""

from array import array

import pytest

import webtf as tf
from tests.harness.aio import run_sync
from webtf.backends.cpu import CpuBackend
from webtf.backends.cpu.kernels import KERNELS as CPU_KERNELS


@pytest.fixture(autouse=True)
def _on_cpu():
    """These tests drive the engine through the cpu backend (the host default is numpy where it imports)."""
    previous = tf.get_backend()
    run_sync(tf.set_backend("cpu"))
    yield
    run_sync(tf.set_backend(previous))


@pytest.fixture(autouse=True)
def _memory_returns(_on_cpu):
    before = tf.memory()
    yield
    after = tf.memory()
    assert (after.num_tensors, after.num_bytes, after.num_data_buffers) == (
        before.num_tensors,
        before.num_bytes,
        before.num_data_buffers,
    )


def test_memory_counts_bytes_and_buffers():
    m0 = tf.memory()
    a = tf.tensor([1.0, 2.0, 3.0])
    b = tf.tensor([[1, 2], [3, 4]])
    c = tf.tensor([True, False, True])
    m = tf.memory()
    assert m.num_tensors - m0.num_tensors == 3
    assert m.num_data_buffers - m0.num_data_buffers == 3
    assert m.num_bytes - m0.num_bytes == 3 * 4 + 4 * 4 + 3 * 1
    clone = tf.clone(a)  # shares a's buffer: one more tensor, no more bytes
    m2 = tf.memory()
    assert (m2.num_tensors, m2.num_data_buffers, m2.num_bytes) == (
        m.num_tensors + 1,
        m.num_data_buffers,
        m.num_bytes,
    )
    a.dispose()
    assert clone.data_sync().tolist() == [1.0, 2.0, 3.0]  # the shared buffer outlives a
    tf.dispose([clone, {"b": b, "c": (c,)}])
    assert tf.memory().num_tensors == m0.num_tensors
    a.dispose()  # idempotent


def test_tidy_frees_all_but_results_nested():
    n0 = tf.memory().num_tensors
    kept = []

    def inner():
        tf.ones([2])
        kept.append(tf.keep(tf.ones([3])))
        return tf.zeros([1])

    def outer():
        tf.ones([4])
        x = tf.tidy(inner)
        assert tf.memory().num_tensors == n0 + 3  # ones[4], kept, x
        return {"x": x, "pair": [tf.fill([2], 5.0), 7]}

    out = tf.tidy("outer", outer)
    assert tf.memory().num_tensors == n0 + 3  # x, fill, kept
    assert out["x"].data_sync().tolist() == [0.0]
    assert not kept[0].is_disposed
    tf.dispose([out, kept])


def test_tidy_error_frees_and_rejects_async():
    n0 = tf.memory().num_tensors

    def boom():
        tf.ones([2])
        raise KeyError("x")

    with pytest.raises(KeyError):
        tf.tidy(boom)

    async def coro():
        return 1

    with pytest.raises(TypeError, match="tidy"):
        tf.tidy(coro)
    assert tf.memory().num_tensors == n0


def test_disposed_tensor_errors():
    t = tf.tensor([1.0])
    t.dispose()
    assert t.is_disposed
    with pytest.raises(ValueError, match="disposed"):
        t.data_sync()
    with pytest.raises(ValueError, match=r"Error in cast: argument 'x' is a disposed tensor .*shape \[1\]"):
        tf.cast(t, "int32")


def test_reads_sync_async_and_nested():
    t = tf.tensor([[1.5, 2.5], [3.5, 4.5]])
    assert isinstance(t.data_sync(), array)
    assert run_sync(t.data()).tolist() == [1.5, 2.5, 3.5, 4.5]
    assert run_sync(t.array()) == [[1.5, 2.5], [3.5, 4.5]]
    assert tf.tidy(lambda: tf.tensor([[]]).array_sync()) == [[]]
    assert tf.tidy(lambda: tf.tensor(3).array_sync()) == 3
    assert tf.tidy(lambda: tf.tensor([True, False]).array_sync()) == [True, False]
    s = tf.scalar(2.0)
    assert float(s) == 2.0 and bool(s)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    assert "Tensor\n    [[1.5000, 2.5000],\n     [3.5000, 4.5000]]" == str(t)
    assert "dtype: float32" in t.to_string(verbose=True)
    tf.dispose([t, s])


def test_variable_assign():
    init = tf.fill([2], 1.0)
    v = tf.variable(init, name="w")
    init.dispose()  # the variable holds its own reference to the buffer
    assert v.data_sync().tolist() == [1.0, 1.0]
    assert v.name == "w" and v.trainable
    new = tf.fill([2], 3.0)
    v.assign(new)
    new.dispose()
    assert v.data_sync().tolist() == [3.0, 3.0]
    wrong = tf.zeros([3])
    with pytest.raises(ValueError, match=r"Error in assign: variable 'w' has shape \[2\]"):
        v.assign(wrong)
    tf.dispose([v, wrong])


def test_environment_flags():
    env = tf.env()
    assert env is tf.ENV
    assert env.get("IS_BROWSER") is False
    assert env.get_number("WEBGL_VERSION") == 0
    calls = []
    env.register_flag("TEST_LAZY", lambda: calls.append(1) or 42)
    assert calls == []
    assert env.get("TEST_LAZY") == 42 and env.get("TEST_LAZY") == 42 and calls == [1]
    env.set("TEST_LAZY", 7)
    assert env.get("TEST_LAZY") == 7
    assert env.features["TEST_LAZY"] == 7
    with pytest.raises(ValueError, match="Cannot evaluate flag 'NOPE'"):
        env.get("NOPE")
    with pytest.raises(ValueError, match="Cannot set flag 'NOPE'"):
        env.set("NOPE", 1)
    with pytest.raises(TypeError, match="not a bool"):
        env.get_bool("TEST_LAZY")
    env.reset()
    assert env.get("TEST_LAZY") == 42


@pytest.fixture
def second_backend():
    """A second backend ('cpu2', lower priority) with the cpu kernels, to test switching and moves."""
    for name, impl in CPU_KERNELS.items():
        tf.register_kernel(name, "cpu2", impl)
    tf.register_backend("cpu2", CpuBackend, priority=0)
    yield "cpu2"
    run_sync(tf.set_backend("cpu"))
    tf.remove_backend("cpu2")
    for name in CPU_KERNELS:
        tf.unregister_kernel(name, "cpu2")


def test_backend_switch_moves_data(second_backend):
    assert tf.get_backend() == "cpu"
    a = tf.tensor([1.0, 2.0])
    cpu = tf.backend()
    assert run_sync(tf.set_backend("cpu2")) is True
    assert tf.get_backend() == "cpu2"
    b = tf.cast(a, "int32")  # a moves lazily to cpu2 when the kernel reads it
    cpu2 = tf.find_backend("cpu2")
    assert a.data_id in cpu2.data and a.data_id not in cpu.data
    assert b.data_sync().tolist() == [1, 2]
    run_sync(tf.set_backend("cpu"))
    assert a.data_sync().tolist() == [1.0, 2.0]  # reading works wherever the data lives
    tf.dispose([a, b])
    assert a.data_id not in cpu2.data


def test_backend_failures_keep_current():
    def broken():
        raise RuntimeError("no GPU here")

    async def broken_async():
        raise RuntimeError("no wasm here")

    tf.register_backend("broken", broken, priority=100)
    tf.register_backend("broken_async", broken_async, priority=99)
    try:
        assert run_sync(tf.set_backend("broken")) is False
        assert run_sync(tf.set_backend("broken_async")) is False
        assert tf.get_backend() == "cpu"
        with pytest.raises(ValueError, match="Backend name 'nope' not found"):
            run_sync(tf.set_backend("nope"))
    finally:
        tf.remove_backend("broken")
        tf.remove_backend("broken_async")


def test_ready_picks_highest_priority_async_backend():
    engine = tf.ENGINE.__class__()
    made = []

    async def fast():
        made.append("fast")
        return CpuBackend()

    engine.register_backend("slow", CpuBackend, 1)
    engine.register_backend("fast", fast, 5)
    assert engine.backend.__class__ is CpuBackend and engine.backend_name == "slow"  # sync path skips async
    engine2 = tf.ENGINE.__class__()
    engine2.register_backend("slow", CpuBackend, 1)
    engine2.register_backend("fast", fast, 5)
    run_sync(engine2.ready())
    assert engine2.backend_name == "fast" and made == ["fast"]


def test_kernel_registry():
    def k(backend, inputs, attrs):
        x = inputs["x"]
        return backend.output(array("f", [v * attrs["k"] for v in backend.values(x)]), x.shape, "float32")

    tf.register_kernel("TestScale", "cpu", k)
    try:
        assert tf.get_kernel("TestScale", "cpu") is k
        assert "TestScale" in tf.get_kernels_for_backend("cpu")
        with pytest.raises(ValueError, match="already registered"):
            tf.register_kernel("TestScale", "cpu", k)
        x = tf.tensor([1.0, 2.0])
        y = tf.ENGINE.run_kernel("TestScale", {"x": x}, {"k": 3})
        assert y.data_sync().tolist() == [3.0, 6.0]
        tf.dispose([x, y])
    finally:
        tf.unregister_kernel("TestScale", "cpu")
    with pytest.raises(NotImplementedError, match="Kernel 'TestScale' not registered for backend 'cpu'"):
        tf.ENGINE.run_kernel("TestScale", {}, {})
    assert set(CPU_KERNELS) <= set(tf.get_kernels_for_backend("cpu"))


def test_profile_and_time():
    def work():
        x = tf.fill([100], 2.0)
        y = tf.cast(x, "int32")
        x.dispose()
        return y

    info = run_sync(tf.profile(work))
    assert info.kernel_names == ["Fill", "Cast"]
    assert info.new_tensors == 1 and info.new_bytes == 400
    assert info.peak_bytes - tf.memory().num_bytes + 400 >= 800  # both buffers lived at once
    assert info.kernels[1].input_shapes == [[100]] and info.kernels[1].output_shapes == [[100]]
    info.result.dispose()
    timing = run_sync(tf.time(lambda: tf.dispose(work())))
    assert timing.wall_ms >= timing.kernel_ms >= 0


def test_debug_mode_fails_on_nan(capsys):
    def nan_kernel(backend, inputs, attrs):
        return backend.output(array("f", [float("nan")]), (1,), "float32")

    tf.register_kernel("TestNaN", "cpu", nan_kernel)
    try:
        tf.enable_debug_mode()
        with pytest.raises(FloatingPointError, match="TestNaN"):
            tf.tidy(lambda: tf.ENGINE.run_kernel("TestNaN", {}, {}))
        t = tf.tidy(lambda: tf.fill([2], 1.0))
        assert "Fill" in capsys.readouterr().err
        t.dispose()
        tf.enable_prod_mode()
        assert tf.env().get("PROD") and not tf.env().get("DEBUG")
        tf.tidy(lambda: tf.ENGINE.run_kernel("TestNaN", {}, {})).dispose()  # no check outside debug mode
    finally:
        tf.env().set("DEBUG", False)
        tf.env().set("PROD", False)
        tf.unregister_kernel("TestNaN", "cpu")


def test_engine_is_callable_as_in_tfjs():
    """tf.engine() returns the engine (TF.js); its scopes free what they made."""
    before = tf.memory().num_tensors
    engine = tf.engine()
    assert engine is tf.ENGINE
    engine.start_scope()
    kept = tf.keep(tf.ones([2]))
    tf.ones([3])
    engine.end_scope()
    assert tf.memory().num_tensors == before + 1
    assert kept.data_sync().tolist() == [1.0, 1.0]
    kept.dispose()
    assert tf.memory().num_tensors == before


def test_fast_path_follows_the_registry_and_hooks():
    """run_fast takes the registered kernel's fast variant; a kernel registered over it, a profile or a tape
    (anything that watches kernels) sends the op through run_kernel instead."""
    add = tf.get_kernel("Add", "cpu")
    calls = []

    def counting(backend, inputs, attrs):
        calls.append("Add")
        return add(backend, inputs, attrs)

    x = tf.tensor([1.0, 2.0, 4.0])
    tf.unregister_kernel("Add", "cpu")
    tf.register_kernel("Add", "cpu", counting)
    try:
        assert tf.tidy(lambda: tf.add(x, x).data_sync().tolist()) == [2.0, 4.0, 8.0]
        assert calls == ["Add"]
    finally:
        tf.unregister_kernel("Add", "cpu")
        tf.register_kernel("Add", "cpu", add)
    info = run_sync(tf.profile(lambda: tf.add(x, x)))
    assert info.kernel_names == ["Add"] and info.result.data_sync().tolist() == [2.0, 4.0, 8.0]
    grads = tf.grad(lambda t: tf.sum(tf.mul(t, t)))(x)
    assert grads.data_sync().tolist() == [2.0, 4.0, 8.0]
    tf.dispose([x, info.result, grads])
    assert calls == ["Add"]


def test_tidy_end_frees_in_one_batch_exactly():
    """A tidy's end frees its buffers in one dispose_many per backend; shared, kept, returned and already
    disposed tensors keep their own rules; a tensor it freed cannot be read."""
    cpu = tf.backend()
    m0, buffers0 = tf.memory(), len(cpu.data)
    x = tf.tensor([1.0, -2.0, 3.0, 0.5])
    inner, kept = [], []

    def work():
        y = x
        for _ in range(20):
            y = tf.add(y, x)
        inner.append(y)
        kept.append(tf.keep(tf.mul(y, x)))
        tf.add(y, y).dispose()
        return tf.reshape(tf.sub(y, x), [2, 2])  # shares sub's buffer: that buffer stays

    r = tf.tidy(work)
    m1 = tf.memory()
    assert (m1.num_tensors - m0.num_tensors, m1.num_data_buffers - m0.num_data_buffers) == (3, 3)
    assert m1.num_bytes - m0.num_bytes == 48 and len(cpu.data) - buffers0 == 3
    y = [21 * v for v in (1.0, -2.0, 3.0, 0.5)]
    assert r.data_sync().tolist() == [v - w for v, w in zip(y, (1.0, -2.0, 3.0, 0.5), strict=True)]
    assert kept[0].data_sync().tolist() == [v * w for v, w in zip(y, (1.0, -2.0, 3.0, 0.5), strict=True)]
    with pytest.raises(ValueError, match=r"Tensor is disposed: cannot call data_sync\(\) on tensor \d+ of shape \[4\]"):
        inner[0].data_sync()
    tf.dispose([x, r, kept[0]])
    assert len(cpu.data) == buffers0
