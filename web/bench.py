"""Run by web/bench.js inside Pyodide: the webtf half of the benchmark (set up a case, run it, release it).

The page times `run()` from JavaScript, so a run covers Python dispatch, the kernels and reading every output.
"""

import json
from array import array
from collections.abc import Awaitable, Callable
from typing import Any

import webtf as tf
from webtf.models.capture import STATS

_case: dict[str, Any] = {}


def _dense(h: tf.Tensor, w: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
    return tf.add(tf.mat_mul(h, w), b)


def _block(h: tf.Tensor, f: tf.Tensor, c: tf.Tensor) -> tf.Tensor:
    return tf.max_pool(tf.relu(tf.add(tf.conv2d(h, f, 1, "same"), c)), 2, 2, "valid")


def _train_step(net: str, x: tf.Tensor, params: Any) -> Callable[[], Any]:
    """One adam step of the case's net (web/bench.js's TRAIN_WEIGHTS) on x; returns the step (it gives the
    cost). The labels and variables join the case's inputs, the optimizer is kept for release()."""
    v: dict[str, tf.Tensor] = {}
    for name, data, shape in params.to_py(depth=1):
        values = array("f")
        values.frombytes(data.to_bytes())
        t = tf.tensor(values, list(shape.to_py()), "float32")
        v[name] = t if name == "labels" else tf.variable(t)
        if name != "labels":
            t.dispose()
        _case["inputs"].append(v[name])
    if net == "mlp":

        def logits() -> tf.Tensor:
            return _dense(tf.relu(_dense(x, v["w1"], v["b1"])), v["w2"], v["b2"])

    else:

        def logits() -> tf.Tensor:
            h = _block(_block(x, v["f1"], v["c1"]), v["f2"], v["c2"])
            return _dense(tf.reshape(h, [h.shape[0], -1]), v["w"], v["b"])

    weights = [t for name, t in v.items() if name != "labels"]
    optimizer = _case["optimizer"] = tf.train.adam(0.001, 0.9, 0.999, 1e-7)
    return lambda: optimizer.minimize(
        lambda: tf.losses.softmax_cross_entropy(v["labels"], logits()), True, weights
    )


def _adds(x: tf.Tensor, count: int) -> tf.Tensor:
    y = x
    for _ in range(count):
        y = tf.add(y, x)
    return y


async def _fit_epoch(x: tf.Tensor, params: Any, fit: Any) -> Callable[[], Awaitable[tf.Tensor]]:
    """One epoch of LayersModel.fit on x (web/bench.js's fitArtifacts model, adam, categorical crossentropy);
    the step returns the epoch's mean loss as a scalar."""
    name, data, shape = params.to_py(depth=1)[0]
    values = array("f")
    values.frombytes(data.to_bytes())
    labels = tf.tensor(values, list(shape.to_py()), "float32")
    _case["inputs"].append(labels)
    model_json = {"modelTopology": json.loads(fit.topology),
                  "weightsManifest": [{"paths": [], "weights": json.loads(fit.specs)}]}  # fmt: skip
    model = _case["model"] = await tf.load_layers_model(tf.io.from_memory(model_json, fit.weights.to_bytes()))
    model.compile(tf.train.adam(0.001, 0.9, 0.999, 1e-7), "categoricalCrossentropy")
    _case["optimizer"] = model.optimizer
    batch = int(fit.batch)

    async def step() -> tf.Tensor:
        h = await model.fit(x, labels, batch_size=batch, epochs=1, shuffle=False, verbose=0)
        return tf.scalar(h.history["loss"][0])

    return step


async def prepare(
    kind: str, url: str, backend: str, data: Any, shape: Any, dtype: str, count: int, net: str, params: Any,
    fit: Any = None,
) -> None:  # fmt: skip
    """Switch to backend, load the case's model (if any) and upload its input (a JS typed array).

    kind: graph | layers (a model at url), adds (count tiny adds), matmul (input times itself), train (one
    adam step of `net` from params: [name, Float32Array, shape] for the labels and initial weights), fit (one
    epoch of model.fit of the model in `fit`: {topology, specs, weights, batch})."""
    release()
    _case["replayed"], _case["compiled"] = STATS["replayed"], STATS["compiled"]
    if not await tf.set_backend(backend):
        raise RuntimeError(f"webtf backend {backend!r} failed to initialize")
    values = array("i" if dtype == "int32" else "f")
    values.frombytes(data.to_bytes())
    _case["before"] = tf.memory().num_tensors
    x = tf.tensor(values, list(shape.to_py()), dtype)
    _case["inputs"] = [x]
    step: Callable[[], Any]
    if kind == "graph":
        model = _case["model"] = await tf.load_graph_model(url)

        async def step() -> Any:
            return await model.execute_async(x)

    elif kind == "layers":
        model = _case["model"] = await tf.load_layers_model(url)

        def step() -> Any:
            return model.predict(x)

    elif kind == "adds":

        def step() -> Any:
            return tf.tidy(lambda: _adds(x, count))

    elif kind == "matmul":

        def step() -> Any:
            return tf.mat_mul(x, x)

    elif kind == "train":
        step = _train_step(net, x, params)

    elif kind == "fit":
        step = await _fit_epoch(x, params, fit)

    else:
        raise ValueError(f"unknown bench case kind {kind!r}")
    _case["step"] = step


async def run() -> None:
    """One timed run: execute, read every output, dispose the outputs."""
    outs = _case["step"]()
    if isinstance(outs, Awaitable):
        outs = await outs
    outs = list(outs.values()) if isinstance(outs, dict) else outs if isinstance(outs, list) else [outs]
    for t in outs:
        await t.data()
    tf.dispose(outs)


def replays() -> int:
    """How many whole model runs were replayed (models/capture.py) since the case was prepared."""
    return STATS["replayed"] - _case.get("replayed", STATS["replayed"])


def compiled() -> int:
    """How many of those replays ran as one compiled JS program (backends/wasm|webgl/replay.py)."""
    return STATS["compiled"] - _case.get("compiled", STATS["compiled"])


def release() -> int:
    """Free the case's model and inputs; return how many tensors it leaked (0 when all is well)."""
    if not _case:
        return 0
    tf.dispose(_case.pop("inputs", []))
    for owner in (_case.pop("model", None), _case.pop("optimizer", None)):
        if owner is not None:
            owner.dispose()
    leaked = tf.memory().num_tensors - _case.pop("before", tf.memory().num_tensors)
    _case.clear()
    return leaked


def environment() -> dict[str, Any]:
    """webtf's side of the environment block: version, backends, wasm SIMD/threads flags."""
    env = tf.env()
    return {
        "version": tf.__version__,
        "backends": sorted(tf.ENGINE.factories),
        "wasm_simd": bool(env.get("WASM_HAS_SIMD_SUPPORT")),
        "wasm_multithread": bool(env.get("WASM_HAS_MULTITHREAD_SUPPORT")),
        "wasm_threads": threads("wasm"),
    }


def set_threads(count: int) -> None:
    """The wasm thread count (tf.wasm.set_threads_count), before the wasm backend starts."""
    tf.wasm.set_threads_count(int(count))


def threads(backend: str) -> int | None:
    """The thread count of the wasm backend's pool (None for other backends or before wasm started)."""
    if backend != "wasm" or "wasm" not in tf.ENGINE.instances:
        return None
    return tf.wasm.get_threads_count()
