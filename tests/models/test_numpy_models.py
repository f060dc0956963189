"""The five named models on the host's numpy backend vs TF.js 4.22.0, the oracle of test_parity.py.

The page makes the deterministic input and TF.js's outputs (its cpu backend, ORACLE_JS); the host loads the
same model files (dist/models, built for the page) and runs them on the numpy backend, fed and read through
the numpy interop (tf.tensor(ndarray), Tensor.numpy()). Error measure and tolerance are the cpu backend's.
"""

import numpy as np
import pytest

import build
import webtf as tf
from tests.harness.aio import run_sync
from tests.models.test_parity import MODELS, ORACLE_JS, TOLERANCE

READ_JS = """() => ({
  data: Array.from(window.webtfParityInput.data),
  shape: window.webtfParityInput.shape,
  dtype: window.webtfParityInput.dtype,
  outputs: window.webtfParityOracle.map((a) => Array.from(a)),
})"""


async def _run_on_numpy(name: str, x_values: np.ndarray) -> dict:
    previous = tf.get_backend()
    assert await tf.set_backend("numpy")
    try:
        before = tf.memory().num_tensors
        model = await tf.load_graph_model(str(build.DIST / "models" / f"{name}.json"))
        x = tf.tensor(x_values)
        outs = await model.execute_async(x)
        outs = outs if isinstance(outs, list) else [outs]
        extra = tf.memory().num_tensors - before - len(model.weights) - len(outs) - 1
        got = [t.numpy() for t in outs]
        nodes = model.output_nodes
        tf.dispose(outs)
        x.dispose()
        model.dispose()
        return {"got": got, "output_nodes": nodes, "extra": extra, "leak": tf.memory().num_tensors - before}
    finally:
        await tf.set_backend(previous)


@pytest.mark.parametrize("name", MODELS)
def test_model_on_numpy_matches_tfjs(webtf_page, name):
    oracle = webtf_page.evaluate(ORACLE_JS, name)
    ref = webtf_page.evaluate(READ_JS)
    dtype = np.int32 if ref["dtype"] == "int32" else np.float32
    res = run_sync(_run_on_numpy(name, np.array(ref["data"], dtype).reshape(ref["shape"])))
    assert res["output_nodes"] == oracle["outputNodes"]
    assert [list(g.shape) for g in res["got"]] == oracle["shapes"]
    errors = []
    for got, want in zip(res["got"], ref["outputs"], strict=True):
        want = np.asarray(want, np.float64)
        scale = max(1.0, float(np.abs(want).max(initial=0.0)))
        errors.append(float(np.abs(got.ravel().astype(np.float64) - want).max(initial=0.0)) / scale)
    assert max(errors) <= TOLERANCE["cpu"], errors
    assert res["extra"] == 0, "intermediates left alive after execute"
    assert res["leak"] == 0
