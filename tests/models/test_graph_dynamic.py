"""Host tests: graphs with control flow, TensorArrays, TensorLists and dynamic-shape ops (execute_async).

Each graph is written here in the converter's format (tests/models/synth.py) and checked against numpy or
hand-computed values; every test also checks that no tensor outlives the run (outputs aside).
"""


import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models import synth
from tests.models.synth import Graph, dtype_attr, shape_attr, while_loop

NP = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def load(g: Graph, outputs=None):
    model, data = g.model(outputs)
    return run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))


def run(m, feeds, outputs=None):
    """execute_async on numpy feeds; returns numpy outputs and checks only the outputs stay alive."""
    tensors = {k: tf.tensor(v) for k, v in feeds.items()}
    before = tf.memory().num_tensors
    try:
        out = run_sync(m.execute_async(tensors, outputs))
    finally:
        tf.dispose(list(tensors.values()))
    outs = out if isinstance(out, list) else [out]
    distinct = len({id(t) for t in outs})  # an output may be another output passed through (Identity)
    assert tf.memory().num_tensors == before - len(tensors) + distinct, "intermediates left alive"
    arrays = [np.array(t.data_sync().tolist(), NP[t.dtype]).reshape(t.shape) for t in outs]
    tf.dispose(outs)
    return arrays if isinstance(out, list) else arrays[0]


def counter_loop(g: Graph, x: str, n: str, prefix: str = "loop", frame: str = "loop") -> dict[str, str]:
    """acc = sum_{i < n} x * i; returns the Exit nodes of i and acc."""
    g.const(f"{prefix}/i0", 0, "int32")
    g.const(f"{prefix}/acc0", 0.0)

    def cond(g, v, inv):
        return g.op(f"{prefix}/Less", "Less", v["i"], inv["n"])

    def body(g, v, inv, pivot):
        one = g.const(f"{prefix}/one", 1, "int32", controls=(pivot,))
        fi = g.op(f"{prefix}/Cast", "Cast", v["i"], DstT=dtype_attr("float32"))
        prod = g.op(f"{prefix}/Mul", "Mul", inv["x"], fi)
        return {
            "i": g.op(f"{prefix}/AddI", "AddV2", v["i"], one),
            "acc": g.op(f"{prefix}/AddAcc", "AddV2", v["acc"], prod),
        }

    return while_loop(
        g, prefix, frame, {"i": f"{prefix}/i0", "acc": f"{prefix}/acc0"}, cond, body, {"x": x, "n": n}
    )


@pytest.mark.parametrize("n", [0, 1, 5, 40])
def test_while_loop_sums(n):
    g = Graph()
    g.placeholder("x", "float32", [])
    g.placeholder("n", "int32", [])
    ex = counter_loop(g, "x", "n")
    g.op("acc", "Identity", ex["acc"])
    g.op("count", "Identity", ex["i"])
    m = load(g, ["acc", "count"])
    acc, count = run(m, {"x": np.float32(1.5), "n": np.int32(n)})
    assert count == n
    np.testing.assert_allclose(acc, 1.5 * sum(range(n)), rtol=1e-6)
    m.dispose()


def test_while_loop_multiplies_tensor():
    """A loop carrying a vector: y = y * a + 1, n times, against numpy."""
    g = Graph()
    g.placeholder("y", "float32", [3])
    g.placeholder("a", "float32", [3])
    g.const("i0", 0, "int32")
    g.const("n", 4, "int32")

    def cond(g, v, inv):
        return g.op("w/Less", "Less", v["i"], inv["n"])

    def body(g, v, inv, pivot):
        one = g.const("w/one", 1, "int32", controls=(pivot,))
        onef = g.const("w/onef", 1.0, controls=(pivot,))
        return {
            "i": g.op("w/AddI", "AddV2", v["i"], one),
            "y": g.op("w/AddY", "AddV2", g.op("w/MulY", "Mul", v["y"], inv["a"]), onef),
        }

    ex = while_loop(g, "w", "w", {"i": "i0", "y": "y"}, cond, body, {"a": "a", "n": "n"})
    g.op("out", "Identity", ex["y"])
    m = load(g, ["out"])
    y0 = np.array([1.0, -2.0, 0.5], np.float32)
    a = np.array([2.0, 0.5, -1.0], np.float32)
    ref = y0.astype(np.float64)
    for _ in range(4):
        ref = ref * a + 1
    np.testing.assert_allclose(run(m, {"y": y0, "a": a}), ref, rtol=1e-6)
    feeds = {"y": tf.tensor(y0), "a": tf.tensor(a)}
    with pytest.raises(
        ValueError, match=r"node 'w/y/Enter', which has the dynamic op 'Enter'.*execute_async"
    ):
        m.execute(feeds)
    tf.dispose(list(feeds.values()))
    m.dispose()


def test_nested_loops():
    """acc = sum_{i<n} sum_{j<m} (i * j + 1): the inner loop re-enters every outer iteration."""
    g = Graph()
    g.placeholder("n", "int32", [])
    g.placeholder("m", "int32", [])
    g.const("i0", 0, "int32")
    g.const("acc0", 0.0)

    def outer_cond(g, v, inv):
        return g.op("o/Less", "Less", v["i"], inv["n"])

    def outer_body(g, v, inv, pivot):
        one = g.const("o/one", 1, "int32", controls=(pivot,))
        j0 = g.const("o/j0", 0, "int32", controls=(pivot,))
        fi = g.op("o/Cast", "Cast", v["i"], DstT=dtype_attr("float32"))

        def inner_cond(g, w, inv2):
            return g.op("in/Less", "Less", w["j"], inv2["m"])

        def inner_body(g, w, inv2, pivot2):
            onej = g.const("in/one", 1, "int32", controls=(pivot2,))
            onef = g.const("in/onef", 1.0, controls=(pivot2,))
            fj = g.op("in/Cast", "Cast", w["j"], DstT=dtype_attr("float32"))
            term = g.op("in/Add1", "AddV2", g.op("in/Mul", "Mul", inv2["fi"], fj), onef)
            return {
                "j": g.op("in/AddJ", "AddV2", w["j"], onej),
                "acc": g.op("in/AddAcc", "AddV2", w["acc"], term),
            }

        inner = while_loop(
            g, "in", "inner", {"j": j0, "acc": v["acc"]}, inner_cond, inner_body, {"m": inv["m"], "fi": fi}
        )
        return {"i": g.op("o/AddI", "AddV2", v["i"], one), "acc": inner["acc"]}

    ex = while_loop(g, "o", "outer", {"i": "i0", "acc": "acc0"}, outer_cond, outer_body, {"n": "n", "m": "m"})
    g.op("out", "Identity", ex["acc"])
    m = load(g, ["out"])
    for n, mm in [(3, 4), (2, 0), (0, 3), (4, 1)]:
        ref = sum(i * j + 1 for i in range(n) for j in range(mm))
        np.testing.assert_allclose(run(m, {"n": np.int32(n), "m": np.int32(mm)}), ref)
    m.dispose()


def cond_graph() -> Graph:
    """out = pred ? x * 2 : -x + c, with TF1 cond wiring (pivots, a const in each branch)."""
    g = Graph()
    g.placeholder("pred", "bool", [])
    g.placeholder("x", "float32", [2])
    g.op("switch_pred", "Switch", "pred", "pred")
    g.op("pivot_f", "Identity", "switch_pred")
    g.op("pivot_t", "Identity", "switch_pred:1")
    g.op("sx", "Switch", "x", "pred")
    g.const("two", 2.0, controls=("pivot_t",))
    g.const("c", [10.0, 20.0], controls=("pivot_f",))
    g.op("then", "Mul", "sx:1", "two")
    g.op("else", "AddV2", g.op("neg", "Neg", "sx"), "c")
    g.op("merge", "Merge", "else", "then")
    g.op("out", "Identity", "merge")
    return g


@pytest.mark.parametrize("pred", [True, False])
def test_cond_switch_merge(pred):
    m = load(cond_graph(), ["out"])
    x = np.array([1.5, -3.0], np.float32)
    ref = x * 2 if pred else -x + np.array([10.0, 20.0])
    np.testing.assert_allclose(run(m, {"pred": np.bool_(pred), "x": x}), ref, rtol=1e-6)
    out, index = run(m, {"pred": np.bool_(pred), "x": x}, ["out", "merge:1"])
    assert index == (1 if pred else 0)
    # a node of the branch not taken never runs: asking for it is an error that names it
    with pytest.raises(ValueError, match=r"Cannot compute the outputs \['" + ("else" if pred else "then")):
        run(m, {"pred": np.bool_(pred), "x": x}, ["else" if pred else "then"])
    m.dispose()


def map_fn_graph(dtype: str = "float32") -> Graph:
    """tf.map_fn(lambda row: row * 2 + i, x) the TF1 way: TensorArray unstack, loop read/write, stack."""
    g = Graph()
    g.placeholder("x", dtype, [-1, 3])
    g.op("shape", "Shape", "x")
    g.const("s0", [0], "int32")
    g.const("s1", [1], "int32")
    g.op("n", "StridedSlice", "shape", "s0", "s1", "s1", shrink_axis_mask={"i": "1"})
    common = {"dtype": dtype_attr(dtype), "element_shape": shape_attr(None), "dynamic_size": {"b": False},
              "clear_after_read": {"b": True}, "identical_element_shapes": {"b": True}}  # fmt: skip
    g.op("ta_in", "TensorArrayV3", "n", **common)
    g.op("ta_out", "TensorArrayV3", "n", **common)
    g.const("r0", 0, "int32")
    g.const("r1", 1, "int32")
    g.op("range", "Range", "r0", "n", "r1")
    g.op("scatter", "TensorArrayScatterV3", "ta_in", "range", "x", "ta_in:1")
    g.const("i0", 0, "int32")

    def cond(g, v, inv):
        return g.op("map/Less", "Less", v["i"], inv["n"])

    def body(g, v, inv, pivot):
        one = g.const("map/one", 1, "int32", controls=(pivot,))
        two = g.const("map/two", 2, dtype, controls=(pivot,))
        row = g.op(
            "map/read", "TensorArrayReadV3", inv["ta_in"], v["i"], inv["flow_in"], dtype=dtype_attr(dtype)
        )
        val = g.op(
            "map/add",
            "AddV2",
            g.op("map/mul", "Mul", row, two),
            g.op("map/cast", "Cast", v["i"], DstT=dtype_attr(dtype)),
        )
        flow = g.op("map/write", "TensorArrayWriteV3", inv["ta_out"], v["i"], val, v["flow"])
        return {"i": g.op("map/AddI", "AddV2", v["i"], one), "flow": flow}

    ex = while_loop(
        g, "map", "map/while", {"i": "i0", "flow": "ta_out:1"}, cond, body,
        {"n": "n", "ta_in": "ta_in", "ta_out": "ta_out", "flow_in": "scatter"},
    )  # fmt: skip
    g.op("size", "TensorArraySizeV3", "ta_out", ex["flow"])
    g.op("range2", "Range", "r0", "size", "r1")
    g.op("gather", "TensorArrayGatherV3", "ta_out", "range2", ex["flow"], dtype=dtype_attr(dtype),
         element_shape=shape_attr([3]))  # fmt: skip
    g.op("out", "Identity", "gather")
    return g


@pytest.mark.parametrize("rows", [1, 4])
def test_tensor_array_map_fn(rows):
    m = load(map_fn_graph(), ["out", "size"])
    x = np.random.default_rng(rows).standard_normal((rows, 3)).astype(np.float32)
    out, size = run(m, {"x": x})
    assert size == rows
    np.testing.assert_allclose(out, x * 2 + np.arange(rows)[:, None], rtol=1e-6)
    m.dispose()


def test_tensor_array_map_fn_int32_and_empty():
    m = load(map_fn_graph("int32"), ["out"])
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(run(m, {"x": x}), x * 2 + np.arange(2)[:, None])
    out = run(m, {"x": np.zeros((0, 3), np.int32)})
    assert out.shape == (0, 3)
    m.dispose()


def tensor_array_ops_graph() -> Graph:
    """Write/Read/Split/Concat/Gather/Size/Close without a loop."""
    g = Graph()
    g.placeholder("x", "float32", [5, 2])
    g.const("size", 3, "int32")
    g.op("ta", "TensorArrayV3", "size", dtype=dtype_attr("float32"), element_shape=shape_attr(None),
         dynamic_size={"b": False}, clear_after_read={"b": False},
         identical_element_shapes={"b": False})  # fmt: skip
    g.const("lengths", [2, 0, 3], "int32")
    g.op("split", "TensorArraySplitV3", "ta", "x", "lengths", "ta:1")
    g.op("concat", "TensorArrayConcatV3", "ta", "split", dtype=dtype_attr("float32"))
    g.const("two", 2, "int32")
    g.op("read", "TensorArrayReadV3", "ta", "two", "split", dtype=dtype_attr("float32"))
    g.op("read_again", "TensorArrayReadV3", "ta", "two", "split", dtype=dtype_attr("float32"))
    g.op("size_out", "TensorArraySizeV3", "ta", "split")
    g.const("idx", [2, 0], "int32")
    g.op("gather_bad", "TensorArrayGatherV3", "ta", "idx", "split", dtype=dtype_attr("float32"))
    g.op("close", "TensorArrayCloseV3", "ta", "^concat", "^read", "^read_again", "^size_out")
    g.op("after", "Identity", "concat", "^close")
    g.const("nine", 9, "int32")
    g.op("read_oob", "TensorArrayReadV3", "ta", "nine", "split", dtype=dtype_attr("float32"))
    return g


def test_tensor_array_split_concat_read():
    m = load(tensor_array_ops_graph())
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    concat, lengths, read, again, size, after = run(
        m, {"x": x}, ["concat", "concat:1", "read", "read_again", "size_out", "after"]
    )
    np.testing.assert_array_equal(concat, x)
    np.testing.assert_array_equal(lengths, [2, 0, 3])
    np.testing.assert_array_equal(read, x[2:])
    np.testing.assert_array_equal(again, x[2:])
    assert size == 3 and after.shape == (5, 2)
    # gathering elements of different shapes cannot stack: the error names the node
    with pytest.raises(ValueError, match=r"Error in node 'gather_bad' \(op TensorArrayGatherV3\)"):
        run(m, {"x": x}, ["gather_bad"])
    with pytest.raises(ValueError, match=r"(?s)tried to read from index 9, but the array size is 3.*'read_oob'"):
        run(m, {"x": x}, ["read_oob"])
    m.dispose()


def test_tensor_array_clear_after_read_and_double_write():
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.const("size", 2, "int32")
    g.op("ta", "TensorArrayV3", "size", dtype=dtype_attr("float32"), element_shape=shape_attr([2]),
         clear_after_read={"b": True})  # fmt: skip
    g.const("zero", 0, "int32")
    g.op("w", "TensorArrayWriteV3", "ta", "zero", "x", "ta:1")
    g.op("r1", "TensorArrayReadV3", "ta", "zero", "w", dtype=dtype_attr("float32"))
    g.op("r2", "TensorArrayReadV3", "ta", "zero", "w", "^r1", dtype=dtype_attr("float32"))
    g.op("w2", "TensorArrayWriteV3", "ta", "zero", "x", "w")
    g.const("one", 1, "int32")
    g.op("unwritten", "TensorArrayReadV3", "ta", "one", "w", dtype=dtype_attr("float32"))
    m = load(g)
    x = np.array([3.0, 4.0], np.float32)
    r1, unwritten = run(m, {"x": x}, ["r1", "unwritten"])
    np.testing.assert_array_equal(r1, x)
    np.testing.assert_array_equal(unwritten, [0, 0])  # element shape known: an unwritten slot reads as zeros
    with pytest.raises(ValueError, match=r"(?s)could not read index 0 twice because it was cleared.*'r2'"):
        run(m, {"x": x}, ["r2"])
    with pytest.raises(
        ValueError, match=r"(?s)could not write to index 0, because it has already been written.*'w2'"
    ):
        run(m, {"x": x}, ["w2"])
    m.dispose()


def tensor_list_loop_graph() -> Graph:
    """TF2 map pattern (handtrack): TensorListFromTensor in, Reserve out, GetItem/SetItem in a loop."""
    g = Graph()
    g.placeholder("x", "float32", [3, 2])
    g.const("elem", [2], "int32")
    g.const("unknown", -1, "int32")
    g.const("n", 3, "int32")
    g.op("in_list", "TensorListFromTensor", "x", "elem", element_dtype=dtype_attr("float32"))
    g.op("out_list", "TensorListReserve", "unknown", "n", element_dtype=dtype_attr("float32"))
    g.const("i0", 0, "int32")

    def cond(g, v, inv):
        return g.op("tl/Less", "Less", v["i"], inv["n"])

    def body(g, v, inv, pivot):
        one = g.const("tl/one", 1, "int32", controls=(pivot,))
        item = g.op(
            "tl/get", "TensorListGetItem", v["in"], v["i"], inv["elem"], element_dtype=dtype_attr("float32")
        )
        sq = g.op("tl/square", "Square", item)
        out = g.op("tl/set", "TensorListSetItem", v["out"], v["i"], sq, element_dtype=dtype_attr("float32"))
        return {"i": g.op("tl/AddI", "AddV2", v["i"], one), "in": v["in"], "out": out}

    ex = while_loop(
        g,
        "tl",
        "tl/while",
        {"i": "i0", "in": "in_list", "out": "out_list"},
        cond,
        body,
        {"n": "n", "elem": "elem"},
    )
    g.op(
        "stack",
        "TensorListStack",
        ex["out"],
        "elem",
        element_dtype=dtype_attr("float32"),
        num_elements={"i": "3"},
    )
    g.op("length", "TensorListLength", ex["out"])
    g.op("stack_bad", "TensorListStack", ex["out"], "elem", element_dtype=dtype_attr("float32"),
         num_elements={"i": "5"})  # fmt: skip
    return g


def test_tensor_list_loop():
    m = load(tensor_list_loop_graph())
    x = np.array([[1.0, 2.0], [-3.0, 0.5], [4.0, 0.0]], np.float32)
    stack, length = run(m, {"x": x}, ["stack", "length"])
    np.testing.assert_allclose(stack, x**2)
    assert length == 3
    with pytest.raises(
        ValueError, match=r"(?s)expected a list with 5 elements but got a list with 3.*'stack_bad'"
    ):
        run(m, {"x": x}, ["stack_bad"])
    m.dispose()


def test_tensor_list_push_pop_set_gather():
    g = Graph()
    g.placeholder("x", "float32", [2, 2])
    g.placeholder("y", "float32", [2])
    g.const("elem", [2], "int32")
    g.op("lst", "TensorListFromTensor", "x", "elem", element_dtype=dtype_attr("float32"))
    g.op("push", "TensorListPushBack", "lst", "y", element_dtype=dtype_attr("float32"))
    g.op("len3", "TensorListLength", "push")
    g.const("zero", 0, "int32")
    g.op("set", "TensorListSetItem", "push", "zero", "y", "^len3", element_dtype=dtype_attr("float32"))
    g.const("idx", [2, 0, 1], "int32")
    g.op("gather", "TensorListGather", "set", "idx", "elem", element_dtype=dtype_attr("float32"))
    g.op("pop", "TensorListPopBack", "set", "elem", "^gather", element_dtype=dtype_attr("float32"))
    g.op("len2", "TensorListLength", "pop")
    g.op("stack", "TensorListStack", "pop", "elem", "^len2", element_dtype=dtype_attr("float32"))
    g.const("five", 5, "int32")
    g.op("get_oob", "TensorListGetItem", "lst", "five", "elem", element_dtype=dtype_attr("float32"))
    g.op("tl_bad_dtype", "TensorListGetItem", "lst", "zero", "elem", element_dtype=dtype_attr("int32"))
    m = load(g)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = np.array([9.0, 8.0], np.float32)
    len3, gather, popped, len2, stack = run(m, {"x": x, "y": y}, ["len3", "gather", "pop:1", "len2", "stack"])
    assert len3 == 3 and len2 == 2
    np.testing.assert_array_equal(gather, [y, y, x[1]])
    np.testing.assert_array_equal(popped, y)
    np.testing.assert_array_equal(stack, [y, x[1]])
    with pytest.raises(ValueError, match=r"(?s)trying to access element 5 in a list with 2 elements.*'get_oob'"):
        run(m, {"x": x, "y": y}, ["get_oob"])
    with pytest.raises(TypeError, match=r"(?s)op elements int32, but list elements float32.*'tl_bad_dtype'"):
        run(m, {"x": x, "y": y}, ["tl_bad_dtype"])
    m.dispose()


def test_where_size_rank_broadcast_sparse_to_dense():
    """Static graph with Where (execute_async only), Size, Rank, BroadcastTo and SparseToDense."""
    g = Graph()
    g.placeholder("x", "float32", [2, 3])
    g.const("half", 0.5)
    g.op("gt", "Greater", "x", "half")
    g.op("where", "Where", "gt")
    g.op("size", "Size", "x", out_type=dtype_attr("int32"))
    g.op("rank", "Rank", "x")
    g.const("bshape", [4, 2, 3], "int32")
    g.op("bcast", "BroadcastTo", "x", "bshape")
    g.const("sp_idx", [[0, 1], [2, 0]], "int32")
    g.const("sp_shape", [3, 2], "int32")
    g.const("sp_vals", [5, 7], "int32")
    g.const("sp_default", -1, "int32")
    g.op("dense", "SparseToDense", "sp_idx", "sp_shape", "sp_vals", "sp_default")
    m = load(g)
    x = np.array([[0.1, 0.9, 0.7], [0.6, 0.0, 0.2]], np.float32)
    where, size, rank, bcast, dense = run(m, {"x": x}, ["where", "size", "rank", "bcast", "dense"])
    np.testing.assert_array_equal(where, np.argwhere(x > 0.5))
    assert where.dtype == np.int32
    assert size == 6 and rank == 2
    np.testing.assert_array_equal(bcast, np.broadcast_to(x, (4, 2, 3)))
    np.testing.assert_array_equal(dense, [[-1, 5], [-1, -1], [7, -1]])
    xt = tf.tensor(x)
    with pytest.raises(ValueError, match=r"node 'where', which has the dynamic op 'Where'.*execute_async"):
        m.execute(xt, ["where"])
    # without the dynamic op, execute works on the same graph
    np.testing.assert_array_equal(np.array((b := m.execute(xt, "bcast")).array_sync()), bcast)
    tf.dispose([xt, b])
    empty = run(m, {"x": np.zeros((2, 3), np.float32)}, ["where"])
    assert empty.shape == (0, 2)
    m.dispose()


def test_where_inside_loop_and_errors_name_the_node():
    """Where in a loop body (data-dependent shapes per iteration); a failing op names node and context."""
    g = Graph()
    g.placeholder("x", "float32", [4])
    g.placeholder("n", "int32", [])
    g.const("i0", 0, "int32")
    g.const("acc0", 0, "int32")

    def cond(g, v, inv):
        return g.op("wl/Less", "Less", v["i"], inv["n"])

    def body(g, v, inv, pivot):
        one = g.const("wl/one", 1, "int32", controls=(pivot,))
        fi = g.op("wl/Cast", "Cast", v["i"], DstT=dtype_attr("float32"))
        where = g.op("wl/Where", "Where", g.op("wl/Greater", "Greater", inv["x"], fi))
        count = g.op("wl/Count", "StridedSlice", g.op("wl/Shape", "Shape", where), "s0", "s1", "s1",
                     shrink_axis_mask={"i": "1"})  # fmt: skip
        return {
            "i": g.op("wl/AddI", "AddV2", v["i"], one),
            "acc": g.op("wl/AddAcc", "AddV2", v["acc"], count),
        }

    g.const("s0", [0], "int32")
    g.const("s1", [1], "int32")
    ex = while_loop(g, "wl", "wl", {"i": "i0", "acc": "acc0"}, cond, body, {"x": "x", "n": "n"})
    g.op("out", "Identity", ex["acc"])
    m = load(g, ["out"])
    x = np.array([0.5, 2.5, 1.0, 3.0], np.float32)
    assert run(m, {"x": x, "n": np.int32(4)}) == sum(int((x > i).sum()) for i in range(4))
    m.dispose()
    # the same loop with a body op that fails at iteration 0
    for node in g.nodes:
        if node["name"] == "wl/Count":
            node.update(op="Reshape", input=["wl/Where", "s_bad"], attr={})
    g.const("s_bad", [7], "int32")
    m = load(g, ["out"])
    with pytest.raises(
        ValueError, match=r"(?s)Error in res.*\nError in node 'wl/Count' \(op Reshape\) in loop context wl:0$"
    ):
        run(m, {"x": x, "n": np.int32(4)})
    m.dispose()


def test_dynamic_model_from_files_and_uint8_input(tmp_path):
    """A dynamic graph saved to disk loads through the file handler; uint8 placeholders take int32."""
    g = map_fn_graph("int32")
    g.nodes[0]["attr"]["dtype"] = {"type": "DT_UINT8"}
    model, data = g.model(["out"])
    m = run_sync(tf.load_graph_model(str(synth.write(tmp_path / "m", model, data))))
    assert m.inputs[0].dtype == "int32"
    x = np.array([[1, 2, 3]], np.int32)
    np.testing.assert_array_equal(run(m, {"x": x}), x * 2)
    m.dispose()


def test_unknown_frame_ops_fail_cleanly():
    """Exit outside a loop is a malformed graph: the error names the node and nothing leaks."""
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.op("bad_exit", "Exit", "x")
    g.op("out", "Identity", "bad_exit")
    m = load(g, ["out"])
    with pytest.raises(
        ValueError, match=r"(?s)^Exit outside of a loop frame.*\nError in node 'bad_exit' \(op Exit\)$"
    ):
        run(m, {"x": np.zeros(2, np.float32)})
    m.dispose()


def test_loop_frees_iteration_values():
    """Each iteration's intermediates are freed as soon as they are used: live tensors do not grow with n."""
    from webtf.models.graph import dynamic

    peaks = []
    original = dynamic.DynamicRun.store

    def spy(self, name, frames, outs):
        original(self, name, frames, outs)
        peaks[-1] = max(peaks[-1], tf.memory().num_tensors)

    g = Graph()
    g.placeholder("x", "float32", [])
    g.placeholder("n", "int32", [])
    ex = counter_loop(g, "x", "n")
    g.op("acc", "Identity", ex["acc"])
    m = load(g, ["acc"])
    dynamic.DynamicRun.store = spy
    try:
        for n in (5, 60):
            peaks.append(0)
            run(m, {"x": np.float32(1.0), "n": np.int32(n)})
    finally:
        dynamic.DynamicRun.store = original
    assert peaks[0] == peaks[1], peaks
    m.dispose()


@pytest.mark.parametrize("value", [True, False])
def test_where_scalar_condition(value):
    g = Graph()
    g.placeholder("b", "bool", [])
    g.op("where", "Where", "b")
    m = load(g, ["where"])
    assert run(m, {"b": np.bool_(value)}).shape == ((1, 0) if value else (0, 0))
    m.dispose()
