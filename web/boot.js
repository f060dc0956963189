// Page boot: DOM glue only. Loads Pyodide from this server, installs the webtf wheel with micropip,
// then runs web/boot.py, which starts webtf and returns the flags panel as JSON.
//
// Contract (tests rely on it): when boot finishes, <html data-webtf="ready">, window.pyodide is the
// Pyodide instance (webtf importable) and window.webtfBootMs is performance.now() at that moment.
// On any failure: #error shows the message and <html data-webtf="error">.
// The live camera demo (web/demo.js, web/demo.py) is wired up before "ready" but runs nothing until
// Start camera is pressed (or ?camera=auto / ?camera=sample asks for it).

import { setupDemo } from "./demo.js";

const root = document.documentElement;
const statusLine = document.getElementById("status");
const errorBox = document.getElementById("error");
let phase = "loading page";

function setStatus(text) {
  phase = text;
  statusLine.textContent = text;
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
  document.getElementById("environment").hidden = false;
}

async function boot() {
  root.dataset.webtf = "booting";
  const here = (path) => new URL(path, document.baseURI).href;
  const backend = new URLSearchParams(location.search).get("backend");

  setStatus("downloading Pyodide");
  const { loadPyodide } = await import(here("pyodide/pyodide.mjs"));
  setStatus("starting Python");
  const pyodide = await loadPyodide({ indexURL: here("pyodide/") });

  setStatus("installing webtf");
  await pyodide.loadPackage("micropip", { messageCallback: () => {} });
  const index = await (await fetch(here("wheels/index.json"))).json();
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(here(`wheels/${index.wheel}`));
  micropip.destroy();

  setStatus("starting backend");
  const source = await (await fetch(here("web/boot.py"))).text();
  const namespace = pyodide.globals.get("dict")();
  await pyodide.runPythonAsync(source, { globals: namespace, filename: "boot.py" });
  const panel = JSON.parse(await namespace.get("boot")(backend));
  namespace.destroy();
  renderPanel(panel);

  setStatus("setting up the camera demo");
  await setupDemo(pyodide, panel);

  window.pyodide = pyodide;
  window.webtfBootMs = performance.now();
  setStatus(`ready (${Math.round(window.webtfBootMs)} ms)`);
  root.dataset.webtf = "ready";
}

window.addEventListener("unhandledrejection", (event) => {
  if (root.dataset.webtf === "booting") showError(event.reason);
});
boot().catch(showError);
