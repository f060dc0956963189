// Live camera demo: DOM glue only. The loop, the models and the state live in Python (web/demo.py); this
// module owns the camera (getUserMedia), the sample-image fallback, the controls and the overlay drawing.
//
// Contract (tests rely on it): window.webtfDemo is the latest state published by Python, a plain object
// {backend, model, frames, fps, last_ms, warmup_ms, num_tensors, num_bytes, detections: [{box, score,
// keypoints}], camera: "live"|"sample"|"denied"|"none", message, ...} in source (video) pixel coordinates.
// URL parameters: ?camera=auto starts the camera without a click, ?camera=sample starts on the sample image,
// ?model=blazeface|movenet|none picks the model (none: the camera alone) (?backend= is read by boot.js).

const $ = (id) => document.getElementById(id);
const video = $("video");
const sample = $("sample");
const overlay = $("overlay");
const toggle = $("camera-toggle");
const modelSelect = $("model-select");
const backendSelect = $("backend-select");
const MIN_KEYPOINT_SCORE = 0.3;

let demo = null; // the Python Demo (a PyProxy, kept for the page's lifetime)
let mode = "off"; // "off" | "live" | "sample"
let stream = null;

export function sourceElement() {
  if (mode === "live" && video.readyState >= 2 && video.videoWidth > 0) return video;
  if (mode === "sample" && sample.complete && sample.naturalWidth > 0) return sample;
  return null;
}

function sourceSize(element) {
  return element === video ? [video.videoWidth, video.videoHeight] : [element.naturalWidth, element.naturalHeight];
}

function show(element) {
  video.hidden = element !== video;
  sample.hidden = element !== sample;
}

function formatMs(ms) {
  return ms == null ? "-" : `${ms.toFixed(1)} ms`;
}

function formatBytes(bytes) {
  return bytes == null ? "-" : `${(bytes / 1048576).toFixed(2)} MB`;
}

function draw(state) {
  const size = state.source_size;
  const ctx = overlay.getContext("2d");
  if (!size) {
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    return;
  }
  [overlay.width, overlay.height] = size;
  const unit = Math.max(2, Math.max(...size) / 160);
  ctx.lineWidth = unit;
  ctx.font = `${Math.round(unit * 6)}px system-ui, sans-serif`;
  for (const det of state.detections) {
    const [x1, y1, x2, y2] = det.box;
    const scores = det.keypoint_scores ?? det.keypoints.map(() => 1);
    const visible = (i) => scores[i] >= MIN_KEYPOINT_SCORE;
    ctx.strokeStyle = "#0f0";
    ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
    ctx.fillStyle = "#0f0";
    ctx.fillText(det.score.toFixed(2), x1, Math.max(y1 - unit, unit * 6));
    ctx.strokeStyle = "#0cf";
    for (const [a, b] of state.skeleton) {
      if (!visible(a) || !visible(b)) continue;
      ctx.beginPath();
      ctx.moveTo(...det.keypoints[a]);
      ctx.lineTo(...det.keypoints[b]);
      ctx.stroke();
    }
    ctx.fillStyle = "#f30";
    det.keypoints.forEach(([x, y], i) => {
      if (!visible(i)) return;
      ctx.beginPath();
      ctx.arc(x, y, unit * 1.5, 0, 2 * Math.PI);
      ctx.fill();
    });
  }
}

function publish(json) {
  const state = JSON.parse(json);
  window.webtfDemo = state;
  const log = (window.webtfDemoLog ??= []); // one entry per published state, for tests and debugging
  log.push({ frames: state.frames, backend: state.backend, model: state.model, num_tensors: state.num_tensors });
  if (log.length > 1000) log.splice(0, log.length - 1000);
  $("demo-message").textContent = state.message ?? "";
  $("demo-message").dataset.camera = state.camera;
  $("demo-status").textContent = state.status ?? "";
  $("stat-backend").textContent = state.backend;
  $("stat-frames").textContent = state.frames;
  $("stat-fps").textContent = state.frames > 1 ? state.fps.toFixed(2) : "-";
  $("stat-ms").textContent = formatMs(state.last_ms);
  $("stat-warmup").textContent = formatMs(state.warmup_ms);
  $("stat-tensors").textContent = state.num_tensors;
  $("stat-bytes").textContent = formatBytes(state.num_bytes);
  $("backend").textContent = state.backend;
  backendSelect.value = state.backend;
  modelSelect.value = state.model;
  draw(state);
}

// the next animation frame, then one macrotask turn: on a slow backend (seconds per inference) queued
// tasks such as clicks, fetches and timers run between inferences instead of starving behind them
export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

const ui = {
  source: sourceElement,
  sourceSize,
  nextFrame,
  publish,
};

function useSample(camera, message) {
  mode = "sample";
  show(sample);
  toggle.textContent = "Start camera";
  demo.set_camera(camera, message);
  demo.start();
}

async function startCamera() {
  if (!navigator.mediaDevices?.getUserMedia) {
    useSample("none", "This page has no camera access (it needs https or localhost): showing the sample image.");
    return;
  }
  toggle.disabled = true;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "user" }, audio: false });
  } catch (error) {
    toggle.disabled = false;
    if (error.name === "NotAllowedError" || error.name === "SecurityError") {
      useSample("denied", "Camera permission was denied: showing the sample image instead. " +
        "Allow the camera in the site settings and press Start camera to try again.");
    } else if (error.name === "NotFoundError" || error.name === "OverconstrainedError") {
      useSample("none", "No camera was found: showing the sample image instead.");
    } else {
      useSample("none", `The camera could not start (${error.name}: ${error.message}): showing the sample image.`);
    }
    return;
  }
  video.srcObject = stream;
  await video.play().catch(() => {}); // muted autoplay; a refusal still leaves frames to read
  if (video.readyState < 2) await new Promise((resolve) => video.addEventListener("loadeddata", resolve, { once: true }));
  mode = "live";
  show(video);
  toggle.disabled = false;
  toggle.textContent = "Stop camera";
  const label = stream.getVideoTracks()[0]?.label || "camera";
  demo.set_camera("live", `Camera on (${label}, ${video.videoWidth}x${video.videoHeight}).`);
  demo.start();
}

async function stopCamera() {
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  video.srcObject = null;
  mode = "off";
  toggle.textContent = "Start camera";
  await demo.stop();
  demo.set_camera("none", "Camera stopped.");
}

export async function setupDemo(pyodide, panel) {
  const params = new URLSearchParams(location.search);
  for (const name of panel.backends) backendSelect.add(new Option(name, name));
  backendSelect.value = panel.backend;
  const source = await (await fetch(new URL("demo.py", import.meta.url))).text();
  const namespace = pyodide.globals.get("dict")();
  await pyodide.runPythonAsync(source, { globals: namespace, filename: "demo.py" });
  demo = namespace.get("create_demo")(ui, params.get("model") ?? "blazeface", JSON.stringify(panel.backends));
  namespace.destroy();
  demo.publish();

  toggle.addEventListener("click", () => (mode === "live" ? stopCamera() : startCamera()));
  $("use-sample").addEventListener("click", async () => {
    if (mode === "live") await stopCamera();
    useSample("sample", "Showing the sample image.");
  });
  modelSelect.addEventListener("change", async () => await demo.request_model(modelSelect.value));
  backendSelect.addEventListener("change", async () => await demo.request_backend(backendSelect.value));
  $("demo").hidden = false;
  window.webtfDemoControl = { startCamera, stopCamera, useSample };

  const camera = params.get("camera");
  if (camera === "auto") startCamera();
  else if (camera === "sample") useSample("sample", "Showing the sample image.");
}
