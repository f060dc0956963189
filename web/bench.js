// Benchmark core: boots webtf (Pyodide + web/bench.py) and TF.js 4.22.0 side by side in this page and times
// the same workload on the same input with both, interleaved run by run. Used by bench.html (a person, with
// a bar chart; web/bench-page.js) and by `python3 build.py bench` (headless, through window.webtfBench).
//
// A case's result per library is a row {model, backend, impl, first_ms, median_ms, min_ms, runs, warmups,
// load_ms, error}: load_ms is backend switch + model load + input upload, first_ms the first run, warmups the
// untimed runs before the timed ones (the first included), median/min over the timed runs. Every run includes reading every output. A failure gives a row with `error` set.

import { startPython } from "./python.js";

export const CASES = {
  blazeface: { kind: "graph", url: "models/blazeface.json", shape: [1, 256, 256, 3] },
  facemesh: { kind: "graph", url: "models/facemesh.json", shape: [1, 192, 192, 3] },
  "movenet-lightning": {
    kind: "graph", url: "models/movenet-lightning.json", shape: [1, 192, 192, 3], dtype: "int32",
  },
  posenet: { kind: "graph", url: "models/posenet.json", shape: [1, 385, 385, 3] },
  selfie: { kind: "graph", url: "models/selfie.json", shape: [1, 256, 256, 3] },
  "mobilenet-v2": { kind: "layers", url: "models/mobilenet_v2/model.json", shape: [1, 224, 224, 3] },
  "adds-1000": { kind: "adds", count: 1000, shape: [4] }, // per-op overhead, read once at the end
  "matmul-512": { kind: "matmul", shape: [512, 512] },
  // one training step (forward, backward, adam update) of a small net, plain ops; same initial weights
  "train-mlp": { kind: "train", net: "mlp", shape: [64, 784], classes: 10 },
  "train-conv": { kind: "train", net: "conv", shape: [32, 28, 28, 1], classes: 10 },
  // one epoch of model.fit (adam, categorical crossentropy, shuffle off) of the same nets as layers models
  // (FIT_LAYERS) on a synthetic MNIST-shaped set: a run is one whole epoch
  "fit-mlp": { kind: "fit", net: "mlp", shape: [1024, 784], classes: 10, batch: 64 },
  "fit-conv": { kind: "fit", net: "conv", shape: [256, 28, 28, 1], classes: 10, batch: 32 },
};

/** The layers of a fit case's net (Keras config entries), holding TRAIN_WEIGHTS in order. */
const FIT_LAYERS = {
  mlp: [
    ["Dense", { name: "d1", units: 128, activation: "relu", batch_input_shape: [null, 784] }],
    ["Dense", { name: "d2", units: 10, activation: "softmax" }],
  ],
  conv: [
    ["Conv2D", { name: "c1", filters: 8, kernel_size: [3, 3], padding: "same", activation: "relu",
                 batch_input_shape: [null, 28, 28, 1] }],
    ["MaxPooling2D", { name: "p1", pool_size: [2, 2] }],
    ["Conv2D", { name: "c2", filters: 16, kernel_size: [3, 3], padding: "same", activation: "relu" }],
    ["MaxPooling2D", { name: "p2", pool_size: [2, 2] }],
    ["Flatten", { name: "f" }],
    ["Dense", { name: "d", units: 10, activation: "softmax" }],
  ],
};

/** A fit case's model artifacts: the Sequential topology (JSON) and its initial weights (the case's params). */
function fitArtifacts(spec, params) {
  const layers = FIT_LAYERS[spec.net].map(([class_name, config]) => ({ class_name, config }));
  const owners = FIT_LAYERS[spec.net].filter(([cls]) => cls === "Dense" || cls === "Conv2D").map(([, c]) => c.name);
  const weights = params.filter(([name]) => name !== "labels");
  const specs = weights.map(([, , shape], i) => ({
    name: `${owners[i >> 1]}/${i % 2 ? "bias" : "kernel"}`, shape, dtype: "float32" }));
  const size = weights.reduce((n, [, values]) => n + values.length, 0);
  const data = new Float32Array(size);
  let at = 0;
  for (const [, values] of weights) { data.set(values, at); at += values.length; }
  const topology = { class_name: "Sequential", config: { name: `fit_${spec.net}`, layers } };
  return { topology: JSON.stringify(topology), specs: JSON.stringify(specs), weights: new Uint8Array(data.buffer) };
}

/** The weights of a training case's net: [name, shape] in order (mlp: 784-128-10; conv: 8 and 16 3x3
 * filters, each followed by a 2x2 max pool, then dense 10). */
export const TRAIN_WEIGHTS = {
  mlp: [["w1", [784, 128]], ["b1", [128]], ["w2", [128, 10]], ["b2", [10]]],
  conv: [["f1", [3, 3, 1, 8]], ["c1", [8]], ["f2", [3, 3, 8, 16]], ["c2", [16]], ["w", [784, 10]], ["b", [10]]],
};
export const BACKENDS = ["webgl", "wasm", "cpu"];
export const IMPLS = ["webtf", "tfjs"];

const here = (path) => new URL(path, document.baseURI).href;
const now = () => performance.now();
const message = (error) => String(error?.message ?? error).trim().split("\n").at(-1); // Python: the exception line

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = here(src);
    script.onload = resolve;
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(script);
  });
}

/** A deterministic generator of values in [0, 1). */
function uniform(seed = 12345) {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** The case's input: deterministic values in [0, 1) (int32: [0, 255)), the same bytes for both libraries.
 * A training case adds `params`: one-hot labels and the net's initial weights (Glorot-uniform, zero biases). */
export function makeInput(spec) {
  const dtype = spec.dtype ?? "float32";
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const data = dtype === "int32" ? new Int32Array(n) : new Float32Array(n);
  const next = uniform();
  for (let i = 0; i < n; i++) data[i] = dtype === "int32" ? Math.floor(next() * 255) : next();
  const input = { data, shape: spec.shape, dtype };
  if (spec.kind === "train" || spec.kind === "fit") {
    const batch = spec.shape[0];
    const labels = new Float32Array(batch * spec.classes);
    for (let i = 0; i < batch; i++) labels[i * spec.classes + (i % spec.classes)] = 1;
    input.params = [["labels", labels, [batch, spec.classes]]];
    for (const [name, shape] of TRAIN_WEIGHTS[spec.net]) {
      const size = shape.reduce((a, b) => a * b, 1);
      const values = new Float32Array(size);
      if (shape.length > 1) {
        const fanIn = size / shape.at(-1), limit = Math.sqrt(6 / (fanIn + shape.at(-1)));
        for (let i = 0; i < size; i++) values[i] = (2 * next() - 1) * limit;
      }
      input.params.push([name, values, shape]);
    }
    if (spec.kind === "fit") input.fit = { ...fitArtifacts(spec, input.params), batch: spec.batch };
  }
  return input;
}

/** webtf: Python with webtf (web/python.js; ?snapshot=0 forces the plain boot) and web/bench.py. */
async function bootWebtf(threads) {
  const source = fetch(here("web/bench.py")).then((response) => response.text());
  const { pyodide, path } = await startPython();
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(await source, { globals: namespace, filename: "bench.py" });
  const fn = (name) => namespace.get(name);
  const [prepare, run, release, environment, replays, compiled] = [
    "prepare", "run", "release", "environment", "replays", "compiled"].map(fn);
  const threadsOf = fn("threads");
  if (threads != null) fn("set_threads")(threads);
  window.pyodide = pyodide;
  return {
    path,
    async prepare(spec, backend, input) {
      const url = spec.url ? here(spec.url) : "";
      const params = input.params ?? [];
      await prepare(
        spec.kind, url, backend, input.data, input.shape, input.dtype, spec.count ?? 0, spec.net ?? "", params,
        input.fit ?? null);
    },
    run: () => run(),
    release: () => release(),
    replays: () => replays(),
    compiled: () => compiled(),
    threads: (backend) => threadsOf(backend) ?? null,
    environment() {
      const env = environment();
      try {
        return env.toJs({ dict_converter: Object.fromEntries });
      } finally {
        env.destroy();
      }
    },
  };
}

/** TF.js 4.22.0 (tf.min.js + its wasm backend, both vendored for the benchmark); returns the impl object. */
async function bootTfjs(threads) {
  await loadScript("vendor/tfjs/tf.min.js");
  await loadScript("vendor/tfjs/tf-backend-wasm.min.js");
  tf.wasm.setWasmPaths(here("vendor/tfjs/"));
  if (threads != null) tf.wasm.setThreadsCount(threads);
  await tf.ready();
  let current = null;
  const release = () => {
    if (!current) return 0;
    tf.dispose(current.inputs);
    current.model?.dispose();
    current.optimizer?.dispose();
    const leaked = tf.memory().numTensors - current.before;
    current = null;
    return leaked;
  };
  // the same net and step as web/bench.py's train case, in TF.js
  const trainStep = (net, x, params, state) => {
    const v = {};
    for (const [name, values, shape] of params) {
      const t = tf.tensor(values, shape);
      v[name] = name === "labels" ? t : tf.variable(t);
      if (name !== "labels") t.dispose();
      state.inputs.push(v[name]);
    }
    const dense = (h, w, b) => tf.add(tf.matMul(h, w), b);
    const block = (h, f, c) => tf.maxPool(tf.relu(tf.add(tf.conv2d(h, f, 1, "same"), c)), 2, 2, "valid");
    const logits =
      net === "mlp"
        ? () => dense(tf.relu(dense(x, v.w1, v.b1)), v.w2, v.b2)
        : () => {
            const h = block(block(x, v.f1, v.c1), v.f2, v.c2);
            return dense(tf.reshape(h, [h.shape[0], -1]), v.w, v.b);
          };
    const weights = Object.keys(v).filter((name) => name !== "labels").map((name) => v[name]);
    const optimizer = (state.optimizer = tf.train.adam(0.001, 0.9, 0.999, 1e-7));
    return () => optimizer.minimize(() => tf.losses.softmaxCrossEntropy(v.labels, logits()), true, weights);
  };
  return {
    async prepare(spec, backend, input) {
      release();
      if (!(await tf.setBackend(backend))) throw new Error(`TF.js backend ${backend} failed to initialize`);
      const before = tf.memory().numTensors;
      const x = tf.tensor(input.data, input.shape, input.dtype);
      current = { before, inputs: [x] };
      if (spec.kind === "graph") {
        const model = (current.model = await tf.loadGraphModel(here(spec.url)));
        current.step = () => model.executeAsync(x);
      } else if (spec.kind === "layers") {
        const model = (current.model = await tf.loadLayersModel(here(spec.url)));
        current.step = () => model.predict(x);
      } else if (spec.kind === "adds") {
        current.step = () =>
          tf.tidy(() => {
            let y = x;
            for (let i = 0; i < spec.count; i++) y = tf.add(y, x);
            return y;
          });
      } else if (spec.kind === "matmul") {
        current.step = () => tf.matMul(x, x);
      } else if (spec.kind === "train") {
        current.step = trainStep(spec.net, x, input.params, current);
      } else if (spec.kind === "fit") {
        const f = input.fit;
        const model = (current.model = await tf.loadLayersModel(tf.io.fromMemory({
          modelTopology: JSON.parse(f.topology), weightSpecs: JSON.parse(f.specs), weightData: f.weights.buffer })));
        const labels = tf.tensor(input.params[0][1], input.params[0][2]);
        current.inputs.push(labels);
        model.compile({ optimizer: tf.train.adam(0.001, 0.9, 0.999, 1e-7), loss: "categoricalCrossentropy" });
        current.optimizer = model.optimizer;
        // the epoch's mean loss, as a tensor for run() to read
        current.step = async () => {
          const h = await model.fit(x, labels, { batchSize: f.batch, epochs: 1, shuffle: false, verbose: 0 });
          return tf.scalar(h.history.loss[0]);
        };
      } else {
        throw new Error(`unknown bench case kind ${spec.kind}`);
      }
    },
    async run() {
      let outs = await current.step();
      outs = Array.isArray(outs) ? outs : outs instanceof tf.Tensor ? [outs] : Object.values(outs);
      await Promise.all(outs.map((t) => t.data()));
      tf.dispose(outs);
    },
    release,
    threads: (backend) => (backend === "wasm" ? tf.wasm.getThreadsCount() : null),
    async environment() {
      const flags = {};
      for (const name of ["WASM_HAS_SIMD_SUPPORT", "WASM_HAS_MULTITHREAD_SUPPORT"]) {
        flags[name] = await tf.env().getAsync(name);
      }
      const wasm = tf.findBackend("wasm") || (await tf.setBackend("wasm"));
      return {
        version: tf.version.tfjs,
        wasm_simd: flags.WASM_HAS_SIMD_SUPPORT,
        wasm_multithread: flags.WASM_HAS_MULTITHREAD_SUPPORT,
        wasm_threads: wasm ? tf.wasm.getThreadsCount() : null, // TF.js picks the count from the cores
      };
    },
  };
}

function webglRenderer() {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2") ?? canvas.getContext("webgl");
  if (!gl) return null;
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const renderer = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return renderer;
}

const round = (ms) => (ms == null ? null : Math.round(ms * 1000) / 1000);
const median = (sorted) => {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Boot both libraries (webtf first: it is timed from navigation, TF.js from its script tag) and return the
 * bench API: {boot, environment(), runCase(name, backend, options)}. `threads` (a number) sets both libraries'
 * wasm thread count before their wasm backends start; both binaries cap the count at half the logical cores
 * (XNNPACK's guess at hyper-threading), so where the browser reports fewer than 2 * threads cores the page
 * reports 2 * threads, for both libraries alike (environment().cores_reported says so).
 */
export async function bootBench(log = () => {}, { threads = null } = {}) {
  const cores = navigator.hardwareConcurrency;
  if (threads != null && cores < 2 * threads) {
    Object.defineProperty(navigator, "hardwareConcurrency", { value: 2 * threads, configurable: true });
  }
  log("booting webtf (Pyodide)");
  const webtf = await bootWebtf(threads);
  const webtfReady = now();
  log(`webtf ready after ${Math.round(webtfReady)} ms; loading TF.js`);
  const tfjsStart = now();
  const tfjs = await bootTfjs(threads);
  const boot = {
    webtf: { ready_ms: round(webtfReady), path: webtf.path },
    tfjs: { ready_ms: round(now() - tfjsStart) },
  };
  log(`TF.js ready after ${Math.round(boot.tfjs.ready_ms)} ms`);
  const impls = { webtf, tfjs };

  async function environment() {
    return {
      user_agent: navigator.userAgent,
      cores,
      cores_reported: navigator.hardwareConcurrency,
      cross_origin_isolated: self.crossOriginIsolated,
      webgl_renderer: webglRenderer(),
      webtf: webtf.environment(),
      tfjs: await tfjs.environment(),
    };
  }

  /**
   * Run one case on one backend with both libraries: prepare both, a first run each (first_ms), untimed
   * warm-up runs alternating until each library's warm-up took warmupMs (V8 tiers up both libraries' code in a
   * page's first seconds), then up to `runs` timed runs alternating webtf / TF.js; a library stops early once
   * its timed runs used budgetMs (it always gets one). Returns one row per library; a failing library gets a
   * row with `error`.
   */
  async function runCase(name, backend, { runs = 5, budgetMs = 20000, warmupMs = 1000, onProgress = log } = {}) {
    const spec = CASES[name];
    if (!spec) throw new Error(`unknown case ${name}; known: ${Object.keys(CASES).join(", ")}`);
    const input = makeInput(spec);
    const state = Object.fromEntries(IMPLS.map((impl) => [impl, { times: [], spent: 0, error: null }]));
    const fail = async (impl, error) => {
      state[impl].error = message(error);
      onProgress(`${name}/${backend} ${impl}: error: ${state[impl].error}`);
      try {
        await impls[impl].release();
      } catch {
        // the error above is the one to report
      }
    };
    for (const impl of IMPLS) {
      const s = state[impl];
      try {
        let start = now();
        await impls[impl].prepare(spec, backend, input);
        s.load_ms = now() - start;
        start = now();
        await impls[impl].run();
        s.first_ms = now() - start;
        s.warmup_ms = s.first_ms;
        s.warmups = 1;
        onProgress(`${name}/${backend} ${impl}: load ${s.load_ms.toFixed(0)} ms, first run ${s.first_ms.toFixed(1)} ms`);
      } catch (error) {
        await fail(impl, error);
      }
    }
    const warming = (impl) => !state[impl].error && state[impl].warmup_ms < warmupMs;
    while (IMPLS.some(warming)) {
      for (const impl of IMPLS.filter(warming)) {
        const s = state[impl];
        try {
          const start = now();
          await impls[impl].run();
          s.warmup_ms += now() - start;
          s.warmups += 1;
        } catch (error) {
          await fail(impl, error);
        }
      }
    }
    if (warmupMs > 0) {
      onProgress(`${name}/${backend}: warm-up ${IMPLS.map((i) => `${i} ${state[i].warmups ?? 0} runs`).join(", ")}`);
    }
    for (let i = 0; i < runs; i++) {
      for (const impl of IMPLS) {
        const s = state[impl];
        if (s.error || (i > 0 && s.spent >= budgetMs)) continue;
        try {
          const start = now();
          await impls[impl].run();
          const ms = now() - start;
          s.times.push(ms);
          s.spent += ms;
          onProgress(`${name}/${backend} ${impl}: run ${i + 1}/${runs} ${ms.toFixed(1)} ms`);
        } catch (error) {
          await fail(impl, error);
        }
      }
    }
    const rows = [];
    for (const impl of IMPLS) {
      const s = state[impl];
      if (!s.error) {
        try {
          if (impls[impl].replays) s.replays = impls[impl].replays();
          if (impls[impl].compiled) s.compiled = impls[impl].compiled();
          s.threads = impls[impl].threads(backend);
          const leaked = await impls[impl].release();
          if (leaked !== 0) s.error = `${leaked} tensors left alive after release`;
        } catch (error) {
          s.error = message(error);
        }
      }
      const sorted = [...s.times].sort((a, b) => a - b);
      const ok = !s.error && sorted.length > 0;
      rows.push({
        model: name,
        backend,
        impl,
        first_ms: ok ? round(s.first_ms) : null,
        median_ms: ok ? round(median(sorted)) : null,
        min_ms: ok ? round(sorted[0]) : null,
        runs: ok ? sorted.length : 0,
        warmups: ok ? s.warmups : 0,
        load_ms: ok ? round(s.load_ms) : null,
        replays: ok ? s.replays ?? null : null,
        compiled: ok ? s.compiled ?? null : null,
        threads: ok ? s.threads ?? null : null,
        error: s.error,
      });
    }
    return rows;
  }

  return { boot, environment, runCase };
}
