import math

import numpy as np
import pytest

from tests.helpers import INF, NAN, Rand, close, f32

rand = Rand(7).uniform
F32 = np.float32


def _selu(x):
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    return np.where(x >= 0, scale * x, scale * alpha * np.expm1(x))


_erf = np.vectorize(math.erf)

# op name -> (numpy reference on float64, (low, high) of the test inputs)
FLOAT_OPS = {
    "exp": (np.exp, (-5, 5)),
    "expm1": (np.expm1, (-1e-3, 1e-3)),
    "log": (np.log, (0.01, 10)),
    "log1p": (np.log1p, (-0.9, 5)),
    "sqrt": (np.sqrt, (0, 10)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 10)),
    "reciprocal": (lambda x: 1 / x, (0.5, 4)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-8, 8)),
    "tanh": (np.tanh, (-4, 4)),
    "elu": (lambda x: np.where(x >= 0, x, np.expm1(x)), (-3, 3)),
    "selu": (_selu, (-3, 3)),
    "softplus": (lambda x: np.log1p(np.exp(x)), (-10, 10)),
    "sin": (np.sin, (-6, 6)),
    "cos": (np.cos, (-6, 6)),
    "tan": (np.tan, (-1.2, 1.2)),
    "asin": (np.arcsin, (-1, 1)),
    "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-10, 10)),
    "sinh": (np.sinh, (-4, 4)),
    "cosh": (np.cosh, (-4, 4)),
    "erf": (_erf, (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_ops_match_numpy(run, name):
    ref, (lo, hi) = FLOAT_OPS[name]
    x = rand(3, 4, lo=lo, hi=hi)
    close(run(f"tf.{name}(x)", x=x), ref(x.astype(np.float64)))
    # int32 input: transcendental ops compute in float and return float32
    xi = np.array([1, 2, 3] if lo >= 0 else [-1, 0, 1], dtype=np.int32)
    with np.errstate(divide="ignore"):
        close(run(f"tf.{name}(x)", x=xi), ref(xi.astype(np.float64)))


def test_float_ops_special_values(run):
    cases = {
        "log": ([-1, 0, INF, NAN], [NAN, -INF, INF, NAN]),
        "log1p": ([-2, -1, NAN], [NAN, -INF, NAN]),
        "sqrt": ([-1, 0, INF, NAN], [NAN, 0, INF, NAN]),
        "rsqrt": ([0, -4, INF], [INF, NAN, 0]),
        "reciprocal": ([0, -0.0, INF], [INF, -INF, 0]),
        "exp": ([1000, -1000, INF, -INF, NAN], [INF, 0, INF, 0, NAN]),
        "expm1": ([1000, -INF], [INF, -1]),
        "sigmoid": ([1000, -1000, NAN], [1, 0, NAN]),
        "tanh": ([INF, -INF], [1, -1]),
        "softplus": ([1000, -1000, NAN], [1000, 0, NAN]),
        "elu": ([-INF, NAN], [-1, NAN]),
        "sin": ([INF, NAN], [NAN, NAN]),
        "cos": ([-INF], [NAN]),
        "tan": ([INF], [NAN]),
        "asin": ([2, -1.5], [NAN, NAN]),
        "acos": ([2], [NAN]),
        "atan": ([INF, -INF], [math.pi / 2, -math.pi / 2]),
        "sinh": ([1000, -1000], [INF, -INF]),
        "cosh": ([1000, -1000], [INF, INF]),
        "erf": ([INF, -INF, NAN], [1, -1, NAN]),
    }
    for name, (x, ref) in cases.items():
        close(run(f"tf.{name}(x)", x=f32(x)), ref)


def test_dtype_keeping_ops_float(run):
    x = f32([[-2.5, -1.0, -0.0, 0.3], [1.5, 2.5, 7.9, NAN]])
    close(run("tf.abs(x)", x=x), np.abs(x))
    close(run("tf.neg(x)", x=x), -x)
    close(run("tf.square(x)", x=x), np.square(x))
    close(run("tf.floor(x)", x=x), np.floor(x))
    close(run("tf.ceil(x)", x=x), np.ceil(x))
    close(run("tf.sign(x)", x=x), [[-1, -1, 0, 1], [1, 1, 1, 0]])  # sign(nan) = 0 as the TF.js cpu kernel
    close(run("tf.relu(x)", x=x), [[0, 0, 0, 0.3], [1.5, 2.5, 7.9, NAN]])
    close(run("tf.relu6(x)", x=x), [[0, 0, 0, 0.3], [1.5, 2.5, 6, NAN]])
    close(run("tf.floor(x)", x=f32([INF, -INF, NAN])), [INF, -INF, NAN])


def test_round_is_half_to_even(run):
    x = f32([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, 0.6, -3.7, 1e10, INF, NAN])
    close(run("tf.round(x)", x=x), np.round(x.astype(np.float64)))


def test_dtype_keeping_ops_int32(run):
    x = np.array([[-7, -1, 0], [2, 6, 9]], dtype=np.int32)
    for expr, ref in [
        ("tf.abs(x)", np.abs(x)),
        ("tf.neg(x)", -x),
        ("tf.square(x)", x * x),
        ("tf.sign(x)", np.sign(x)),
        ("tf.relu(x)", np.maximum(x, 0)),
        ("tf.relu6(x)", np.clip(x, 0, 6)),
        ("tf.floor(x)", x),
        ("tf.ceil(x)", x),
        ("tf.round(x)", x),
        ("tf.clip_by_value(x, -2, 5)", np.clip(x, -2, 5)),
        ("tf.step(x)", (x > 0).astype(np.int32)),
    ]:
        out = run(expr, x=x)
        assert out.dtype == np.int32, expr
        np.testing.assert_array_equal(out, ref, err_msg=expr)


def test_int32_wraps_like_int32_array(run):
    x = np.array([-(2**31), 2**31 - 1, 65536], dtype=np.int32)
    np.testing.assert_array_equal(run("tf.abs(x)", x=x), np.abs(x))  # |INT_MIN| wraps to INT_MIN
    np.testing.assert_array_equal(run("tf.neg(x)", x=x), -x)
    np.testing.assert_array_equal(run("tf.square(x)", x=x), x * x)


def test_bool_input_is_treated_as_int32(run):
    b = np.array([True, False, True])
    out = run("tf.neg(b)", b=b)
    assert out.dtype == np.int32 and out.tolist() == [-1, 0, -1]
    close(run("tf.exp(b)", b=b), np.exp([1.0, 0.0, 1.0]))


def test_leaky_relu_prelu_step_clip(run):
    x = rand(4, 5)
    x[0, 0] = NAN
    close(run("tf.leaky_relu(x)", x=x), np.where(x < 0, 0.2 * x, x))
    close(run("tf.leaky_relu(x, 0.01)", x=x), np.where(x < 0, 0.01 * x, x))
    close(run("tf.step(x)", x=x), np.where(np.isnan(x), np.nan, np.where(x > 0, 1, 0)))
    close(run("tf.step(x, 0.5)", x=x), np.where(np.isnan(x), np.nan, np.where(x > 0, 1, 0.5)))
    close(run("tf.clip_by_value(x, -1, 0.5)", x=x), np.where(np.isnan(x), np.nan, np.clip(x, -1, 0.5)))
    out = run("tf.leaky_relu(x)", x=np.array([-5, 5], dtype=np.int32))
    close(out, [-1.0, 5.0])  # float32 output for int input, as TF.js
    np.testing.assert_array_equal(run("tf.clip_by_value(x, 0.5, 2.5)", x=np.array([0, 3], np.int32)), [0, 2])


def test_prelu_broadcasts_alpha(run):
    x = rand(2, 3, 4)
    for alpha in (rand(4, lo=0, hi=1), rand(3, 1, lo=0, hi=1), f32(0.25), rand(2, 3, 4, lo=0, hi=1)):
        close(run("tf.prelu(x, alpha)", x=x, alpha=alpha), np.where(x < 0, alpha * x, x))
    # alpha may have the larger shape
    a = rand(2, 3, lo=0, hi=1)
    close(
        run("tf.prelu(x, a)", x=f32([-1, 2, -3]), a=a),
        np.where(f32([-1, 2, -3]) < 0, a * f32([-1, 2, -3]), 2),
    )
    with pytest.raises(ValueError, match=r"Error in prelu: .*shapes \[2,3,4\] and \[3\]"):
        run("tf.prelu(x, a)", x=x, a=rand(3))


def test_tests_nan_inf_finite(run):
    x = f32([0, 1.5, NAN, INF, -INF, -2])
    assert run("tf.is_nan(x)", x=x).tolist() == [False, False, True, False, False, False]
    assert run("tf.is_inf(x)", x=x).tolist() == [False, False, False, True, True, False]
    assert run("tf.is_finite(x)", x=x).tolist() == [True, True, False, False, False, True]
    xi = np.array([[1, -2]], dtype=np.int32)
    assert run("tf.is_nan(x)", x=xi).tolist() == [[False, False]]
    assert run("tf.is_inf(x)", x=xi).tolist() == [[False, False]]
    out = run("tf.is_finite(x)", x=xi)
    assert out.dtype == np.bool_ and out.tolist() == [[True, True]]


def test_logical_not(run):
    b = np.array([[True, False], [False, True]])
    out = run("tf.logical_not(b)", b=b)
    assert out.dtype == np.bool_ and out.tolist() == [[False, True], [True, False]]
    assert run("~b", b=b).tolist() == [[False, True], [True, False]]
    assert run("tf.logical_not([1, 0])").tolist() == [False, True]
    with pytest.raises(
        TypeError, match="Error in logical_not: argument 'x' must be a bool tensor, but got float32"
    ):
        run("tf.logical_not(x)", x=f32([1, 0]))


def test_scalars_and_empty(run):
    out = run("tf.exp(x)", x=f32(0.5))
    assert out.shape == () and abs(float(out) - math.exp(0.5)) < 1e-6
    out = run("tf.sqrt(4.0)")
    assert out.shape == () and float(out) == 2.0
    for name in ("exp", "abs", "relu", "round", "is_nan", "sign", "sigmoid"):
        out = run(f"tf.{name}(x)", x=np.zeros((0, 3), dtype=F32))
        assert out.shape == (0, 3), name
    assert run("tf.prelu(x, a)", x=np.zeros((2, 0), F32), a=f32([0.1])).shape == (2, 0)


def test_operators_and_chaining(run):
    a = rand(3, 4)
    close(run("-a", a=a), -a)
    close(run("abs(a)", a=a), np.abs(a))
    pos = rand(3, 4, lo=0.1, hi=3)
    close(
        run("tf.tidy(lambda: a.square().log1p().neg())", a=pos), -np.log1p(np.square(pos.astype(np.float64)))
    )
    close(run("tf.tidy(lambda: a.relu().sqrt())", a=a), np.sqrt(np.maximum(a, 0)))
    close(run("a.clip_by_value(-1, 1)", a=a), np.clip(a, -1, 1))


def test_medium_sizes_use_the_fast_paths(run):
    x = rand(100, 200)
    close(run("tf.exp(x)", x=x), np.exp(x.astype(np.float64)))
    close(run("tf.relu(x)", x=x), np.maximum(x, 0))
    close(run("tf.sigmoid(x)", x=x), 1 / (1 + np.exp(-x.astype(np.float64))))
    close(run("tf.tidy(lambda: tf.round(x * 10))", x=x), np.round(x.astype(np.float64) * 10), atol=1e-5)


def test_errors(run):
    x = f32([1, 2])
    with pytest.raises(
        ValueError, match=r"Error in exp: argument 'x' is a disposed tensor \(id \d+, shape \[2\]\)"
    ):
        run("tf.exp([x.dispose(), x][1])", x=x)
    with pytest.raises(
        ValueError, match=r"Error in clip_by_value: clip_value_min \(3\) must be less than or equal"
    ):
        run("tf.clip_by_value(x, 3, 1)", x=x)
    with pytest.raises(TypeError, match="Error in leaky_relu: argument 'alpha' must be a number"):
        run("tf.leaky_relu(x, 'big')", x=x)
    with pytest.raises(TypeError, match="Error in step: argument 'alpha' must be a number"):
        run("tf.step(x, None)", x=x)
    with pytest.raises(TypeError, match="Error in sqrt: argument 'x' must be a Tensor or a TensorLike"):
        run("tf.sqrt(None)")
    with pytest.raises(ValueError, match="Error in relu: argument 'x' is ragged"):
        run("tf.relu([[1, 2], [3]])")


def test_relu_relu6_large_special_values(run):
    # >= 64 float32 values: the cpu backend's bit-level path; nan (either sign) stays nan, -0.0 stays -0.0
    neg_nan = np.array([0xFFC00000], np.uint32).view(F32)[0]
    specials = [0.0, -0.0, INF, -INF, NAN, neg_nan, 6.0, -6.0, 5.9999995, 6.0000005, 1e-45, -1e-45, 3.4e38]
    x = np.concatenate([f32(specials), rand(123, lo=-9, hi=9)]).astype(F32)
    for expr, ref in (
        ("tf.relu(x)", np.where(x < 0, F32(0), x)),
        ("tf.relu6(x)", np.where(x < 0, F32(0), np.where(x > 6, F32(6), x))),
    ):
        out = run(expr, x=x)
        close(out, ref)
        if run.backend == "cpu":  # bit for bit, the sign of zeros included (a nan's sign does not survive the page)
            keep = ~np.isnan(ref)
            assert np.array_equal(out[keep].view(np.uint32), ref[keep].view(np.uint32))


def test_sigmoid_far_below_zero(run):
    # exp(-v) overflows below about -709.8: those values still take the C-level path (clamped) and give 0
    x = f32([-INF, -1e30, -720, -705, -100, -80, 0, 80, INF, NAN])
    with np.errstate(over="ignore"):
        close(run("tf.sigmoid(x)", x=x), 1 / (1 + np.exp(-x.astype(np.float64))))
