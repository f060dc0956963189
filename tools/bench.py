"""`python3 build.py bench`: webtf vs TF.js 4.22.0 in one headless Chromium, driving bench.html.

build.py builds dist/, serves it and calls run(); everything timed happens in the page (web/bench.js).
This module prints progress and the table, and writes the JSON. It needs playwright (build.py installs it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MODELS = (
    "blazeface", "facemesh", "movenet-lightning", "posenet", "selfie", "mobilenet-v2", "adds-1000", "matmul-512",
    "train-mlp", "train-conv", "fit-mlp", "fit-conv",
)  # fmt: skip
BACKENDS = ("wasm", "webgl", "cpu")
RUNS = 3
BUDGET_S = 10.0
BOOT_TIMEOUT_MS = 180_000


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
    header = ("case", "backend", "webtf ms", "TF.js ms", "webtf/TF.js", "webtf first", "TF.js first", "runs")
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
        cells += (cell(w, "first_ms"), cell(t, "first_ms"), runs)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + ([""] + errors if errors else []))


def _boot_figures(boot: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """boot per library: ready_ms (its load) and first_inference_ms (ready -> first case's first output)."""
    figures = {}
    for impl, info in boot.items():
        first = next((r for r in rows if r["impl"] == impl and not r["error"]), None)
        figures[impl] = {
            "ready_ms": info["ready_ms"],
            "first_inference_ms": round(first["load_ms"] + first["first_ms"], 3) if first else None,
            "first_case": f"{first['model']}/{first['backend']}" if first else None,
        }
    return figures


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
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium), headless=True, args=list(chromium_args)
        )
        try:
            page = browser.new_page()
            page.on("console", on_console)
            page.on("pageerror", lambda error: say(f"page error: {error}"))
            page.goto(base_url + "bench.html")
            page.wait_for_function(
                "['ready', 'error'].includes(document.documentElement.dataset.bench)", timeout=BOOT_TIMEOUT_MS
            )
            if page.evaluate("document.documentElement.dataset.bench") == "error":
                raise RuntimeError("bench.html failed to boot:\n" + page.locator("#error").inner_text())
            environment = page.evaluate("webtfBench.environment()")
            environment["chromium"] = browser.version
            boot = page.evaluate("webtfBench.boot")
            total = len(args.backends) * len(args.models)
            for backend in args.backends:
                for model in args.models:
                    say(f"case {len(rows) // 2 + 1}/{total}: {model} on {backend}")
                    rows += page.evaluate(
                        "([m, b, runs, budgetMs]) => webtfBench.runCase(m, b, { runs, budgetMs })",
                        [model, backend, args.runs, args.budget * 1000],
                    )
        finally:
            browser.close()
    environment.update(host_cores=os.cpu_count(), host=platform.platform())
    report = {
        "date": datetime.date.today().isoformat(),
        "settings": {
            "runs": args.runs,
            "budget_s": args.budget,
            "wall_s": round(time.monotonic() - start, 1),
        },
        "environment": environment,
        "boot": _boot_figures(boot, rows),
        "rows": rows,
    }
    print()
    print(format_table(rows))
    print()
    for impl, figures in report["boot"].items():
        print(
            f"boot {impl}: ready {fmt_ms(figures['ready_ms'])} ms, "
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
