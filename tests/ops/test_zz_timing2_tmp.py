import numpy as np

SETUP = '''
import time
from webtf.backends.wasm.kernels import backprop as wb
be = tf.backend()
def t(fn, n=10):
    fn()
    s = time.perf_counter()
    for _ in range(n): fn()
    return round((time.perf_counter() - s) / n * 1000, 3)
def all_times():
    res = {}
    attrs = {"filter_size": (2, 2), "strides": (2, 2), "pad": "valid", "dim_rounding_mode": None}
    js = be.heap_function(wb._MAX_POOL_GRAD)
    def direct():
        out = be.make_output((32, 28, 28, 8), "float32")
        js(be.pointer(d1), be.pointer(p1), be.pointer(out), 32, 28, 28, 8, 14, 14, 2, 2, 2, 2, 0, 0)
        be.dispose_data(out.data_id)
    def kern():
        out = wb.max_pool_grad(be, {"dy": p1, "input": d1, "output": p1}, attrs)
        be.dispose_data(out.data_id)
    def eng():
        tf.engine.ENGINE.run_kernel("MaxPoolGrad", {"dy": p1, "input": d1, "output": p1}, attrs).dispose()
    for k in range(2):
        res[f"direct{k}"] = t(direct)
        res[f"kern{k}"] = t(kern)
        res[f"eng{k}"] = t(eng)
    return res
'''


def test_timing(run):
    r = np.random.default_rng(0).standard_normal
    f32 = lambda *s: r(s).astype(np.float32)
    out = run("all_times()", setup=SETUP, d1=f32(32, 28, 28, 8), p1=f32(32, 14, 14, 8))
    print(run.backend, out)
