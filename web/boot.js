// Page boot: DOM glue only. Starts Python with webtf (web/python.js: from the build's memory snapshot, or a
// plain boot with ?snapshot=0 or when the snapshot is missing or unsound; a console line says which): that is
// "ready". Then web/boot.py starts the backend (the default one, or ?backend=) and returns the flags panel as
// JSON, and the camera demo is wired up.
//
// Contract (tests rely on it): when boot finishes (panel and demo included), <html data-webtf="ready">,
// window.pyodide is the Pyodide instance (webtf imported), window.webtfBootMs is performance.now() when webtf
// became ready (before the backend started), window.webtfBackendMs when the backend had started and
// window.webtfBootPath is "snapshot" or "plain". On any failure: #error shows the message and
// <html data-webtf="error">.
// The live camera demo (web/demo.js, web/demo.py) runs nothing until Start camera is pressed (or ?camera=auto
// / ?camera=sample asks for it); the teach section (web/teach.js, web/teach.py) nothing until a button is.

import { setupDemo } from "./demo.js";
import { startPython } from "./python.js";
import { setupTeach } from "./teach.js";

const root = document.documentElement;
const statusLine = document.getElementById("status");
const errorBox = document.getElementById("error");
let phase = "loading page";
let readyText = ""; // "ready (N ms)" once webtf is ready; the later phases follow it on the status line

function setStatus(text) {
  phase = text;
  statusLine.textContent = readyText ? `${readyText}, ${text}` : text;
  console.log(`[webtf] ${Math.round(performance.now())} ms: ${text}`);
}

function showError(error) {
  errorBox.textContent = String(error?.message ?? error);
  errorBox.hidden = false;
  statusLine.textContent = `failed while ${phase}`;
  root.dataset.webtf = "error";
  console.error("[webtf] boot failed:", error);
}

function renderPanel(panel) {
  document.getElementById("backend").textContent = panel.backend;
  const body = document.querySelector("#flags tbody");
  for (const [name, value] of Object.entries(panel.flags)) {
    const row = body.insertRow();
    row.dataset.flag = name;
    row.insertCell().textContent = name;
    const cell = row.insertCell();
    cell.className = "value";
    cell.textContent = JSON.stringify(value);
  }
  document.getElementById("renderer").textContent = panel.renderer ?? "(no WebGL)";
  // which wheel runs: the full one, or a custom build (build.py custom) with its backends and kernel count
  const build = panel.build;
  window.webtfBuild = build;
  document.getElementById("build").textContent =
    build.name === "full"
      ? "full"
      : `custom (${build.config}): backends ${build.backends.join(", ")}, ${build.kernels.length} kernels` +
        (build.forward_mode_only ? ", forward mode only" : "");
  document.getElementById("environment").hidden = false;
}

async function boot() {
  root.dataset.webtf = "booting";
  const params = new URLSearchParams(location.search);
  const source = fetch(new URL("boot.py", import.meta.url)).then((response) => response.text());
  const { pyodide, path } = await startPython({ onPhase: setStatus });
  window.pyodide = pyodide;
  window.webtfBootPath = path;
  window.webtfBootMs = performance.now();
  setStatus(`ready (${Math.round(window.webtfBootMs)} ms)`);
  readyText = statusLine.textContent;
  setStatus("starting backend");

  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(await source, { globals: namespace, filename: "boot.py" });
  const panel = JSON.parse(await namespace.get("boot")(params.get("backend")));
  namespace.destroy();
  window.webtfBackendMs = performance.now();
  renderPanel(panel);
  setStatus("setting up the camera demo");
  await setupDemo(pyodide, panel);
  if (panel.teach) await setupTeach(pyodide); // the teach section stays hidden in a build without layers
  setStatus(`${panel.backend} backend started (${Math.round(window.webtfBackendMs)} ms)`);
  root.dataset.webtf = "ready";
}

window.addEventListener("unhandledrejection", (event) => {
  if (root.dataset.webtf === "booting") showError(event.reason);
});
boot().catch(showError);
