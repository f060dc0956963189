import functools
import math

import numpy as np
import pytest

from tests.helpers import INF, NAN, Rand, close, exact, f32, i32

_R = Rand(11)
RNG, rand = _R.rng, _R.uniform
randint = functools.partial(_R.ints, lo=-9, hi=10)
F32, I32 = np.float32, np.int32


def _d(x):
    return x.astype(np.float64)


# op -> numpy reference on float64 inputs (b is kept away from 0 where it divides)
FLOAT_OPS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "squared_difference": lambda a, b: (a - b) ** 2,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "atan2": np.arctan2,
    "mod": np.mod,
    "pow": lambda a, b: np.power(np.abs(a), b),
}
SHAPE_PAIRS = [
    ((2, 3), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((4, 1), (2, 1, 3)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((), ()),
    ((3,), (2, 3)),
    ((2, 3), (1, 3)),
    ((5, 1, 1), (1, 4, 1)),
    ((1, 4, 1), (3, 1, 2)),
    ((0, 3), (3,)),
    ((1,), (0,)),
    ((2, 0, 3), (2, 1, 1)),
]


def _operands(a_shape, b_shape):
    a = rand(*a_shape)
    b = rand(*b_shape)
    b = np.where(np.abs(b) < 0.3, F32(0.5), b).astype(F32)
    return a, b


@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_ops_broadcast_like_numpy(run, name):
    ref = FLOAT_OPS[name]
    for a_shape, b_shape in SHAPE_PAIRS:
        a, b = _operands(a_shape, b_shape)
        if name == "pow":
            a = np.abs(a)
        out = run(f"tf.{name}(a, b)", a=a, b=b)
        assert out.shape == np.broadcast_shapes(a_shape, b_shape), (name, a_shape, b_shape)
        close(out, ref(_d(a), _d(b)), rtol=2e-5, atol=1e-5)


def test_floor_div_float_returns_int32(run):
    a, b = rand(2, 1, 3), rand(4, 1, lo=0.5, hi=2)
    exact(run("tf.floor_div(a, b)", a=a, b=b), np.floor(_d(a) / _d(b)), np.int32)
    exact(run("a // b", a=f32([7.5, -7.5, 1.0]), b=f32([2, 2, -0.5])), [3, -4, -2], np.int32)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum", "minimum", "squared_difference", "mod"])
def test_int32_ops_stay_int32(run, name):
    ref = {
        "add": np.add,
        "sub": np.subtract,
        "mul": np.multiply,
        "maximum": np.maximum,
        "minimum": np.minimum,
        "squared_difference": lambda a, b: (a - b) ** 2,
        "mod": np.mod,
    }[name]
    for a_shape, b_shape in [((2, 3), (2, 3)), ((2, 1, 3), (4, 1)), ((), (5,)), ((0, 2), (2,))]:
        a, b = randint(*a_shape), randint(*b_shape)
        if name == "mod":
            b = np.where(b == 0, 3, b).astype(I32)
        exact(run(f"tf.{name}(a, b)", a=a, b=b), ref(a, b), np.int32)


def test_int32_division_floors_and_by_zero_gives_zero(run):
    a, b = i32([7, -7, 7, -7, 0, 5, -5, 2**31 - 1]), i32([2, 2, -2, -2, 3, 0, 0, -1])
    # int32 / int32 is FloorDiv in TF.js; x / 0 is +-inf or nan in JS, stored as 0 in an Int32Array
    ref = [3, -4, -4, 3, 0, 0, 0, -(2**31 - 1)]
    exact(run("tf.div(a, b)", a=a, b=b), ref, np.int32)
    exact(run("tf.floor_div(a, b)", a=a, b=b), ref, np.int32)
    exact(run("a / b", a=a, b=b), ref, np.int32)
    exact(run("tf.mod(a, b)", a=a, b=b), [1, 1, -1, -1, 0, 0, 0, 0], np.int32)


def test_int32_overflow_wraps(run):
    a = i32([2**31 - 1, -(2**31), 2**16, 46341])
    exact(run("a + 1", a=a), (a.astype(np.int64) + 1).astype(np.int32), np.int32)
    exact(run("a - 1", a=a), (a.astype(np.int64) - 1).astype(np.int32), np.int32)
    exact(run("a * a", a=a), (a.astype(np.int64) ** 2 % 2**32).astype(np.uint32).astype(np.int32), np.int32)


def test_int32_pow(run):
    a, b = i32([2, -3, 5, 2, 1, -1, 0, 2, 7]), i32([10, 3, 0, -1, -5, -1, -1, 31, 30])
    # negative exponents give truncated fractions, 0 ** -1 = inf -> 0, 2 ** 31 wraps, and 7 ** 30 (a float64
    # beyond 2 ** 53) is truncated and wrapped modulo 2 ** 32 like a store into an Int32Array
    big = (int(7.0**30) + 2**31) % 2**32 - 2**31
    exact(run("tf.pow(a, b)", a=a, b=b), [1024, -27, 1, 0, 1, -1, 0, -(2**31), big], np.int32)
    exact(run("a ** 2", a=i32([[-3, 4]])), [[9, 16]], np.int32)


def test_div_no_nan(run):
    a, b = rand(2, 3), f32([[0.5], [0]])
    close(run("tf.div_no_nan(a, b)", a=a, b=b), np.where(b == 0, 0, _d(a) / np.where(b == 0, 1, b)))
    exact(run("tf.div_no_nan(a, b)", a=i32([5, -5, 3]), b=i32([2, 0, 0])), [2, 0, 0], np.int32)
    close(run("tf.div_no_nan(a, 0)", a=f32([NAN, 1])), [0, 0])
    with pytest.raises(ValueError, match=r"Error in div_no_nan: .*shapes \[2\] and \[3\]"):
        run("tf.div_no_nan(a, b)", a=rand(2), b=rand(3))


def test_float_division_by_zero_and_special_values(run):
    a, b = f32([1, -1, 0, NAN, 3, INF]), f32([0, 0, 0, 0, -0.0, 2])
    close(run("a / b", a=a, b=b), [INF, -INF, NAN, NAN, -INF, INF])
    exact(run("tf.floor_div(a, b)", a=a, b=b), [0, 0, 0, 0, 0, 0], np.int32)  # nan / inf stored as 0
    close(run("tf.mod(a, b)", a=a, b=b), [NAN, NAN, NAN, NAN, NAN, NAN])
    close(run("tf.div_no_nan(a, b)", a=a, b=b), [0, 0, 0, 0, 0, INF])


def test_mod_takes_the_sign_of_the_divisor(run):
    a, b = f32([5.5, -5.5, 5.5, -5.5, 0, 3]), f32([2, 2, -2, -2, -3, INF])
    close(run("a % b", a=a, b=b), [1.5, 0.5, -0.5, -1.5, 0, 3])


def test_pow_special_values(run):
    a = f32([0, -0.0, -8, -2, 2, 1, 1, NAN, 4])
    b = f32([-1, -1, 1 / 3, 3, 1000, NAN, INF, 0, 0.5])
    # as JS Math.pow: 1 ** nan and 1 ** inf are nan (numpy says 1)
    close(run("tf.pow(a, b)", a=a, b=b), [INF, -INF, NAN, -8, INF, NAN, NAN, 1, 2])
    close(run("a ** 2", a=f32([-1.5, 3])), [2.25, 9])
    close(run("2 ** a", a=f32([-1, 0, 3])), [0.5, 1, 8])


def test_maximum_minimum_propagate_nan(run):
    a, b = f32([NAN, 1, 2, -INF]), f32([1, NAN, 3, 0])
    close(run("tf.maximum(a, b)", a=a, b=b), [NAN, NAN, 3, 0])
    close(run("tf.minimum(a, b)", a=a, b=b), [NAN, NAN, 2, -INF])
    t, f = np.array([True, False]), np.array([False, False])
    exact(run("tf.maximum(t, f)", t=t, f=f), [1, 0], np.int32)  # bool is compared as int32, as TF.js


def test_mixed_dtypes_upcast(run):
    fa, ia, ba = f32([1.5, -2.5]), i32([2, 3]), np.array([True, False])
    close(run("tf.add(fa, ia)", fa=fa, ia=ia), [3.5, 0.5])
    close(run("ia + 0.5", ia=ia), [2.5, 3.5])
    close(run("fa * 2", fa=fa), [3, -5])
    close(run("tf.div(ia, fa)", ia=ia, fa=fa), [2 / 1.5, 3 / -2.5])
    exact(run("ia * 2", ia=ia), [4, 6], np.int32)
    exact(run("ba + ia", ba=ba, ia=ia), [3, 3], np.int32)
    exact(run("tf.add(ba, ba)", ba=ba), [2, 0], np.int32)
    exact(run("tf.sub(ia, [1, 1])", ia=ia), [1, 2], np.int32)
    close(run("tf.sub([1, 1], fa)", fa=fa), [-0.5, 3.5])
    exact(run("ia < fa", ia=ia, fa=fa), [False, False], np.bool_)
    exact(run("tf.equal(ba, True)", ba=ba), [True, False], np.bool_)


def test_comparisons(run):
    a, b = rand(2, 1, 3), rand(4, 1)
    a[0, 0, 0] = NAN
    for name, ref in [
        ("equal", np.equal),
        ("not_equal", np.not_equal),
        ("less", np.less),
        ("less_equal", np.less_equal),
        ("greater", np.greater),
        ("greater_equal", np.greater_equal),
    ]:
        with np.errstate(invalid="ignore"):
            exact(run(f"tf.{name}(a, b)", a=a, b=b), ref(a, b), np.bool_)
    ia = randint(3, 4, lo=0, hi=3)
    exact(run("tf.equal(a, 1)", a=ia), ia == 1, np.bool_)
    x = f32([1, NAN, 2])
    exact(run("x == x", x=x), [True, False, True], np.bool_)
    exact(run("x != x", x=x), [False, True, False], np.bool_)
    exact(run("x >= 1", x=x), [True, False, True], np.bool_)
    exact(run("x <= 1", x=x), [True, False, False], np.bool_)
    exact(run("x > 1", x=x), [False, False, True], np.bool_)


def test_logical_ops(run):
    a = np.array([[True, False, True, False]])
    b = np.array([[True], [False]])
    exact(run("tf.logical_and(a, b)", a=a, b=b), a & b, np.bool_)
    exact(run("tf.logical_or(a, b)", a=a, b=b), a | b, np.bool_)
    exact(run("tf.logical_xor(a, b)", a=a, b=b), a ^ b, np.bool_)
    exact(run("a & b", a=a, b=b), a & b, np.bool_)
    exact(run("a | b", a=a, b=b), a | b, np.bool_)
    exact(run("tf.logical_and(a, [True, True, False, False])", a=a), [[True, False, False, False]], np.bool_)
    with pytest.raises(
        TypeError, match="Error in logical_and: argument 'a' must be a bool tensor, but got float32"
    ):
        run("tf.logical_and(x, b)", x=f32([1, 0]), b=b)
    with pytest.raises(
        TypeError, match="Error in logical_or: argument 'b' must be a bool tensor, but got int32"
    ):
        run("tf.logical_or(a, x)", a=a, x=i32([1, 0, 1, 0]))
    with pytest.raises(TypeError, match="Error in logical_xor: argument 'b' must be a bool tensor"):
        run("tf.logical_xor(a, x)", a=a, x=f32([1]))
    with pytest.raises(ValueError, match=r"Error in logical_and: .*shapes \[1,4\] and \[3\]"):
        run("tf.logical_and(a, b)", a=a, b=np.array([True, False, True]))


def test_add_n(run):
    xs = [rand(2, 3) for _ in range(4)]
    close(run("tf.add_n([a, b, c, d])", a=xs[0], b=xs[1], c=xs[2], d=xs[3]), sum(_d(x) for x in xs))
    close(run("tf.add_n([a])", a=xs[0]), xs[0])
    ia, ib = randint(3), randint(3)
    exact(run("tf.add_n([a, b, a])", a=ia, b=ib), 2 * ia + ib, np.int32)
    exact(run("tf.add_n([a, a])", a=np.array([True, False])), [2, 0], np.int32)
    exact(run("tf.add_n([[1, 2], [3, 4]])"), [4, 6], np.int32)
    with pytest.raises(ValueError, match="Error in add_n: must pass at least one tensor"):
        run("tf.add_n([])")
    with pytest.raises(
        ValueError, match=r"Error in add_n: .*tensors\[0\] has shape \[2,3\] and tensors\[1\] has shape \[3\]"
    ):
        run("tf.add_n([a, b])", a=xs[0], b=rand(3))
    with pytest.raises(
        TypeError, match="Error in add_n: .*tensors\\[0\\] is float32 and tensors\\[1\\] is int32"
    ):
        run("tf.add_n([a, b])", a=rand(3), b=ia)
    with pytest.raises(TypeError, match="Error in add_n: argument 'tensors' must be a list of tensors"):
        run("tf.add_n(a)", a=xs[0])


def test_where(run):
    c = np.array([[True], [False]])
    a, b = rand(3), rand(2, 3)
    close(run("tf.where(c, a, b)", c=c, a=a, b=b), np.where(c, a, b))
    close(run("tf.where(c, a, 0)", c=c, a=a), np.where(c, a, 0))
    cond = RNG.uniform(size=(4, 5)) > 0.5
    x, y = rand(4, 5), rand(4, 5)
    close(run("tf.where(c, x, y)", c=cond, x=x, y=y), np.where(cond, x, y))
    close(run("tf.where(c, x, y)", c=np.array(True), x=x, y=y), x)
    exact(run("tf.where(c, a, b)", c=c, a=i32([1, 2, 3]), b=i32([-1])), np.where(c, [1, 2, 3], -1), np.int32)
    close(run("tf.where(c, a, b)", c=c, a=i32([1, 2, 3]), b=f32([0.5])), np.where(c, [1, 2, 3], 0.5))
    exact(run("tf.where(c, a, b)", c=c, a=c, b=np.array(True)), np.where(c, c, True), np.bool_)
    exact(run("tf.where([True, False], 1, 2)"), [1, 2], np.int32)
    assert run("tf.where(c, a, b)", c=np.zeros((0, 3), bool), a=rand(3), b=rand(1)).shape == (0, 3)
    with pytest.raises(
        TypeError, match="Error in where: argument 'condition' must be a bool tensor, but got float32"
    ):
        run("tf.where(x, a, b)", x=f32([1, 0, 1]), a=a, b=a)
    with pytest.raises(ValueError, match=r"Error in where: .*shapes \[2\], \[3\] and \[1,3\]"):
        run("tf.where(c, a, b)", c=np.array([True, False]), a=a, b=rand(1, 3))
    with pytest.raises(ValueError, match=r"Error in where: .*shapes \[2\] and \[3\]"):
        run("tf.where(c, a, b)", c=c, a=rand(2), b=rand(3))


def test_broadcast_errors_name_both_shapes(run):
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "equal", "mod", "floor_div", "atan2"):
        with pytest.raises(ValueError, match=rf"Error in {name}: .*shapes \[2,3\] and \[4\]"):
            run(f"tf.{name}(a, b)", a=rand(2, 3), b=rand(4))
    with pytest.raises(ValueError, match=r"Error in add: .*shapes \[2,1,3\] and \[4,2\]"):
        run("a + b", a=rand(2, 1, 3), b=rand(4, 2))


def test_other_errors(run):
    a = rand(2)
    with pytest.raises(
        ValueError, match=r"Error in add: argument 'b' is a disposed tensor \(id \d+, shape \[2\]\)"
    ):
        run("tf.add(a, [b.dispose(), b][1])", a=a, b=rand(2))
    with pytest.raises(ValueError, match="Error in mul: argument 'a' is a disposed tensor"):
        run("tf.mul([a.dispose(), a][1], 2)", a=a)
    with pytest.raises(TypeError, match="Error in sub: argument 'b' must be a Tensor or a TensorLike"):
        run("tf.sub(a, None)", a=a)
    with pytest.raises(TypeError, match="Error in add: .*must be a Tensor or a TensorLike, but got str"):
        run("tf.add(a, 'x')", a=a)


def test_operators(run):
    a, b = rand(3, 4), rand(3, 4, lo=0.5, hi=2)
    close(run("a + b", a=a, b=b), _d(a) + b)
    close(run("a - 1", a=a), _d(a) - 1)
    close(run("1 - a", a=a), 1 - _d(a))
    close(run("2 * a", a=a), 2 * _d(a))
    close(run("a / b", a=a, b=b), _d(a) / b)
    close(run("1 / b", b=b), 1 / _d(b))
    exact(run("a // b", a=a, b=b), np.floor(_d(a) / b), np.int32)
    close(run("a % b", a=a, b=b), np.mod(_d(a), b), atol=1e-5)
    close(run("a ** 2", a=a), _d(a) ** 2)
    close(run("-a", a=a), -a)
    close(run("abs(a)", a=a), np.abs(a))
    exact(run("a < b", a=a, b=b), a < b, np.bool_)
    close(run("tf.tidy(lambda: a.square().log1p().neg())", a=a), -np.log1p(_d(a) ** 2))
    close(run("tf.tidy(lambda: a.add(b).mul(2).maximum(0))", a=a, b=b), np.maximum(2 * (_d(a) + b), 0))


def test_medium_broadcast_sizes(run):
    a, b, c = rand(200, 300), rand(300), rand(200, 1)
    close(run("a + b", a=a, b=b), _d(a) + b)
    close(run("c * b", c=c, b=b), _d(c) * b)
    close(run("tf.tidy(lambda: tf.where(a > 0, c, b))", a=a, b=b, c=c), np.where(a > 0, c, b))
    big, y = rand(3000, 2, 1), rand(1, 3)  # a broadcast axis with many blocks: the strided-slice path
    close(run("x - y", x=big, y=y), _d(big) - y)


def test_atan2_and_int_inputs(run):
    a, b = randint(3, 4), randint(4)
    close(run("tf.atan2(a, b)", a=a, b=b), np.arctan2(_d(a), _d(b)))
    close(
        run("tf.atan2(x, y)", x=f32([1, -1, 0, 0]), y=f32([0, 0, -1, 1])),
        [math.pi / 2, -math.pi / 2, math.pi, 0],
    )


def test_int32_floor_div_near_the_float32_limit(run):
    """wasm divides int32 natively (in float32) only where every |a| and |b| is below 2**23 and no b is 0,
    else on the cpu kernel: both sides of that limit, negative operands and broadcasting match numpy."""
    lim = 2**23 - 1
    edges = [lim, -lim, lim - 1, -lim + 1, 0, 1, -1]
    a = np.concatenate([RNG.integers(-lim, lim + 1, 300), edges]).astype(I32)
    b = np.concatenate([RNG.integers(1, 50, 150), -RNG.integers(1, 50, 150), [1, -1, lim, -lim, 7, 3, -3]])
    b = b.astype(I32)
    exact(run("tf.floor_div(a, b)", a=a, b=b), np.floor_divide(a, b), np.int32)
    col = a.reshape(-1, 1)[:40]
    exact(run("tf.floor_div(a, b)", a=col, b=b[:9]), np.floor_divide(col, b[:9]), np.int32)
    over = a.copy()
    over[3] = 2**23  # one value past the limit: the whole division goes the exact way
    exact(run("tf.floor_div(a, b)", a=over, b=b), np.floor_divide(over.astype(np.int64), b), np.int32)
    exact(run("tf.floor_div(a, b)", a=a, b=np.int32(2**30)), np.floor_divide(a, 2**30), np.int32)
