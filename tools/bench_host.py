"""`python3 build.py bench --host`: webtf's host backends (numpy, cpu) per case in this CPython.

The cases are bench.html's (web/bench.js CASES: the models from dist/models, the same deterministic input),
run in-process: each case is loaded once per backend, warmed up once, then timed runs alternate between the
backends (numpy, cpu, numpy, ...) so that the load of a shared machine falls on both alike. A run executes
the model, reads every output and disposes them. `--compare PATH` adds the TF.js cpu medians of a browser
bench's JSON (`build.py bench --backends cpu --json PATH`).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import statistics
import time
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools.bench import fmt_ms, write_json

ROOT = Path(__file__).resolve().parent.parent
#: case -> (kind, model path under dist/, input shape, input dtype): web/bench.js's CASES
CASES: dict[str, tuple[str, str, tuple[int, ...], str]] = {
    "blazeface": ("graph", "models/blazeface.json", (1, 256, 256, 3), "float32"),
    "facemesh": ("graph", "models/facemesh.json", (1, 192, 192, 3), "float32"),
    "movenet-lightning": ("graph", "models/movenet-lightning.json", (1, 192, 192, 3), "int32"),
    "posenet": ("graph", "models/posenet.json", (1, 385, 385, 3), "float32"),
    "selfie": ("graph", "models/selfie.json", (1, 256, 256, 3), "float32"),
    "mobilenet-v2": ("layers", "models/mobilenet_v2/model.json", (1, 224, 224, 3), "float32"),
    "adds-1000": ("adds", "", (4,), "float32"),
    "matmul-512": ("matmul", "", (512, 512), "float32"),
}
BACKENDS = ("numpy", "cpu")


def make_input(shape: Sequence[int], dtype: str) -> array:
    """web/bench.js's makeInput: an LCG's values in [0, 1) (int32: floor of [0, 255))."""
    n = 1
    for d in shape:
        n *= d
    out = array("i" if dtype == "int32" else "f", bytes(4 * n))
    s = 12345
    for i in range(n):
        s = (s * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = int(s / 0x7FFFFFFF * 255) if dtype == "int32" else s / 0x7FFFFFFF
    return out


class Case:
    """One case loaded on one backend: run() executes it once, reads every output and frees them."""

    def __init__(self, tf: Any, backend: str, name: str, dist: Path) -> None:
        self.tf, self.backend, self.name, self.dist = tf, backend, name, dist
        self.model: Any = None
        self.x: Any = None

    async def load(self) -> None:
        tf = self.tf
        kind, path, shape, dtype = CASES[self.name]
        await tf.set_backend(self.backend)
        self.x = tf.tensor(make_input(shape, dtype), list(shape), dtype)
        if kind == "graph":
            self.model = await tf.load_graph_model(str(self.dist / path))
        elif kind == "layers":
            self.model = await tf.load_layers_model(str(self.dist / path))

    async def run(self) -> None:
        tf, x = self.tf, self.x
        await tf.set_backend(self.backend)
        kind = CASES[self.name][0]
        if kind == "graph":
            outs = await self.model.execute_async(x)
        elif kind == "layers":
            outs = self.model.predict(x)
        elif kind == "adds":
            outs = tf.tidy(lambda: _adds(tf, x, 1000))
        else:
            outs = tf.mat_mul(x, x)
        outs = list(outs.values()) if isinstance(outs, dict) else outs if isinstance(outs, list) else [outs]
        for t in outs:
            await t.data()
        tf.dispose(outs)

    def release(self) -> None:
        """Free the model and the input."""
        self.tf.dispose(self.x)
        if self.model is not None:
            self.model.dispose()


def _adds(tf: Any, x: Any, count: int) -> Any:
    y = x
    for _ in range(count):
        y = tf.add(y, x)
    return y


async def _timed(case: Case) -> float:
    start = time.perf_counter()
    await case.run()
    return (time.perf_counter() - start) * 1000.0


async def run_case(
    tf: Any, name: str, backends: Sequence[str], runs: int, budget_s: float, dist: Path
) -> list:
    """Rows (one per backend) of one case: load, warm-up, then alternating timed runs within the budget."""
    cases = {b: Case(tf, b, name, dist) for b in backends}
    before = tf.memory().num_tensors
    rows: dict[str, dict[str, Any]] = {}
    for b, case in cases.items():
        start = time.perf_counter()
        await case.load()
        load_ms = (time.perf_counter() - start) * 1000.0
        rows[b] = {"model": name, "backend": b, "impl": "webtf-host", "load_ms": round(load_ms, 3)}
        rows[b]["first_ms"] = round(await _timed(case), 3)
    times: dict[str, list[float]] = {b: [] for b in backends}
    spent = dict.fromkeys(backends, 0.0)
    for _ in range(runs):
        for b, case in cases.items():
            if times[b] and spent[b] >= budget_s * 1000.0:
                continue
            ms = await _timed(case)
            times[b].append(ms)
            spent[b] += ms
    for case in cases.values():
        case.release()
    leaked = tf.memory().num_tensors - before
    for b in backends:
        rows[b].update(
            median_ms=round(statistics.median(times[b]), 3),
            min_ms=round(min(times[b]), 3),
            runs=len(times[b]),
            error=f"{leaked} tensors leaked" if leaked else None,
        )
    return [rows[b] for b in backends]


def _tfjs_cpu(path: Path | None) -> dict[str, float]:
    """TF.js cpu medians per case from a browser bench JSON (empty without one)."""
    if path is None:
        return {}
    rows = json.loads(path.read_text())["rows"]
    return {r["model"]: r["median_ms"] for r in rows if r["impl"] == "tfjs" and r["backend"] == "cpu"}


def format_table(rows: Sequence[dict[str, Any]], tfjs: dict[str, float]) -> str:
    """Markdown: per case the numpy and cpu medians, cpu/numpy, and TF.js cpu (browser) when known."""
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_case.setdefault(row["model"], {})[row["backend"]] = row
    header = ("case", "numpy ms", "cpu ms", "cpu/numpy", "TF.js cpu ms", "TF.js/numpy", "numpy first", "runs")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for name, pair in by_case.items():
        n, c = pair.get("numpy", {}), pair.get("cpu", {})
        nm, cm, tm = n.get("median_ms"), c.get("median_ms"), tfjs.get(name)
        cells = (
            name,
            fmt_ms(nm),
            fmt_ms(cm),
            f"{cm / nm:.1f}x" if nm and cm else "-",
            fmt_ms(tm),
            f"{tm / nm:.1f}x" if nm and tm else "-",
            fmt_ms(n.get("first_ms")),
            f"{n.get('runs', 0)}/{c.get('runs', 0)}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    errors = [f"- {r['model']}/{r['backend']}: {r['error']}" for r in rows if r.get("error")]
    return "\n".join(lines + ([""] + errors if errors else []))


def run(args: argparse.Namespace, dist: Path) -> dict[str, Any]:
    """Run every case on the host backends, print the table; return the report (written with --json)."""
    import webtf as tf

    models, backends = args.models or list(CASES), args.backends or list(BACKENDS)
    unknown = sorted(set(models) - set(CASES)) + sorted(set(backends) - set(BACKENDS))
    if unknown:
        raise ValueError(f"unknown models/backends {unknown}; models: {list(CASES)}, backends: {BACKENDS}")
    start = time.monotonic()
    rows: list[dict[str, Any]] = []
    for name in models:
        print(f"[bench --host {time.monotonic() - start:6.1f}s] {name} on {', '.join(backends)}", flush=True)
        rows += asyncio.run(run_case(tf, name, backends, args.runs, args.budget, dist))
    report = {
        "date": datetime.date.today().isoformat(),
        "settings": {
            "runs": args.runs,
            "budget_s": args.budget,
            "wall_s": round(time.monotonic() - start, 1),
        },
        "environment": {
            "python": platform.python_version(),
            "numpy": _numpy_version(),
            "cores": os.cpu_count(),
            "host": platform.platform(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "rows": rows,
    }
    print()
    print(format_table(rows, _tfjs_cpu(args.compare)))
    env = report["environment"]
    print(
        f"\nPython {env['python']}, numpy {env['numpy']}, {env['cores']} cores; {report['settings']['wall_s']} s"
    )
    if args.json:
        write_json(args.json, report)
    return report


def _numpy_version() -> str | None:
    from webtf.interop import numpy_or_none

    np = numpy_or_none()
    return None if np is None else np.__version__
