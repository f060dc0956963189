import numpy as np

SETUP = '''
import time
from webtf.ops import backprop as bp
def bench(fn, n=10):
    r = fn(); r.data_sync(); r.dispose()
    best = 1e9
    for _ in range(n):
        t = time.perf_counter()
        r = fn(); r.data_sync(); r.dispose()
        best = min(best, time.perf_counter() - t)
    return round(best * 1000, 2)
def all_times():
    return {
      "fwd conv1": bench(lambda: tf.conv2d(x1, f1, 1, 'same')),
      "fwd conv2": bench(lambda: tf.conv2d(x2, f2, 1, 'same')),
      "bpf conv1": bench(lambda: bp.conv2d_backprop_filter(x1, d1, [3, 3, 1, 8], 1, 'same')),
      "bpf conv2": bench(lambda: bp.conv2d_backprop_filter(x2, d2, [3, 3, 8, 16], 1, 'same')),
      "bpi conv2": bench(lambda: bp.conv2d_backprop_input([32, 14, 14, 8], d2, f2, 1, 'same')),
      "maxpoolgrad1": bench(lambda: bp.max_pool_grad(p1, d1, p1, 2, 2, 'valid')),
      "maxpoolgrad2": bench(lambda: bp.max_pool_grad(p2, d2, p2, 2, 2, 'valid')),
      "fwd conv1 again": bench(lambda: tf.conv2d(x1, f1, 1, 'same')),
      "maxpoolgrad1 again": bench(lambda: bp.max_pool_grad(p1, d1, p1, 2, 2, 'valid')),
      "kernel maxpoolgrad1": bench(lambda: tf.engine.ENGINE.run_kernel("MaxPoolGrad", {"dy": p1, "input": d1, "output": p1}, {"filter_size": (2, 2), "strides": (2, 2), "pad": "valid", "dim_rounding_mode": None})),
      "relu 200K": bench(lambda: tf.relu(d1)),
    }
'''


def test_timing(run):
    r = np.random.default_rng(0).standard_normal
    f32 = lambda *s: r(s).astype(np.float32)
    out = run("all_times()", setup=SETUP, x1=f32(32, 28, 28, 1), f1=f32(3, 3, 1, 8), d1=f32(32, 28, 28, 8),
              x2=f32(32, 14, 14, 8), f2=f32(3, 3, 8, 16), d2=f32(32, 14, 14, 16), p1=f32(32, 14, 14, 8),
              p2=f32(32, 7, 7, 16))
    print(run.backend, out)
