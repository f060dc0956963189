"""Host checks of the converter ops of issue 15 (their TF.js parity is tests/models/test_graph_ops_parity.py):
hand-computed values for control flow and tables, error cases, and no tensor left behind."""

import base64

import numpy as np
import pytest

import webtf as tf
from tests.harness.aio import run_sync
from tests.models.graph_op_cases import cases
from tests.models.synth import Graph, dtype_attr, func_attr

CASES = cases()


@pytest.fixture(autouse=True)
def _no_leaks():
    before = tf.memory().num_tensors
    yield
    assert tf.memory().num_tensors == before


def _load(model, data):
    return run_sync(tf.load_graph_model(tf.io.from_memory(model, data)))


def _run(case_id):
    c = CASES[case_id]
    model = _load(c["model"], base64.b64decode(c["weights"]))
    feeds = {k: tf.tensor(v, s, d) for k, (v, s, d) in c["feeds"].items()}
    try:
        out = run_sync(model.execute_async(feeds, c["outputs"]))
        out = out if isinstance(out, list) else [out]
        got = [np.array(t.data_sync().tolist()).reshape(t.shape) for t in out]
        tf.dispose(out)
    finally:
        tf.dispose(list(feeds.values()))
        model.dispose()
    return got


def test_if_runs_the_branch_the_predicate_picks():
    y, z = _run("if-then")
    np.testing.assert_allclose(y, [[2, -6], [6, 13.5]])
    np.testing.assert_allclose(z, [-4, 19.5])
    y, z = _run("stateless-if-else")
    np.testing.assert_allclose(y, [[-1, 2], [-3, -4.5]])
    np.testing.assert_allclose(z, [[1, -2], [3, 4.5]])


def test_while_loops_with_a_tensorlist_in_its_body():
    count, acc, length, stack = _run("while-tensorlist")
    want, rows = np.array([1, 2, -4], np.float32), []
    for i in range(4):
        want = want * 0.5 + i
        rows.append(want)
    assert count == 4 and length == 4
    np.testing.assert_allclose(acc, want, rtol=1e-6)
    np.testing.assert_allclose(stack, rows, rtol=1e-6)
    count, acc, length = _run("stateless-while-zero-trips")
    assert count == 0 and length == 0
    np.testing.assert_allclose(acc, [1, 2, -4])


def test_hash_tables_with_and_without_initializer():
    for cid in ("hash-table", "hash-table-initializer"):
        find, size = _run(cid)
        np.testing.assert_allclose(find, [[2.5, 0], [0, -7], [1, -1], [9, 4], [2.5, 0]])
        assert size == 3
    find, size = _run("hash-table-captured")
    np.testing.assert_allclose(find, [-1.5, 0.5, 9, -1.5])
    assert size == 2


@pytest.mark.parametrize("cid", [c for c in CASES if c not in ("random",)])
def test_every_case_runs_on_the_host(cid):
    assert _run(cid)


def test_fused_batch_norm_matches_numpy():
    c = CASES["fused-batch-norm-v3"]
    x = np.array(c["feeds"]["x"][0], np.float32).reshape(c["feeds"]["x"][1])
    raw = np.frombuffer(base64.b64decode(c["weights"]), np.float32)
    scale, offset, mean, var = raw[:4], raw[4:8], raw[8:12], raw[12:16]
    (y,) = _run("fused-batch-norm-v3")
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 0.01) * scale + offset, rtol=1e-5, atol=1e-5)


def _if_graph(then_name="then_fn"):
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.placeholder("p", "bool", [])
    g.function("then_fn", {"a": "float32"}, lambda s: s.op("t/neg", "Neg", "a"), {"y": "t/neg:y:0"})
    g.op("cond", "If", "p", "x", then_branch=func_attr(then_name), else_branch=func_attr("then_fn"))
    return g


def test_if_needs_execute_async_and_its_functions():
    model = _load(*_if_graph().model(["cond"]))
    x, p = tf.tensor([1.0, 2.0]), tf.scalar(True)
    try:
        with pytest.raises(ValueError, match="dynamic op 'If'.*execute_async"):
            model.execute({"x": x, "p": p})
    finally:
        tf.dispose([x, p])
        model.dispose()
    with pytest.raises(ValueError, match="no function 'nowhere'"):
        model = _load(*_if_graph("nowhere").model(["cond"]))
        x, p = tf.tensor([1.0, 2.0]), tf.scalar(True)
        try:
            run_sync(model.execute_async({"x": x, "p": p}))
        finally:
            tf.dispose([x, p])
            model.dispose()


def test_table_dtype_and_resize_errors_name_the_op():
    g = Graph()
    g.placeholder("k", "float32", [2])
    g.const("keys", [1, 2], "int32")
    g.const("vals", [1.0, 2.0])
    g.op("table", "HashTableV2", key_dtype=dtype_attr("int32"), value_dtype=dtype_attr("float32"))
    g.op("init", "LookupTableImportV2", "table", "keys", "vals")
    g.op("find", "LookupTableFindV2", "table", "k", "vals", "^init")
    model = _load(*g.model(["find"]))
    k = tf.tensor([1.0, 2.0])
    try:
        with pytest.raises(TypeError, match="Expect key dtype int32, but got float32") as err:
            run_sync(model.execute_async({"k": k}))
        assert "LookupTableFindV2" in str(err.value.__notes__)
    finally:
        k.dispose()
        model.dispose()


def test_while_arity_and_list_resize_errors_name_the_node():
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.const("shape", [], "int32")
    g.const("neg", -1, "int32")
    g.function(
        "cond1", {"a": "float32", "b": "float32"}, lambda s: s.op("c/lt", "Less", "a", "b"), {"r": "c/lt:z:0"}
    )
    g.op("loop", "While", "x", cond=func_attr("cond1"), body=func_attr("cond1"))
    g.op("list", "TensorListFromTensor", "x", "shape", element_dtype=dtype_attr("float32"))
    g.op("resized", "TensorListResize", "list", "neg")
    g.op("len", "TensorListLength", "resized")
    model = _load(*g.model(["loop", "len"]))
    x = tf.tensor([1.0, 2.0])
    try:
        with pytest.raises(ValueError, match="function 'cond1' takes 2 inputs but got 1") as err:
            run_sync(model.execute_async({"x": x}, "loop"))
        assert "Error in node 'loop' (op While)" in err.value.__notes__
        with pytest.raises(ValueError, match="TensorListResize expects size to be non-negative. Got: -1"):
            run_sync(model.execute_async({"x": x}, "len"))
    finally:
        x.dispose()
        model.dispose()


def test_placeholder_with_default_gives_its_default_unless_fed():
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.const("d", np.array([1.5, -2.0], np.float32))
    g.op("p", "PlaceholderWithDefault", "d", dtype=dtype_attr("float32"))
    g.op("y", "Add", "x", "p")
    model = _load(*g.model(["y"]))
    x, fed = tf.tensor([1.0, 1.0]), tf.tensor([10.0, 20.0])
    try:
        y_default, y_fed = model.execute({"x": x}), model.execute({"x": x, "p": fed})
        np.testing.assert_allclose(y_default.array_sync(), [2.5, -1.0])
        np.testing.assert_allclose(y_fed.array_sync(), [11.0, 21.0])
        tf.dispose([y_default, y_fed])
    finally:
        tf.dispose([x, fed])
        model.dispose()


def test_ragged_converter_ops_match_hand_computed_values():
    """RaggedRange, RaggedGather and RaggedTensorToTensor in a graph (TF's op definitions: TF.js 4.22's
    converter has no mapping for them, so there is no TF.js side)."""
    from tests.models.synth import attr_strs

    g = Graph()
    g.op("range", "RaggedRange", g.const("starts", [0, 5, 8], "int32"), g.const("limits", [3, 5, 12], "int32"),
         g.const("deltas", [1, 1, 2], "int32"), Tsplits=dtype_attr("int32"))  # fmt: skip
    g.const("splits", [0, 2, 2, 5], "int32")
    g.const("values", [1.0, 2, 3, 4, 5])
    g.op("gather", "RaggedGather", "splits", "values", g.const("idx", [2, 0, 2, 1], "int32"),
         OUTPUT_RAGGED_RANK={"i": "1"}, PARAMS_RAGGED_RANK={"i": "1"})  # fmt: skip
    types = attr_strs("ROW_SPLITS")
    g.op("dense", "RaggedTensorToTensor", g.const("shape", [3, 4], "int32"), "values", g.const("dflt", -1.0),
         "splits", row_partition_types=types)  # fmt: skip
    g.op("cut", "RaggedTensorToTensor", g.const("shape2", [2, 1], "int32"), "values", "dflt", "splits",
         row_partition_types=types)  # fmt: skip
    model, data = g.model()
    m = _load(model, data)
    outs = ["range", "range:1", "gather", "gather:1", "dense", "cut"]
    try:
        got = run_sync(m.execute_async({}, outs))
        values = [t.numpy().tolist() for t in got]
        tf.dispose(got)
    finally:
        m.dispose()
    assert values == [
        [0, 3, 3, 5], [0, 1, 2, 8, 10],
        [0, 3, 5, 8, 8], [3, 4, 5, 1, 2, 3, 4, 5],
        [[1, 2, -1, -1], [-1, -1, -1, -1], [3, 4, 5, -1]],
        [[1], [-1]],
    ]  # fmt: skip


def test_graph_model_predict_async_save_and_version():
    """predict_async (structuredOutputKeys naming the outputs), model_version as TF.js spells it, and save():
    the saved artifacts load back into a model that gives the same outputs."""
    g = Graph()
    g.placeholder("x", "float32", [2])
    g.op("y", "Mul", "x", g.const("k", [2.0, -1.0]))
    g.op("z", "AddV2", "x", g.const("one", [1.0, 1.0]))
    model, data = g.model(["y", "z"])
    model["modelTopology"]["versions"] = {"producer": 1395}
    model["userDefinedMetadata"] = {"structuredOutputKeys": ["scaled", "shifted"]}
    m = _load(model, data)
    assert m.model_version == "1395.undefined"
    x = tf.tensor([3.0, 4.0])
    out = run_sync(m.predict_async(x))
    assert {k: v.numpy().tolist() for k, v in out.items()} == {"scaled": [6.0, -4.0], "shifted": [4.0, 5.0]}
    saved = []
    run_sync(m.save(tf.io.with_save_handler(saved.append)))
    again = _load_artifacts(saved[0])
    out2 = again.predict(x)
    assert [out2[k].numpy().tolist() for k in ("scaled", "shifted")] == [[6.0, -4.0], [4.0, 5.0]]
    tf.dispose([x, *out.values(), *out2.values()])
    m.dispose()
    again.dispose()


def _load_artifacts(artifacts):
    return run_sync(tf.load_graph_model(tf.io.from_memory(artifacts)))
