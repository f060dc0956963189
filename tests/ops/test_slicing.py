import numpy as np
import pytest

from tests.helpers import Rand, raises, same

_R = Rand(11)
RNG, rand = _R.rng, _R.of
DTYPES = ["float32", "int32", "bool"]


# ---- slice ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice(run, dtype):
    x = rand((4, 5, 6), dtype)
    same(run("tf.slice(x, [1, 2, 3], [2, 3, 2])", x=x), x[1:3, 2:5, 3:5])
    same(run("tf.slice(x, [1, 0, 2], [-1, 2, -1])", x=x), x[1:, 0:2, 2:])
    same(run("tf.slice(x, [1, 2])", x=x), x[1:, 2:])
    same(run("tf.slice(x, 2)", x=x), x[2:])
    same(run("tf.slice(x, 1, 2)", x=x), x[1:3])
    same(run("tf.slice(x, [0, 0, 0], [4, 5, 6])", x=x), x)
    same(run("tf.slice(x, [4, 1], [0, 2])", x=x), x[4:4, 1:3])
    same(run("x.slice([0, 5, 0], [2, -1, 1])", x=x), x[0:2, 5:, 0:1])
    r5 = rand((3, 2, 4, 2, 3), dtype)
    same(run("tf.slice(r5, [1, 0, 1, 1, 0], [2, 2, 2, 1, -1])", r5=r5), r5[1:3, 0:2, 1:3, 1:2, 0:])
    big = rand((80, 60), dtype)
    same(run("tf.slice(big, [5, 7], [70, 3])", big=big), big[5:75, 7:10])
    same(run("tf.slice(big, [5, 7], [3, 50])", big=big), big[5:8, 7:57])


def test_slice_errors(run):
    x = rand((4, 5))
    s = np.array(1.0, dtype=np.float32)
    with raises(ValueError, "Error in slice: slicing scalar is not possible"):
        run("tf.slice(s, [])", s=s)
    with raises(
        ValueError,
        "Error in slice: begin[1] + size[1] (6) would overflow x.shape[1] (5) for x of shape [4,5]",
    ):
        run("tf.slice(x, [0, 2], [1, 4])", x=x)
    with raises(ValueError, "Error in slice: begin[0] = -1 is out of range for x of shape [4,5]"):
        run("tf.slice(x, [-1, 0])", x=x)
    with raises(ValueError, "Error in slice: begin[1] = 6 is out of range for x of shape [4,5]"):
        run("tf.slice(x, [0, 6])", x=x)
    with raises(
        ValueError,
        "Error in slice: negative size values should be exactly -1 but got -2 for the size at index 0",
    ):
        run("tf.slice(x, [0, 0], [-2, 1])", x=x)
    with raises(
        ValueError, "Error in slice: length of begin [0,0,0] and size [] must be at most the rank of x (2"
    ):
        run("tf.slice(x, [0, 0, 0])", x=x)


# ---- strided_slice -------------------------------------------------------------------------------------

# (shape, tf arguments, the same selection written as a numpy index)
STRIDED_CASES = [
    ((7,), dict(begin=[1], end=[5]), np.s_[1:5]),
    ((7,), dict(begin=[1], end=[6], strides=[2]), np.s_[1:6:2]),
    ((7,), dict(begin=[-2], end=[-7], strides=[-1]), np.s_[-2:-7:-1]),
    ((7,), dict(begin=[-100], end=[100]), np.s_[-100:100]),
    ((7,), dict(begin=[100], end=[-100], strides=[-3]), np.s_[100:-100:-3]),
    ((7,), dict(begin=[5], end=[2]), np.s_[5:2]),
    ((7,), dict(begin=[2], end=[5], strides=[-1]), np.s_[2:5:-1]),
    ((7,), dict(begin=[3], end=[0], strides=[-1], end_mask=1), np.s_[3::-1]),
    ((7,), dict(begin=[0], end=[0], strides=[-2], begin_mask=1, end_mask=1), np.s_[::-2]),
    ((7,), dict(begin=[0], end=[4], begin_mask=1), np.s_[:4]),
    ((7,), dict(begin=[-3], end=[0], end_mask=1), np.s_[-3:]),
    ((7,), dict(begin=[-1], end=[0], shrink_axis_mask=1), np.s_[-1]),
    ((7,), dict(begin=[3], end=[0], shrink_axis_mask=1), np.s_[3]),
    ((4, 5), dict(begin=[1, 0], end=[3, 0], end_mask=2), np.s_[1:3, 0:]),
    ((4, 5), dict(begin=[0, 4], end=[0, 0], strides=[1, -1], begin_mask=1, end_mask=3), np.s_[:, 4::-1]),
    ((4, 5), dict(begin=[2], end=[3], shrink_axis_mask=1), np.s_[2]),
    ((4, 5), dict(begin=[-1, 1], end=[0, 4], strides=[1, 2], shrink_axis_mask=1), np.s_[-1, 1:4:2]),
    ((4, 5), dict(begin=[1], end=[3]), np.s_[1:3]),
    ((4, 5), dict(begin=[3, 3], end=[0, 1], strides=[-1, -1]), np.s_[3:0:-1, 3:1:-1]),
    ((4, 5), dict(begin=[1, 2], end=[2, 3], shrink_axis_mask=3), np.s_[1, 2]),
    ((2, 3, 4), dict(begin=[0, 1], end=[0, 2], ellipsis_mask=1, shrink_axis_mask=2), np.s_[..., 1]),
    ((2, 3, 4), dict(begin=[1, 0], end=[2, 0], ellipsis_mask=2), np.s_[1:2, ...]),
    (
        (2, 3, 4),
        dict(begin=[1, 0, 1], end=[0, 0, 3], ellipsis_mask=2, shrink_axis_mask=1),
        np.s_[1, ..., 1:3],
    ),
    ((2, 3, 4), dict(begin=[0, 0], end=[0, 0], begin_mask=2, end_mask=2, new_axis_mask=1), np.s_[None, :]),
    ((2, 3, 4), dict(begin=[0, 0], end=[0, 0], ellipsis_mask=1, new_axis_mask=2), np.s_[..., None]),
    (
        (2, 3, 4),
        dict(begin=[0, 0, 2], end=[0, 0, 3], new_axis_mask=1, ellipsis_mask=2, shrink_axis_mask=4),
        np.s_[None, ..., 2],
    ),
    (
        (2, 3, 4),
        dict(
            begin=[0, 1, 0, 0],
            end=[0, 3, 0, 0],
            strides=[1, 1, 1, -1],
            begin_mask=8,
            end_mask=8,
            new_axis_mask=5,
        ),
        np.s_[None, 1:3, None, ::-1],
    ),
    ((2, 3, 4), dict(begin=[0, 0, 0], end=[1, 1, 1], ellipsis_mask=2, new_axis_mask=2), np.s_[0:1, ..., 0:1]),
    ((3,), dict(begin=[0], end=[0], new_axis_mask=1, shrink_axis_mask=1), np.s_[None]),
    ((2, 3, 4), dict(begin=[0, 0, 0], end=[2, 3, 4]), np.s_[0:2, 0:3, 0:4]),
    (
        (2, 3, 4),
        dict(begin=[1, -1, 3], end=[-3, -4, 0], strides=[-1, -1, -2]),
        np.s_[1:-3:-1, -1:-4:-1, 3:0:-2],
    ),
    (
        (2, 3, 4, 2, 3),
        dict(begin=[1, 0, 1, 1, 2], end=[0, 3, 4, 0, 0], strides=[-1, 2, 2, 1, -2], end_mask=9),
        np.s_[1::-1, 0:3:2, 1:4:2, 1:, 2:0:-2],
    ),
    ((2, 3, 4, 2, 3), dict(begin=[0, 1], end=[0, 0], ellipsis_mask=1, shrink_axis_mask=2), np.s_[..., 1]),
    ((), dict(begin=[], end=[]), ()),
    ((), dict(begin=[0], end=[0], new_axis_mask=1), np.s_[None]),
    ((), dict(begin=[0, 0], end=[0, 0], ellipsis_mask=1, new_axis_mask=2), np.s_[..., None]),
    ((0, 3), dict(begin=[0, 1], end=[0, 3]), np.s_[0:0, 1:3]),
    ((0, 3), dict(begin=[0, 0], end=[0, 0], strides=[-1, -1], begin_mask=3, end_mask=3), np.s_[::-1, ::-1]),
]


@pytest.mark.parametrize("shape,args,index", STRIDED_CASES)
def test_strided_slice_table(run, shape, args, index):
    x = rand(shape, "int32")
    call = ", ".join(f"{k}={v!r}" for k, v in args.items())
    same(run(f"tf.strided_slice(x, {call})", x=x), x[index])


def random_spec(rng):
    """A random strided_slice spec and the numpy index with the same meaning (possibly invalid)."""
    n = int(rng.integers(0, 6))
    ellipsis_at = int(rng.integers(0, n)) if n and rng.random() < 0.4 else -1
    args = dict(begin=[], end=[], strides=[], begin_mask=0, end_mask=0)
    args.update(ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    index = []
    for i in range(n):
        b, e = int(rng.integers(-7, 8)), int(rng.integers(-7, 8))
        s = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        kind = "ellipsis" if i == ellipsis_at else rng.choice(["range", "range", "range", "new", "shrink"])
        if kind == "ellipsis":
            args["ellipsis_mask"] |= 1 << i
            index.append(Ellipsis)
        elif kind == "new":
            args["new_axis_mask"] |= 1 << i
            index.append(None)
        elif kind == "shrink":  # TF requires a positive stride on a shrunk (single-index) dim
            s = abs(s)
            args["shrink_axis_mask"] |= 1 << i
            index.append(b)
        else:
            bm, em = bool(rng.random() < 0.25), bool(rng.random() < 0.25)
            args["begin_mask"] |= bm << i
            args["end_mask"] |= em << i
            index.append(slice(None if bm else b, None if em else e, s))
        args["begin"].append(b)
        args["end"].append(e)
        args["strides"].append(s)
    return args, tuple(index)


def test_strided_slice_fuzz_vs_numpy(run):
    rng = np.random.default_rng(2024)
    x = rand((4, 5, 3), "int32")
    cases = []
    while len(cases) < 80:
        args, index = random_spec(rng)
        try:
            ref = x[index]
        except IndexError:  # too many indices, or a single index out of range: TF raises too
            continue
        cases.append((args, ref))
    expr = "[" + ", ".join("tf.strided_slice(x, **" + repr(a) + ")" for a, _ in cases) + "]"
    outs = run(expr, x=x)
    for (args, ref), out in zip(cases, outs, strict=True):
        assert out.shape == ref.shape, args
        np.testing.assert_array_equal(out, ref, err_msg=repr(args))


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_slice_dtypes_and_medium(run, dtype):
    x = rand((30, 40, 3), dtype)
    same(run("tf.strided_slice(x, [2, 39, 0], [28, 0, 3], [3, -2, 1])", x=x), x[2:28:3, 39:0:-2, 0:3])
    same(run("x.strided_slice([0, 0, 2], [30, 40, 3])", x=x), x[:, :, 2:3])
    same(run("tf.strided_slice(x, [0, 0], [0, 0], [1, -1], 0, 0, 0, 0, 0)", x=x), x[0:0, 0:0:-1])


def test_strided_slice_errors(run):
    x = rand((3, 4))
    with raises(
        ValueError, "Error in strided_slice: multiple ellipses in slice is not allowed (ellipsis_mask=3)"
    ):
        run("tf.strided_slice(x, [0, 0], [1, 1], ellipsis_mask=3)", x=x)
    with raises(ValueError, "Error in strided_slice: strides[1] must be non-zero"):
        run("tf.strided_slice(x, [0, 0], [1, 1], [1, 0])", x=x)
    with raises(
        ValueError, "Error in strided_slice: slice index 3 of dimension 0 out of bounds for x of shape [3,4]"
    ):
        run("tf.strided_slice(x, [3], [4], shrink_axis_mask=1)", x=x)
    with raises(
        ValueError, "Error in strided_slice: slice index -5 of dimension 1 out of bounds for x of shape [3,4]"
    ):
        run("tf.strided_slice(x, [0, -5], [1, -4], shrink_axis_mask=2)", x=x)
    with raises(
        ValueError, "Error in strided_slice: only stride 1 allowed on non-range indexing (dimension 0"
    ):
        run("tf.strided_slice(x, [1], [0], [-1], shrink_axis_mask=1)", x=x)
    with raises(
        ValueError, "Error in strided_slice: begin, end and strides must have the same length, got 2, 1 and 2"
    ):
        run("tf.strided_slice(x, [0, 0], [1], [1, 1])", x=x)
    with raises(
        ValueError,
        "Error in strided_slice: index out of range using input dim 2; x has only 2 dims (shape [3,4])",
    ):
        run("tf.strided_slice(x, [0, 0, 0], [1, 1, 1])", x=x)
    with raises(
        TypeError, "Error in strided_slice: argument 'begin' must contain only integers, but got [0.5]"
    ):
        run("tf.strided_slice(x, [0.5], [1])", x=x)


# ---- pad / mirror_pad -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_pad(run, dtype):
    value = {"float32": 2.5, "int32": 7, "bool": True}[dtype]
    cases = [
        ((5,), [[2, 3]]),
        ((3, 4), [[1, 0], [2, 1]]),
        ((3, 4), [[0, 0], [0, 3]]),
        ((2, 3, 4), [[1, 1], [0, 2], [3, 0]]),
        ((2, 1, 2, 3), [[0, 1], [1, 1], [0, 0], [2, 0]]),
        ((1, 2, 1, 2, 2), [[1, 0], [0, 1], [1, 1], [0, 0], [1, 2]]),
    ]
    for shape, paddings in cases:
        x = rand(shape, dtype)
        same(run(f"tf.pad(x, {paddings})", x=x), np.pad(x, paddings))
        same(run(f"tf.pad(x, {paddings}, {value!r})", x=x), np.pad(x, paddings, constant_values=value))
    x = rand((2, 3), dtype)
    same(run("x.pad([[0, 0], [0, 0]])", x=x), x)
    e = rand((0, 2), dtype)
    same(run("tf.pad(e, [[1, 1], [1, 0]])", e=e), np.pad(e, [[1, 1], [1, 0]]))
    big = rand((60, 50), dtype)
    same(run("tf.pad(big, [[3, 2], [1, 4]])", big=big), np.pad(big, [[3, 2], [1, 4]]))


def test_pad_errors(run):
    x = rand((2, 3))
    s = np.array(1.0, dtype=np.float32)
    with raises(ValueError, "Error in pad: pad(scalar) is not defined. Pass non-scalar to pad"):
        run("tf.pad(s, [])", s=s)
    with raises(
        ValueError,
        "Error in pad: paddings must have one [before, after] pair per dimension of x: got 1 for x of rank 2 "
        "(shape [2,3])",
    ):
        run("tf.pad(x, [[1, 1]])", x=x)
    with raises(ValueError, "Error in pad: paddings[1] must be a [before, after] pair, got [1]"):
        run("tf.pad(x, [[1, 1], [1]])", x=x)
    with raises(ValueError, "Error in pad: paddings[0] must be non-negative, got [-1,0]"):
        run("tf.pad(x, [[-1, 0], [0, 0]])", x=x)


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_mirror_pad(run, mode, dtype):
    k = 1 if mode == "reflect" else 0
    cases = [
        ((5,), [[2, 3]]),
        ((3, 4), [[2 - k, 1], [3 - k, 3 - k]]),
        ((3, 4), [[0, 0], [1, 2]]),
        ((2, 3, 4), [[1 - k, 1 - k], [2 - k, 0], [1, 3 - k]]),
        ((2, 2, 3, 2), [[1, 0], [0, 1], [2 - k, 2], [1, 1 - k]]),
        ((2, 2, 1, 2, 3), [[1 - k, 0], [0, 1], [0, 1 - k], [1, 1], [2, 1]]),
    ]
    for shape, paddings in cases:
        x = rand(shape, dtype)
        same(run(f"tf.mirror_pad(x, {paddings}, {mode!r})", x=x), np.pad(x, paddings, mode=mode))
    big = rand((40, 50, 3), dtype)
    same(
        run(f"big.mirror_pad([[2, 3], [4, 1], [0, 0]], {mode!r})", big=big),
        np.pad(big, [[2, 3], [4, 1], [0, 0]], mode=mode),
    )
    x = rand((3, 2), dtype)
    same(run(f"tf.mirror_pad(x, [[0, 0], [0, 0]], {mode!r})", x=x), x)


def test_mirror_pad_errors(run):
    x = rand((3, 2))
    with raises(
        ValueError,
        "Error in mirror_pad: padding in dimension 1 must be between 0 and 1 in 'reflect' mode "
        "for x of shape [3,2], got [0,2]",
    ):
        run("tf.mirror_pad(x, [[1, 1], [0, 2]], 'reflect')", x=x)
    with raises(
        ValueError, "Error in mirror_pad: padding in dimension 0 must be between 0 and 3 in 'symmetric' mode"
    ):
        run("tf.mirror_pad(x, [[4, 0], [0, 2]], 'symmetric')", x=x)
    with raises(ValueError, "Error in mirror_pad: mode must be 'reflect' or 'symmetric', but was 'edge'"):
        run("tf.mirror_pad(x, [[1, 1], [0, 0]], 'edge')", x=x)
    with raises(
        ValueError, "Error in mirror_pad: paddings must have one [before, after] pair per dimension of x"
    ):
        run("tf.mirror_pad(x, [[1, 1]], 'reflect')", x=x)
    with raises(ValueError, "Error in mirror_pad: mirror_pad(scalar) is not defined"):
        run("tf.mirror_pad(s, [], 'reflect')", s=np.array(1.0, dtype=np.float32))


# ---- gather / gather_nd -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather(run, dtype):
    x = rand((4, 5, 3), dtype)
    i = np.array([3, 0, 0, 2], dtype=np.int32)
    for axis in (0, 1, 2, -1, -2):
        idx = i % x.shape[axis]
        same(run(f"tf.gather(x, i, {axis})", x=x, i=idx), np.take(x, idx, axis))
    i2 = np.array([[1, 2], [0, 1], [2, 2]], dtype=np.int32)
    same(run("tf.gather(x, i2, 1)", x=x, i2=i2), np.take(x, i2, 1))
    same(run("x.gather([2, 1])", x=x), x[[2, 1]])
    same(run("tf.gather(x, 1, 2)", x=x), np.take(x, 1, 2))
    empty = np.zeros((0,), dtype=np.int32)
    same(run("tf.gather(x, empty, 1)", x=x, empty=empty), np.take(x, empty, 1))
    v = rand((6,), dtype)
    same(run("tf.gather(v, [5, 0, 5])", v=v), v[[5, 0, 5]])
    big = rand((200, 50), dtype)
    bi = RNG.integers(0, 50, 30).astype(np.int32)
    same(run("tf.gather(big, bi, 1)", big=big, bi=bi), big[:, bi])
    bi = RNG.integers(0, 200, 300).astype(np.int32)
    same(run("tf.gather(big, bi)", big=big, bi=bi), big[bi])


def test_gather_batch_dims(run):
    x = rand((2, 3, 4, 2), "int32")
    i = RNG.integers(0, 4, (2, 5)).astype(np.int32)
    ref = np.stack([np.take(x[b], i[b], axis=1) for b in range(2)])
    same(run("tf.gather(x, i, 2, 1)", x=x, i=i), ref)
    same(run("tf.gather(x, i, -2, -1)", x=x, i=i), ref)
    j = RNG.integers(0, 4, (2, 3, 2)).astype(np.int32)
    ref = np.stack([np.stack([np.take(x[b, c], j[b, c], axis=0) for c in range(3)]) for b in range(2)])
    same(run("tf.gather(x, j, 2, 2)", x=x, j=j), ref)


def test_gather_errors(run):
    x = rand((4, 3))
    with raises(ValueError, "Error in gather: the index value 4 is not in [0, 3]"):
        run("tf.gather(x, [1, 4])", x=x)
    with raises(ValueError, "Error in gather: the index value -1 is not in [0, 2]"):
        run("tf.gather(x, [-1], 1)", x=x)
    with raises(TypeError, "Error in gather: argument 'indices' must be an int32 tensor, but got float32"):
        run("tf.gather(x, f)", x=x, f=np.array([1.0], dtype=np.float32))
    with raises(ValueError, "Error in gather: axis 2 is out of range for a tensor of rank 2"):
        run("tf.gather(x, [0], 2)", x=x)
    i = np.zeros((4, 2), dtype=np.int32)
    with raises(ValueError, "Error in gather: batch_dims must be in the range [-2, 2], but got 3"):
        run("tf.gather(x, i, 1, 3)", x=x, i=i)
    with raises(ValueError, "Error in gather: batch_dims (2) must be less than or equal to axis (1)"):
        run("tf.gather(x, i, 1, 2)", x=x, i=i)
    j = np.zeros((3, 2), dtype=np.int32)
    with raises(ValueError, "Error in gather: x.shape[0]: 4 should be equal to indices.shape[0]: 3"):
        run("tf.gather(x, j, 1, 1)", x=x, j=j)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_nd(run, dtype):
    x = rand((3, 4, 2), dtype)
    full = np.array([[0, 1, 1], [2, 3, 0], [1, 0, 1]], dtype=np.int32)
    same(run("tf.gather_nd(x, i)", x=x, i=full), x[tuple(full.T)])
    part = np.array([[[2, 1], [0, 3]], [[1, 1], [2, 0]]], dtype=np.int32)
    same(run("tf.gather_nd(x, i)", x=x, i=part), x[part[..., 0], part[..., 1]])
    same(run("tf.gather_nd(x, [1])", x=x), x[1])
    same(run("x.gather_nd([[2], [0]])", x=x), x[[2, 0]])
    none = np.zeros((0, 2), dtype=np.int32)
    same(run("tf.gather_nd(x, i)", x=x, i=none), np.zeros((0, 2), dtype=x.dtype))
    big = rand((50, 40, 3), dtype)
    bi = np.stack([RNG.integers(0, 50, 100), RNG.integers(0, 40, 100)], 1).astype(np.int32)
    same(run("tf.gather_nd(big, bi)", big=big, bi=bi), big[bi[:, 0], bi[:, 1]])


def test_gather_nd_errors(run):
    x = rand((3, 3))
    with raises(ValueError, "Error in gather_nd: invalid indices: [0,5] does not index into [3,3]"):
        run("tf.gather_nd(x, [[1, 1], [0, 5]])", x=x)
    with raises(ValueError, "Error in gather_nd: invalid indices: [-1] does not index into [3,3]"):
        run("tf.gather_nd(x, [[-1]])", x=x)
    with raises(ValueError, "Error in gather_nd: x must have rank 1 or higher, but the rank was 0"):
        run("tf.gather_nd(s, [0])", s=np.array(1.0, dtype=np.float32))
    with raises(ValueError, "Error in gather_nd: indices must have rank 1 or higher, but the rank was 0"):
        run("tf.gather_nd(x, 0)", x=x)
    with raises(
        ValueError, "Error in gather_nd: index innermost dimension length must be <= x rank; saw: 3 vs. 2"
    ):
        run("tf.gather_nd(x, [[0, 0, 0]])", x=x)
    with raises(TypeError, "Error in gather_nd: argument 'indices' must be an int32 tensor, but got bool"):
        run("tf.gather_nd(x, b)", x=x, b=np.array([True]))


# ---- one_hot ----------------------------------------------------------------------------------------


def one_hot_ref(indices, depth, on=1, off=0, dtype=np.int32):
    out = np.full((*indices.shape, depth), off, dtype=dtype)
    for pos, i in np.ndenumerate(indices):
        if 0 <= i < depth:
            out[(*pos, i)] = on
    return out


def test_one_hot(run):
    i = np.array([0, 2, 1, 2], dtype=np.int32)
    same(run("tf.one_hot(i, 3)", i=i), np.eye(3, dtype=np.int32)[i])
    same(run("i.one_hot(4, 5, -1)", i=i), one_hot_ref(i, 4, 5, -1))
    same(run("tf.one_hot(i, 3, 0.5, 0.25, 'float32')", i=i), one_hot_ref(i, 3, 0.5, 0.25, np.float32))
    same(run("tf.one_hot(i, 3, dtype='bool')", i=i), one_hot_ref(i, 3, True, False, bool))
    out_of_range = np.array([[-1, 3], [1, 7]], dtype=np.int32)
    same(run("tf.one_hot(o, 3)", o=out_of_range), one_hot_ref(out_of_range, 3))
    same(run("tf.one_hot([1, 0], 2)"), np.array([[0, 1], [1, 0]], dtype=np.int32))
    s = np.array(2, dtype=np.int32)
    same(run("tf.one_hot(s, 4)", s=s), one_hot_ref(s, 4))
    e = np.zeros((0, 2), dtype=np.int32)
    same(run("tf.one_hot(e, 3)", e=e), np.zeros((0, 2, 3), dtype=np.int32))
    big = RNG.integers(0, 100, 500).astype(np.int32)
    same(run("tf.one_hot(big, 100, 1, 0, 'float32')", big=big), np.eye(100, dtype=np.float32)[big])


def test_one_hot_errors(run):
    f = np.array([0.0, 1.0], dtype=np.float32)
    i = np.array([0, 1], dtype=np.int32)
    with raises(TypeError, "Error in one_hot: argument 'indices' must be an int32 tensor, but got float32"):
        run("tf.one_hot(f, 3)", f=f)
    with raises(ValueError, "Error in one_hot: depth must be >=2, but it is 1"):
        run("tf.one_hot(i, 1)", i=i)
    with raises(TypeError, "Error in one_hot: unsupported dtype 'int64'"):
        run("tf.one_hot(i, 3, dtype='int64')", i=i)
