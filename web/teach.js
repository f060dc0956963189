// Teach the camera new classes: DOM glue only. Examples, training, prediction and save/load live in Python
// (web/teach.py); this module renders the class cards, the chart and the progress bar, and reads the source
// (the live camera or the sample image) through web/demo.js.
//
// Contract (tests rely on it): window.webtfTeach is the latest state published by Python, a plain object
// {backend, classes: [{name, count}], training, epoch, epochs, history: [{loss, acc, ms}], prediction: {index,
// label, probs, source, frame} | null, trained, num_tensors, message, fps, examples_per_s, embed_ms, epoch_ms,
// acc1_ms}. #teach-add-<i> adds one example of class i per click (holding it records one per frame).

import { nextFrame, sourceElement } from "./demo.js";

const $ = (id) => document.getElementById(id);
const THUMB = 64;
let teacher = null; // the Python Teacher (a PyProxy, kept for the page's lifetime)
let held = null; // the index of the class button held down, or null
const cards = [];

function thumbnail(index, source) {
  const canvas = cards[index]?.thumb;
  if (!canvas) return;
  const [w, h] = source.videoWidth ? [source.videoWidth, source.videoHeight] : [source.naturalWidth, source.naturalHeight];
  const side = Math.min(w, h);
  canvas.getContext("2d").drawImage(source, (w - side) / 2, (h - side) / 2, side, side, 0, 0, THUMB, THUMB);
}

function makeCard(index) {
  const root = document.createElement("div");
  root.className = "teach-class";
  const thumb = Object.assign(document.createElement("canvas"), { width: THUMB, height: THUMB });
  const name = Object.assign(document.createElement("input"), { id: `teach-name-${index}`, type: "text" });
  name.setAttribute("aria-label", `Name of class ${index + 1}`);
  name.addEventListener("change", () => teacher.rename(index, name.value));
  const count = Object.assign(document.createElement("span"), { className: "teach-count" });
  const add = Object.assign(document.createElement("button"), {
    id: `teach-add-${index}`, type: "button", textContent: "Hold to record",
  });
  add.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    add.setPointerCapture(event.pointerId);
    held = index;
    teacher.record(index, true);
  });
  for (const type of ["pointerup", "pointercancel"]) add.addEventListener(type, () => (held = null));
  add.addEventListener("click", (event) => {
    if (event.detail === 0) teacher.record(index, false); // keyboard or script: one example
  });
  const bar = Object.assign(document.createElement("div"), { className: "teach-bar" });
  const fill = document.createElement("div");
  const percent = document.createElement("span");
  bar.append(fill, percent);
  const text = document.createElement("div");
  text.className = "teach-class-text";
  text.append(name, count, add);
  root.append(thumb, text, bar);
  $("teach-classes").append(root);
  return { root, thumb, name, count, fill, percent };
}

function renderClasses(state) {
  while (cards.length > state.classes.length) cards.pop().root.remove();
  while (cards.length < state.classes.length) cards.push(makeCard(cards.length));
  const probs = state.prediction?.probs;
  state.classes.forEach(({ name, count }, i) => {
    const card = cards[i];
    if (document.activeElement !== card.name) card.name.value = name;
    card.count.textContent = `${count} example${count === 1 ? "" : "s"}`;
    const p = probs?.[i];
    card.fill.style.width = p == null ? "0" : `${(100 * p).toFixed(1)}%`;
    card.percent.textContent = p == null ? "" : `${(100 * p).toFixed(1)}%`;
    card.root.classList.toggle("predicted", state.prediction?.index === i);
    if (count === 0) card.thumb.getContext("2d").clearRect(0, 0, THUMB, THUMB);
  });
}

function drawChart(state) {
  const canvas = $("teach-chart");
  const ctx = canvas.getContext("2d");
  const { width, height } = canvas;
  const pad = { left: 36, right: 36, top: 12, bottom: 20 };
  const w = width - pad.left - pad.right, h = height - pad.top - pad.bottom;
  ctx.clearRect(0, 0, width, height);
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = ctx.strokeStyle = getComputedStyle(canvas).color;
  ctx.globalAlpha = 0.4;
  ctx.strokeRect(pad.left, pad.top, w, h);
  ctx.globalAlpha = 1;
  const history = state.history;
  const epochs = Math.max(state.epochs, history.length, 1);
  const maxLoss = Math.max(...history.map((e) => e.loss), 1e-6);
  if (history.length) {
    ctx.fillText(maxLoss.toPrecision(2), 2, pad.top + 8);
    ctx.fillText("0", 2, pad.top + h);
    ctx.fillText("1", width - pad.right + 4, pad.top + 8);
    ctx.fillText("0", width - pad.right + 4, pad.top + h);
  }
  ctx.fillText(history.length ? `epoch ${history.length}/${epochs}` : state.trained ? "loaded (no history)" : "not trained yet", pad.left, height - 4);
  const lines = [["loss", "#1f77b4", (e) => e.loss / maxLoss], ["accuracy", "#e8710a", (e) => e.acc]];
  lines.forEach(([label, color, value], k) => {
    ctx.strokeStyle = ctx.fillStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    history.forEach((e, i) => {
      const x = pad.left + (epochs === 1 ? w / 2 : (i / (epochs - 1)) * w);
      const y = pad.top + h * (1 - value(e));
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
      if (history.length === 1) ctx.fillRect(x - 2, y - 2, 4, 4);
    });
    ctx.stroke();
    ctx.fillText(label, width - pad.right - 110 + k * 50, height - 4);
  });
}

function publish(json) {
  const state = JSON.parse(json);
  window.webtfTeach = state;
  renderClasses(state);
  drawChart(state);
  $("teach-message").textContent = state.message;
  $("teach-progress").max = Math.max(state.epochs, 1);
  $("teach-progress").value = state.epoch;
  $("teach-epoch").textContent = state.epochs ? `epoch ${state.epoch}/${state.epochs}` : "";
  $("teach-stop").disabled = !state.training;
  for (const id of ["teach-train", "teach-add-class", "teach-load", "teach-files", "backend-select"]) {
    $(id).disabled = state.training;
  }
  $("teach-save").disabled = state.training || !state.trained;
  showNote(state.backend);
}

function showNote(backend) {
  const note = $("teach-note");
  note.hidden = backend !== "cpu";
  note.textContent = "On the cpu backend MobileNetV2 takes several seconds per frame (pure Python): recording " +
    "and predicting are slow and the page answers between frames. wasm or webgl are much faster.";
}

const ui = { source: sourceElement, nextFrame, publish, thumbnail, holding: () => held };

export async function setupTeach(pyodide) {
  const source = await (await fetch(new URL("teach.py", import.meta.url))).text();
  const namespace = pyodide.globals.get("dict")();
  await pyodide.runPythonAsync(source, { globals: namespace, filename: "teach.py" });
  teacher = namespace.get("create_teacher")(ui);
  namespace.destroy();
  teacher.publish();
  $("teach-add-class").addEventListener("click", () => teacher.add_class());
  $("teach-train").addEventListener("click", () => teacher.train(JSON.stringify({
    optimizer: $("teach-optimizer").value,
    learning_rate: Number($("teach-lr").value),
    epochs: Math.max(1, Math.round(Number($("teach-epochs").value))),
    batch_size: Math.max(1, Math.round(Number($("teach-batch").value))),
  })));
  $("teach-stop").addEventListener("click", () => teacher.stop());
  $("teach-reset").addEventListener("click", () => teacher.reset());
  $("teach-save").addEventListener("click", () => teacher.save());
  $("teach-load").addEventListener("click", () => teacher.load());
  $("teach-files").addEventListener("change", async (event) => {
    const files = [...event.target.files];
    event.target.value = ""; // picking the same files again fires change again
    if (files.length) await teacher.load(files);
  });
  $("backend-select").addEventListener("change", (event) => showNote(event.target.value));
  $("teach").hidden = false;
}
