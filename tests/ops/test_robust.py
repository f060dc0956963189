"""Bad input never breaks webtf: dtype inference over whole lists, output sizes checked before any work, bad
shapes and arguments refused with errors naming the op, casts that agree across backends, 'same' convs with
strides larger than the filter. Every test runs on the host and on each page backend (the `run` fixture).
"""

import numpy as np
import pytest

from tests.helpers import Rand, close, exact, raises
from tests.ops.conftest import HOST_BACKENDS
from tests.ops.test_conv import ref_conv2d, ref_depthwise
from tests.ops.test_pool import ref_pool

_R = Rand(20)
rand = _R.normal


# ---- 1. dtype inference looks at every element ---------------------------------------------------------
@pytest.mark.parametrize(
    "values, dtype",
    [
        ([1, 2.5], np.float32),
        ([[1, 2], [3.5, 4]], np.float32),
        ([0, 0.1, 0.9], np.float32),
        ([[1], [2]], np.int32),
        ([True, 2], np.int32),
        ([[True], [2.5]], np.float32),
        ([True, False], np.bool_),
        ([[], []], np.float32),
    ],
)
def test_nested_lists_infer_the_dtype_of_all_their_elements(run, values, dtype):
    exact(run(f"tf.tensor({values!r})"), np.array(values, dtype=dtype).reshape(np.shape(values)), dtype)


def test_literals_next_to_tensors_keep_their_fractions(run):
    exact(run("tf.add(a, [1, 2.5])", a=np.array([10, 20], np.int32)), [11, 22.5], np.float32)
    exact(run("a * [[0.5], [2]]", a=np.array([2, 4], np.int32)), [[1, 2], [4, 8]], np.float32)


@pytest.mark.parametrize(
    "expr, cls, message",
    [
        (  # str values make a string tensor (as TF.js), whose values must all be str
            "tf.tensor([1, 'a'])",
            TypeError,
            "Error in tensor: argument 'values' of a string tensor holds int, not str",
        ),
        ("tf.tensor([[1], [None]])", TypeError, "must hold numbers or bools, but holds NoneType"),
        ("tf.add(['a'], 1)", TypeError, "Error in add: argument 'a' must hold numbers or bools"),
        (
            "tf.add('a', 1)",
            TypeError,
            "Error in add: argument 'a' must be a Tensor or a TensorLike, but got str",
        ),
        (
            "tf.tensor([2**31])",
            ValueError,
            "Error in tensor: argument 'values' holds 2147483648, which int32 cannot hold",
        ),
        ("tf.tensor([1.5], dtype='int32')", ValueError, "must hold integers to be int32, but holds 1.5"),
        (
            "tf.tensor([float('nan')], dtype='int32')",
            ValueError,
            "must hold integers to be int32, but holds nan",
        ),
        (
            "tf.add(a, [1, 'x'])",
            TypeError,
            "Error in add: argument 'b' must hold numbers or bools, but holds str",
        ),
        (
            "tf.gather(a, [0, 1.5])",
            ValueError,
            "Error in gather: argument 'indices' must hold integers to be int32",
        ),
        (
            "tf.all(['a', 'b'])",
            TypeError,
            "Error in all: argument 'x' must hold numbers or bools, but holds str",
        ),
        ("tf.fill([2], None)", TypeError, "Error in fill: argument 'value' must be a Tensor or a TensorLike"),
        (
            "tf.fill([2], 2.5, 'int32')",
            ValueError,
            "Error in fill: argument 'value' must hold integers to be int32",
        ),
    ],
)
def test_values_that_would_change_silently_are_refused(run, expr, cls, message):
    with raises(cls, message):
        run(expr, a=np.array([1, 2], np.int32))


def test_deep_nesting_is_a_clear_error(run):
    with raises(ValueError, "Error in tensor: argument 'values' is nested more than 64 levels deep"):
        run("tf.tensor(v)", setup="v = 1\nfor _ in range(5000): v = [v]")


# ---- 2, 3. every op checks the size of its output before any work ------------------------------------------
A, B, C = "tf.zeros([100000, 1])", "tf.zeros([1, 100000])", "tf.ones([1, 2, 2, 1])"
HUGE = [
    (f"tf.add({A}, {B})", "add", "[100000,100000] (broadcasting [100000,1] and [1,100000])"),
    (f"tf.mat_mul({A}, {B})", "mat_mul", "[100000,100000] (a [100000,1] @ b [1,100000])"),
    (f"tf.where(tf.equal({A}, 0), {A}, {B})", "where", "[100000,100000]"),
    (f"tf.logical_and(tf.cast({A}, 'bool'), tf.cast({B}, 'bool'))", "logical_and", "[100000,100000]"),
    (f"tf.image.resize_bilinear({C}, [100000, 100000])", "resize_bilinear", "[1,100000,100000,1]"),
    (
        f"tf.image.resize_nearest_neighbor({C}, [100000, 100000])",
        "resize_nearest_neighbor",
        "[1,100000,100000,1]",
    ),
    ("tf.range(0, 1e10)", "range", "[10000000000]"),
    ("tf.zeros([100000, 100000])", "zeros", "[100000,100000]"),
    ("tf.fill([100000, 100000], 1)", "fill", "[100000,100000]"),
    ("tf.random_uniform([10**9])", "random_uniform", "[1000000000]"),
    ("tf.eye(100000)", "eye", "[100000,100000]"),
    ("tf.tensor(1, [100000, 100000])", "tensor", "[100000,100000]"),
    (f"tf.tile({A}, [1, 100000])", "tile", "[100000,100000]"),
    (f"tf.pad({A}, [[0, 0], [0, 100000]])", "pad", "[100000,100001]"),
    ("tf.one_hot(tf.zeros([100000], 'int32'), 100000)", "one_hot", "[100000,100000]"),
    (f"tf.broadcast_to({A}, [100000, 100000])", "broadcast_to", "[100000,100000]"),
    (f"tf.concat([{A}] * 3000, 1)", "concat", "[100000,3000]"),
    (f"tf.stack([{A}] * 3000)", "stack", "[3000,100000,1]"),
    (f"tf.conv2d({C}, tf.ones([1, 1, 1, 100]), 1, 100000)", "conv2d", "[1,200002,200002,100]"),
    (f"tf.max_pool({C}, 1, 1, 100000)", "max_pool", "[1,200002,200002,1]"),
    (f"tf.gather({B}, tf.zeros([100000], 'int32'), 0)", "gather", "[100000,100000]"),
    (
        f"tf.space_to_batch_nd({C}, [1, 1], [[0, 100000], [0, 100000]])",
        "space_to_batch_nd",
        "[1,100002,100002,1]",
    ),
]


@pytest.mark.parametrize("expr, op, shape", HUGE, ids=[h[1] for h in HUGE])
def test_huge_outputs_fail_at_once_naming_op_and_shape(run, expr, op, shape):
    with pytest.raises(ValueError) as info:
        run(f"tf.tidy(lambda: {expr})")
    message = str(info.value)
    assert message.startswith(f"Error in {op}: the output of shape {shape}"), message
    backend = HOST_BACKENDS.get(run.backend, run.backend)
    assert f"a tensor may hold on the {backend} backend" in message, message


@pytest.mark.parametrize("strides", [5, 7, 100000])
def test_strides_past_the_input_compute_only_the_output(run, strides):
    x, f = rand(1, 5, 5, 2), rand(3, 3, 2, 3)
    close(run(f"tf.conv2d(x, f, {strides}, 'same')", x=x, f=f), ref_conv2d(x, f, strides, "same"), 1e-4, 1e-5)
    close(run(f"tf.max_pool(x, 3, {strides}, 'same')", x=x), ref_pool(x, 3, strides, "same", np.nanmax))
    close(
        run(f"tf.avg_pool(x, 3, {strides}, 'same')", x=x), ref_pool(x, 3, strides, "same", np.nanmean), 1e-5
    )


@pytest.mark.parametrize("size, strides", [(9, 1), (12, 2), ([40, 3], 1), (100000, 1), (100000, 100000)])
def test_pool_windows_past_the_input_cost_only_the_input(run, size, strides):
    x = rand(2, 5, 4, 3)
    for op, reduce in (("max_pool", np.nanmax), ("avg_pool", np.nanmean)):
        out = run(f"tf.{op}(x, {size!r}, {strides!r}, 'same')", x=x)
        if size == 100000:  # every window holds the whole input
            ref = reduce(x.astype(np.float64), axis=(1, 2), keepdims=True)
            ref = np.broadcast_to(ref, (2, -(-5 // strides), -(-4 // strides), 3))
        else:
            ref = ref_pool(x, size, strides, "same", reduce)
        close(out, ref, 1e-5, 1e-6)


# ---- 7. 'same' convs whose stride outgrows the filter agree on every backend -------------------------------
@pytest.mark.parametrize("size, strides", [(5, 5), (5, 6), (7, 4), (9, 5), (11, [5, 3])])
def test_same_conv_with_stride_past_the_filter(run, size, strides):
    x, f, d = rand(2, size, size, 3), rand(3, 3, 3, 4), rand(2, 2, 3, 2)
    ref = ref_conv2d(x, f, strides, "same")
    close(run(f"tf.conv2d(x, f, {strides!r}, 'same')", x=x, f=f), ref, 1e-4, 1e-4)
    b = rand(4)
    fused = run(f"tf.fused.conv2d(x, f, {strides!r}, 'same', bias=b, activation='relu')", x=x, f=f, b=b)
    close(fused, np.maximum(ref + b, 0), 1e-4, 1e-4)
    close(
        run(f"tf.depthwise_conv2d(x, d, {strides!r}, 'same')", x=x, d=d),
        ref_depthwise(x, d, strides, "same"),
        1e-4,
        1e-4,
    )
    ones = run(
        f"tf.tidy(lambda: tf.conv2d(tf.ones([1, {size}, {size}, 1]), tf.ones([3, 3, 1, 1]), {strides!r}, 'same'))"
    )
    assert (ones > 0).all(), ones  # XNNPACK's own 'same' mode gave 0 here


# ---- 4. bad shapes and arguments ------------------------------------------------------------------------
BAD = [
    (
        "tf.tensor([1, 2, 3, 4], [-2, -2])",
        ValueError,
        "Error in tensor: argument 'shape' must hold dims in [0, 2147483647], but shape[0] is -2",
    ),
    (
        "tf.eye(2, 2, [-1])",
        ValueError,
        "Error in eye: argument 'batch_shape' must hold dims in [0, 2147483647], but batch_shape[0] is -1",
    ),
    (
        "tf.zeros([2.9])",
        TypeError,
        "Error in zeros: argument 'shape' must contain only integers, but got [2.9]",
    ),
    (
        "tf.zeros(None)",
        TypeError,
        "Error in zeros: argument 'shape' must be a list of integers, but got None",
    ),
    (
        "tf.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([3, 3, 1, 1]), 1, 'valid')",
        ValueError,
        "Error in conv2d: the filter (3x3 with dilations) is larger than the input 2x2 padded by [0,0,0,0]",
    ),
    (
        "tf.max_pool(tf.zeros([1, 2, 2, 1]), 3, 1, 'valid')",
        ValueError,
        "Error in max_pool: the filter (3x3 with dilations) is larger than the input 2x2",
    ),
    (
        "tf.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([0, 0, 1, 1]), 1, 'same')",
        ValueError,
        "Error in conv2d: filter must not have zero elements, but its shape is [0,0,1,1]",
    ),
    (
        "tf.conv2d(tf.zeros([1, 2, 2, 1]), tf.zeros([3, 3, 1, 0]), 1, 'same')",
        ValueError,
        "Error in conv2d: filter must not have zero elements",
    ),
    (
        "tf.truncated_normal([2], dtype='bogus')",
        TypeError,
        "Error in truncated_normal: unsupported dtype 'bogus'; expected one of float32, int32",
    ),
    ("tf.random_normal([2], dtype='bool')", TypeError, "Error in random_normal: unsupported dtype 'bool'"),
    (
        "tf.reshape(tf.zeros([0]), [2**64, 0])",
        ValueError,
        "Error in reshape: shapes can not be > 2147483647. Found 18446744073709551616 at dim 0",
    ),
    (
        "tf.random_uniform([3], 2, 2, 'int32')",
        ValueError,
        "Error in random_uniform: maxval (2) - minval (2) must be more than 1 for dtype int32",
    ),
    ("tf.range('a')", TypeError, "Error in range: argument 'stop' must be a number, but got 'a'"),
    (
        "tf.range(0, float('inf'))",
        ValueError,
        "Error in range: start (0), stop (inf) and step (1) must be finite",
    ),
    ("tf.eye(2.5)", TypeError, "Error in eye: argument 'num_rows' must be an integer, but got 2.5"),
    ("tf.linspace(0, 1, 1e10)", TypeError, "Error in linspace: argument 'num' must be an integer"),
    (
        "tf.one_hot(tf.zeros([2], 'int32'), 3, 'a')",
        TypeError,
        "Error in one_hot: argument 'on_value' must be a number, but got 'a'",
    ),
    (
        "tf.image.crop_and_resize(tf.zeros([1, 2, 2, 1]), [[0, 0, 1, 1]], [5], [2, 2])",
        ValueError,
        "Error in crop_and_resize: box_ind[0] = 5 is not in [0, 0]",
    ),
]


@pytest.mark.parametrize("expr, cls, message", BAD)
def test_bad_shapes_and_arguments_are_refused(run, expr, cls, message):
    with raises(cls, message):
        run(f"tf.tidy(lambda: {expr})")


def test_assigning_a_list_to_a_variable_is_a_clear_error(run):
    with raises(
        TypeError, "Error in assign: new_value must be a Tensor (make one with tf.tensor), but got list"
    ):
        run(
            "(lambda v: (v.dispose(), v.assign([1, 2])))(tf.variable(x))", x=rand(2)
        )  # disposed first: no leak


def test_a_huge_empty_shape_prints_abbreviated(run):
    assert (
        run("tf.tidy(lambda: str(tf.zeros([25, 0])))")
        == "Tensor\n    [[],\n     [],\n     [],\n     ...,\n     [],\n     [],\n     []]"
    )


# ---- 5. casts of NaN, inf and out-of-range floats agree on every backend (as an Int32Array stores them) ----
def test_cast_to_int32_truncates_like_typed_arrays(run):
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 2**31, -(2**31), 5e9], np.float32)
    ref = [0, 0, 0, -1294967296, 1294967296, 2, -2, -(2**31), -(2**31), 705032704]
    exact(run("tf.cast(x, 'int32')", x=x), ref, np.int32)
    big = np.tile(x, 500)  # past the webgl backend's host path: the GPU converts
    exact(run("tf.cast(x, 'int32')", x=big), np.tile(ref, 500), np.int32)
    exact(
        run("tf.tidy(lambda: tf.cast(tf.cast(x, 'int32'), 'float32'))", x=big),
        np.tile(ref, 500).astype(np.float32),
        np.float32,
    )
