import numpy as np
import pytest

from tests.helpers import Rand, pair, ref_activation, window_geometry

_R = Rand(11)
RNG, rand = _R.rng, _R.normal


def pad_input(x, fh, fw, strides, dilations, pad, mode=None, fill=0.0):
    """x padded (with room for every window) plus the output height and width."""
    (sh, sw), (dh, dw) = pair(strides), pair(dilations)
    top, bottom, oh = window_geometry(x.shape[1], fh, sh, dh, pad, mode, 0)
    left, right, ow = window_geometry(x.shape[2], fw, sw, dw, pad, mode, 1)
    bottom = max(bottom, (oh - 1) * sh + (fh - 1) * dh + 1 - top - x.shape[1])
    right = max(right, (ow - 1) * sw + (fw - 1) * dw + 1 - left - x.shape[2])
    xp = np.pad(x.astype(np.float64), ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    return xp, oh, ow


def windows(x, fh, fw, strides, dilations, pad, mode=None, fill=0.0):
    """Yield (y, x, window [b, fh, fw, c]) for every output position."""
    (sh, sw), (dh, dw) = pair(strides), pair(dilations)
    xp, oh, ow = pad_input(x, fh, fw, strides, dilations, pad, mode, fill)
    for y in range(oh):
        for c in range(ow):
            yield (
                y,
                c,
                xp[:, y * sh : y * sh + (fh - 1) * dh + 1 : dh, c * sw : c * sw + (fw - 1) * dw + 1 : dw, :],
            )


def out_hw(x, fh, fw, strides, dilations, pad, mode=None):
    (sh, sw), (dh, dw) = pair(strides), pair(dilations)
    oh = window_geometry(x.shape[1], fh, sh, dh, pad, mode, 0)[2]
    ow = window_geometry(x.shape[2], fw, sw, dw, pad, mode, 1)[2]
    return oh, ow


def ref_conv2d(x, f, strides, pad, dilations=1, mode=None):
    oh, ow = out_hw(x, f.shape[0], f.shape[1], strides, dilations, pad, mode)
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]))
    for y, c, win in windows(x, f.shape[0], f.shape[1], strides, dilations, pad, mode):
        out[:, y, c] = np.einsum("bhwc,hwco->bo", win, f.astype(np.float64))
    return out


def ref_depthwise(x, f, strides, pad, dilations=1):
    oh, ow = out_hw(x, f.shape[0], f.shape[1], strides, dilations, pad)
    out = np.zeros((x.shape[0], oh, ow, f.shape[2] * f.shape[3]))
    for y, c, win in windows(x, f.shape[0], f.shape[1], strides, dilations, pad):
        out[:, y, c] = np.einsum("bhwc,hwcm->bcm", win, f.astype(np.float64)).reshape(x.shape[0], -1)
    return out


def ref_conv2d_transpose(dy, f, out_shape, strides, pad):
    """Scatter every dy pixel through the filter into a padded dx, then crop the forward conv's padding."""
    (sh, sw), (fh, fw) = pair(strides), f.shape[:2]
    b, h, w, c = out_shape
    top, _, oh = window_geometry(h, fh, sh, 1, pad)
    left, _, ow = window_geometry(w, fw, sw, 1, pad)
    assert (oh, ow) == dy.shape[1:3]
    acc = np.zeros((b, (oh - 1) * sh + fh + h, (ow - 1) * sw + fw + w, c))
    for y in range(oh):
        for x in range(ow):
            acc[:, y * sh : y * sh + fh, x * sw : x * sw + fw] += np.einsum("bo,hwco->bhwc", dy[:, y, x], f)
    return acc[:, top : top + h, left : left + w]


def close(out, ref, tol=1e-5):
    assert out.shape == ref.shape, (out.shape, ref.shape)
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)


CONV_CASES = [
    ((1, 5, 5, 2), (3, 3, 2, 3), 1, "same", 1),
    ((2, 7, 6, 3), (3, 3, 3, 4), 2, "same", 1),
    ((2, 7, 6, 3), (3, 2, 3, 4), [2, 1], "valid", 1),
    ((1, 8, 7, 2), (3, 3, 2, 2), 1, "same", 2),
    ((1, 8, 7, 1), (3, 3, 1, 2), 1, "valid", [2, 1]),
    ((1, 8, 9, 1), (2, 3, 1, 2), 1, "same", [1, 3]),
    ((1, 9, 9, 1), (2, 2, 1, 1), 3, "valid", 1),
    ((1, 6, 5, 3), (2, 3, 3, 2), 2, [[0, 0], [1, 2], [0, 1], [0, 0]], 1),
    ((2, 5, 5, 3), (1, 1, 3, 4), 1, "valid", 1),
    ((1, 6, 6, 2), (1, 1, 2, 3), 2, "same", 1),
    ((1, 6, 6, 2), (3, 3, 2, 2), 2, 1, 1),
    ((1, 4, 4, 3), (5, 5, 3, 2), 1, "same", 1),
]


@pytest.mark.parametrize("xs,fs,strides,pad,dil", CONV_CASES)
def test_conv2d(run, xs, fs, strides, pad, dil):
    x, f = rand(*xs), rand(*fs)
    out = run(f"tf.conv2d(x, f, {strides!r}, {pad!r}, 'NHWC', {dil!r})", x=x, f=f)
    close(out, ref_conv2d(x, f, strides, pad, dil))


def test_conv2d_rank3_and_medium(run):
    x, f = rand(6, 5, 3), rand(3, 3, 3, 2)
    out = run("tf.conv2d(x, f, 1, 'same')", x=x, f=f)
    close(out, ref_conv2d(x[None], f, 1, "same")[0])
    x, f = rand(1, 24, 20, 8), rand(3, 3, 8, 16)
    close(run("tf.conv2d(x, f, 1, 'same')", x=x, f=f), ref_conv2d(x, f, 1, "same"), 1e-4)


@pytest.mark.parametrize("mode", ["floor", "ceil", "round"])
def test_conv2d_dim_rounding_mode(run, mode):
    x, f = rand(1, 6, 7, 2), rand(3, 3, 2, 2)  # (6 - 3 + 2) / 2 + 1 = 3.5 and (7 - 3 + 2) / 2 + 1 = 4
    out = run(f"tf.conv2d(x, f, 2, 1, dim_rounding_mode='{mode}')", x=x, f=f)
    close(out, ref_conv2d(x, f, 2, 1, 1, mode))
    assert out.shape[1] == (3 if mode == "floor" else 4)


def test_conv2d_dtypes_and_empty(run):
    x = RNG.integers(-3, 4, (1, 4, 4, 2)).astype(np.int32)
    f = RNG.integers(-2, 3, (2, 2, 2, 3)).astype(np.int32)
    out = run("tf.conv2d(x, f, 1, 'valid')", x=x, f=f)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref_conv2d(x, f, 1, "valid").astype(np.int32))
    out = run("tf.conv2d(x, f, 1, 'same')", x=rand(0, 4, 4, 2), f=rand(3, 3, 2, 5))
    assert out.shape == (0, 4, 4, 5)
    out = run("tf.conv2d([[[1], [2]], [[3], [4]]], [[[[1]], [[1]]], [[[1]], [[1]]]], 1, 'valid')")
    assert out.dtype == np.float32 and out.tolist() == [[[10]]]


DEPTHWISE_CASES = [
    ((1, 5, 5, 3), (3, 3, 3, 1), 1, "same", 1),
    ((2, 7, 6, 3), (3, 3, 3, 2), 2, "same", 1),
    ((1, 8, 7, 2), (3, 2, 2, 2), [1, 2], "valid", 1),
    ((1, 8, 9, 2), (3, 3, 2, 1), 1, "same", 2),
    ((1, 7, 7, 1), (2, 2, 1, 2), 2, [[0, 0], [1, 0], [0, 2], [0, 0]], 1),
    ((1, 5, 5, 4), (1, 1, 4, 2), 1, "valid", 1),
]


@pytest.mark.parametrize("xs,fs,strides,pad,dil", DEPTHWISE_CASES)
def test_depthwise_conv2d(run, xs, fs, strides, pad, dil):
    x, f = rand(*xs), rand(*fs)
    out = run(f"tf.depthwise_conv2d(x, f, {strides!r}, {pad!r}, 'NHWC', {dil!r})", x=x, f=f)
    close(out, ref_depthwise(x, f, strides, pad, dil))


def test_depthwise_conv2d_rank3_and_medium(run):
    x, f = rand(5, 6, 3), rand(3, 3, 3, 2)
    close(run("tf.depthwise_conv2d(x, f, 1, 'valid')", x=x, f=f), ref_depthwise(x[None], f, 1, "valid")[0])
    x, f = rand(2, 20, 18, 16), rand(3, 3, 16, 1)
    close(run("tf.depthwise_conv2d(x, f, 2, 'same')", x=x, f=f), ref_depthwise(x, f, 2, "same"))


TRANSPOSE_CASES = [
    ((1, 5, 5, 2), (3, 3, 2, 3), 1, "same"),
    ((2, 7, 6, 2), (3, 3, 2, 3), 2, "same"),
    ((1, 8, 7, 3), (2, 3, 3, 4), 2, "valid"),
    ((1, 6, 5, 1), (3, 2, 1, 2), [2, 1], "same"),
    ((1, 4, 4, 2), (1, 1, 2, 3), 2, "valid"),
]


@pytest.mark.parametrize("out_shape,fs,strides,pad", TRANSPOSE_CASES)
def test_conv2d_transpose(run, out_shape, fs, strides, pad):
    f = rand(*fs)
    (sh, sw) = pair(strides)
    oh = window_geometry(out_shape[1], fs[0], sh, 1, pad)[2]
    ow = window_geometry(out_shape[2], fs[1], sw, 1, pad)[2]
    dy = rand(out_shape[0], oh, ow, fs[3])
    out = run(f"tf.conv2d_transpose(x, f, {list(out_shape)}, {strides!r}, '{pad}')", x=dy, f=f)
    close(out, ref_conv2d_transpose(dy, f, out_shape, strides, pad))
    # the gradient definition: <conv2d(X), dy> == <X, conv2d_transpose(dy)>
    probe = rand(*out_shape)
    lhs = float((ref_conv2d(probe, f, strides, pad) * dy).sum())
    assert abs(lhs - float((probe * out).sum())) < 1e-3 * max(1.0, abs(lhs))


def test_conv2d_transpose_rank3(run):
    f, dy = rand(3, 3, 2, 4), rand(3, 3, 4)
    out = run("tf.conv2d_transpose(x, f, [6, 5, 2], 2, 'same')", x=dy, f=f)
    close(out, ref_conv2d_transpose(dy[None], f, (1, 6, 5, 2), 2, "same")[0])


def test_separable_conv2d(run):
    x, dwf, pwf = rand(2, 7, 6, 3), rand(3, 3, 3, 2), rand(1, 1, 6, 4)
    out = run("tf.separable_conv2d(x, d, p, 2, 'same')", x=x, d=dwf, p=pwf)
    ref = np.einsum("bhwc,co->bhwo", ref_depthwise(x, dwf, 2, "same"), pwf[0, 0].astype(np.float64))
    close(out, ref)
    out = run("tf.separable_conv2d(x, d, p, 1, 'valid', 2)", x=x[0], d=dwf, p=pwf)
    close(out, np.einsum("bhwc,co->bhwo", ref_depthwise(x[:1], dwf, 1, "valid", 2), pwf[0, 0])[0])


ACTIVATIONS = ["linear", "relu", "relu6", "elu", "prelu", "leakyrelu", "sigmoid"]


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fused_conv2d(run, activation):
    x, f, bias, alpha = rand(2, 6, 5, 3) * 2, rand(3, 3, 3, 4), rand(4), rand(4)
    extra = ", prelu_activation_weights=alpha" if activation == "prelu" else ""
    out = run(
        f"tf.fused.conv2d(x, f, 2, 'same', bias=bias, activation='{activation}'{extra}, leakyrelu_alpha=0.1)",
        x=x, f=f, bias=bias, alpha=alpha,
    )  # fmt: skip
    close(out, ref_activation(ref_conv2d(x, f, 2, "same") + bias, activation, alpha, 0.1))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fused_depthwise_conv2d(run, activation):
    x, f, bias, alpha = rand(1, 6, 6, 3) * 2, rand(3, 3, 3, 2), rand(6), rand(6)
    extra = ", prelu_activation_weights=alpha" if activation == "prelu" else ""
    out = run(
        f"tf.fused.depthwise_conv2d(x, f, 1, 'valid', bias=bias, activation='{activation}'{extra})",
        x=x, f=f, bias=bias, alpha=alpha,
    )  # fmt: skip
    close(out, ref_activation(ref_depthwise(x, f, 1, "valid") + bias, activation, alpha))


def test_fused_conv2d_one_output_channel(run):
    """One output channel: a bias of shape [1] or [] is per channel (on wasm: the fused export, as TF.js)."""
    x, f = rand(1, 6, 5, 2) * 2, rand(3, 3, 2, 1)
    ref = ref_conv2d(x, f, 1, "same")
    for bias in (rand(1), np.array(-0.25, np.float32)):
        out = run("tf.fused.conv2d(x, f, 1, 'same', bias=b, activation='relu6')", x=x, f=f, b=bias)
        close(out, np.clip(ref + bias, 0, 6))


def test_fused_conv2d_variants(run):
    x, f = rand(5, 5, 2), rand(3, 3, 2, 3)
    ref = ref_conv2d(x[None], f, 1, "same")[0]
    close(run("tf.fused.conv2d(x, f, 1, 'same')", x=x, f=f), ref)
    close(
        run("tf.fused.conv2d(x, f, 1, 'same', bias=0.5, activation='relu')", x=x, f=f),
        np.maximum(ref + 0.5, 0),
    )
    full = rand(5, 5, 3)  # a bias and prelu weights of the whole output shape
    pre = ref + full
    out = run(
        "tf.fused.conv2d(x, f, 1, 'same', bias=b, activation='prelu', prelu_activation_weights=b)",
        x=x,
        f=f,
        b=full,
    )
    close(out, np.where(pre < 0, full * pre, pre))
    per_channel, alpha = rand(3), rand(3)  # 3 out channels: per-channel bias and prelu weights
    pre = ref + per_channel
    out = run(
        "tf.fused.conv2d(x, f, 1, 'same', bias=b, activation='prelu', prelu_activation_weights=a)",
        x=x,
        f=f,
        b=per_channel,
        a=alpha,
    )
    close(out, np.where(pre < 0, alpha * pre, pre))
    x4 = rand(1, 6, 6, 2)
    out = run(
        "tf.fused.depthwise_conv2d(x, f, 1, 'same', 'NHWC', 2, bias=b)", x=x4, f=f[:, :, :, :1], b=rand(2) * 0
    )
    close(out, ref_depthwise(x4, f[:, :, :, :1], 1, "same", 2))


@pytest.mark.parametrize("depthwise", [False, True])
def test_conv_extreme_values(run, depthwise):
    """Tiny and huge magnitudes keep float32 relative precision; inf and nan propagate as in IEEE math."""
    op, ref_fn = ("depthwise_conv2d", ref_depthwise) if depthwise else ("conv2d", ref_conv2d)
    x, f = rand(1, 7, 6, 3), rand(3, 3, 3, 2)
    for sx, sf in ((1e-30, 1e25), (1e20, 1e-3)):
        xs, fs = (x * sx).astype(np.float32), (f * sf).astype(np.float32)
        out = run(f"tf.{op}(x, f, 2, 'same')", x=xs, f=fs)
        close(out / (sx * sf), ref_fn(xs, fs, 2, "same") / (sx * sf))
    x[0, 2, 3, 1], x[0, 5, 1, 0] = np.inf, np.nan
    out = run(f"tf.{op}(x, f, 1, 'same')", x=x, f=f)
    ref = ref_fn(x, f, 1, "same")
    assert np.isnan(out).sum() == np.isnan(ref).sum() > 0 and np.isinf(ref).sum() > 0
    close(out, ref)


def test_conv_errors(run):
    x, f = rand(1, 5, 5, 3), rand(3, 3, 3, 2)
    with pytest.raises(
        ValueError, match=r"Error in conv2d: depth of input \(3\) must match input depth for filter 4"
    ):
        run("tf.conv2d(x, f, 1, 'same')", x=x, f=rand(3, 3, 4, 2))
    with pytest.raises(
        ValueError, match=r"Error in conv2d: x must be rank 4 \(or 3 without a batch\), but got rank 2"
    ):
        run("tf.conv2d(x, f, 1, 'same')", x=rand(5, 3), f=f)
    with pytest.raises(ValueError, match="Error in conv2d: filter must be rank 4, but got rank 3"):
        run("tf.conv2d(x, f, 1, 'same')", x=x, f=rand(3, 3, 3))
    with pytest.raises(
        ValueError, match=r"Error in conv2d: either strides or dilations must be 1. Got strides \[2,2\]"
    ):
        run("tf.conv2d(x, f, 2, 'same', 'NHWC', 2)", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: strides should be larger than 0"):
        run("tf.conv2d(x, f, 0, 'same')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: unknown padding parameter 'full'"):
        run("tf.conv2d(x, f, 1, 'full')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: unknown padding parameter"):
        run("tf.conv2d(x, f, 1, [[1, 1], [1, 1], [1, 1], [0, 0]])", x=x, f=f)
    with pytest.raises(
        ValueError, match="Error in conv2d: pad must be an integer when using dim_rounding_mode ceil"
    ):
        run("tf.conv2d(x, f, 1, 'same', dim_rounding_mode='ceil')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: unknown dim_rounding_mode 'up'"):
        run("tf.conv2d(x, f, 1, 1, dim_rounding_mode='up')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: got data_format NCHW but only NHWC is supported"):
        run("tf.conv2d(x, f, 1, 'same', 'NCHW')", x=x, f=f)
    with pytest.raises(
        TypeError, match="Error in conv2d: argument 'x' has dtype bool; expected float32 or int32"
    ):
        run("tf.conv2d(x, f, 1, 'same')", x=np.ones((1, 3, 3, 3), dtype=bool), f=f)
    with pytest.raises(TypeError, match="Error in conv2d: strides must be a number or a"):
        run("tf.conv2d(x, f, [1, 1, 1, 1], 'same')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in conv2d: argument 'filter' is a disposed tensor"):
        run("tf.conv2d(x, f, 1, 'same')", setup="f.dispose()", x=x, f=f)


def test_depthwise_transpose_separable_errors(run):
    x = rand(1, 5, 5, 3)
    with pytest.raises(
        ValueError, match=r"Error in depthwise_conv2d: number of input channels \(3\) must match"
    ):
        run("tf.depthwise_conv2d(x, f, 1, 'same')", x=x, f=rand(3, 3, 2, 1))
    with pytest.raises(ValueError, match="Error in depthwise_conv2d: either strides or dilations must be 1"):
        run("tf.depthwise_conv2d(x, f, 2, 'same', 'NHWC', [1, 2])", x=x, f=rand(3, 3, 3, 1))
    f = rand(3, 3, 2, 3)
    with pytest.raises(
        ValueError, match=r"Error in conv2d_transpose: depth of x \(4\) must match output depth"
    ):
        run("tf.conv2d_transpose(x, f, [1, 6, 6, 2], 2, 'same')", x=rand(1, 3, 3, 4), f=f)
    with pytest.raises(
        ValueError, match=r"Error in conv2d_transpose: depth of output_shape \(5\) must match"
    ):
        run("tf.conv2d_transpose(x, f, [1, 6, 6, 5], 2, 'same')", x=rand(1, 3, 3, 3), f=f)
    with pytest.raises(ValueError, match=r"Error in conv2d_transpose: x of shape \[1,4,3,3\] does not fit"):
        run("tf.conv2d_transpose(x, f, [1, 6, 6, 2], 2, 'same')", x=rand(1, 4, 3, 3), f=f)
    with pytest.raises(ValueError, match=r"length of output_shape \(3\) and rank of x \(4\) must match"):
        run("tf.conv2d_transpose(x, f, [6, 6, 2], 2, 'same')", x=rand(1, 3, 3, 3), f=f)
    d, p = rand(3, 3, 3, 2), rand(1, 1, 6, 4)
    with pytest.raises(
        ValueError, match="Error in separable_conv2d: the third dimension of pointwise_filter must be 6"
    ):
        run("tf.separable_conv2d(x, d, p, 1, 'same')", x=x, d=d, p=rand(1, 1, 5, 4))
    with pytest.raises(
        ValueError, match="Error in separable_conv2d: the first two dimensions of pointwise_filter"
    ):
        run("tf.separable_conv2d(x, d, p, 1, 'same')", x=x, d=d, p=rand(2, 1, 6, 4))
    with pytest.raises(
        ValueError, match=r"the third dimension of depthwise_filter \(2\) must match the input"
    ):
        run("tf.separable_conv2d(x, d, p, 1, 'same')", x=x, d=rand(3, 3, 2, 3), p=p)
    with pytest.raises(ValueError, match="Error in separable_conv2d: got data_format NCHW"):
        run("tf.separable_conv2d(x, d, p, 1, 'same', 1, 'NCHW')", x=x, d=d, p=p)


def test_fused_conv_errors(run):
    x, f = rand(1, 5, 5, 3), rand(3, 3, 3, 2)
    with pytest.raises(
        ValueError, match=r"Error in fused.conv2d: bias of shape \[3\] cannot be broadcast .* \[1,5,5,2\]"
    ):
        run("tf.fused.conv2d(x, f, 1, 'same', bias=b)", x=x, f=f, b=rand(3))
    with pytest.raises(ValueError, match="Error in fused.conv2d: unknown activation 'gelu'"):
        run("tf.fused.conv2d(x, f, 1, 'same', activation='gelu')", x=x, f=f)
    with pytest.raises(ValueError, match="Error in fused.depthwise_conv2d: activation 'prelu' needs"):
        run("tf.fused.depthwise_conv2d(x, f, 1, 'same', activation='prelu')", x=x, f=rand(3, 3, 3, 1))
    with pytest.raises(ValueError, match=r"Error in fused.conv2d: depth of input \(3\) must match"):
        run("tf.fused.conv2d(x, f, 1, 'same')", x=x, f=rand(3, 3, 2, 2))


def test_conv_filters_reused_replaced_and_freed(run):
    # the cpu backend keeps each filter buffer's quantized weights: reuse, a new filter of the same shape and
    # filters freed inside tidy (whose buffers' ids may come back) must each give their own result
    x, f, g = rand(2, 7, 6, 3), rand(3, 3, 3, 4), rand(3, 3, 3, 4)
    expr = (
        "tf.tidy(lambda: tf.stack([tf.conv2d(x, f, 1, 'same'), tf.conv2d(x, g, 1, 'same'),"
        " tf.conv2d(x, f, 1, 'same')] + [tf.tidy(lambda: tf.conv2d(x, f * s, 1, 'same')) for s in range(2, 8)]))"
    )
    ref_f, ref_g = ref_conv2d(x, f, 1, "same"), ref_conv2d(x, g, 1, "same")
    close(run(expr, x=x, f=f, g=g), np.stack([ref_f, ref_g, ref_f] + [s * ref_f for s in range(2, 8)]))
    d = rand(3, 3, 3, 2)
    expr = (
        "tf.tidy(lambda: tf.stack([tf.fused.depthwise_conv2d(x, d, 1, 'same', bias=b, activation='relu6'),"
        " tf.fused.depthwise_conv2d(x, -d, 1, 'same', bias=b, activation='relu6')]))"
    )
    b = rand(6)
    ref = [np.clip(ref_depthwise(x * 3, s * d, 1, "same") + b, 0, 6) for s in (1, -1)]
    close(run(expr, x=x * 3, d=d, b=b), np.stack(ref))
