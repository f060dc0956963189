"""The wasm backend in the page: both binaries load and agree with numpy, kernels run natively, the heap stays
flat over many tidy'd iterations, bad binaries leave the page on its previous backend, failures fall back,
WASM_HAS_SIMD_SUPPORT and set_wasm_paths pick the binary, memory() is exact, fused ops take one fused export
and graph model weights stay in the heap across calls.

Every test leaves tf.memory() where it found it (the autouse fixture checks) and the active backend as it was.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

Py = Callable[[str], Any]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# Defined in the page before each snippet: standalone backends on a chosen binary, host <-> heap helpers.
HELPERS = """
from array import array
import webtf.backends.wasm as wasm
from webtf.backends.wasm import NATIVE, create_backend

def put(b, values, shape, dtype="float32"):
    return b.output(array({"float32": "f", "int32": "i", "bool": "B"}[dtype], values), tuple(shape), dtype)

def get(b, info):
    return list(b.read_sync(info.data_id))
"""


def run(py: Py, code: str) -> Any:
    """Run `code` in the page after HELPERS (the last expression is the result)."""
    return py(HELPERS + code)


@pytest.fixture(autouse=True)
def _memory_and_backend_return(py: Py) -> Iterator[None]:
    before = py("m = tf.memory(); [tf.get_backend(), m.num_tensors, m.num_bytes, m.num_data_buffers]")
    yield
    after = py("m = tf.memory(); [tf.get_backend(), m.num_tensors, m.num_bytes, m.num_data_buffers]")
    assert after == before


def _conv_same(x: np.ndarray, f: np.ndarray) -> np.ndarray:
    """NHWC conv2d, stride 1, 'same' padding (odd filter), in float64."""
    fh, fw = f.shape[:2]
    xp = np.pad(x.astype(np.float64), ((0, 0), (fh // 2, fh // 2), (fw // 2, fw // 2), (0, 0)))
    b, h, w, _ = x.shape
    out = np.zeros((b, h, w, f.shape[3]))
    for i in range(fh):
        for j in range(fw):
            out += np.einsum("bhwc,co->bhwo", xp[:, i : i + h, j : j + w, :], f[i, j].astype(np.float64))
    return out


def test_simd_and_plain_binaries_load_and_agree(py: Py) -> None:
    rng = np.random.default_rng(7)
    x, f = rng.standard_normal((2, 9, 7, 5)), rng.standard_normal((3, 3, 5, 6))
    a, b = rng.standard_normal((3, 17, 11)), rng.standard_normal((3, 11, 13))
    p, q = rng.standard_normal((4, 1, 6)), rng.standard_normal((5, 1))
    x, f, a, b, p, q = (v.astype(np.float32) for v in (x, f, a, b, p, q))
    args = {k: (v.ravel().tolist(), list(v.shape)) for k, v in dict(x=x, f=f, a=a, b=b, p=p, q=q).items()}
    res = run(
        py,
        f"""
args = {args!r}
res = {{}}
for name, simd in (("simd", True), ("plain", False)):
    be = await create_backend(simd=simd)
    t = {{k: put(be, v, s) for k, (v, s) in args.items()}}
    conv_attrs = {{"strides": 1, "pad": "same", "dilations": 1}}
    conv = NATIVE["Conv2D"](be, {{"x": t["x"], "filter": t["f"]}}, conv_attrs)
    mm_attrs = {{"transpose_a": False, "transpose_b": False}}
    mm = NATIVE["BatchMatMul"](be, {{"a": t["a"], "b": t["b"]}}, mm_attrs)
    add = NATIVE["Add"](be, {{"a": t["p"], "b": t["q"]}}, {{}})
    res[name] = {{
        "url": be.module.url, "fallbacks": dict(be.fallbacks),
        "conv": [get(be, conv), list(conv.shape)], "mm": [get(be, mm), list(mm.shape)],
        "add": [get(be, add), list(add.shape)],
    }}
    be.dispose()
res
""",
    )
    refs = {"conv": _conv_same(x, f), "mm": a.astype(np.float64) @ b, "add": p.astype(np.float64) + q}
    assert res["simd"]["url"].endswith("/tfjs-backend-wasm-simd.wasm") or res["simd"]["url"].endswith(
        "tfjs-backend-wasm-simd.wasm"
    )
    assert res["plain"]["url"].endswith("tfjs-backend-wasm.wasm")
    for name in ("simd", "plain"):
        assert res[name]["fallbacks"] == {}  # all three ran in the binary
        for op, ref in refs.items():
            values, shape = res[name][op]
            assert tuple(shape) == ref.shape, (name, op)
            np.testing.assert_allclose(np.array(values).reshape(shape), ref, rtol=1e-4, atol=1e-4)
    for op in refs:
        np.testing.assert_allclose(res["simd"][op][0], res["plain"][op][0], rtol=1e-5, atol=1e-5)


def test_heap_stays_flat_over_many_tidy_iterations(py: Py) -> None:
    out = py(
        """
prev = tf.get_backend()
assert await tf.set_backend("wasm")
be = tf.backend()
x = tf.random_normal([1, 12, 12, 8], seed=1)
f = tf.random_normal([3, 3, 8, 8], seed=2)
bias = tf.random_normal([8], seed=3)
step = lambda: tf.add(tf.conv2d(x, f, 1, "same"), bias).sum().data_sync()[0]
for _ in range(20):
    tf.tidy(step)
heap0, used0, tensors0 = be.module.heap_size(), be.bytes_allocated, tf.memory().num_tensors
fallbacks0 = dict(be.fallbacks)  # earlier tests in the session may have counted some
values = [tf.tidy(step) for _ in range(1000)]
res = [heap0, be.module.heap_size(), used0, be.bytes_allocated, tensors0, tf.memory().num_tensors,
       len(set(values)), {k: n - fallbacks0.get(k, 0) for k, n in be.fallbacks.items() if n != fallbacks0.get(k)}]
tf.dispose([x, f, bias])
await tf.set_backend(prev)
res
"""
    )
    heap0, heap1, used0, used1, tensors0, tensors1, distinct, fallbacks = out
    assert heap1 == heap0 and used1 == used0 and tensors1 == tensors0
    assert distinct == 1  # the same inputs give the same result every time
    assert "Conv2D" not in fallbacks and "Add" not in fallbacks


def test_buffers_moved_to_cpu_and_back_stay_valid(py: Py) -> None:
    """A buffer read on cpu leaves wasm (its free is queued by data id) and comes back under the same id: the
    queued free must not release the new block (it did: a wasm trap a few kernels later)."""
    x = np.arange(1 * 6 * 6 * 4, dtype=np.float32).reshape(1, 6, 6, 4) % 7 - 3
    f = np.arange(3 * 3 * 4 * 4, dtype=np.float32).reshape(3, 3, 4, 4) % 5 - 2
    out = py(
        f"""
prev = tf.get_backend()
assert await tf.set_backend("wasm")
x = tf.tensor({x.ravel().tolist()}, [1, 6, 6, 4])
f = tf.tensor({f.ravel().tolist()}, [3, 3, 4, 4])
step = lambda: tf.conv2d(x, f, 1, "same").sum().data_sync()[0]
values = [tf.tidy(step)]
assert await tf.set_backend("cpu")
values.append(tf.tidy(step))  # x and f move to cpu
assert await tf.set_backend("wasm")
values += [tf.tidy(step) for _ in range(300)]  # they move back; 300 tidy scopes flush the queued frees
tf.dispose([x, f])
await tf.set_backend(prev)
sorted(set(values))
"""
    )
    pad = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = sum(pad[:, i : i + 6, j : j + 6, :] @ f[i, j] for i in range(3) for j in range(3)).sum()
    assert len(out) == 1 and abs(out[0] - ref) <= 1e-3 * abs(ref), (out, ref)


def test_missing_or_corrupt_binary_keeps_the_previous_backend(py: Py) -> None:
    corrupt = base64.b64encode((FIXTURES / "corrupt.wasm").read_bytes()).decode()
    out = run(
        py,
        f"""
import base64, contextlib, io, js
from pyodide.ffi import to_js
prev = tf.get_backend()
await tf.set_backend("cpu")
tf.remove_backend("wasm")
tf.register_backend("wasm", create_backend, 2)
logs, results = [], []
try:
    wasm.set_wasm_paths("no-such-folder/")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        results.append(await tf.set_backend("wasm"))
    logs.append(err.getvalue())
    results.append(tf.get_backend())
    options = to_js({{"type": "application/wasm"}}, dict_converter=js.Object.fromEntries)
    blob = js.Blob.new([to_js(base64.b64decode({corrupt!r}))], options)
    url = js.URL.createObjectURL(blob)
    wasm.set_wasm_paths({{name: url for name in wasm.BINARY_NAMES}})
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        results.append(await tf.set_backend("wasm"))
    logs.append(err.getvalue())
    results.append(tf.tidy(lambda: tf.add(tf.tensor([1.0, 2.0]), 3.0).array_sync()))
    js.URL.revokeObjectURL(url)
finally:
    wasm.reset_wasm_paths()
results.append(await tf.set_backend("wasm"))
results.append(tf.tidy(lambda: tf.add(tf.tensor([1.0, 2.0]), 3.0).array_sync()))
await tf.set_backend(prev)
[results, logs]
""",
    )
    results, logs = out
    assert results == [False, "cpu", False, [4.0, 5.0], True, [4.0, 5.0]]
    assert "initialization of backend wasm failed" in logs[0]
    assert "failed to load wasm binary file at 'no-such-folder/tfjs-backend-wasm" in logs[0]
    assert "HTTP 404" in logs[0]
    assert "could not compile or instantiate the wasm binary at 'blob:" in logs[1]


def test_precompile_hands_its_module_to_the_next_start_and_a_failed_one_is_retried(py: Py) -> None:
    out = run(
        py,
        """
from webtf.backends.wasm import module as M
url = wasm.binary_url(True)
wasm.precompile(True)
wasm.precompile(True)  # already on its way: the same promise
pending = [url in M._precompiled, len(M._precompiled)]
b = await create_backend(True)
x = put(b, [1.0, -2.0, 3.0], [3])
values = get(b, NATIVE["Abs"](b, {"x": x}, {}))
b.dispose()
after = url in M._precompiled
wasm.precompile(url="no-such-folder/x.wasm")
try:
    await M.load_module(url="no-such-folder/x.wasm")
    error = None
except wasm.WasmLoadError as e:
    error = str(e)
[pending, values, after, error, "no-such-folder/x.wasm" in M._precompiled]
""",
    )
    pending, values, after, error, left = out
    assert pending == [True, 1] and after is False and left is False
    assert values == [1.0, 2.0, 3.0]  # the precompiled module runs
    assert "failed to load wasm binary file at 'no-such-folder/x.wasm' (HTTP 404)" in error


def test_binary_warning_raises_and_disposes_the_output(py: Py) -> None:
    out = run(
        py,
        """
from webtf.backends.wasm import WasmKernelError
be = await create_backend()
n0 = len(be.data)
x = put(be, [1, 0, 1], [3], "bool")
o = be.make_output((3,), "bool")
try:
    be.abi.Abs(x, "bool", o)
    message = None
except WasmKernelError as e:
    message = str(e)
res = [message, o.data_id in be.data]
be.dispose_data(x.data_id)
res.append(len(be.data) - n0)
be.dispose()
res
""",
    )
    message, still_there, left = out
    assert message is not None and message.startswith("wasm kernel Abs failed: ")
    assert "Unknown dtype" in message
    assert not still_there
    assert left == 0


def test_fallbacks_are_counted_and_match_cpu(py: Py) -> None:
    out = py(
        """
prev = tf.get_backend()
results = []
for name in ("cpu", "wasm"):
    await tf.set_backend(name)
    x = tf.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])
    y = tf.tensor([[2, 7, -1], [0, 9, 3]])
    results.append(tf.tidy(lambda: [
        str(tf.maximum(x, 2.0).array_sync()), tf.relu6(x).data_sync().tolist().__repr__(),
        tf.abs(y).array_sync(), tf.max(x, 1).data_sync().tolist().__repr__(),
        tf.max_pool(tf.reshape(x, [1, 2, 3, 1]), 1, 1, "valid").data_sync().tolist().__repr__(),
    ]))
    x.dispose(); y.dispose()
fallbacks = dict(tf.find_backend("wasm").fallbacks)
await tf.set_backend(prev)
[results, fallbacks]
"""
    )
    (on_cpu, on_wasm), fallbacks = out
    assert on_wasm == on_cpu
    for name in ("Maximum", "Relu6", "Abs", "Max", "MaxPool"):
        assert fallbacks.get(name, 0) >= 1, name


def test_simd_flag_picks_the_binary_and_set_wasm_paths_moves_it(py: Py) -> None:
    out = run(
        py,
        """
from webtf.environment import ENV
prev = tf.get_backend()
await tf.set_backend("cpu")
detected = ENV.get("WASM_HAS_SIMD_SUPPORT")
ENV.set("WASM_USE_THREADS", False)  # the single-thread builds, also on machines with 4 cores or more
res = {"detected": detected}
calc = lambda: tf.tidy(lambda: tf.add(tf.tensor([1.5, 2.0]), tf.tensor([3.0, -4.0])).array_sync())
try:
    for simd in (False, True):
        ENV.set("WASM_HAS_SIMD_SUPPORT", simd)
        be = await create_backend()
        res[f"default-{simd}"] = be.module.url
        be.dispose()
    tf.wasm.set_wasm_paths("vendor/tfjs/")  # the public name (TF.js tf.wasm.setWasmPaths)
    tf.remove_backend("wasm")
    tf.register_backend("wasm", create_backend, 2)
    res["prefix"] = [await tf.set_backend("wasm"), tf.backend().module.url, calc()]
    await tf.set_backend("cpu")
    mapping = {name: "vendor/tfjs/" + name for name in wasm.BINARY_NAMES}
    mapping["tfjs-backend-wasm.wasm"] = "wasm/tfjs-backend-wasm.wasm?from-mapping"
    wasm.set_wasm_paths(mapping)
    tf.remove_backend("wasm")
    tf.register_backend("wasm", create_backend, 2)
    res["mapping"] = [await tf.set_backend("wasm"), tf.backend().module.url, calc()]
    await tf.set_backend("cpu")
    try:
        wasm.set_wasm_paths({"tfjs-backend-wasm.wasm": "x.wasm"})
    except ValueError as e:
        res["incomplete"] = str(e)
finally:
    ENV.set("WASM_HAS_SIMD_SUPPORT", detected)
    wasm.reset_wasm_paths()
    tf.remove_backend("wasm")
    tf.register_backend("wasm", create_backend, 2)
res["reset"] = [await tf.set_backend("wasm"), tf.backend().module.url]
ENV.set("WASM_USE_THREADS", True)
await tf.set_backend(prev)
res
""",
    )
    assert out["detected"] is True  # Chromium validates the SIMD probe module
    assert out["default-False"] == "wasm/tfjs-backend-wasm.wasm"
    assert out["default-True"] == "wasm/tfjs-backend-wasm-simd.wasm"
    assert out["prefix"] == [True, "vendor/tfjs/tfjs-backend-wasm-simd.wasm", [4.5, -2.0]]
    # SIMD is back on, so the mapping's plain entry is not the one used
    assert out["mapping"] == [True, "vendor/tfjs/tfjs-backend-wasm-simd.wasm", [4.5, -2.0]]
    assert "no entries found for the following binaries: tfjs-backend-wasm-simd.wasm," in out["incomplete"]
    assert out["reset"] == [True, "wasm/tfjs-backend-wasm-simd.wasm"]


def test_memory_is_exact(py: Py) -> None:
    out = py(
        """
prev = tf.get_backend()
await tf.set_backend("wasm")
be = tf.backend()
def snap():
    m = tf.memory()
    return [m.num_tensors, m.num_data_buffers, m.num_bytes, m.extra["num_bytes_in_wasm_tensors"],
            m.extra["num_bytes_in_wasm_heap"] == be.module.memory.buffer.byteLength, m.unreliable]
res = [snap()]
a = tf.zeros([10, 100])
b = tf.tensor([1, 2, 3], dtype="int32")
c = tf.tensor([True, False, True, True, False])
res.append(snap())
d = tf.reshape(a, [1000])  # shares a's buffer
res.append(snap())
e = tf.tidy(lambda: tf.add(a, 1.0))  # the scalar made for 1.0 is freed
res.append(snap())
tf.dispose([a, b, c, e])
res.append(snap())
d.dispose()
res.append(snap())
await tf.set_backend(prev)
res
"""
    )
    t0, n0, b0, w0, _, _ = out[0]
    expected = [
        (0, 0, 0, 0),
        (3, 3, 4000 + 12 + 5, 4000 + 12 + 5),
        (4, 3, 4017, 4017),
        (5, 4, 8017, 8017),
        (1, 1, 4000, 4000),
        (0, 0, 0, 0),
    ]
    deltas = [(t - t0, n - n0, b - b0, w - w0) for t, n, b, w, _, _ in out]
    assert all(heap_ok and not unreliable for *_, heap_ok, unreliable in out)
    assert deltas == expected


def test_fused_ops_run_one_fused_export_each(py: Py) -> None:
    rng = np.random.default_rng(3)
    x, f = rng.standard_normal((1, 6, 5, 4)), rng.standard_normal((3, 3, 4, 3))
    dw, bias, dbias = rng.standard_normal((3, 3, 4, 2)), rng.standard_normal(3), rng.standard_normal(8)
    a, b, mbias = rng.standard_normal((5, 7)), rng.standard_normal((7, 3)), rng.standard_normal(3)
    arrays = dict(x=x, f=f, dw=dw, bias=bias, dbias=dbias, a=a, b=b, mbias=mbias)
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    args = {k: (v.ravel().tolist(), list(v.shape)) for k, v in arrays.items()}
    out = py(
        f"""
prev = tf.get_backend()
await tf.set_backend("wasm")
be = tf.backend()
calls = {{}}
def spy(name):
    real = getattr(be.abi, name)
    def wrapped(*args):
        calls[name] = calls.get(name, 0) + 1
        return real(*args)
    return real, wrapped
names = [n for n in be.table["exports"] if n not in ("malloc", "free", "register_tensor", "dispose_data")]
saved = {{}}
for n in names:
    saved[n], wrapped = spy(n)
    setattr(be.abi, n, wrapped)
try:
    t = {{k: tf.tensor(v, s) for k, (v, s) in {args!r}.items()}}
    fallbacks0 = dict(be.fallbacks)
    results = {{}}
    for key, fn in (
        ("conv", lambda: tf.fused.conv2d(t["x"], t["f"], 1, "same", bias=t["bias"], activation="relu")),
        ("dw", lambda: tf.fused.depthwise_conv2d(t["x"], t["dw"], 1, "valid", bias=t["dbias"],
                                                 activation="relu6")),
        ("mm", lambda: tf.fused.mat_mul(t["a"], t["b"], bias=t["mbias"], activation="relu")),
    ):
        calls.clear()
        y = fn()
        results[key] = [y.data_sync().tolist(), list(y.shape), dict(calls)]
        y.dispose()
    tf.dispose(list(t.values()))
finally:
    for n, real in saved.items():
        setattr(be.abi, n, real)
res = [results, dict(be.fallbacks) == fallbacks0]
await tf.set_backend(prev)
res
"""
    )
    results, no_fallbacks = out
    assert no_fallbacks
    v = {k: a.astype(np.float64) for k, a in arrays.items()}
    xp = np.pad(v["x"], ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = np.zeros((1, 6, 5, 3))
    dwo = np.zeros((1, 4, 3, 8))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("bhwc,co->bhwo", xp[:, i : i + 6, j : j + 5], v["f"][i, j])
            patch = v["x"][:, i : i + 4, j : j + 3, :, None] * v["dw"][i, j]
            dwo += patch.reshape(1, 4, 3, 8)
    refs = {
        "conv": (np.maximum(conv + v["bias"], 0), "FusedConv2D"),
        "dw": (np.clip(dwo + v["dbias"], 0, 6), "FusedDepthwiseConv2D"),
        "mm": (np.maximum(v["a"] @ v["b"] + v["mbias"], 0), "_FusedMatMul"),
    }
    for key, (ref, export) in refs.items():
        values, shape, calls = results[key]
        assert calls == {export: 1}, key  # one native call: no separate bias add or activation
        assert tuple(shape) == ref.shape
        np.testing.assert_allclose(np.array(values).reshape(shape), ref, rtol=1e-5, atol=1e-5)


def test_graph_model_weights_stay_in_the_heap_across_calls(py: Py) -> None:
    out = py(
        """
prev = tf.get_backend()
await tf.set_backend("wasm")
be = tf.backend()
model = await tf.load_graph_model("models/posenet.json")
x = tf.fill(model.inputs[0].shape, 0.5)
weight_ids = {t.data_id for t in model.weights.values()}
resident = lambda: all(i in be.data for i in weight_ids)
at_load = resident()
tf.dispose(await model.execute_async(x))
uploads = []
real_move = be.move
be.move = lambda *a: (uploads.append(a[2]), real_move(*a))[1]
try:
    p = await tf.profile(lambda: model.execute_async(x))
finally:
    be.move = real_move
tf.dispose(p.result)
kernels = sorted({k.name for k in p.kernels})
res = [at_load, resident(), uploads, kernels, len(weight_ids)]
x.dispose(); model.dispose()
await tf.set_backend(prev)
res
"""
    )
    at_load, after, uploads, kernels, n_weights = out
    assert n_weights > 30
    assert at_load and after  # the weights were uploaded to the heap at load time and are still there
    assert uploads == []  # the second call copied nothing from Python into the heap
    assert kernels == ["FusedConv2D", "FusedDepthwiseConv2D"]


def test_huge_op_fails_cleanly_and_a_trap_restarts_the_module_blazeface_runs_after(py: Py) -> None:
    out = py(
        """
import math
from webtf.backends.wasm import WasmTrapError
prev = tf.get_backend()
await tf.set_backend("wasm")
be = tf.backend()
model = await tf.load_graph_model("models/blazeface.json")
shape = [1, *model.inputs[0].shape[1:]]
x = tf.tidy(lambda: tf.sin(tf.reshape(tf.range(0, math.prod(shape)), shape)))
async def run():
    outs = await model.execute_async(x)
    outs = outs if isinstance(outs, list) else [outs]
    values = [o.data_sync().tolist() for o in outs]
    tf.dispose(outs)
    return values
def snap():
    m = tf.memory()
    return [m.num_tensors, m.num_bytes, m.extra["num_bytes_in_wasm_tensors"], be.bytes_allocated]
res = {"ref": await run(), "before": snap()}
a, b = tf.zeros([100000, 1]), tf.zeros([1, 100000])
try:
    tf.add(a, b)
except ValueError as e:
    res["add"] = str(e)
try:
    be.make_output((100000, 100000), "float32")
except MemoryError as e:
    res["alloc"] = str(e)
tf.dispose([a, b])
res["after_huge"] = snap()
y = tf.range(0, 1000)
be.abi.dispose_data(y.data_id)  # point the binary's record of y past the end of the heap: its next read traps
be._register(y.data_id, 1000, be.module.heap_size() - 16)
be.defer = False  # the call traps at once (a queued one traps where the queue runs: test_eager_fast.py)
try:
    tf.abs(y)
except WasmTrapError as e:
    res["trap"] = str(e)
be.defer = True
res["resets"] = len(be.resets)
res["y"] = y.data_sync()[:3].tolist() + [tf.tidy(lambda: tf.abs(tf.neg(y)).data_sync()[999])]
y.dispose()
res["after_trap"] = snap()
res["again"] = await run()
await tf.set_backend("cpu")
await tf.set_backend("wasm")
model.dispose()
model = await tf.load_graph_model("models/blazeface.json")
res["reloaded"] = await run()
model.dispose(); x.dispose()
await tf.set_backend(prev)
res
"""
    )
    assert out["add"].startswith(
        "Error in add: the output of shape [100000,100000] (broadcasting [100000,1] and [1,100000]) would hold "
        "10000000000 elements, more than the 268435456 a tensor may hold on the wasm backend"
    )
    assert "more than the 2147418112 one block of the wasm heap may take" in out["alloc"]
    assert out["after_huge"] == out["before"]  # nothing allocated, nothing counted
    assert (
        "the wasm export Abs failed (JsException: RuntimeError: memory access out of bounds)" in out["trap"]
    )
    assert "the wasm module was re-instantiated and its" in out["trap"] and out["resets"] == 1
    assert out["y"] == [0.0, 1.0, 2.0, 999.0]  # live tensors were carried into the new module
    assert out["after_trap"] == out["before"]
    assert out["again"] == out["ref"] and out["reloaded"] == out["ref"]


def test_bound_element_wise_kernels_match_numpy_reuse_freed_blocks_and_survive_an_arena_restart(py: Py) -> None:
    """Element-wise kernels call a JS function bound per (kernel, shapes, dtype) that also allocates the output
    and frees the pending block: results stay right while freed blocks are reused at once (live results are
    read only at the end, so a block given to two tensors would show), after the int arena starts over (the
    bound functions hold its pointers) and for complex64 (Add/Sub/Multiply route it without a wrapper)."""
    shapes = [([2, 3], [2, 3]), ([2, 3], [3]), ([4, 1], [1, 5]), ([], [3]), ([1], []), ([0, 2], [2])]
    out = py(
        f"""
from webtf.engine import ENGINE
from webtf import kernel_names as kn
prev = tf.get_backend()
assert await tf.set_backend("wasm")
be = tf.backend()
tf.tidy(lambda: tf.maximum(tf.ones([64]), 0.0)).dispose()  # grows the NaN-flags scratch buffer Maximum keeps
m0, used0 = tf.memory().num_tensors, be.bytes_allocated
def rounds():
    kept, results = [], []
    for i, (sa, sb) in enumerate({shapes!r}):
        n = 1
        for dim in sa:
            n *= dim
        a = tf.tensor([float(k) for k in range(n)], sa, "float32")
        b = tf.fill(sb, 0.5 + i)
        outs = [tf.add(a, b), tf.sub(a, b), tf.mul(a, b), tf.maximum(a, b), tf.tidy(lambda: tf.exp(tf.neg(a))),
                tf.sqrt(b), tf.tidy(lambda: tf.add(tf.cast(a, "int32"), tf.cast(b, "int32")))]
        kept.append(outs[::2])
        for t in outs[1::2]:
            results.append(t.data_sync().tolist())
            t.dispose()  # its block is the next output's
        tf.dispose([a, b])
    return results + [t.data_sync().tolist() for group in kept for t in group], [t for g in kept for t in g]
first, live = rounds()
bound_before = len(be.bound)
restarts = be._arena_restarts
i = 0
while be._arena_restarts == restarts:  # fill the int arena until it starts over
    be.ints(tuple(range(i, i + 200)))
    i += 1
bound_after_restart = len(be.bound)
second, live2 = rounds()
c = tf.complex([1.0, 2.0], [3.0, -1.0])
d = tf.complex([0.5, -2.0], [1.0, 4.0])
cplx = tf.tidy(lambda: [t.data_sync().tolist() for t in (tf.add(c, d), tf.sub(c, d), tf.mul(c, d))])
wrapped = [hasattr(ENGINE._kernels[k], "__wrapped__") for k in (kn.Add, kn.Sub, kn.Multiply)]
tf.dispose(live + live2 + [c, d])
res = [first == second, first, bound_before > 0, bound_after_restart, cplx, wrapped,
       tf.memory().num_tensors - m0, be.bytes_allocated - used0]
await tf.set_backend(prev)
res
"""
    )
    same, first, bound_before, bound_after, cplx, wrapped, tensors, used = out
    assert same and bound_before and bound_after == 0
    wants_odd, wants_kept = [], []
    for i, (sa, sb) in enumerate(shapes):
        a = np.arange(int(np.prod(sa)), dtype=np.float32).reshape(sa)
        b = np.zeros(sb, np.float32) + np.float32(0.5 + i)
        ints = a.astype(np.int32) + b.astype(np.int32)
        outs = [a + b, a - b, a * b, np.maximum(a, b), np.exp(-a), np.sqrt(b), ints]
        wants_kept.append(outs[::2])
        wants_odd += outs[1::2]
    wants = wants_odd + [w for group in wants_kept for w in group]
    assert len(first) == len(wants)
    for got, want in zip(first, wants, strict=True):
        np.testing.assert_allclose(np.ravel(got), np.ravel(want), rtol=1e-6)
    c, d = np.array([1 + 3j, 2 - 1j]), np.array([0.5 + 1j, -2 + 4j])
    for got, want in zip(cplx, (c + d, c - d, c * d), strict=True):
        np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1).ravel(), rtol=1e-6)
    assert wrapped == [False, False, False]  # the float path calls the kernel itself
    assert tensors == 0 and used == 0
