"""The families webtf imports on first use (webtf._LAZY: layers, training, datasets, losses; the graph executor's
control-flow parts) are not in the page's snapshot, and each works in a page booted from it.

One page, booted from the snapshot in a context of its own (the session page may have imported them already),
runs everything in one call; the results are checked against arithmetic done here and numpy.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser

from tests.conftest import PY_JS, boot_page
from tests.models.test_graph_dynamic import map_fn_graph

# the modules of the lazily imported families
LAZY_MODULES = ("webtf.models.layers", "webtf.train", "webtf.data", "webtf.losses", "webtf.layers")
CONTROL_FLOW = ("webtf.models.graph.dynamic", "webtf.models.graph.resources")
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], np.float32)

LAZY_PY = """
import base64, json, sys
import webtf as tf
loaded = lambda prefixes: sorted(m for m in sys.modules if m.startswith(prefixes))
out = {"at_boot": loaded(LAZY_MODULES + CONTROL_FLOW), "missing": [n for n in tf._LAZY if getattr(tf, n) is None]}
before = tf.memory().num_tensors
# layers, train, losses: one SGD step of dense(1) with weights of ones on x = [1, 2], y = 1
model = tf.sequential()
model.add(tf.layers.dense(units=1, input_shape=[2], kernel_initializer="ones", bias_initializer="zeros"))
sgd = tf.train.sgd(0.1)
model.compile(sgd, "meanSquaredError")
x, y = tf.tensor([[1.0, 2.0]]), tf.tensor([[1.0]])
history = await model.fit(x, y, epochs=1, verbose=0)
out["fit_loss"] = history.history["loss"][0]
prediction = model.predict(x)
out["prediction"] = list(await prediction.data())
labels, predictions = tf.tensor([1.0, 2.0]), tf.tensor([2.0, 4.0])
mse = tf.losses.mean_squared_error(labels, predictions, reduction=tf.Reduction.MEAN)
out["mse"] = list(await mse.data())
tf.dispose([x, y, prediction, labels, predictions, mse])
model.dispose()
adam = tf.train.adam(0.01)
out["optimizer"] = isinstance(adam, tf.AdamOptimizer)
sgd.dispose()
adam.dispose()
out["layers_model"] = tf.models.LayersModel is tf.LayersModel
# data
out["data"] = [int(v) for v in await tf.data.array([1, 2, 3]).map(lambda v: v * 2).to_array()]
# graph control flow: a while loop over a TensorArray
graph = await tf.load_graph_model(tf.io.from_memory(MODEL, base64.b64decode(WEIGHTS)))
feed = tf.tensor(X)
result = await graph.execute_async({"x": feed}, ["out", "size"])
out["map_fn"] = [list(await t.data()) for t in result]
tf.dispose([feed, *result])
graph.dispose()
out["leaked"] = tf.memory().num_tensors - before
out["after"] = loaded(LAZY_MODULES + CONTROL_FLOW)
out
"""


@pytest.fixture(scope="module")
def lazy_run(browser: Browser, server: str) -> Iterator[dict[str, Any]]:
    """LAZY_PY in a page booted from the snapshot, in a context of its own."""
    model, data = map_fn_graph().model(["out", "size"])
    code = (
        LAZY_PY.replace("LAZY_MODULES", repr(LAZY_MODULES))
        .replace("CONTROL_FLOW", repr(CONTROL_FLOW))
        .replace("MODEL", f"json.loads({json.dumps(model)!r})")
        .replace("WEIGHTS", repr(base64.b64encode(data).decode()))
        .replace("X)", f"{X.tolist()})")
    )
    context = browser.new_context()
    log: list[str] = []
    try:
        page = context.new_page()
        boot_page(page, server, log)
        assert page.evaluate("window.webtfBootPath") == "snapshot", log
        yield page.evaluate(PY_JS, code)
    finally:
        context.close()


def test_the_snapshot_leaves_the_lazy_families_out(lazy_run: dict[str, Any]) -> None:
    assert lazy_run["at_boot"] == []
    assert set(LAZY_MODULES + CONTROL_FLOW) <= set(lazy_run["after"])


def test_every_lazy_name_resolves(lazy_run: dict[str, Any]) -> None:
    assert lazy_run["missing"] == []
    assert lazy_run["optimizer"] and lazy_run["layers_model"]


def test_lazy_families_work_after_a_snapshot_boot(lazy_run: dict[str, Any]) -> None:
    # dense(1), weights 1, bias 0, x = [1, 2]: prediction 3, loss (3 - 1)^2 = 4; gradients 2 * 2 * [1, 2] and
    # 2 * 2; after one SGD step (0.1): w = [0.6, 0.2], b = -0.4, prediction 0.6 + 0.4 - 0.4 = 0.6
    assert lazy_run["fit_loss"] == pytest.approx(4.0)
    assert lazy_run["prediction"] == pytest.approx([0.6], abs=1e-6)
    assert lazy_run["mse"] == pytest.approx([2.5])  # ((2 - 1)^2 + (4 - 2)^2) / 2
    assert lazy_run["data"] == [2, 4, 6]
    out, size = lazy_run["map_fn"]
    assert size == [2]
    np.testing.assert_allclose(out, (X * 2 + np.arange(2)[:, None]).ravel(), rtol=1e-6)
    assert lazy_run["leaked"] == 0
