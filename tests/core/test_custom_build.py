"""build.py custom on the host: bad configs fail clearly and write nothing; a small cpu build imports and runs
only what it lists (the page test, tests/browser/test_custom_build.py, runs BlazeFace on a wasm build)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import build

GOOD = {"kernels": ["Add", "Reshape"], "backends": ["cpu"], "outputPath": "out", "forwardModeOnly": True}


def run_custom(tmp_path: Path, config: dict | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "custom_webtf.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config))
    code = build.main(["custom", "--config", str(path)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kernels": ["Add", "NoSuchKernel"]}, "\"kernels\" has unknown kernel name(s) ['NoSuchKernel']"),
        ({"backends": ["cpu", "webgpu"]}, "\"backends\" must list some of ['cpu', 'wasm', 'webgl']"),
        ({"models": ["missing/model.json"]}, "\"models\" file(s) not found"),
        ({"kernel": ["Add"]}, "unknown key(s) ['kernel']"),
        ({"forwardModeOnly": "yes"}, "\"forwardModeOnly\" must be true or false"),
        ({"browserStores": 1}, "\"browserStores\" must be true or false"),
        (None, "is not valid JSON: Expecting"),
    ],
)
def test_bad_config_fails_clearly_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict | None, message: str
) -> None:
    config = '{"kernels": ["Add",], "backends": ["cpu"]' if change is None else {**GOOD, **change}
    code, err = run_custom(tmp_path, config, capsys)
    assert code == 1
    assert message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["custom_webtf.json"]


# In a fresh CPython with only the custom package on its path: what runs and what is refused.
CHECK_PY = """
import asyncio, json, sys
import webtf as tf
before = tf.memory().num_tensors
y = tf.tidy(lambda: tf.reshape(tf.add(tf.tensor([1.0, 2.0]), 1), [2, 1]))
out = {"y": y.array_sync()}
y.dispose()
x = tf.tensor([1.0])
try:
    tf.sin(x)
except (AttributeError, NotImplementedError) as error:  # the op's module left out, or only its kernel
    out["error"] = str(error)
try:  # what the converter's op tables hold for an op whose module was left out: a stand-in that raises
    tf.ops.conv3d(x, x, 1, "valid")
except AttributeError as error:
    out["stand_in"] = str(error)
x.dispose()
try:  # a lazily imported family left out
    tf.layers
except AttributeError as error:
    out["layers"] = str(error)
star = {}
exec("from webtf import *", star)  # __all__ names only what the build has
out["star"] = "sequential" in star, "tidy" in star
out["leaked"] = tf.memory().num_tensors - before
out["wasm"] = asyncio.run(tf.set_backend("wasm"))
out["registered"] = sorted(tf.ENGINE.factories)
out["modules"] = sorted(m for m in sys.modules if m.startswith("webtf."))
print(json.dumps(out))
"""


def test_small_cpu_build_runs_what_it_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_custom(tmp_path, GOOD, capsys)
    assert code == 0, err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["kernels"] == ["Add", "Reshape"] and report["model_kernels"] == {}
    assert report["wheel_bytes"] < report["full_wheel_bytes"] / 3
    with zipfile.ZipFile(tmp_path / "out" / report["wheel"]) as wheel:
        wheel.extractall(tmp_path / "site")
    result = subprocess.run(
        [sys.executable, "-c", CHECK_PY], capture_output=True, text=True, cwd=tmp_path / "site", check=True
    )
    out = json.loads(result.stdout)
    assert out["y"] == [[2.0], [3.0]]
    assert "kernel 'Sin') is not in this custom webtf build" in out["error"] or (
        "kernel 'Sin' is not in this custom webtf build" in out["error"]
    )
    assert 'add "Sin" to "kernels" in custom_webtf.json' in out["error"]
    assert "op 'conv3d' (kernel 'Conv3D') is not in this custom webtf build" in out["stand_in"]
    assert out["layers"].startswith("tf.layers is not in this custom webtf build")
    assert out["star"] == [False, True]
    assert out["leaked"] == 0
    assert out["wasm"] is False and "backend 'wasm' is not in this custom webtf build" in result.stderr
    assert out["registered"] == ["cpu"]
    for absent in ("webtf.backends.webgl", "webtf.backends.wasm", "webtf.models.layers", "webtf.data",
                   "webtf.gradients.api", "webtf.backends.cpu.kernels.conv"):  # fmt: skip
        assert absent not in out["modules"]


def test_gradients_kept_unless_forward_mode_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernels = ["Add", "Multiply", "Reshape", "Sum", "Fill", "OnesLike", "ZerosLike", "Identity", "Cast"]
    config = {"kernels": kernels, "backends": ["cpu"], "output_path": "out", "forward_mode_only": False}
    code, err = run_custom(tmp_path, config, capsys)  # snake_case keys too
    assert code == 0, err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {"webtf.gradients.api", "webtf.gradients.binary"} <= set(report["modules"])
    with zipfile.ZipFile(tmp_path / "out" / report["wheel"]) as wheel:
        wheel.extractall(tmp_path / "site")
    grad_py = "import webtf as tf\nprint(tf.grad(lambda x: tf.mul(x, x))(tf.tensor([3.0, 4.0])).array_sync())"
    result = subprocess.run(
        [sys.executable, "-c", grad_py], capture_output=True, text=True, cwd=tmp_path / "site", check=True
    )
    assert json.loads(result.stdout) == [6.0, 8.0]  # d(x*x)/dx = 2x


def test_unused_imports_from_outside_webtf_go() -> None:
    from tools.custom_prune import drop_unused_imports

    trees = {
        "webtf.a": ast.parse(
            "from __future__ import annotations\nimport math, os\nfrom typing import Any, cast\nfrom .b import f\n"
            "__all__ = ['os']\ndef g(x):\n    return cast(int, x) + math.pi + f()\n"
        ),
        "webtf.b": ast.parse("from typing import Any\nfrom collections import OrderedDict\ndef f():\n    return 1\n"),
        "webtf.c": ast.parse("from .b import OrderedDict\n"),
    }
    drop_unused_imports(trees, lambda module, node: "webtf.b")
    # a: typing's Any goes; os stays (a string spells it), math and cast are read, webtf's imports are not touched
    assert ast.unparse(trees["webtf.a"]).splitlines()[:4] == [
        "from __future__ import annotations", "import math, os", "from typing import cast", "from .b import f"
    ]  # fmt: skip
    # b: OrderedDict stays (c imports it from b), Any goes
    assert ast.unparse(trees["webtf.b"]).splitlines()[0] == "from collections import OrderedDict"
