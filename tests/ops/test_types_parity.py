"""complex64, spectral, signal, string, sparse and ragged ops in the page on cpu / wasm / webgl vs TF.js 4.22
(its cpu backend) run on the same arguments in the same page: one page call per side and backend.

A case is (TF.js path, webtf path, args); an arg {"t": values, "shape", "dtype"} becomes a tensor on both
sides, {"complex": [re, im]} a complex64 tensor, a list of such a list of tensors. Results (tensors, lists, and
dicts with TF.js's camelCase keys snake_cased) must have TF.js's shapes and dtypes; float values match to 1e-4
of the scale, the rest exactly; errors must be errors on both sides. Both sides must free every tensor.
"""

from __future__ import annotations

import math
import re

import pytest

from tests.helpers import LOAD_TFJS_JS


def _t(values, dtype="float32", shape=None):  # noqa: ANN001, ANN202
    return {"t": values, "dtype": dtype, "shape": shape}


def _c(re_values, im_values, shape=None):  # noqa: ANN001, ANN202
    return {"complex": [_t(re_values, shape=shape), _t(im_values, shape=shape)]}


_WAVE = [math.sin(0.7 * i) + 0.25 * math.cos(1.9 * i) for i in range(12)]
_WORDS = ["Hello", "TensorFlow", "2.x", "", "a" * 20, "b" * 50, "héllo wörld " * 9, "x" * 64, "y" * 65]
_SPLITS = _t([0, 2, 3, 3, 5], "int32")

CASES = [
    ("complex", "complex", [_t([1, -2, 3.5], shape=[3]), _t([0.5, 4, -1], shape=[3])]),
    ("real", "real", [_c([1, 2, 3, 4], [5, 6, 7, 8], [2, 2])]),
    ("imag", "imag", [_c([1, 2, 3, 4], [5, 6, 7, 8], [2, 2])]),
    ("abs", "abs", [_c([3, -1, 0], [4, 2, -2])]),
    ("add", "add", [_c([1, 2], [3, 4]), _c([0.5, -2], [1, 1])]),
    ("sub", "sub", [_c([1, 2], [3, 4]), _t([0.5, -2])]),
    ("mul", "mul", [_c([1, 2], [3, 4]), _c([0.5, -2], [1, 1])]),
    ("cast", "cast", [_c([1.5, -2], [3, 4]), "float32"]),
    ("reshape", "reshape", [_c([1, 2, 3, 4], [5, 6, 7, 8]), [2, 2]]),
    ("concat", "concat", [[_c([1, 2], [3, 4]), _c([5], [6])]]),
    ("spectral.fft", "spectral.fft", [_c(_WAVE[:8], _WAVE[4:12], [1, 8])]),
    ("spectral.fft", "spectral.fft", [_c(_WAVE[:6], _WAVE[6:12], [2, 3])]),
    ("spectral.ifft", "spectral.ifft", [_c(_WAVE[:8], _WAVE[4:12], [2, 4])]),
    ("spectral.rfft", "spectral.rfft", [_t(_WAVE, shape=[2, 6])]),
    ("spectral.rfft", "spectral.rfft", [_t(_WAVE, shape=[3, 4]), 6]),
    ("spectral.irfft", "spectral.irfft", [_c(_WAVE[:10], _WAVE[2:12], [2, 5])]),
    ("spectral.irfft", "spectral.irfft", [_c(_WAVE[:4], _WAVE[4:8], [4])]),
    ("signal.hannWindow", "signal.hann_window", [7]),
    ("signal.hammingWindow", "signal.hamming_window", [8]),
    ("signal.frame", "signal.frame", [_t(_WAVE), 5, 3, True, 7]),
    ("signal.stft", "signal.stft", [_t(_WAVE), 6, 3]),
    ("tensor", "tensor", [["a", "bc", "é"]]),
    ("slice", "slice", [_t(["a", "bc", "", "d"], "string", [2, 2]), [0, 1], [2, 1]]),
    ("concat", "concat", [[_t(["a", "bc"], "string"), _t(["", "d"], "string")]]),
    ("stack", "stack", [[_t(["a", "b"], "string"), _t(["c", "d"], "string")], 1]),
    ("tile", "tile", [_t(["a", "b"], "string"), [3]]),
    ("string.stringToHashBucketFast", "string.string_to_hash_bucket_fast", [_t(_WORDS, "string"), 1000003]),
    ("string.stringToHashBucketFast", "string.string_to_hash_bucket_fast", [_t(_WORDS, "string"), 3]),
    ("string.staticRegexReplace", "string.static_regex_replace", [_t(_WORDS, "string"), "(l+)|x", "<$1>"]),
    ("string.staticRegexReplace", "string.static_regex_replace", [_t(_WORDS, "string"), "o", "0", False]),
    (
        "string.stringSplit",
        "string.string_split",
        [_t(["a b  c", "de", "", " f "], "string"), _t(" ", "string")],
    ),
    ("string.stringSplit", "string.string_split", [_t(["a,b;;c"], "string"), _t(",;", "string"), False]),
    (
        "string.stringNGrams",
        "string.string_n_grams",
        [_t(list("abcde"), "string"), _t([0, 2, 5], "int32"), "|", [1, 3], "L", "R", -1, False],
    ),
    (
        "string.stringNGrams",
        "string.string_n_grams",
        [_t(list("abc"), "string"), _t([0, 1, 3], "int32"), " ", [4], "<", ">", 0, True],
    ),
    (
        "sparse.sparseFillEmptyRows",
        "sparse.sparse_fill_empty_rows",
        [_t([[2, 1], [0, 1], [2, 0]], "int32"), _t([1.5, -2, 3]), _t([4, 2], "int32"), 7],
    ),
    (
        "sparse.sparseReshape",
        "sparse.sparse_reshape",
        [_t([[0, 0, 0], [0, 0, 1], [1, 2, 3]], "int32"), _t([2, 3, 6], "int32"), _t([9, -1], "int32")],
    ),
    (
        "sparse.sparseSegmentSum",
        "sparse.sparse_segment_sum",
        [_t([[1, 2], [3, 4], [5, 6]]), _t([0, 2, 1], "int32"), _t([0, 0, 2], "int32")],
    ),
    (
        "sparse.sparseSegmentMean",
        "sparse.sparse_segment_mean",
        [_t([[1, 2], [3, 4], [5, 6]]), _t([0, 2, 1], "int32"), _t([0, 1, 1], "int32")],
    ),
    (
        "raggedRange",
        "ragged_range",
        [_t([0, 5, 8, 5], "int32"), _t([8, 7, 8, 1], "int32"), _t([2, 1, 1, -1], "int32")],
    ),
    ("raggedRange", "ragged_range", [_t(0.5), _t([3, 1]), _t(1.5)]),
    ("raggedGather", "ragged_gather", [[_SPLITS], _t([1, 2, 3, 4, 5]), _t([3, 0, 3, 2], "int32"), 1]),
    ("raggedGather", "ragged_gather", [[_SPLITS], _t([1, 2, 3, 4, 5]), _t([[3, 0], [1, 2]], "int32"), 2]),
    (
        "raggedTensorToTensor",
        "ragged_tensor_to_tensor",
        [_t([4, 4], "int32"), _t([1, 2, 3, 4, 5]), _t(0), [_SPLITS], ["ROW_SPLITS"]],
    ),
    (
        "raggedTensorToTensor",
        "ragged_tensor_to_tensor",
        [_t([-1, 1], "int32"), _t([1, 2, 3, 4, 5]), _t(0), [_SPLITS], ["ROW_SPLITS"]],
    ),
    (
        "raggedTensorToTensor",
        "ragged_tensor_to_tensor",
        [
            _t([-1, -1], "int32"),
            _t([1, 2, 3, 4, 5]),
            _t(9),
            [_t(4, "int32"), _t([0, 0, 1, 3, 3], "int32")],
            ["FIRST_DIM_SIZE", "VALUE_ROWIDS"],
        ],
    ),
    (
        "sparseToDense",
        "sparse_to_dense",
        [_t([[0, 1], [2, 0]], "int32"), _t(["a", "bc"], "string"), [3, 2], _t("z", "string")],
    ),
    ("sparseToDense", "sparse_to_dense", [_t([4, 1], "int32"), _t(2.5), [6], _t(-1)]),
    # errors on both sides
    ("complex", "complex", [_t([1, 2]), _t([1, 2, 3])]),
    ("spectral.fft", "spectral.fft", [_t([1, 2])]),
    (
        "sparse.sparseSegmentSum",
        "sparse.sparse_segment_sum",
        [_t([[1, 2]]), _t([0, 1], "int32"), _t([1, 0], "int32")],
    ),
    ("raggedRange", "ragged_range", [_t([0, 1], "int32"), _t(3, "int32"), _t(0, "int32")]),
    (
        "raggedTensorToTensor",
        "ragged_tensor_to_tensor",
        [_t(-1, "int32"), _t([1, 2]), _t(0), [_t([0, 2], "int32")], ["ROW_SPLITS"]],
    ),
]

TFJS_JS = (
    "async (cases) => {"
    + LOAD_TFJS_JS
    + """
  await tf.setBackend("cpu");
  const mk = (a) => {
    if (a && a.complex) return tf.complex(mk(a.complex[0]), mk(a.complex[1]));
    if (a && a.t !== undefined) return tf.tensor(a.t, a.shape || undefined, a.dtype);
    if (Array.isArray(a) && a.length && a[0] && (a[0].t !== undefined || a[0].complex)) return a.map(mk);
    return a;
  };
  const dl = async (r) => {
    if (r instanceof tf.Tensor) return {shape: r.shape, dtype: r.dtype, values: Array.from(await r.data())};
    if (Array.isArray(r)) return {list: await Promise.all(r.map(dl))};
    const out = {};
    for (const [k, v] of Object.entries(r)) out[k] = await dl(v);
    return {dict: out};
  };
  const before = tf.memory().numTensors;
  const results = [];
  for (const [path, args] of cases) {
    const fn = path.split(".").reduce((o, k) => o[k], tf);
    let r = null;
    try {
      r = tf.tidy(() => fn(...args.map(mk)));
      results.push(await dl(r));
    } catch (e) {
      results.push({error: String(e.message)});
    }
    if (r) tf.dispose(r);
  }
  const m0 = tf.memory();
  const s = tf.tensor(["ab", "é"]), c = tf.complex([1, 2], [3, 4]);
  const m1 = tf.memory();
  const memory = [m1.numTensors - m0.numTensors, m1.numDataBuffers - m0.numDataBuffers, m1.numBytes - m0.numBytes,
                  Boolean(m1.unreliable)];
  tf.dispose([s, c]);
  return {results, memory, leaked: tf.memory().numTensors - before};
}"""
)

WEBTF_PY = """
import json
ok = await tf.set_backend(BACKEND)
assert ok, BACKEND
def mk(a):
    if isinstance(a, dict) and "complex" in a:
        return tf.complex(mk(a["complex"][0]), mk(a["complex"][1]))
    if isinstance(a, dict) and "t" in a:
        return tf.tensor(a["t"], a["shape"], a["dtype"])
    if isinstance(a, list) and a and isinstance(a[0], dict):
        return [mk(x) for x in a]
    return a
def dl(r):
    if isinstance(r, tf.Tensor):
        return {"shape": list(r.shape), "dtype": r.dtype, "values": list(r.data_sync())}
    if isinstance(r, (list, tuple)):
        return {"list": [dl(x) for x in r]}
    return {"dict": {k: dl(v) for k, v in r.items()}}
def find(path):
    fn = tf
    for k in path.split("."):
        fn = getattr(fn, k)
    return fn
before = tf.memory().num_tensors
results = []
for path, args in json.loads(CASES):
    try:
        r = tf.tidy(lambda: find(path)(*[mk(a) for a in args]))
    except Exception as e:
        results.append({"error": str(e)})
        continue
    results.append(dl(r))
    tf.dispose(r)
m0 = tf.memory()
s, c = tf.tensor(["ab", "é"]), tf.complex([1.0, 2.0], [3.0, 4.0])
m1 = tf.memory()
memory = [m1.num_tensors - m0.num_tensors, m1.num_data_buffers - m0.num_data_buffers, m1.num_bytes - m0.num_bytes,
          m1.unreliable]
tf.dispose([s, c])
{"results": results, "memory": memory, "leaked": tf.memory().num_tensors - before}
"""


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


def _compare(got: dict, want: dict, where: str) -> list[str]:
    if "error" in want or "error" in got:
        return [] if "error" in want and "error" in got else [f"{where}: webtf {got} vs TF.js {want}"]
    if "list" in want:
        if len(got.get("list", [])) != len(want["list"]):
            return [f"{where}: {len(got.get('list', []))} results, TF.js {len(want['list'])}"]
        return [
            p
            for i, (g, w) in enumerate(zip(got["list"], want["list"], strict=True))
            for p in _compare(g, w, f"{where}[{i}]")
        ]
    if "dict" in want:
        wd = {_snake(k): v for k, v in want["dict"].items()}
        if set(got.get("dict", {})) != set(wd):
            return [f"{where}: keys {sorted(got.get('dict', {}))} vs TF.js {sorted(wd)}"]
        return [p for k, w in wd.items() for p in _compare(got["dict"][k], w, f"{where}.{k}")]
    if (got["shape"], got["dtype"]) != (want["shape"], want["dtype"]):
        return [f"{where}: {got['shape']} {got['dtype']} vs TF.js {want['shape']} {want['dtype']}"]
    g, w = got["values"], want["values"]
    if want["dtype"] in ("float32", "complex64"):
        scale = max([1.0, *(abs(v) for v in w)])
        if len(g) != len(w) or any(abs(a - b) > 1e-4 * scale for a, b in zip(g, w, strict=True)):
            return [f"{where}: {g} vs TF.js {w}"]
        return []
    if want["dtype"] == "bool":
        g, w = [bool(v) for v in g], [bool(v) for v in w]
    return [] if g == w else [f"{where}: {g} vs TF.js {w}"]


@pytest.fixture(scope="module")
def tfjs(webtf_booted):  # noqa: ANN001, ANN201
    return webtf_booted.page.evaluate(TFJS_JS, [[js, args] for js, _, args in CASES])


@pytest.mark.parametrize("backend", ["cpu", "wasm", "webgl"])
def test_types_match_tfjs(webtf_page, py, tfjs, backend):  # noqa: ANN001
    import json

    cases = json.dumps([[p, args] for _, p, args in CASES])
    res = py(f"BACKEND = {backend!r}\nCASES = {cases!r}\n" + WEBTF_PY)
    assert tfjs["leaked"] == 0 and res["leaked"] == 0
    problems = [
        p
        for (js, _, _), got, want in zip(CASES, res["results"], tfjs["results"], strict=True)
        for p in _compare(got, want, js)
    ]
    assert problems == [], "\n".join(problems)
    assert (
        res["memory"] == tfjs["memory"]
    )  # tensors, buffers, bytes and `unreliable` of a string + complex tensor
