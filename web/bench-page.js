// bench.html glue: boots the benchmark (web/bench.js), then lets a person pick cases and backends, runs them
// and draws a bar chart (median ms, log scale, webtf vs TF.js) plus a table with the ratio.
//
// Contract for `python3 build.py bench`: when boot finishes, <html data-bench="ready"> and window.webtfBench
// is the API of bench.js's bootBench; on failure <html data-bench="error"> and #error holds the message.

import { BACKENDS, CASES, bootBench } from "./bench.js";

const root = document.documentElement;
const $ = (id) => document.getElementById(id);
const COLORS = { webtf: "#3572A5", tfjs: "#f0a030" };

function log(text) {
  $("status").textContent = text;
  console.log(`[bench] ${text}`);
}

function checkboxes(container, names, checked) {
  for (const name of names) {
    const label = document.createElement("label");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", value: name });
    box.checked = checked(name);
    label.append(box, name);
    container.append(label);
  }
}

const picked = (container) => [...container.querySelectorAll("input:checked")].map((box) => box.value);
const fmt = (ms) => (ms == null ? "-" : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** Pair rows by case and backend: [{model, backend, webtf, tfjs}]. */
function pairs(rows) {
  const byKey = new Map();
  for (const row of rows) {
    const key = `${row.model}/${row.backend}`;
    if (!byKey.has(key)) byKey.set(key, { model: row.model, backend: row.backend });
    byKey.get(key)[row.impl] = row;
  }
  return [...byKey.values()];
}

function renderTable(rows) {
  const body = $("results").tBodies[0];
  body.replaceChildren();
  for (const pair of pairs(rows)) {
    const [w, t] = [pair.webtf, pair.tfjs];
    const ratio = w?.median_ms && t?.median_ms ? `${(w.median_ms / t.median_ms).toFixed(2)}x` : "-";
    const cell = (row, key) => (row?.error ? "error" : fmt(row?.[key]));
    const values = [pair.model, pair.backend, cell(w, "median_ms"), cell(t, "median_ms"), ratio,
      cell(w, "first_ms"), cell(t, "first_ms")];
    const tr = body.insertRow();
    for (const value of values) tr.insertCell().textContent = value;
    const errors = [w, t].filter((row) => row?.error).map((row) => `${row.impl}: ${row.error}`);
    if (errors.length) tr.title = errors.join("\n");
  }
  $("results").hidden = rows.length === 0;
}

/** Horizontal grouped bars on a log10 ms axis, one group per case x backend. */
function drawChart(rows) {
  const canvas = $("chart");
  const groups = pairs(rows);
  const bar = 14, gap = 10, left = 190, right = 70, top = 28, axis = 24;
  const width = canvas.width;
  canvas.height = top + groups.length * (2 * bar + gap) + axis;
  const ctx = canvas.getContext("2d");
  const ink = getComputedStyle(document.body).color;
  ctx.clearRect(0, 0, width, canvas.height);
  ctx.font = "12px system-ui, sans-serif";
  const values = rows.map((r) => r.median_ms).filter((v) => v > 0);
  if (!values.length) return;
  const lo = Math.floor(Math.log10(Math.min(...values))), hi = Math.ceil(Math.log10(Math.max(...values)) + 1e-9);
  const span = Math.max(hi - lo, 1);
  const x = (ms) => left + ((Math.log10(ms) - lo) / span) * (width - left - right);
  ctx.fillStyle = ink;
  let legend = left;
  for (const [impl, color] of Object.entries(COLORS)) {
    ctx.fillStyle = color;
    ctx.fillRect(legend, 8, 12, 12);
    ctx.fillStyle = ink;
    ctx.fillText(impl === "tfjs" ? "TF.js 4.22.0" : "webtf", legend + 16, 18);
    legend += 110;
  }
  ctx.fillText("median ms per run (log scale)", legend + 20, 18);
  const bottom = canvas.height - axis;
  ctx.strokeStyle = "#8886";
  for (let p = lo; p <= lo + span; p++) {
    const px = x(10 ** p);
    ctx.beginPath();
    ctx.moveTo(px, top - 4);
    ctx.lineTo(px, bottom);
    ctx.stroke();
    ctx.fillText(`${10 ** p >= 1 ? 10 ** p : (10 ** p).toPrecision(1)} ms`, px - 12, bottom + 16);
  }
  groups.forEach((group, i) => {
    const y0 = top + i * (2 * bar + gap);
    ctx.fillStyle = ink;
    ctx.fillText(`${group.model} / ${group.backend}`, 4, y0 + bar + 4);
    ["webtf", "tfjs"].forEach((impl, j) => {
      const row = group[impl];
      const y = y0 + j * bar;
      if (!row || row.error || !row.median_ms) {
        ctx.fillStyle = ink;
        ctx.fillText(row?.error ? `${impl}: error` : `${impl}: -`, left + 4, y + bar - 3);
        return;
      }
      ctx.fillStyle = COLORS[impl];
      ctx.fillRect(left, y + 1, Math.max(x(row.median_ms) - left, 1), bar - 2);
      ctx.fillStyle = ink;
      ctx.fillText(fmt(row.median_ms), x(row.median_ms) + 4, y + bar - 3);
    });
  });
}

async function runSelected(bench, environment) {
  const cases = picked($("case-boxes"));
  const backends = picked($("backend-boxes"));
  const runs = Number($("runs").value) || 1;
  const budgetMs = (Number($("budget").value) || 10) * 1000;
  const rows = [];
  $("run").disabled = true;
  const progress = (text) => {
    $("progress").textContent = text;
    console.log(`[bench] ${text}`);
  };
  try {
    for (const backend of backends) {
      for (const name of cases) {
        rows.push(...(await bench.runCase(name, backend, { runs, budgetMs, onProgress: progress })));
        renderTable(rows);
        drawChart(rows);
      }
    }
    progress(`done: ${rows.length} rows`);
  } finally {
    $("run").disabled = false;
    $("json").textContent = JSON.stringify({ environment, boot: bench.boot, rows }, null, 2);
    $("details").hidden = false;
  }
}

async function main() {
  root.dataset.bench = "booting";
  const threads = new URLSearchParams(location.search).get("threads");
  const bench = await bootBench(log, { threads: threads === null ? null : Number(threads) });
  window.webtfBench = bench;
  const environment = await bench.environment();
  checkboxes($("case-boxes"), Object.keys(CASES), () => true);
  checkboxes($("backend-boxes"), BACKENDS, (name) => name !== "cpu");
  $("bench-form").hidden = false;
  $("bench-form").addEventListener("submit", (event) => {
    event.preventDefault();
    runSelected(bench, environment).catch((error) => log(`failed: ${error?.message ?? error}`));
  });
  log(`ready: webtf ${fmt(bench.boot.webtf.ready_ms)} ms, TF.js ${fmt(bench.boot.tfjs.ready_ms)} ms to load`);
  root.dataset.bench = "ready";
}

main().catch((error) => {
  $("error").textContent = String(error?.stack ?? error);
  $("error").hidden = false;
  root.dataset.bench = "error";
  console.error("[bench] boot failed:", error);
});
