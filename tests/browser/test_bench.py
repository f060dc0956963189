"""`python3 build.py bench` on its tiniest case (1,000 adds on cpu, one run) and one boot load per boot path:
the JSON has the documented shape.

Speed is never asserted here (the numbers only have to be positive); a row without error also means both
libraries released every tensor of the case (the page checks tf.memory() after each case).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import build

ROW_KEYS = {
    "model", "backend", "impl", "first_ms", "median_ms", "min_ms", "runs", "warmups", "load_ms", "replays", "compiled",
    "error", "threads",
}  # fmt: skip


def test_bench_command_writes_rows_and_environment(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    command = [
        sys.executable,
        "build.py",
        "bench",
        "--models",
        "adds-1000",
        "--backends",
        "cpu",
        "--runs",
        "1",
        "--warmup",
        "0.2",
        "--boot-loads",
        "1",
    ]
    done = subprocess.run(
        [*command, "--json", str(out)], cwd=build.ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "| adds-1000 | cpu |" in done.stdout
    report = json.loads(out.read_text())
    rows = report["rows"]
    assert [(r["model"], r["backend"], r["impl"]) for r in rows] == [
        ("adds-1000", "cpu", "webtf"),
        ("adds-1000", "cpu", "tfjs"),
    ]
    for row in rows:
        assert set(row) == ROW_KEYS
        assert row["error"] is None, row
        assert row["runs"] == 1
        assert row["warmups"] > 1  # a cpu run of 1,000 adds takes milliseconds: the 0.2 s warm-up repeats it
        assert all(row[key] > 0 for key in ("first_ms", "median_ms", "min_ms", "load_ms"))
        assert row["min_ms"] == row["median_ms"]  # one run: both are that run
    env = report["environment"]
    assert env["cores"] >= 1 and env["chromium"].split(".")[0].isdigit()
    assert env["webtf"]["version"] and env["tfjs"]["version"] == "4.22.0"
    assert {"wasm_simd", "wasm_threads"} <= set(env["webtf"]) & set(env["tfjs"])
    for impl in ("webtf", "tfjs"):
        assert report["boot"][impl]["ready_ms"] > 0
        assert report["boot"][impl]["first_inference_ms"] > 0
        assert report["boot"][impl]["first_case"] == "adds-1000/cpu"
    assert "| snapshot | first |" in done.stdout and "| plain | repeat |" in done.stdout
    for path in ("snapshot", "plain"):
        first, repeat = report["boot_loads"][path]["first"], report["boot_loads"][path]["repeat"]
        assert first["paths"] == repeat["paths"] == [path]
        assert 0 < first["ready_ms"] < first["backend_ms"]
        assert first["first_blazeface_ms"] > 0
        assert first["bytes"] > 1_000_000
        assert 0 < repeat["bytes"] < first["bytes"] / 10  # a warm HTTP cache: 304s without bodies
        assert len(first["loads"]) == len(repeat["loads"]) == 1


def test_bench_host_command_times_numpy_and_cpu(tmp_path: Path) -> None:
    """`build.py bench --host`: the host backends in CPython, no browser; --compare adds TF.js's cpu column."""
    browser_json = tmp_path / "browser.json"
    browser_json.write_text(
        json.dumps({"rows": [{"model": "adds-1000", "backend": "cpu", "impl": "tfjs", "median_ms": 10.0}]})
    )
    out = tmp_path / "host.json"
    command = [sys.executable, "build.py", "bench", "--host", "--models", "adds-1000", "--runs", "1"]
    command += ["--compare", str(browser_json), "--json", str(out)]
    done = subprocess.run(command, cwd=build.ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "| adds-1000 |" in done.stdout and "| 10.0 |" in done.stdout
    rows = json.loads(out.read_text())["rows"]
    assert [(r["model"], r["backend"]) for r in rows] == [("adds-1000", "numpy"), ("adds-1000", "cpu")]
    for row in rows:
        assert row["error"] is None and row["runs"] == 1 and row["median_ms"] > 0
