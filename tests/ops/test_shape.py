import itertools

import numpy as np
import pytest

from tests.helpers import Rand, raises, same

rand = Rand(7).of
DTYPES = ["float32", "int32", "bool"]


# ---- reshape ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape(run, dtype):
    x = rand((2, 3, 4), dtype)
    for shape in ([24], [4, -1], [-1, 2, 3], [2, 3, 4, 1, 1], [1, 24, 1], [2, 12]):
        same(run(f"tf.reshape(x, {shape})", x=x), x.reshape(shape))
    same(run("x.reshape([6, 4])", x=x), x.reshape(6, 4))
    same(run("x.flatten()", x=x), x.ravel())


def test_reshape_scalar_and_empty(run):
    s = np.array(3.5, dtype=np.float32)
    same(run("tf.reshape(s, [1, 1])", s=s), s.reshape(1, 1))
    same(run("tf.tidy(lambda: tf.reshape(tf.reshape(s, [1]), []))", s=s), s)
    same(run("tf.reshape(s, [-1])", s=s), s.reshape(-1))
    e = np.zeros((0, 3), dtype=np.int32)
    same(run("tf.reshape(e, [3, 0, 2])", e=e), e.reshape(3, 0, 2))
    same(run("tf.reshape(e, [-1, 3])", e=e), e.reshape(-1, 3))


def test_reshape_shares_buffer(run):
    x = rand((2, 3))
    setup = "r = tf.reshape(x, [3, 2]); shared = r.data_id == x.data_id; r.dispose()"
    assert run("shared", setup=setup, x=x) is True


def test_reshape_errors(run):
    x = rand((2, 3))
    with raises(
        ValueError, "Error in reshape: Size(6) must match the product of shape [4,2] (x has shape [2,3])"
    ):
        run("tf.reshape(x, [4, 2])", x=x)
    with raises(
        ValueError, "Error in reshape: shapes can only have 1 implicit size. Found -1 at dim 0 and dim 1"
    ):
        run("tf.reshape(x, [-1, -1])", x=x)
    with raises(ValueError, "Error in reshape: shapes can not be < 0. Found -2 at dim 1"):
        run("tf.reshape(x, [3, -2])", x=x)
    with raises(ValueError, "Error in reshape: the implicit shape can't be a fractional number. Got 6 / 4"):
        run("tf.reshape(x, [4, -1])", x=x)
    e = np.zeros((0, 2), dtype=np.float32)
    with raises(
        ValueError, "Error in reshape: cannot infer the missing size in [0,-1] when there are 0 elements"
    ):
        run("tf.reshape(e, [0, -1])", e=e)
    with raises(ValueError, "Error in reshape: Size(0) must match the product of shape [1,2]"):
        run("tf.reshape(e, [1, 2])", e=e)
    with raises(TypeError, "Error in reshape: argument 'shape' must contain only integers, but got [2.5, 2]"):
        run("tf.reshape(x, [2.5, 2])", x=x)
    with raises(ValueError, "Error in reshape: argument 'x' is a disposed tensor"):
        run("tf.reshape(d, [6])", setup="d = tf.zeros([2, 3]); d.dispose()")


# ---- transpose --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rank", [0, 1, 2, 3, 4, 5])
def test_transpose_all_perms(run, dtype, rank):
    shape = (2, 3, 1, 4, 2)[:rank]
    x = rand(shape, dtype)
    perms = list(itertools.permutations(range(rank)))
    for perm in perms[:: max(1, len(perms) // 12)]:
        same(run(f"tf.transpose(x, {list(perm)})", x=x), np.transpose(x, perm))
    same(run("tf.transpose(x)", x=x), x.T)


def test_transpose_medium_and_empty(run):
    x = rand((30, 40, 5))
    for perm in [(2, 0, 1), (1, 0, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0)]:
        same(run(f"x.transpose({list(perm)})", x=x), np.transpose(x, perm))
    m = rand((64, 65), "int32")
    same(run("tf.transpose(m)", m=m), m.T)
    e = rand((2, 0, 3))
    same(run("tf.transpose(e, [2, 0, 1])", e=e), np.transpose(e, (2, 0, 1)))


def test_transpose_errors(run):
    x = rand((2, 3, 4))
    with raises(
        ValueError,
        "Error in transpose: rank of input 3 must match length of perm [1,0] (x has shape [2,3,4])",
    ):
        run("tf.transpose(x, [1, 0])", x=x)
    with raises(
        ValueError, "Error in transpose: all entries in 'perm' must be between 0 and 2 but got [0,1,3]"
    ):
        run("tf.transpose(x, [0, 1, 3])", x=x)
    with raises(
        ValueError, "Error in transpose: all entries in 'perm' must be between 0 and 2 but got [0,-1,1]"
    ):
        run("tf.transpose(x, [0, -1, 1])", x=x)
    with raises(ValueError, "Error in transpose: 'perm' [0,0,1] has repeated axes"):
        run("tf.transpose(x, [0, 0, 1])", x=x)


# ---- expand_dims / squeeze ------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", [0, 1, 2, 3, 4])
def test_expand_dims(run, rank):
    x = rand((3, 1, 2, 4)[:rank], "int32")
    for axis in range(-(rank + 1), rank + 1):
        same(run(f"tf.expand_dims(x, {axis})", x=x), np.expand_dims(x, axis))
    same(run("x.expand_dims()", x=x), x[None])


def test_expand_dims_errors(run):
    x = rand((2, 3))
    with raises(
        ValueError, "Error in expand_dims: axis 3 must be in the interval [-3, 2] for x of shape [2,3]"
    ):
        run("tf.expand_dims(x, 3)", x=x)
    with raises(ValueError, "Error in expand_dims: axis -4 must be in the interval [-3, 2]"):
        run("tf.expand_dims(x, -4)", x=x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_squeeze(run, dtype):
    x = rand((1, 3, 1, 2, 1), dtype)
    same(run("tf.squeeze(x)", x=x), np.squeeze(x))
    same(run("tf.squeeze(x, 2)", x=x), np.squeeze(x, 2))
    same(run("tf.squeeze(x, [0, -1])", x=x), np.squeeze(x, (0, 4)))
    same(run("x.squeeze([-3])", x=x), np.squeeze(x, 2))
    same(run("tf.squeeze(x, [])", x=x), np.squeeze(x))
    one = np.array([[[7]]], dtype=np.int32)
    same(run("tf.squeeze(one)", one=one), np.squeeze(one))
    e = rand((0, 1, 3))
    same(run("tf.squeeze(e)", e=e), np.squeeze(e))


def test_squeeze_errors(run):
    x = rand((1, 3, 1))
    with raises(
        ValueError, "Error in squeeze: can't squeeze axis 1 since its dim '3' is not 1 (x has shape [1,3,1])"
    ):
        run("tf.squeeze(x, [0, 1])", x=x)
    with raises(ValueError, "Error in squeeze: axis 3 is out of range for a tensor of rank 3"):
        run("tf.squeeze(x, 3)", x=x)
    with raises(ValueError, "Error in squeeze: axis [0, -3] has repeated axes"):
        run("tf.squeeze(x, [0, -3])", x=x)


# ---- concat -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_concat(run, dtype):
    a, b = rand((4,), dtype), rand((3,), dtype)
    same(run("tf.concat([a, b])", a=a, b=b), np.concatenate([a, b]))
    a, b, c = rand((2, 3, 4), dtype), rand((2, 1, 4), dtype), rand((2, 5, 4), dtype)
    same(run("tf.concat([a, b, c], 1)", a=a, b=b, c=c), np.concatenate([a, b, c], 1))
    same(run("tf.concat([a, b, c], -2)", a=a, b=b, c=c), np.concatenate([a, b, c], -2))
    a, b = rand((2, 3, 4), dtype), rand((2, 3, 2), dtype)
    same(run("tf.concat([a, b], -1)", a=a, b=b), np.concatenate([a, b], -1))
    a, b = rand((2, 3, 4), dtype), rand((5, 3, 4), dtype)
    same(run("tf.concat([a, b])", a=a, b=b), np.concatenate([a, b]))
    same(run("tf.concat([a])", a=a), a)


def test_concat_rank5_medium_and_empty(run):
    a, b = rand((2, 1, 3, 2, 2)), rand((2, 1, 3, 2, 5))
    same(run("tf.concat([a, b], 4)", a=a, b=b), np.concatenate([a, b], 4))
    a, b = rand((50, 40), "int32"), rand((50, 3), "int32")
    same(run("tf.concat([a, b, a], 1)", a=a, b=b), np.concatenate([a, b, a], 1))
    a, e = rand((2, 3)), rand((2, 0))
    same(run("tf.concat([e, a, e], 1)", a=a, e=e), np.concatenate([e, a, e], 1))
    same(run("tf.concat([e, e], 1)", e=e), np.concatenate([e, e], 1))
    same(run("tf.concat([e, e], 0)", e=e), np.concatenate([e, e], 0))


def test_concat_dtypes_and_lists(run):
    f, i, b = rand((2,)), rand((2,), "int32"), rand((2,), "bool")
    same(run("tf.concat([i, f])", i=i, f=f), np.concatenate([i, f]).astype(np.float32))
    same(run("tf.concat([b, i])", b=b, i=i), np.concatenate([b.astype(np.int32), i]))
    same(run("tf.concat([f, [1, 2]])", f=f), np.concatenate([f, [1, 2]]).astype(np.float32))
    same(run("tf.concat([[1, 2], [3]])"), np.array([1, 2, 3], dtype=np.int32))


def test_concat_errors(run):
    a, b, c = rand((2, 3)), rand((3, 3)), rand((2, 3, 1))
    with raises(ValueError, "Error in concat: pass at least one tensor to concat"):
        run("tf.concat([])")
    with raises(ValueError, "Error in concat: can't concatenate scalars (use stack instead)"):
        run("tf.concat([1.0, 2.0])")
    with raises(
        ValueError,
        "Error in concat: shape of tensors[1] ([3,3]) does not match the shape of the rest ([2,3]) "
        "along the non-concatenated axis 0",
    ):
        run("tf.concat([a, b], 1)", a=a, b=b)
    with raises(
        ValueError, "Error in concat: rank of tensors[1] (3, shape [2,3,1]) must be the same as the rank"
    ):
        run("tf.concat([a, c])", a=a, c=c)
    with raises(ValueError, "Error in concat: axis 2 is out of range for a tensor of rank 2"):
        run("tf.concat([a, a], 2)", a=a)
    with raises(TypeError, "Error in concat: argument 'tensors' must be a list of tensors, but got Tensor"):
        run("tf.concat(a)", a=a)


# ---- stack / unstack ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_stack(run, dtype):
    a, b, c = rand((2, 3), dtype), rand((2, 3), dtype), rand((2, 3), dtype)
    for axis in (0, 1, 2, -1, -3):
        same(run(f"tf.stack([a, b, c], {axis})", a=a, b=b, c=c), np.stack([a, b, c], axis))
    same(run("tf.stack([a])", a=a), a[None])
    s, t = np.array(1, dtype=np.int32), np.array(2, dtype=np.int32)
    same(run("tf.stack([s, t])", s=s, t=t), np.array([1, 2], dtype=np.int32))
    e = rand((0, 2), dtype)
    same(run("tf.stack([e, e], 1)", e=e), np.stack([e, e], 1))
    same(run("tf.stack([[1.5, 2], [3, 4]])"), np.array([[1.5, 2], [3, 4]], dtype=np.float32))


def test_stack_errors(run):
    a, b, i = rand((2,)), rand((3,)), rand((2,), "int32")
    with raises(ValueError, "Error in stack: pass at least one tensor to stack"):
        run("tf.stack([])")
    with raises(
        ValueError,
        "Error in stack: all tensors passed to stack must have matching shapes, but tensors[1] has shape [3] "
        "and tensors[0] has shape [2]",
    ):
        run("tf.stack([a, b])", a=a, b=b)
    with raises(TypeError, "tensors[1] has dtype int32 and tensors[0] has dtype float32"):
        run("tf.stack([a, i])", a=a, i=i)
    with raises(ValueError, "Error in stack: axis 2 is out of range for a tensor of rank 2"):
        run("tf.stack([a, a], 2)", a=a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unstack(run, dtype):
    x = rand((2, 3, 4), dtype)
    for axis in (0, 1, 2, -1):
        out = run(f"tf.unstack(x, {axis})", x=x)
        ref = [np.take(x, i, axis) for i in range(x.shape[axis])]
        assert len(out) == len(ref)
        for o, r in zip(out, ref, strict=True):
            same(o, r)
    v = rand((3,), dtype)
    out = run("v.unstack()", v=v)
    assert [o.shape for o in out] == [(), (), ()]
    for o, r in zip(out, v, strict=True):
        same(o, r)
    e = rand((2, 0), dtype)
    assert run("tf.unstack(e, 1)", e=e) == []
    for o in run("tf.unstack(e)", e=e):
        same(o, np.zeros((0,), dtype=e.dtype))


def test_unstack_errors(run):
    s = np.array(1.0, dtype=np.float32)
    with raises(ValueError, "Error in unstack: axis 0 is out of range for a tensor of rank 0"):
        run("tf.unstack(s)", s=s)
    with raises(ValueError, "Error in unstack: axis -3 is out of range for a tensor of rank 2"):
        run("tf.unstack(x, -3)", x=rand((2, 2)))


# ---- split ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_split(run, dtype):
    x = rand((6, 4, 2), dtype)
    out = run("tf.split(x, 3)", x=x)
    for o, r in zip(out, np.split(x, 3), strict=True):
        same(o, r)
    out = run("tf.split(x, [1, 3], 1)", x=x)
    for o, r in zip(out, np.split(x, [1], 1), strict=True):
        same(o, r)
    out = run("x.split([1, -1, 2], -3)", x=x)
    assert [o.shape for o in out] == [(1, 4, 2), (3, 4, 2), (2, 4, 2)]
    for o, r in zip(out, np.split(x, [1, 4], 0), strict=True):
        same(o, r)
    out = run("tf.split(x, [0, 2, 0], 2)", x=x)
    for o, r in zip(out, np.split(x, [0, 2], 2), strict=True):
        same(o, r)
    assert len(run("tf.split(x, 1)", x=x)) == 1


def test_split_errors(run):
    x = rand((6, 2))
    with raises(ValueError, "Error in split: number of splits (4) must evenly divide the size (6) of axis 0"):
        run("tf.split(x, 4)", x=x)
    with raises(ValueError, "Error in split: the sum of sizes [1,2] must match the size (6) of axis 0 of x"):
        run("tf.split(x, [1, 2])", x=x)
    with raises(ValueError, "Error in split: the sum of sizes [4,-1,3] must match the size (6) of axis 0"):
        run("tf.split(x, [4, -1, 3])", x=x)
    with raises(ValueError, "Error in split: there should be only one -1 in the sizes [-1,-1]"):
        run("tf.split(x, [-1, -1])", x=x)
    with raises(ValueError, "Error in split: axis 2 is out of range for a tensor of rank 2"):
        run("tf.split(x, 2, 2)", x=x)


# ---- tile -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_tile(run, dtype):
    cases = [
        ((3,), [4]),
        ((2, 3), [2, 1]),
        ((2, 3), [1, 3]),
        ((2, 1, 3), [2, 3, 2]),
        ((1, 2, 1, 2, 1), [2, 1, 3, 1, 2]),
    ]
    for shape, reps in cases:
        x = rand(shape, dtype)
        same(run(f"tf.tile(x, {reps})", x=x), np.tile(x, reps))
    x = rand((2, 3), dtype)
    same(run("tf.tile(x, [0, 2])", x=x), np.tile(x, [0, 2]))
    same(run("x.tile([1, 1])", x=x), x)
    s = np.array(5, dtype=np.int32)
    same(run("tf.tile(s, [])", s=s), s)
    big = rand((40, 30), dtype)
    same(run("tf.tile(big, [3, 2])", big=big), np.tile(big, [3, 2]))
    col = rand((100, 1), dtype)
    same(run("tf.tile(col, [1, 20])", col=col), np.tile(col, [1, 20]))


def test_tile_errors(run):
    x = rand((2, 3))
    with raises(
        ValueError, "Error in tile: rank of input 2 must match length of reps [2] (x has shape [2,3])"
    ):
        run("tf.tile(x, [2])", x=x)
    with raises(ValueError, "Error in tile: reps must be non-negative, got [1,-1]"):
        run("tf.tile(x, [1, -1])", x=x)


# ---- reverse ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_reverse(run, dtype):
    x = rand((2, 3, 4), dtype)
    same(run("tf.reverse(x)", x=x), x[::-1, ::-1, ::-1])
    for axes in ([0], [1], [2], [-1], [0, 2], [1, 2], [0, 1]):
        same(run(f"tf.reverse(x, {axes})", x=x), np.flip(x, axes))
    same(run("tf.reverse(x, 1)", x=x), np.flip(x, 1))
    same(run("x.reverse([])", x=x), x)
    v = rand((7,), dtype)
    same(run("tf.reverse(v)", v=v), v[::-1])
    s = np.array(True)
    same(run("tf.reverse(s)", s=s), s)
    e = rand((0, 3), dtype)
    same(run("tf.reverse(e, 1)", e=e), e)
    r5 = rand((2, 1, 3, 2, 2), dtype)
    same(run("tf.reverse(r5, [0, 3])", r5=r5), np.flip(r5, (0, 3)))
    big = rand((60, 50), dtype)
    same(run("tf.reverse(big, 1)", big=big), big[:, ::-1])


def test_reverse_errors(run):
    x = rand((2, 3))
    with raises(ValueError, "Error in reverse: axis 2 is out of range for a tensor of rank 2"):
        run("tf.reverse(x, 2)", x=x)
    with raises(ValueError, "Error in reverse: axis [1, -1] has repeated axes"):
        run("tf.reverse(x, [1, -1])", x=x)
