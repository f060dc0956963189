"""Convolutions reading convolutions: on cpu a packed conv's output stays packed until read, and a packed conv
reading it takes its input from the sums (backends/cpu/kernels/lazy.py). Checked against numpy on every target."""

import numpy as np
import pytest

from tests.harness.aio import run_sync
from tests.helpers import Rand
from tests.ops.test_conv import close, ref_conv2d, ref_conv2d_transpose, ref_depthwise

_R = Rand(23)
rand = _R.normal

# (x shape, first filter (depthwise when its 4th dim is 1 and the kind says so), its strides / pad / dilation,
#  second filter, its strides / pad / dilation): depthwise -> 1x1, 1x1 -> depthwise, conv -> conv
CHAINS = [
    ("dw", (1, 9, 7, 4), (3, 3, 4, 1), 1, "same", 1, (1, 1, 4, 5), 1, "valid", 1),
    ("dw", (2, 8, 8, 3), (3, 3, 3, 2), 2, "same", 1, (1, 1, 6, 4), 1, "valid", 1),
    ("conv", (1, 7, 9, 3), (1, 1, 3, 6), 1, "valid", 1, (3, 3, 6, 1), 2, "same", 1),
    ("conv", (2, 6, 5, 2), (3, 3, 2, 3), 1, "same", 1, (3, 3, 3, 2), 1, "valid", 2),
    ("conv", (1, 11, 10, 3), (3, 3, 3, 4), 2, "valid", 1, (2, 3, 4, 3), [1, 2], "same", 1),
    ("conv", (2, 6, 7, 3), (1, 1, 3, 5), 1, "valid", 1, (3, 3, 5, 1), 1, "same", 1),
    ("conv", (1, 7, 6, 2), (3, 3, 2, 3), 1, "same", 1, (2, 2, 3, 2), 1, [[0, 0], [2, 1], [0, 3], [0, 0]], 1),
]


def _ref(x, kind, f, s, p, d):
    return ref_depthwise(x, f, s, p, d) if kind == "dw" else ref_conv2d(x, f, s, p, d)


def _op(kind):
    return "tf.fused.depthwise_conv2d" if kind == "dw" else "tf.fused.conv2d"


@pytest.mark.parametrize("activation", ["linear", "relu", "relu6"])
def test_conv_reading_conv(run, activation):
    outs, refs, inputs = [], [], {}
    for i, (kind, xs, fs, s, p, d, gs, s2, p2, d2) in enumerate(CHAINS):
        x, f, g = rand(*xs) * 2, rand(*fs), rand(*gs)
        b = rand(fs[2] * fs[3] if kind == "dw" else fs[3])
        kind2 = "dw" if gs[3] == 1 and kind == "conv" else "conv"
        inputs.update({f"x{i}": x, f"f{i}": f, f"g{i}": g, f"b{i}": b})
        y = f"{_op(kind)}(x{i}, f{i}, {s!r}, {p!r}, dilations={d!r}, bias=b{i}, activation={activation!r})"
        # the first conv's output is read by the second conv first, then returned (and read) itself
        outs.append(f"(lambda y: [{_op(kind2)}(y, g{i}, {s2!r}, {p2!r}, dilations={d2!r}), y])({y})")
        ref_y = _ref(x, kind, f, s, p, d) + b
        ref_y = {"relu": np.maximum(ref_y, 0), "relu6": np.clip(ref_y, 0, 6)}.get(activation, ref_y)
        refs += [_ref(ref_y.astype(np.float32), kind2, g, s2, p2, d2), ref_y]
    got = run("tf.tidy(lambda: [t for pair in [" + ", ".join(outs) + "] for t in pair])", **inputs)
    for out, ref in zip(got, refs, strict=True):
        close(out, ref, 2e-5)


def test_conv_reading_conv_edges(run):
    # a packed output read by another kernel first (Add), one never read (disposed inside tidy), all zeros,
    # float32 overflow to inf, and a bias far larger than the values (it stays out of the integer sums)
    x, f, g = rand(1, 6, 6, 3), rand(3, 3, 3, 1), rand(1, 1, 3, 4)
    expr = (
        "tf.tidy(lambda: (lambda y, z: [tf.conv2d(tf.add(y, 1), g, 1, 'valid'), tf.conv2d(y, g, 1, 'valid'),"
        " tf.conv2d(tf.relu(z), g, 1, 'valid'), tf.conv2d(z, g, 1, 'valid')])"
        "(tf.depthwise_conv2d(x, f, 1, 'same'), tf.depthwise_conv2d(x * 0, f, 1, 'same')))"
    )
    y = ref_depthwise(x, f, 1, "same")
    zero = np.zeros((1, 6, 6, 4))
    # a reshaped packed output (the buffer shared, another layout) read by a conv and by Adds
    shaped = (
        "tf.tidy(lambda: (lambda a, b: [tf.conv2d(tf.reshape(a, [1, 6, 4, 3]), g3, 1, 'same'),"
        " kadd(tf.reshape(a, [1, 6, 4, 3]), b), kadd(b, tf.reshape(a, [1, 6, 4, 3]))])"
        "(tf.depthwise_conv2d(tf.slice(x, [0, 0, 0, 0], [1, 4, 6, 3]), f3, 1, 'same'), tf.conv2d(xb, g3, 1,"
        " 'same')))"
    )
    f3, g3, xb = rand(3, 3, 3, 1), rand(3, 3, 3, 3), rand(1, 6, 4, 3)
    a = ref_depthwise(x[:, :4, :, :3], f3, 1, "same").reshape(1, 6, 4, 3)
    b = ref_conv2d(xb, g3, 1, "same")
    got = run(shaped, setup=KADD, x=x, f3=f3, g3=g3, xb=xb)
    for out, ref in zip(got, [ref_conv2d(a, g3, 1, "same"), a + b, b + a], strict=True):
        close(out, ref, 2e-5)
    refs = [ref_conv2d(y + 1, g, 1, "valid"), ref_conv2d(y, g, 1, "valid"), zero, zero]
    for out, ref in zip(run(expr, x=x, f=f, g=g), refs, strict=True):
        close(out, ref, 2e-5)
    big, tiny = np.full((1, 4, 4, 2), 1e30, np.float32), rand(1, 4, 4, 2) * 1e-30
    fb, gb = np.full((1, 1, 2, 2), 1e10, np.float32), rand(1, 1, 2, 3)
    expr = "tf.tidy(lambda: [tf.conv2d(tf.conv2d(big, fb, 1, 'valid'), gb, 1, 'valid'), tf.conv2d(tf.fused.conv2d("
    expr += "tiny, gb2, 1, 'valid', bias=b, activation='relu6'), gb, 1, 'valid')])"
    b, gb2 = np.array([3.0, -1.0], np.float32), rand(1, 1, 2, 2)
    with np.errstate(invalid="ignore", over="ignore"):
        first = ref_conv2d(big, fb, 1, "valid").astype(np.float32)  # inf: float32 overflows
        ref_big = ref_conv2d(first, gb, 1, "valid")
    ref_tiny = ref_conv2d(np.clip(ref_conv2d(tiny, gb2, 1, "valid") + b, 0, 6), gb, 1, "valid")
    diff = np.zeros((3, 3, 2, 1), np.float32)
    diff[1, 1], diff[1, 2] = 1, -1  # of a constant input: all zeros, far below the input's scale
    flat = np.full((1, 5, 6, 2), 2.0**30, np.float32)
    expr = expr[:-2] + ", tf.depthwise_conv2d(tf.depthwise_conv2d(flat, diff, 1, 'valid'), dw, 1, 'same')])"
    out_big, out_tiny, out_flat = run(expr, big=big, fb=fb, gb=gb, tiny=tiny, gb2=gb2, b=b, flat=flat, diff=diff,
                                      dw=rand(3, 3, 2, 1))  # fmt: skip
    np.testing.assert_array_equal(np.isnan(out_big), np.isnan(ref_big))
    np.testing.assert_array_equal(out_big[~np.isnan(out_big)], ref_big[~np.isnan(ref_big)])
    close(out_tiny, ref_tiny, 2e-5)
    close(out_flat, np.zeros((1, 3, 4, 2)))


#: Add through run_kernel: eager same-shape adds take the kernels' `fast` path, model replays the kernel
KADD = "from webtf.engine import ENGINE\nkadd = lambda a, b: ENGINE.run_kernel('Add', {'a': a, 'b': b})"


def test_residual_add_of_convs(run):
    # Add of two packed outputs (layouts rows ow and ow + 2 wide, other scales), or of one and a plain float32
    # tensor, stays packed on cpu; then Relu and a conv read the sum; a broadcasting Add and a non-finite plain
    # operand take the usual path
    x, f, g, h = rand(2, 7, 6, 4) * 3, rand(3, 3, 4, 1), rand(1, 1, 4, 4), rand(3, 3, 4, 1) * 0.01
    expr = (
        "tf.tidy(lambda: (lambda r, z: [tf.conv2d(tf.relu(kadd(z, r)), g, 1, 'valid'), kadd(kadd(r, z), r),"
        " kadd(z, r), kadd(r, x), tf.relu(kadd(x, z)), kadd(z, xi), kadd(z, tf.slice(r, [0, 0, 0, 0], [2, 7, 6, 1]))])"
        "(tf.depthwise_conv2d(x, h, 1, 'same'), tf.conv2d(tf.depthwise_conv2d(x, f, 1, 'same'), g, 1, 'valid')))"
    )
    r = ref_depthwise(x, h, 1, "same")
    z = ref_conv2d(ref_depthwise(x, f, 1, "same"), g, 1, "valid")
    xi = x.copy()
    xi[0, 1, 2, 3], xi[1, 0, 0, 0] = np.inf, np.nan  # a non-finite plain operand: the float path
    refs = [ref_conv2d(np.maximum(z + r, 0), g, 1, "valid"), 2 * r + z, z + r, r + x, np.maximum(x + z, 0)]
    refs += [z + xi, z + r[..., :1]]
    for out, ref in zip(run(expr, setup=KADD, x=x, f=f, g=g, h=h, xi=xi), refs, strict=True):
        close(out, ref, 2e-5)


def test_cpu_packed_output_lifecycle(monkeypatch):
    # host cpu: the output is kept packed, the next conv reads its sums (not float32), reads and moves decode it
    import webtf as tf
    from webtf.backends.cpu.kernels import lazy

    async def body():
        assert await tf.set_backend("cpu")
        backend = tf.backend()
        fixed_calls = []
        real = lazy.PackedOutput.rounded
        monkeypatch.setattr(lazy.PackedOutput, "rounded", lambda s, b, k: fixed_calls.append(k) or real(s, b, k))
        x, f, g = (tf.tensor(rand(*s)) for s in ((2, 5, 5, 3), (3, 3, 3, 1), (1, 1, 3, 2)))
        start = tf.memory().num_tensors
        y = tf.depthwise_conv2d(x, f, 1, "same")
        assert isinstance(backend.data[y.data_id], lazy.PackedOutput)
        assert backend.memory()["num_bytes_in_cpu"] >= 4 * 2 * 5 * 5 * 3
        z = tf.conv2d(y, g, 1, "valid")
        assert fixed_calls and isinstance(backend.data[y.data_id], lazy.PackedOutput)
        ref_y = ref_depthwise(x.numpy(), f.numpy(), 1, "same")
        close(y.numpy(), ref_y)  # a read decodes it once and keeps the float32 values
        assert not isinstance(backend.data[y.data_id], lazy.PackedOutput)
        close(z.numpy(), ref_conv2d(ref_y, g.numpy(), 1, "valid"), 2e-5)
        from webtf.backends.cpu.kernels.packed import _max_exponent

        checked = 0
        for act in ("linear", "relu", "relu6"):  # the exponent read from the sums is the float32 values' one
            for scale in (1.0, 1e-3, 40.0):
                bias = tf.tensor([scale, -scale])
                v = tf.fused.conv2d(x, g, 1, "same", bias=bias, activation=act)
                p = backend.data[v.data_id]
                if act != "linear":  # Relu of a packed output stays packed too
                    r = tf.relu6(v) if act == "relu6" else tf.relu(v)
                    assert isinstance(backend.data[r.data_id], lazy.PackedOutput)
                    close(r.numpy(), np.clip(v.numpy(), 0, 6 if act == "relu6" else None))
                    r.dispose()
                me = p.max_exponent()  # None where the bias does not fit the integer sums
                assert me is None or me == _max_exponent(backend.values(v))
                checked += me is not None
                tf.dispose([v, bias])
        assert checked >= 6
        from webtf.engine import ENGINE

        pair = {"a": tf.conv2d(x, g, 1, "same"), "b": tf.conv2d(x, g, 1, "valid")}
        s = ENGINE.run_kernel("Add", pair)
        assert isinstance(backend.data[s.data_id], lazy.PackedOutput)
        tf.dispose([s, *pair.values()])
        w = tf.depthwise_conv2d(x, f, 1, "same")
        unread = tf.depthwise_conv2d(x, f, 1, "same")
        unread.dispose()
        if await tf.set_backend("numpy"):  # moved to another backend: decoded on the way
            close(np.asarray(w.data_sync()).reshape(ref_y.shape), ref_y)
            assert await tf.set_backend("cpu")
        tf.dispose([y, z, w])
        assert tf.memory().num_tensors == start
        tf.dispose([x, f, g])

    run_sync(body())


def test_conv2d_transpose_stride_is_filter(run):
    # stride == filter size, no padding (selfie's upsampling): a 1x1 conv spread to the pixels on cpu
    cases = [((2, 8, 6, 1), (2, 2, 1, 5), 2, "same"), ((1, 9, 8, 3), (3, 2, 3, 4), [3, 2], "valid")]
    exprs, refs, inputs = [], [], {}
    for i, (out_shape, fs, strides, pad) in enumerate(cases):
        f, s = rand(*fs), (strides, strides) if isinstance(strides, int) else strides
        dy = rand(out_shape[0], out_shape[1] // s[0], out_shape[2] // s[1], fs[3])
        inputs.update({f"dy{i}": dy, f"f{i}": f})
        exprs.append(f"tf.conv2d_transpose(dy{i}, f{i}, {list(out_shape)}, {strides!r}, '{pad}')")
        refs.append(ref_conv2d_transpose(dy, f, out_shape, strides, pad))
    for out, ref in zip(run("[" + ", ".join(exprs) + "]", **inputs), refs, strict=True):
        close(out, ref, 2e-5)


def test_eager_ops_on_conv_outputs(run):
    # eager same-shape ops (the kernels' `fast` variants) on conv outputs, which cpu may still hold packed
    x, f, g = rand(1, 6, 5, 3), rand(3, 3, 3, 1), rand(1, 1, 3, 4)
    expr = (
        "tf.tidy(lambda: (lambda a, b: [tf.add(a, b), tf.sub(b, a), tf.mul(a, a), tf.exp(a), tf.neg(b)])"
        "(tf.conv2d(x, g, 1, 'valid'), tf.conv2d(tf.depthwise_conv2d(x, f, 1, 'same'), g, 1, 'valid')))"
    )
    a = ref_conv2d(x, g, 1, "valid")
    b = ref_conv2d(ref_depthwise(x, f, 1, "same"), g, 1, "valid")
    for out, ref in zip(run(expr, x=x, f=f, g=g), [a + b, b - a, a * a, np.exp(a), -b], strict=True):
        close(out, ref, 2e-5)
