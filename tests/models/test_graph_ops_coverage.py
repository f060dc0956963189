"""Every converter op of TF.js 4.22 (the `tfOpName`s of its bundle's op mapping) runs in some graph model that a
test executes in webtf and in TF.js in the same page: the small models of graph_op_cases.py,
graph_op_cases_more.py and test_graph_math_parity.py, or a real model of test_parity.py /
test_graph_parity_more.py. ALLOW names the ops no such test can run, with why (each has a host test)."""

from __future__ import annotations

import json
import re

import build
from tests.models import test_graph_math_parity, test_graph_parity_more, test_parity
from tests.models.graph_op_cases import cases
from tests.models.graph_op_cases_more import more_cases

_TFJS_DIFFERS = "TF.js 4.22's converter departs from TF here (docs/api/extra.md); webtf's host tests check TF's meaning"

#: converter op -> why no TF.js parity test runs it
ALLOW = {
    "BitwiseAnd": "TF.js 4.22's converter passes it no inputs (test_graph_math_ops.py checks it against numpy)",
    "EnsureShape": "TF.js 4.22's converter reads its shape attr as an input (test_graph_math_ops.py)",
    "TensorListSplit": _TFJS_DIFFERS,
    "TensorListPopBack": _TFJS_DIFFERS,
}


def _ops(model: dict) -> set[str]:
    topology = model["modelTopology"]
    nodes = list(topology.get("node", []))
    nodes += [n for f in topology.get("library", {}).get("function", []) for n in f.get("nodeDef", [])]
    nodes += model.get("modelInitializer", {}).get("node", [])
    return {n["op"] for n in nodes}


def test_every_converter_op_runs_in_a_tfjs_parity_test(server):  # server: dist/ is built
    bundle = (build.DIST / "vendor" / "tfjs" / "tf.min.js").read_text()
    converter = set(re.findall(r'tfOpName:"([^"]+)"', bundle))
    assert len(converter) > 200
    ran: set[str] = set()
    for case in [*cases().values(), *more_cases().values()]:
        ran |= _ops(case["model"])
    ran |= _ops(test_graph_math_parity._graph()[0].model()[0])
    real = set(test_parity.MODELS) | {name for name, _ in test_graph_parity_more.CASES.values()}
    for name in real:
        ran |= _ops(json.loads((build.DIST / "models" / f"{name}.json").read_text()))
    missing = sorted(converter - ran - set(ALLOW))
    stale = sorted(op for op in ALLOW if op in ran or op not in converter)
    assert not missing, f"converter ops no TF.js parity test runs: {', '.join(missing)}"
    assert not stale, f"ALLOW entries that no longer hold: {', '.join(stale)}"
