"""`python3 build.py bench`: webtf vs TF.js 4.22.0 in one headless Chromium, driving bench.html.

build.py builds dist/, serves it and calls run(); everything timed happens in the page (web/bench.js).
Before the cases come the boot rows: loads of index.html from the snapshot and plain (?snapshot=0), each in a
new browser profile (cold caches), then a repeat visit in the same profile (warm caches).
This module prints progress and the tables, and writes the JSON. It needs playwright (build.py installs it).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

MODELS = (
    "blazeface", "facemesh", "movenet-lightning", "posenet", "selfie", "mobilenet-v2", "adds-1000", "matmul-512",
    "train-mlp", "train-conv", "fit-mlp", "fit-conv",
)  # fmt: skip
BACKENDS = ("wasm", "webgl", "cpu")
RUNS = 3
BUDGET_S = 10.0
WARMUP_S = 1.0
BOOT_TIMEOUT_MS = 180_000
BOOT_LOADS = 5
VISIT_MS = 2000  # how long a boot row's page stays open after its BlazeFace run
BOOT_PATHS = {"snapshot": "", "plain": "?snapshot=0"}  # the query of index.html for each boot path
# Read in a booted index.html. Bytes on the wire: the transferSize (headers and encoded body; 0 for what a
# cache served) of the page and of every request it made so far, from the Resource Timing API.
BOOT_FIGURES_JS = """() => {
  const entries = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")];
  return {
    ready_ms: window.webtfBootMs,
    backend_ms: window.webtfBackendMs ?? null,
    path: window.webtfBootPath ?? null,
    bytes: entries.reduce((total, entry) => total + entry.transferSize, 0),
    requests: entries.filter((entry) => entry.transferSize > 0).length,
  };
}"""
# Run in a booted index.html: ready -> first BlazeFace result on wasm (backend start, model load, one run).
FIRST_BLAZEFACE_JS = """async () => {
  const start = performance.now();
  const code = `
import webtf as tf
await tf.set_backend("wasm")
model = await tf.load_graph_model(url)
x = tf.zeros([1, 256, 256, 3])
outs = await model.execute_async(x)
for t in outs if isinstance(outs, list) else [outs]:
    await t.data()
tf.dispose([x, outs])
model.dispose()
`;
  const globals = pyodide.toPy({ url: new URL("models/blazeface.json", document.baseURI).href });
  try {
    await pyodide.runPythonAsync(code, { globals });
  } finally {
    globals.destroy();
  }
  return performance.now() - start;
}"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The bench command's options."""
    parser.add_argument(
        "--models",
        nargs="+",
        metavar="NAME",
        help=f"{' '.join(MODELS)} (default all; with --host: the inference cases)",
    )
    parser.add_argument(
        "--backends",
        nargs="+",
        metavar="NAME",
        help=f"{' '.join(BACKENDS)} (default all); with --host: numpy cpu",
    )
    parser.add_argument("--runs", type=int, default=RUNS, help=f"timed runs per library and case ({RUNS})")
    parser.add_argument(
        "--budget",
        type=float,
        default=BUDGET_S,
        metavar="S",
        help=f"stop a library's timed runs of a case after S seconds, keeping at least one ({BUDGET_S:g})",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=WARMUP_S,
        metavar="S",
        help=f"untimed runs per library and case (after the first) until its warm-up took S seconds ({WARMUP_S:g})",
    )
    parser.add_argument(
        "--boot-loads",
        type=int,
        default=BOOT_LOADS,
        metavar="N",
        help=f"fresh page loads per boot path for the boot rows, 0 for none ({BOOT_LOADS})",
    )
    parser.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="wasm thread count for both libraries, set before their wasm backends start (default: their own "
        "default, half the logical cores)",
    )
    parser.add_argument("--boot-only", action="store_true", help="only the boot rows, no cases")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the rows and environment as JSON")
    parser.add_argument(
        "--host", action="store_true", help="time webtf's host backends (numpy, cpu) in this CPython instead"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="PATH",
        help="with --host: TF.js cpu medians from a browser bench JSON",
    )


def fmt_ms(ms: float | None) -> str:
    """Milliseconds as the tables print them: whole from 100 up, else one decimal."""
    if ms is None:
        return "-"
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The results as a Markdown table: one line per case x backend, medians, ratio webtf/TF.js, warm-ups."""
    pairs: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in rows:
        pairs.setdefault((row["model"], row["backend"]), {})[row["impl"]] = row
    header = (
        "case", "backend", "webtf ms", "TF.js ms", "webtf/TF.js", "webtf first", "TF.js first", "runs", "replay",
        "threads",
    )  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    errors = []
    for (model, backend), pair in pairs.items():
        w, t = pair.get("webtf", {}), pair.get("tfjs", {})
        for impl, row in (("webtf", w), ("TF.js", t)):
            if row.get("error"):
                errors.append(f"- {model}/{backend} {impl}: {row['error']}")
        cell = lambda row, key: "error" if row.get("error") else fmt_ms(row.get(key))  # noqa: E731
        ratio = f"{w['median_ms'] / t['median_ms']:.2f}" if w.get("median_ms") and t.get("median_ms") else "-"
        runs = f"{w.get('runs', 0)}/{t.get('runs', 0)}"
        cells = (model, backend, cell(w, "median_ms"), cell(t, "median_ms"), ratio)
        # replay: webtf's timed and warm-up runs that replayed a captured model run (models/capture.py), and
        # how many of those ran as one compiled JS program
        replay = f"{w['replays']}/{w.get('runs', 0) + w.get('warmups', 1)}" if w.get("replays") is not None else "-"
        if w.get("compiled"):
            replay += f" ({w['compiled']} compiled)"
        # threads: the wasm thread count of each library's pool (webtf/TF.js)
        threads = "/".join("-" if r.get("threads") is None else str(r["threads"]) for r in (w, t))
        cells += (cell(w, "first_ms"), cell(t, "first_ms"), runs, replay, threads)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + ([""] + errors if errors else []))


def _boot_figures(boot: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """boot per library: ready_ms (its load) and first_inference_ms (ready -> first case's first output)."""
    figures = {}
    for impl, info in boot.items():
        first = next((r for r in rows if r["impl"] == impl and not r["error"]), None)
        figures[impl] = {
            "ready_ms": info["ready_ms"],
            "path": info.get("path"),  # webtf's boot path: snapshot or plain
            "first_inference_ms": round(first["load_ms"] + first["first_ms"], 3) if first else None,
            "first_case": f"{first['model']}/{first['backend']}" if first else None,
        }
    return figures


def _median(values: Sequence[float | None]) -> float | None:
    present = sorted(v for v in values if v is not None)
    if not present:
        return None
    mid = len(present) // 2
    return present[mid] if len(present) % 2 else (present[mid - 1] + present[mid]) / 2


def _load(context: Any, url: str) -> dict[str, Any]:
    """Open url in a new page of context, wait for the page to finish booting, run BlazeFace once; return the
    figures. The page then stays open a while, as for a visitor, so that what the browser writes in the
    background (its caches, the snapshot copy) is written."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(
        "['ready', 'error'].includes(document.documentElement.dataset.webtf)", timeout=BOOT_TIMEOUT_MS
    )
    if page.evaluate("document.documentElement.dataset.webtf") == "error":
        raise RuntimeError(f"{url} failed to boot:\n" + page.locator("#error").inner_text())
    figures = page.evaluate(BOOT_FIGURES_JS)
    figures["first_blazeface_ms"] = page.evaluate(FIRST_BLAZEFACE_JS)
    page.wait_for_timeout(VISIT_MS)
    page.close()
    return figures


def boot_rows(
    fresh_profile: Callable[[], AbstractContextManager[Any]], base_url: str, loads: int, say: Any = print
) -> dict[str, Any]:
    """Boot figures per boot path and visit: `loads` times per path (the paths in turn), a browser profile of
    its own (cold caches) for a first visit, then a repeat visit in it. Medians plus every load's figures."""
    runs = {path: {"first": [], "repeat": []} for path in BOOT_PATHS}
    for i in range(loads):
        for path, query in BOOT_PATHS.items():
            with fresh_profile() as context:
                first, repeat = _load(context, base_url + query), _load(context, base_url + query)
            runs[path]["first"].append(first)
            runs[path]["repeat"].append(repeat)
            say(
                f"boot {path} {i + 1}/{loads}: ready {fmt_ms(first['ready_ms'])} ms ({first['path']}), "
                f"repeat {fmt_ms(repeat['ready_ms'])} ms, {first['bytes'] / 1e6:.2f} / {repeat['bytes'] / 1e6:.3f} MB"
            )
    keys = ("ready_ms", "backend_ms", "first_blazeface_ms", "bytes", "requests")
    return {
        path: {
            visit: {
                **{key: _median([r[key] for r in rows]) for key in keys},
                "paths": sorted({str(r["path"]) for r in rows}),
                "loads": rows,
            }
            for visit, rows in visits.items()
        }
        for path, visits in runs.items()
    }


def format_boot_table(report: dict[str, Any]) -> str:
    """The boot rows as a Markdown table (medians)."""
    header = (
        "boot",
        "visit",
        "ready ms",
        "backend started ms",
        "ready -> BlazeFace on wasm ms",
        "kB on the wire",
        "requests",
        "loads",
    )
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for path, visits in report.items():
        for visit, row in visits.items():
            kb = "-" if row["bytes"] is None else f"{row['bytes'] / 1e3:,.0f}"
            cells = (
                path if row["paths"] == [path] else f"{path} (booted: {', '.join(row['paths'])})",
                visit,
                fmt_ms(row["ready_ms"]),
                fmt_ms(row["backend_ms"]),
                fmt_ms(row["first_blazeface_ms"]),
                kb,
                "-" if row["requests"] is None else f"{row['requests']:.0f}",
                str(len(row["loads"])),
            )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(
    args: argparse.Namespace, base_url: str, chromium: Path, chromium_args: Sequence[str]
) -> dict[str, Any]:
    """Boot bench.html in headless Chromium, run every model x backend, print the table; return the report."""
    from playwright.sync_api import sync_playwright

    args.models, args.backends = args.models or list(MODELS), args.backends or list(BACKENDS)
    unknown = sorted(set(args.models) - set(MODELS)) + sorted(set(args.backends) - set(BACKENDS))
    if unknown:
        raise ValueError(f"unknown models/backends {unknown}; models: {MODELS}, backends: {BACKENDS}")
    start = time.monotonic()

    def say(text: str) -> None:
        print(f"[bench {time.monotonic() - start:6.1f}s] {text}", flush=True)

    def on_console(message: Any) -> None:
        if message.text.startswith("[bench] "):
            say(message.text.removeprefix("[bench] "))
        elif message.type == "error":
            say(f"console error: {message.text}")

    rows: list[dict[str, Any]] = []
    boot: dict[str, Any] = {}
    environment: dict[str, Any] = {}
    loads: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium), headless=True, args=list(chromium_args)
        )
        try:
            environment["chromium"] = browser.version
            if args.boot_loads > 0:

                @contextlib.contextmanager
                def fresh_profile() -> Iterator[Any]:
                    with tempfile.TemporaryDirectory(prefix="webtf-bench-") as folder:
                        context = playwright.chromium.launch_persistent_context(
                            folder, executable_path=str(chromium), headless=True, args=list(chromium_args)
                        )
                        try:
                            yield context
                        finally:
                            context.close()

                loads = boot_rows(fresh_profile, base_url, args.boot_loads, say)
            if not args.boot_only:
                environment.update(_run_cases(browser, base_url, args, rows, say, on_console))
                boot = environment.pop("boot")
        finally:
            browser.close()
    environment.update(host_cores=os.cpu_count(), host=platform.platform())
    report = {
        "date": datetime.date.today().isoformat(),
        "settings": {
            "runs": args.runs,
            "budget_s": args.budget,
            "warmup_s": args.warmup,
            "boot_loads": args.boot_loads,
            "threads": args.threads,
            "wall_s": round(time.monotonic() - start, 1),
        },
        "environment": environment,
        "boot": _boot_figures(boot, rows),
        "boot_loads": loads,
        "rows": rows,
    }
    if loads:
        print()
        print(format_boot_table(loads))
    if not args.boot_only:
        print()
        print(format_table(rows))
        print()
        for impl, figures in report["boot"].items():
            path = f" ({figures['path']})" if figures["path"] else ""
            print(
                f"boot {impl}: ready {fmt_ms(figures['ready_ms'])} ms{path}, "
                f"ready -> first inference {fmt_ms(figures['first_inference_ms'])} ms ({figures['first_case']})"
            )
        env = environment
        print(
            f"Chromium {env['chromium']}, WebGL {env['webgl_renderer']}, {env['cores']} cores; "
            f"wasm SIMD/threads webtf {env['webtf']['wasm_simd']}/{env['webtf']['wasm_threads']}, "
            f"TF.js {env['tfjs']['wasm_simd']}/{env['tfjs']['wasm_threads']}; {report['settings']['wall_s']} s"
        )
    if args.json:
        write_json(args.json, report)
    return report


def write_json(path: Path, report: dict[str, Any]) -> None:
    """Write a bench report as indented JSON (parent folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {path}")


def _run_cases(
    browser: Any,
    base_url: str,
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    say: Any,
    on_console: Any,
) -> dict[str, Any]:
    """Boot bench.html and run every model x backend into rows; return its environment (with its boot block)."""
    page = browser.new_page()
    page.on("console", on_console)
    page.on("pageerror", lambda error: say(f"page error: {error}"))
    page.goto(base_url + "bench.html" + (f"?threads={args.threads}" if args.threads is not None else ""))
    page.wait_for_function(
        "['ready', 'error'].includes(document.documentElement.dataset.bench)", timeout=BOOT_TIMEOUT_MS
    )
    if page.evaluate("document.documentElement.dataset.bench") == "error":
        raise RuntimeError("bench.html failed to boot:\n" + page.locator("#error").inner_text())
    total = len(args.backends) * len(args.models)
    for backend in args.backends:
        for model in args.models:
            say(f"case {len(rows) // 2 + 1}/{total}: {model} on {backend}")
            rows += page.evaluate(
                "([m, b, runs, budgetMs, warmupMs]) => webtfBench.runCase(m, b, { runs, budgetMs, warmupMs })",
                [model, backend, args.runs, args.budget * 1000, args.warmup * 1000],
            )
    environment = page.evaluate("webtfBench.environment()")  # after the cases: the wasm thread counts are known
    environment["boot"] = page.evaluate("webtfBench.boot")
    page.close()
    return environment
