// `build.py` runs this with node: boot Pyodide, put the webtf wheel in site-packages, import webtf and run the
// page's Python files (their imports land in sys.modules), then write a memory snapshot the page boots from.
//
// node tools/snapshot.mjs PYODIDE_DIR WHEEL OUT HEADER_JSON PAGE.py...
//
// OUT = "webtfsnp" + u32 length of the JSON header + the header (padded to 16 bytes) + Pyodide's snapshot.
// Only Python state may be captured: a JS object reachable from Python (other than a global such as
// `js.Object`, which Pyodide reconnects by name) makes makeMemorySnapshot throw, and the build says so.

import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

const [indexDir, wheelPath, outPath, headerJson, ...pageFiles] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${indexDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({
  indexURL: `${indexDir}/`,
  _makeSnapshot: true,
  _sysExecutable: "", // what the browser has; node would put this script's path in sys.executable
});
const sitePackages = pyodide._api.sitePackages;
pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel", { extractDir: sitePackages });
for (const file of pageFiles) {
  // a fresh namespace per file, dropped afterwards: only the modules it imports stay
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(readFileSync(file, "utf8"), { globals: namespace, filename: basename(file) });
  namespace.destroy();
}
pyodide.runPython("import gc; gc.collect()");
let snapshot;
try {
  snapshot = pyodide.makeMemorySnapshot();
} catch (error) {
  throw new Error(
    `a JS object stays reachable from Python after importing webtf and ${pageFiles.map((f) => basename(f))}: ` +
      `JS-side work (WebGL contexts, wasm instances, DOM objects) must start after restore (${error.message})`,
  );
}
const header = new TextEncoder().encode(headerJson);
const start = Math.ceil((12 + header.length) / 16) * 16;
const out = new Uint8Array(start + snapshot.length);
out.set(new TextEncoder().encode("webtfsnp"));
new DataView(out.buffer).setUint32(8, header.length, true);
out.set(header, 12);
out.set(snapshot, start);
writeFileSync(outPath, out);
