// `build.py` runs this with node: boot Pyodide, put the webtf wheel in site-packages, import webtf and run the
// page's Python files (their imports land in sys.modules), then write a memory snapshot the page boots from.
//
// node tools/snapshot.mjs PYODIDE_DIR WHEEL OUT HEADER_JSON PAGE.py...
//
// OUT = "webtfsnp" + u32 length of the JSON header + the header (padded to 16 bytes) + the non-zero 64 KiB pages of
// Pyodide's snapshot. The header holds HEADER_JSON plus the layout: {memory: bytes of Pyodide's snapshot, page,
// runs: [[first page, count], ...]}. Prints {"memory": ...} as its last line.
// Only Python state may be captured: a JS object reachable from Python (other than a global such as
// `js.Object`, which Pyodide reconnects by name) makes makeMemorySnapshot throw, and the build says so.

import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Zero the free chunks of Pyodide's malloc (dlmalloc: its heap runs from the stack's base to sbrk(0), chunk after
 * chunk, each with its size in the word at +4, flag 2 set while in use), past their first 32 bytes (the free
 * lists' links). What Python freed keeps its old bytes otherwise: the file then holds zeros there, which gzip
 * takes to nothing (0.3-0.45 MB less gzip-compressed). Zeroes nothing unless the walk ends exactly at sbrk(0).
 */
function zeroFreeChunks(module) {
  const words = new Uint32Array(module.HEAP8.buffer);
  const end = module._sbrk(0);
  const free = [];
  let chunk = module._emscripten_stack_get_base();
  while (chunk % 8 !== 0) chunk++; // the first chunk's payload (at +8) is 8-aligned
  while (chunk < end) {
    const head = words[(chunk + 4) / 4];
    const size = head & ~7;
    if (size === 0) break;
    // under 64 bytes: little to gain, and the fencepost after the top chunk is one of those
    if (!(head & 2) && size >= 64) free.push([chunk + 32, chunk + size]);
    chunk += size;
  }
  if (chunk !== end) {
    console.log(`snapshot: the heap walk ended at ${chunk}, not at sbrk(0) ${end}: free chunks not zeroed`);
    return;
  }
  const bytes = new Uint8Array(module.HEAP8.buffer);
  for (const [start, stop] of free) bytes.fill(0, start, stop);
}

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
  try {
    pyodide.runPython(readFileSync(file, "utf8"), { globals: namespace, filename: basename(file) });
  } catch (error) {
    // a custom build (build.py custom) leaves out what a page file needs: that page imports at run time
    if (!/ModuleNotFoundError: No module named 'webtf\./.test(error.message)) throw error;
    console.log(`snapshot: ${basename(file)} left out (${error.message.trim().split("\n").at(-1)})`);
  } finally {
    namespace.destroy();
  }
}
// work the first use of a backend would do that the snapshot can hold: the wasm ABI wrappers' code
pyodide.runPython("from webtf.backends.wasm import abi\nabi.compile_wrappers(abi.load_table())");
pyodide.runPython("import gc; gc.collect()");
zeroFreeChunks(pyodide._module);
let snapshot;
try {
  snapshot = pyodide.makeMemorySnapshot();
} catch (error) {
  throw new Error(
    `a JS object stays reachable from Python after importing webtf and ${pageFiles.map((f) => basename(f))}: ` +
      `JS-side work (WebGL contexts, wasm instances, DOM objects) must start after restore (${error.message})`,
  );
}
// Half of Pyodide's memory is zero pages: leave them out (the page starts from zeros), so that the browser
// inflates and hashes half as much. runs: [first page, page count] of the pages kept, in order.
const PAGE = 65536;
const words = new Uint32Array(snapshot.buffer, snapshot.byteOffset, snapshot.length / 4);
const runs = [];
for (let page = 0; page * PAGE < snapshot.length; page++) {
  const end = Math.min((page + 1) * PAGE, snapshot.length) / 4;
  let zero = true;
  for (let i = (page * PAGE) / 4; zero && i < end; i++) zero = words[i] === 0;
  if (zero) continue;
  const last = runs.at(-1);
  if (last && last[0] + last[1] === page) last[1]++;
  else runs.push([page, 1]);
}
const kept = runs.map(([first, count]) => snapshot.subarray(first * PAGE, (first + count) * PAGE));
const layout = { memory: snapshot.length, page: PAGE, runs };
const header = new TextEncoder().encode(JSON.stringify({ ...JSON.parse(headerJson), ...layout }));
const start = Math.ceil((12 + header.length) / 16) * 16;
const out = new Uint8Array(start + kept.reduce((total, part) => total + part.length, 0));
out.set(new TextEncoder().encode("webtfsnp"));
new DataView(out.buffer).setUint32(8, header.length, true);
out.set(header, 12);
kept.reduce((offset, part) => (out.set(part, offset), offset + part.length), start);
writeFileSync(outPath, out);
console.log(JSON.stringify({ memory: snapshot.length })); // the page allocates Pyodide's memory before the download
