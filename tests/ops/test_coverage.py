"""Coverage: every op, utility, kernel (per backend) and converter op name of TF.js 4.22 exists in webtf.

TF.js's names come from the vendored bundles (dist/vendor/tfjs/): tf.min.js and tf-backend-wasm.min.js are
loaded into a bare page (no Pyodide) for the exported functions and each backend's registered kernels, and the
converter's op names are read from tf.min.js's op mapping (its `tfOpName` entries). webtf's come from the host
import: `tf.<snake_case name>`, the kernel registry per backend and the graph op table.

ALLOW lists names that cannot apply to webtf (why beside each); PENDING the ones being added by a branch now
(the lead empties it at merge). Both must stay honest: a listed name that webtf has fails the test too.
"""

from __future__ import annotations

import re
from typing import Any

import build

#: TF.js namespaces whose functions (and classes) count as names webtf must have, as tf.<namespace>.<name>
NAMESPACES = ("image", "linalg", "math", "signal", "spectral", "sparse", "string", "util", "browser", "io")

TFJS_NAMES_JS = """async ([base, namespaces]) => {
  const load = (src) => new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = base + src; s.onload = ok; s.onerror = () => fail(new Error("no " + src));
    document.head.appendChild(s);
  });
  await load("vendor/tfjs/tf.min.js");
  await load("vendor/tfjs/tf-backend-wasm.min.js");
  const fns = (o) => Object.keys(o).filter((k) => typeof o[k] === "function");
  const out = { op: fns(tf) };
  for (const ns of namespaces) out[ns] = fns(tf[ns]);
  out.env = Object.getOwnPropertyNames(Object.getPrototypeOf(tf.env())).filter((k) => k !== "constructor");
  for (const b of ["cpu", "webgl", "wasm"]) out["kernel:" + b] = tf.getKernelsForBackend(b).map((k) => k.kernelName);
  return out;
}"""

#: snake_case names the plain rule gets wrong
RENAMES = {"isNaN": "is_nan", "topk": "top_k", "assert": "assert_"}

_NODE_ONLY = "Node.js / TF.js-internal plumbing with no Python counterpart"
_TS_ONLY = "a JS typing or JS-object helper that Python has built in"
_BACKEND_CLASS = "a TF.js backend class; webtf's backends are its own (tf.backend(), tf.find_backend)"

#: group -> {name: why it cannot apply}
ALLOW: dict[str, dict[str, str]] = {
    "op": {
        "GPGPUContext": _BACKEND_CLASS,
        "KernelBackend": _BACKEND_CLASS,
        "MathBackendCPU": _BACKEND_CLASS,
        "MathBackendWebGL": _BACKEND_CLASS,
        "DataStorage": _BACKEND_CLASS,
        "OptimizerConstructors": "TF.js's factory table behind tf.train.*, which webtf exposes directly",
        "setPlatform": _NODE_ONLY,
        "setWebGLContext": "webtf's webgl backend makes its own WebGL2 context",
        "forceHalfFloat": "webtf's webgl backend renders to float32 textures only",
        "deprecationWarn": _NODE_ONLY,
        "disableDeprecationWarnings": _NODE_ONLY,
        "sumOutType": _TS_ONLY,
        "upcastType": _TS_ONLY,
        "enclosingPowerOfTwo": _NODE_ONLY,
        "findBackendFactory": "webtf keeps factories in tf.ENGINE.factories",
        "copyRegisteredKernels": _NODE_ONLY,
        "op": "TF.js's op() wraps a function in a scope: webtf's ops use the webtf.ops.op.op decorator",
    },
    "util": {
        "isBoolean": _TS_ONLY,
        "isFunction": _TS_ONLY,
        "isNumber": _TS_ONLY,
        "isString": _TS_ONLY,
        "isPromise": _TS_ONLY,
        "isTypedArray": _TS_ONLY,
        "isInt": _TS_ONLY,
        "now": _TS_ONLY,
        "fetch": _TS_ONLY,
        "tanh": _TS_ONLY,
        "sum": _TS_ONLY,
        "clamp": _TS_ONLY,
        "swap": _TS_ONLY,
        "getArrayFromDType": _TS_ONLY,
        "getTypedArrayFromDType": _TS_ONLY,
        "toTypedArray": _TS_ONLY,
        "makeOnesTypedArray": _TS_ONLY,
        "makeZerosTypedArray": _TS_ONLY,
        "makeZerosNestedTypedArray": _TS_ONLY,
        "convertBackendValuesAndArrayBuffer": _TS_ONLY,
        "createScalarValue": _TS_ONLY,
        "bytesFromStringArray": _TS_ONLY,
        "decodeString": _TS_ONLY,
        "encodeString": _TS_ONLY,
        "hexToLong": _TS_ONLY,
        "fingerPrint64": _TS_ONLY,
        "checkConversionForErrors": _TS_ONLY,
        "repeatedTry": _TS_ONLY,
        "rightPad": _TS_ONLY,
    },
    "env": {
        "setPlatform": _NODE_ONLY,
        "populateURLFlags": "webtf's flags come from tf.env().set, not the page URL",
    },
    "kernel:webgl": {"FromPixels": "webtf reads pixels in Python (tf.browser), not as a kernel"},
    "kernel:cpu": {"Draw": "tf.browser.draw on cpu writes a canvas from JS; webtf has no canvas kernel"},
    "kernel:wasm": {},
    "converter": {},
}

def _names(text: str) -> set[str]:
    return set(text.split())


#: group -> names being added by a branch right now, by owner
PENDING: dict[str, dict[str, set[str]]] = {}


def snake(name: str) -> str:
    """TF.js's camelCase name as webtf spells it (classes keep theirs)."""
    if name in RENAMES:
        return RENAMES[name]
    if name[:1].isupper():
        return name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def webtf_has() -> dict[str, Any]:
    """group -> predicate(TF.js name) -> whether webtf has it."""
    import webtf as tf
    from webtf.models.graph.op_table import table

    def attr_of(obj: Any) -> Any:
        return lambda name: obj is not None and hasattr(obj, snake(name))

    has: dict[str, Any] = {"op": attr_of(tf), "env": attr_of(tf.env())}
    for ns in NAMESPACES:
        has[ns] = attr_of(getattr(tf, ns, None))
    for backend in ("cpu", "webgl", "wasm"):
        has[f"kernel:{backend}"] = tf.get_kernels_for_backend(backend).__contains__
    converter = set(table()) | {"Const", "Placeholder"}  # the executor's own
    has["converter"] = converter.__contains__
    return has


def tfjs_names(browser: Any, server: str) -> dict[str, list[str]]:
    """group -> TF.js 4.22's names, read from the vendored bundles."""
    page = browser.new_page()
    try:
        page.goto(server + "vendor/tfjs/")  # same origin as the bundles (a listing or a 404: no app boots)
        names = page.evaluate(TFJS_NAMES_JS, [server, list(NAMESPACES)])
    finally:
        page.close()
    bundle = (build.DIST / "vendor" / "tfjs" / "tf.min.js").read_text()
    names["converter"] = sorted(set(re.findall(r'tfOpName:"([^"]+)"', bundle)))
    return names


def test_webtf_has_every_tfjs_name(browser, server):
    names = tfjs_names(browser, server)
    assert len(names["op"]) > 250 and len(names["converter"]) > 200 and len(names["kernel:wasm"]) > 100
    has = webtf_has()
    missing, stale = [], []
    for group, tfjs in sorted(names.items()):
        allowed = ALLOW.get(group, {})
        pending = set().union(*PENDING.get(group, {}).values())
        for name in sorted(set(tfjs)):
            present = has[group](name)
            if name in allowed or name in pending:
                if present:
                    stale.append(f"{group} {name} (listed in {'ALLOW' if name in allowed else 'PENDING'})")
            elif not present:
                missing.append(f"{group} {name}")
        unknown = (set(allowed) | pending) - set(tfjs)
        stale += [f"{group} {name} (listed, but TF.js has no such name)" for name in sorted(unknown)]
    assert not missing, f"{len(missing)} TF.js names webtf lacks: " + ", ".join(missing)
    assert not stale, "ALLOW / PENDING entries that no longer hold: " + ", ".join(stale)


# ---- webgl: GLSL for every kernel TF.js's webgl runs on the GPU (issue 15, gl) ----------------------------
_TFJS_CPU = "TF.js's webgl also runs it on the CPU (reads its inputs, calls the cpu impl); so does webtf's fallback"
_SHARES = "a reshape of the texture (shares the buffer, no program) in TF.js and webtf alike"

#: TF.js webgl kernel names that need no GLSL in webtf's table, with why
WEBGL_NOT_GLSL: dict[str, str] = {
    **dict.fromkeys(
        (
            "Bincount", "BroadcastArgs", "DenseBincount", "LinSpace", "Range", "Unique",
            "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
            "RaggedGather", "RaggedRange", "RaggedTensorToTensor",
            "SparseFillEmptyRows", "SparseReshape", "SparseSegmentMean", "SparseSegmentSum",
            "StaticRegexReplace", "StringNGrams", "StringSplit", "StringToHashBucketFast",
        ),
        _TFJS_CPU,
    ),  # fmt: skip
    **dict.fromkeys(("Reshape", "Identity", "ExpandDims"), _SHARES),
    "FromPixels": ALLOW["kernel:webgl"]["FromPixels"],
}


def test_webgl_has_glsl_for_every_tfjs_gpu_kernel(browser, server):
    """Every kernel TF.js 4.22 registers for webgl is in webtf's GLSL table (webtf.backends.webgl.kernels), not
    left to the cpu fallback, unless WEBGL_NOT_GLSL says why; a listed name with GLSL now fails too."""
    from webtf.backends.webgl.kernels import KERNELS as GLSL

    tfjs = set(tfjs_names(browser, server)["kernel:webgl"])
    assert len(tfjs) > 150
    missing = sorted(tfjs - set(GLSL) - set(WEBGL_NOT_GLSL))
    assert not missing, f"{len(missing)} TF.js webgl kernels run on webtf's cpu fallback: " + ", ".join(missing)
    stale = sorted(n for n in WEBGL_NOT_GLSL if n in GLSL or n not in tfjs)
    assert not stale, "WEBGL_NOT_GLSL entries that no longer hold: " + ", ".join(stale)


# ---- wasm: every TF.js wasm kernel that calls a binary export runs that export in webtf ------------------
#: TF.js wasm kernels that call an export of another name
WASM_EXPORT_OF = {
    "GatherV2": "Gather",
    "Select": "SelectV2",
    "SparseSegmentSum": "SparseSegmentReduction",
    "SparseSegmentMean": "SparseSegmentReduction",
}
_SHARES = "TF.js relabels the input's buffer in JS; webtf's cpu kernel shares the buffer the same way"
_JS_FILL = "TF.js fills the output from JS (typedArray.fill); webtf's cpu kernel writes the values once"
_JS_CPU = "TF.js's wasm kernel runs its cpu implementation in JS; webtf runs the same cpu kernel"
#: TF.js wasm kernels with no export behind them that webtf runs on the cpu kernel (why beside each)
WASM_JS_KERNELS: dict[str, str] = {
    "Reshape": _SHARES,
    "ExpandDims": _SHARES,
    "Identity": _SHARES,
    "Fill": _JS_FILL,
    "OnesLike": _JS_FILL,
    "ZerosLike": _JS_FILL,
    "Range": _JS_CPU,
    "BroadcastArgs": _JS_CPU,
    "Unique": _JS_CPU,
    "StringNGrams": _JS_CPU + " (string tensors live on the host)",
    "StringSplit": _JS_CPU + " (string tensors live on the host)",
    "StringToHashBucketFast": _JS_CPU + " (string tensors live on the host)",
}
#: kernels whose export webtf leaves unbound because it breaks the kernel's contract (why beside each)
WASM_BROKEN_EXPORTS: dict[str, str] = {
    "MaxPoolWithArgmax": "the export gives each window's last maximum (TF.js's cpu kernel and webtf: the first) "
    "and starts the maximum at FLT_MIN, so a window of values below it comes out wrong",
}


def test_wasm_kernels_with_an_export_are_native(browser, server):
    from webtf.backends.wasm.abi import export_signatures
    from webtf.backends.wasm.kernels import NATIVE

    kernels = set(tfjs_names(browser, server)["kernel:wasm"])
    exports = set(export_signatures((build.DIST / "wasm" / "tfjs-backend-wasm-simd.wasm").read_bytes()))
    assert {"Add", "Conv2D", "Acosh", "malloc"} <= exports

    def export_of(name: str) -> str | None:
        name = WASM_EXPORT_OF.get(name, name)
        return name if name in exports else None

    unbound = sorted(k for k in kernels if export_of(k) and k not in NATIVE and k not in WASM_BROKEN_EXPORTS)
    assert not unbound, f"TF.js wasm kernels that call a binary export but run webtf's cpu kernel: {unbound}"
    unexplained = sorted(
        k for k in kernels if not export_of(k) and k not in NATIVE and k not in WASM_JS_KERNELS
    )
    assert not unexplained, f"wasm kernels neither native nor listed in WASM_JS_KERNELS: {unexplained}"
    stale = [f"{k} (native now)" for k in {**WASM_JS_KERNELS, **WASM_BROKEN_EXPORTS} if k in NATIVE]
    stale += [f"{k} (has an export)" for k in WASM_JS_KERNELS if export_of(k)]
    stale += [f"{k} (no such export)" for k in WASM_BROKEN_EXPORTS if not export_of(k)]
    stale += [
        f"{k} (not a TF.js wasm kernel)"
        for k in {**WASM_JS_KERNELS, **WASM_BROKEN_EXPORTS}
        if k not in kernels
    ]
    assert not stale, "WASM_JS_KERNELS / WASM_BROKEN_EXPORTS entries that no longer hold: " + ", ".join(stale)
