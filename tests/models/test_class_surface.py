"""Coverage of the public methods and properties of TF.js 4.22's classes: GraphModel, LayersModel, Sequential,
Layer, Optimizer (SGD), TensorBuffer, Variable and Tensor.

TF.js's names are read from the vendored tf.min.js in a bare page (one load): for each class, an instance's own
property names plus the names on its prototype chain (up to Object.prototype). Names starting with `_` are
TF.js-private by convention and skipped. webtf's side: the same kind of object made on the host, where each
name must exist as its snake_case attribute. ALLOW lists what cannot apply (why beside each); a listed name that
webtf has, or that TF.js lacks, fails too.
"""

from __future__ import annotations

from typing import Any

from tests.harness.aio import run_sync
from tests.ops.test_coverage import snake

#: TF.js names whose snake_case webtf spells otherwise
RENAMES = {f"as{n}D": f"as{n}d" for n in range(1, 6)}

_PRIVATE = "TypeScript-private or -protected in TF.js (not its public API; the bundle keeps the name)"
_LOADER = (
    "webtf makes a GraphModel from loaded artifacts (tf.load_graph_model / load_graph_model_sync): it has no "
    "unloaded state, URL, load options or handler of its own"
)
_SYMBOLIC = (
    "Keras functional-graph bookkeeping (Node / SymbolicTensor links, per-call shapes): webtf's network "
    "(models/layers/topology.py) plans steps instead; a model's inputs / outputs are its TensorSpecs"
)
_HOOK = "a switch or hook TF.js has for its own tests (call hooks, fast weight init)"
_AS_LAYER = "a webtf LayersModel is not a Layer: model.as_layer() gives the layer of it to build other models with"
_NOT_YET = "public in TF.js and meaningful in webtf, but webtf lacks it yet (listed so the test stays green)"

_LAYER_PRIVATE = (
    "addInboundNode assertInputCompatibility assertNotDisposed fastWeightInitDuringBuild getNodeAtIndex "
    "invokeCallHook setMaskMetadata trainable_ warnOnIncompatibleInputShape"
).split()
_LAYER_SYMBOLIC = "getInputAt getOutputAt id inboundNodes outboundNodes input output inputSpec".split()
_LAYER_NOT_YET = ["computeMask", "supportsMasking", "dispose"]
_MODEL_PRIVATE = _LAYER_PRIVATE + (
    "addWeight buildNodeConversionMap checkNumSamples checkTrainableWeightsConsistency disposeWeights "
    "feedInputNames feedOutputNames getDedupedMetricsNames getLossIdentifiers getMetricIdentifiers "
    "getNamedWeights getTrainingConfig internalInputShapes internalOutputShapes makeTestFunction "
    "makeTrainFunction parseWeights predictLoop retrieveSymbolicTensors runInternalGraph standardizeUserData "
    "standardizeUserDataXY testLoop updatedConfig"
).split()
_MODEL_SYMBOLIC = _LAYER_SYMBOLIC + (
    "containerNodes feedInputShapes inputLayers inputLayersNodeIndices inputLayersTensorIndices outputLayers "
    "outputLayersNodeIndices outputLayersTensorIndices layersByDepth nodesByDepth internalContainerRefs"
).split()
_MODEL = {
    **dict.fromkeys(_MODEL_PRIVATE, _PRIVATE),
    **dict.fromkeys(_MODEL_SYMBOLIC, _SYMBOLIC),
    **dict.fromkeys(("setCallHook", "clearCallHook", "setFastWeightInitDuringBuild"), _HOOK),
    **dict.fromkeys(("build", "built", "call", "computeOutputShape", "activityRegularizer"), _AS_LAYER),
    "initialWeights": "the `weights` argument of TF.js's Layer constructor; webtf's layers take set_weights()",
    "fitLoop": "TF.js's loop behind fit() (public only for its tests): webtf's is fit() / fit_dataset()",
    **dict.fromkeys((*_LAYER_NOT_YET, "addLoss"), _NOT_YET),
}
_MODEL = {k: v for k, v in _MODEL.items() if k != "dispose"}

#: class -> {TF.js name: why webtf has no such attribute}
ALLOW: dict[str, dict[str, str]] = {
    "GraphModel": {
        **dict.fromkeys(
            (
                "addStructuredOutputNames convertTensorMapToTensorsMap executeInitializerGraph "
                "executeInitializerGraphAsync findIOHandler handler io loadStreaming loadWithWeightMap "
                "normalizeInputs normalizeOutputs resourceManager setResourceIdToCapturedInput signature version"
            ).split(),
            _PRIVATE,
        ),
        **dict.fromkeys(("load", "loadSync", "loadOptions", "modelUrl"), _LOADER),
    },
    "LayersModel": _MODEL,
    "Sequential": {**_MODEL, "checkShape": _PRIVATE},
    "Layer": {
        **dict.fromkeys(_LAYER_PRIVATE, _PRIVATE),
        **dict.fromkeys(_LAYER_SYMBOLIC, _SYMBOLIC),
        **dict.fromkeys(("setCallHook", "clearCallHook", "setFastWeightInitDuringBuild"), _HOOK),
        "initialWeights": _MODEL["initialWeights"],
        **dict.fromkeys(_LAYER_NOT_YET, _NOT_YET),
    },
    "Optimizer": {
        **dict.fromkeys(("c", "extractIterations", "incrementIterations"), _PRIVATE),
        "saveIterations": "the helper TF.js's getWeights uses to save the step count: webtf's get_weights does it",
    },
    "TensorBuffer": {},
    "Variable": {},
    "Tensor": {
        "rankType": "a TypeScript typing aid (the rank as a string type)",
        "dataToGPU": (
            "hands a WebGL texture / WebGPU buffer to JS code; webtf's GPU data stays inside its Python "
            "webgl backend (read it with data() / data_sync())"
        ),
    },
}
ALLOW["Variable"] = ALLOW["Tensor"]

TFJS_CLASS_NAMES_JS = """async ([base, graph]) => {
  await new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = base + "vendor/tfjs/tf.min.js"; s.onload = ok; s.onerror = () => fail(new Error("no tf.min.js"));
    document.head.appendChild(s);
  });
  const names = (obj, from) => {
    const out = new Set(Object.getOwnPropertyNames(obj));
    for (let p = from; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const k of Object.getOwnPropertyNames(p)) out.add(k);
    }
    out.delete("constructor");
    return [...out].filter((k) => !k.startsWith("_"));
  };
  const of = (obj) => names(obj, Object.getPrototypeOf(obj));
  const gm = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: graph, weightSpecs: [],
                                                         weightData: new ArrayBuffer(0) }));
  const inp = tf.input({ shape: [2] });
  const lm = tf.model({ inputs: inp, outputs: tf.layers.dense({ units: 1 }).apply(inp) });
  const seq = tf.sequential({ layers: [tf.layers.dense({ units: 1, inputShape: [2] })] });
  const LayerClass = Object.getPrototypeOf(Object.getPrototypeOf(tf.layers.dense({ units: 1 }))).constructor;
  const layer = new LayerClass({ name: "layer" });
  const opt = tf.train.sgd(0.1);
  const x = tf.zeros([1]);
  const v = tf.variable(tf.zeros([1]));
  const out = {
    GraphModel: of(gm), LayersModel: of(lm), Sequential: of(seq), Layer: of(layer), Optimizer: of(opt),
    TensorBuffer: of(tf.buffer([1])), Variable: of(v), Tensor: of(x),
  };
  gm.dispose(); lm.dispose(); seq.dispose(); v.dispose(); x.dispose(); opt.dispose();
  return out;
}"""

#: a graph of one Placeholder and an Identity, for both sides' GraphModel
GRAPH = {
    "node": [
        {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
        {"name": "y", "op": "Identity", "input": ["x"]},
    ],
    "versions": {"producer": 1395},
}




def _tfjs_names(browser: Any, server: str) -> dict[str, list[str]]:
    page = browser.new_page()
    try:
        page.goto(server + "vendor/tfjs/")  # same origin as the bundle (a listing or a 404: no app boots)
        return page.evaluate(TFJS_CLASS_NAMES_JS, [server, GRAPH])
    finally:
        page.close()


def _webtf_objects() -> tuple[dict[str, Any], list[Any]]:
    """class -> a webtf object of it; and what to dispose."""
    import webtf as tf
    from webtf.models.layers.base import Layer

    gm = tf.load_graph_model_sync(({"modelTopology": GRAPH, "weightsManifest": [], "format": "graph-model"}, b""))
    inp = tf.input(shape=[2])
    lm = tf.model(inputs=inp, outputs=tf.layers.dense(units=1).apply(inp))
    seq = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2])])
    x = tf.zeros([1])
    v = tf.variable(x)
    objs = {
        "GraphModel": gm, "LayersModel": lm, "Sequential": seq, "Layer": Layer("layer", {}, "Layer"),
        "Optimizer": tf.train.sgd(0.1), "TensorBuffer": tf.buffer([1]), "Variable": v, "Tensor": x,
    }  # fmt: skip
    return objs, [gm, lm, seq, x, v]


def test_webtf_has_tfjs_class_surface(browser, server):
    import webtf as tf

    names = _tfjs_names(browser, server)
    assert set(names) == set(ALLOW) and len(names["Tensor"]) > 150 and len(names["LayersModel"]) > 100
    before = tf.memory().num_tensors
    objs, owned = _webtf_objects()
    members = {cls: set(dir(obj)) for cls, obj in objs.items()}  # a property that raises is still a member
    missing, stale = [], []
    try:
        for cls, tfjs in sorted(names.items()):
            allowed = ALLOW[cls]
            for name in sorted(set(tfjs)):
                present = (RENAMES.get(name) or snake(name)) in members[cls]
                if name in allowed and present:
                    stale.append(f"{cls}.{name} (listed in ALLOW)")
                elif name not in allowed and not present:
                    missing.append(f"{cls}.{name}")
            stale += [f"{cls}.{n} (listed, but TF.js has no such name)" for n in sorted(set(allowed) - set(tfjs))]
    finally:
        for o in owned:
            o.dispose()
    assert tf.memory().num_tensors == before
    assert not missing, f"{len(missing)} TF.js class members webtf lacks: " + ", ".join(missing)
    assert not stale, "ALLOW entries that no longer hold: " + ", ".join(stale)


# ---- host checks of the members this coverage added (numpy is the oracle) ------------------------------------


def _np(t: Any) -> Any:
    import numpy as np

    return np.array(t.data_sync().tolist()).reshape(t.shape)


def test_tensor_methods_added_for_tfjs_parity():
    import numpy as np
    import pytest

    import webtf as tf

    before = tf.memory().num_tensors
    a = np.arange(24, dtype=np.float32)
    x = tf.tensor(a)

    def checks():
        assert x.as1d().shape == (24,)
        np.testing.assert_array_equal(_np(x.as2d(4, 6)), a.reshape(4, 6))
        np.testing.assert_array_equal(_np(x.as3d(2, 3, 4)), a.reshape(2, 3, 4))
        np.testing.assert_array_equal(_np(x.as4d(2, 3, 2, 2)), a.reshape(2, 3, 2, 2))
        np.testing.assert_array_equal(_np(x.as5d(1, 2, 3, 2, 2)), a.reshape(1, 2, 3, 2, 2))
        y = x.as2d(4, 6)
        np.testing.assert_array_equal(_np(x.reshape_as(y)), a.reshape(4, 6))
        np.testing.assert_array_equal(_np(y.concat(y, 1)), np.concatenate([a.reshape(4, 6)] * 2, 1))
        np.testing.assert_array_equal(_np(y.concat([y, y])), np.concatenate([a.reshape(4, 6)] * 3, 0))
        np.testing.assert_array_equal(_np(y.stack(y, 1)), np.stack([a.reshape(4, 6)] * 2, 1))
        cond = tf.tensor([True, False] * 12, None, "bool")
        np.testing.assert_array_equal(_np(x.where(cond, tf.zeros([24]))), np.where([True, False] * 12, a, 0))
        img = tf.tensor([[1.0, 2.0], [3.0, 4.0]]).reshape([1, 2, 2, 1])
        nearest = np.array([[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]], np.float32)
        np.testing.assert_array_equal(_np(img.resize_nearest_neighbor([4, 4]))[0, :, :, 0], nearest)
        np.testing.assert_allclose(_np(img.resize_bilinear([2, 2])), _np(img))  # same size: the identity
        pooled = _np(x.as4d(1, 4, 6, 1).pool([2, 2], "max", "valid", None, [2, 2]))
        np.testing.assert_array_equal(pooled[0, :, :, 0], a.reshape(2, 2, 3, 2).max(axis=(1, 3)))
        buf = y.buffer_sync()
        assert buf.shape == (4, 6) and buf.get(2, 3) == 15.0
        assert y.strides == [6] and x.as3d(2, 3, 4).strides == [12, 4] and x.strides == []
        assert tf.scalar(1.0).strides == []

    tf.tidy(checks)
    buf = run_sync(x.buffer())
    assert buf.dtype == "float32" and list(buf.values) == a.tolist()
    v = x.variable(False, "surface_v")
    assert v.trainable is False and v.name == "surface_v" and _np(v).tolist() == a.tolist()
    v.dispose()
    x.throw_if_disposed()
    x.dispose()
    with pytest.raises(ValueError, match="disposed"):
        x.throw_if_disposed()
    assert tf.memory().num_tensors == before


def test_class_names_configs_and_io_names():
    import json

    import pytest

    import webtf as tf

    before = tf.memory().num_tensors
    assert tf.train.sgd(0.1).get_class_name() == "SGD" and tf.train.adam().get_class_name() == "Adam"
    dense = tf.layers.dense(units=3, name="d1")
    assert dense.get_class_name() == "Dense"
    with pytest.raises(AttributeError, match="never been called"):
        _ = dense.output_shape
    config = dense.get_config()
    assert config["name"] == "d1" and config["units"] == 3 and config["trainable"] is True
    inp = tf.input(shape=[2], name="in1")
    model = tf.model(inputs=inp, outputs=[dense.apply(inp), tf.layers.dense(units=1, name="d2").apply(inp)])
    seq = tf.sequential(layers=[tf.layers.dense(units=1, input_shape=[2], name="s1")])
    try:
        assert model.get_class_name() == "Model" and seq.get_class_name() == "Sequential"
        assert model.input_names == ["in1"] and model.output_names == ["d1", "d2"]
        assert seq.output_names == ["s1"]
        assert model.output_shape == [[None, 3], [None, 1]] and seq.output_shape == [None, 1]
        assert dense.output_shape == [None, 3]
        assert type(model).load_training_config is type(model).compile_from_config
        assert model.find_layer(1) is model.layers[1]
        topology = json.loads(seq.to_json())
        assert topology["class_name"] == "Sequential" and topology == seq.to_json(None, False)
        assert [c["config"]["name"] for c in seq.get_config()["layers"]] == ["s1"]
        assert model.get_config()["input_layers"] == [["in1", 0, 0]]
        names = list(seq.named_weights())
        assert names == ["s1/kernel", "s1/bias"]
        kernel, bias = tf.tensor([[2.0], [3.0]]), tf.tensor([0.5])
        seq.load_weights({"s1/kernel": kernel, "s1/bias": bias})
        assert _np(seq.layers[0].get_weights()[0]).tolist() == [[2.0], [3.0]]
        with pytest.raises(ValueError, match="no target variable: nope"):
            seq.load_weights({"nope": bias})
        with pytest.raises(ValueError, match="1 of 2 weights are not set: s1/kernel"):
            seq.load_weights({"s1/bias": bias})
        seven = tf.tensor([7.0])
        seq.load_weights({"nope": kernel, "s1/bias": seven}, strict=False)
        assert _np(seq.layers[0].get_weights()[1]).tolist() == [7.0]
        tf.dispose([kernel, bias, seven])
    finally:
        model.dispose()
        seq.dispose()
    assert tf.memory().num_tensors == before


def test_sequential_pop_removes_the_last_layer():
    import numpy as np
    import pytest

    import webtf as tf

    before = tf.memory().num_tensors
    first = tf.layers.dense(units=3, input_shape=[2], name="p1")
    second = tf.layers.dense(units=1, name="p2")
    seq = tf.sequential(layers=[first, second])
    x = tf.tensor([[1.0, 2.0]])
    try:
        seq.pop()
        assert [layer.name for layer in seq.layers] == ["p1"] and seq.output_shape == [None, 3]
        kernel, bias = (_np(w) for w in first.get_weights())
        y = seq.predict(x)
        np.testing.assert_allclose(_np(y), [[1.0, 2.0]] @ kernel + bias, rtol=1e-6)
        y.dispose()
        seq.pop()
        assert seq.layers == [] and seq.outputs == []
        with pytest.raises(TypeError, match="no layers"):
            seq.pop()
        seq.add(tf.layers.dense(units=4, name="p3"))  # continues from the kept input
        assert seq.output_shape == [None, 4] and [layer.name for layer in seq.layers] == ["p3"]
    finally:
        x.dispose()
        seq.dispose()
        first.dispose_weights()
        second.dispose_weights()
    assert tf.memory().num_tensors == before


def test_layer_losses_add_loss_and_states():
    import numpy as np
    import pytest

    import webtf as tf

    before = tf.memory().num_tensors
    dense = tf.layers.dense(units=2, input_shape=[3], kernel_regularizer=tf.regularizers.l2(l2=0.5), name="r1")
    seq = tf.sequential(layers=[dense])
    rnn = tf.sequential(layers=[tf.layers.simple_rnn(units=2, stateful=True, batch_input_shape=[1, 3, 2])])
    try:
        assert rnn.stateful and rnn.layers[0].stateful
        rnn.reset_states()  # a stateful RNN's own reset
        assert len(dense.losses) == 1 and len(seq.losses) == 1 and dense.updates == [] and seq.updates == []
        kernel = _np(dense.get_weights()[0])
        (penalty,) = dense.calculate_losses()
        np.testing.assert_allclose(penalty.data_sync()[0], 0.5 * (kernel**2).sum(), rtol=1e-5)
        penalty.dispose()
        dense.add_loss(lambda: tf.scalar(3.0))
        values = seq.calculate_losses()
        assert len(values) == 2 and values[1].data_sync()[0] == 3.0
        tf.dispose(values)
        assert not dense.stateful and not seq.stateful
        seq.reset_states()  # no stateful layer: nothing to reset
        with pytest.raises(ValueError, match="non-stateful"):
            dense.reset_states()
    finally:
        seq.dispose()
        tf.dispose(rnn.layers[0].states)  # a stateful RNN's states outlive model.dispose() (as the RNN tests)
        rnn.dispose()
    assert tf.memory().num_tensors == before
