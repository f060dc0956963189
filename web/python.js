// Starting Python for the pages (index.html, bench.html): Pyodide from this server with the webtf wheel in
// site-packages. Two paths, same result:
//   snapshot: restore the memory snapshot `build.py` made (webtf and the pages' imports already imported);
//   plain:    boot Pyodide from scratch (webtf is imported when the page's Python first needs it).
// The snapshot path is taken when the build made a snapshot, the page's URL has no ?snapshot=0 and the file is
// sound: its bytes match the build's sha256 (catches corrupted and truncated files) and its header names this
// Pyodide version and this webtf wheel (catches stale and mismatched ones). Otherwise the plain path runs,
// with a console warning saying why; Pyodide itself also refuses a snapshot of another build.
//
// The pages load this module early (an async module script) because importing it starts the downloads that
// Python's start waits for; startPython then takes them over.

export const SNAPSHOT_MAGIC = "webtfsnp";
// After a restore: the import system's directory caches predate site-packages' files (FileFinder rereads a
// folder whose mtime changed, but say so explicitly; importlib.invalidate_caches would import importlib.metadata),
// and the random module was seeded when the snapshot was made.
const RESTORED_PY = `
import random, sys
from importlib.machinery import FileFinder
for finder in sys.path_importer_cache.values():
    if isinstance(finder, FileFinder):
        finder.invalidate_caches()
random.seed()
`;
const here = (path) => new URL(path, document.baseURI).href;
// The downloads web/early.js started at navigation (build.py inlines it, with wheels/index.json, into the pages)
const early = globalThis.webtfEarly;

/** Fetch path (or take its fetch, started: undefined starts it), or fail naming it. */
async function fetchOk(path, started = fetch(here(path))) {
  const response = await started;
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response;
}

// Chrome keeps the snapshot gzip-encoded in its HTTP cache and inflates it again on every visit; this page's
// Cache Storage keeps the inflated file of the last boot from it instead (the page checks it all the same).
// localStorage (read synchronously) names the file kept there: opening Cache Storage takes 100-150 ms in a fresh
// profile, which a first visit then skips, starting the download at once (it is the boot's critical path).
// web/early.js reads the same key (SNAPSHOT_CACHE is spelled there too).
// (globalThis.caches: pages that are not a secure context have no Cache Storage.)
export const SNAPSHOT_CACHE = "webtf-snapshot";

function keptName() {
  try {
    return globalThis.localStorage?.getItem(SNAPSHOT_CACHE) ?? null;
  } catch {
    return null; // storage disabled: no copy is kept either
  }
}

/** The snapshot file: the copy in Cache Storage when one was kept, else the server's. */
export async function openSnapshot(file) {
  if (keptName() === file) {
    const cache = await globalThis.caches?.open(SNAPSHOT_CACHE).catch(() => undefined);
    const kept = await cache?.match(here(file));
    if (kept) return kept;
  }
  const started = early?.snapshot?.file === file ? early.snapshot.response : undefined;
  if (started) early.snapshot = null; // a response is read once
  return fetchOk(file, started);
}

/** Keep the snapshot file (checked, restored) in Cache Storage for the next visit, and only it. */
async function keepSnapshot(file, bytes) {
  const cache = await globalThis.caches.open(SNAPSHOT_CACHE);
  if (!(await cache.match(here(file)))) await cache.put(here(file), new Response(bytes));
  for (const request of await cache.keys()) if (request.url !== here(file)) await cache.delete(request);
  globalThis.localStorage?.setItem(SNAPSHOT_CACHE, file);
}

/** Forget the kept copy (a bad one is fetched again next time). */
function dropSnapshot() {
  try {
    globalThis.localStorage?.removeItem(SNAPSHOT_CACHE);
  } catch {}
  globalThis.caches?.delete(SNAPSHOT_CACHE).catch(() => {});
}

const wantSnapshot = new URLSearchParams(location.search).get("snapshot") !== "0";
const index = early
  ? Promise.resolve(globalThis.webtfIndex)
  : fetchOk("wheels/index.json").then((response) => response.json());
const downloads = {
  index,
  wheel: index
    .then((built) => fetchOk(`wheels/${built.wheel}`, early?.wheel))
    .then((response) => response.arrayBuffer()),
  snapshot: index.then((built) => (wantSnapshot && built.snapshot ? openSnapshot(built.snapshot.file) : null)),
};
for (const download of Object.values(downloads)) download.catch(() => {}); // awaited later, where they fail

/** The snapshot file's JSON header (identity and page layout, see tools/snapshot.mjs) and where its pages start. */
export function readSnapshotHeader(bytes) {
  const magic = new TextDecoder().decode(bytes.subarray(0, SNAPSHOT_MAGIC.length));
  if (bytes.length < 16 || magic !== SNAPSHOT_MAGIC) throw new Error("not a webtf snapshot (bad magic)");
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  if (12 + length > bytes.length) throw new Error("snapshot header is truncated");
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
  return { header, start: Math.ceil((12 + length) / 16) * 16 };
}

/**
 * Download the build's snapshot (entry of wheels/index.json; `response`: its fetch when already started) and check
 * it: its sha256 (corrupted or truncated files), then its header against what the plain path would load
 * (`expected`: {pyodide, wheel_sha256}).
 * Resolves to {header, pages, bytes} (pages for expandSnapshot, bytes: the file); rejects saying what is wrong.
 */
export async function fetchSnapshot(entry, expected, response = fetchOk(entry.file)) {
  const bytes = new Uint8Array(await (await response).arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); // off the main thread
  const sha256 = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  if (sha256 !== entry.sha256) {
    throw new Error(`${entry.file} is corrupted or truncated (${bytes.length} bytes, sha256 ${sha256.slice(0, 12)}...)`);
  }
  const { header, start } = readSnapshotHeader(bytes);
  for (const [name, value] of Object.entries(expected)) {
    if (header[name] !== value) {
      throw new Error(`snapshot was made for ${name} ${header[name]}, this page loads ${value}`);
    }
  }
  return { header, pages: bytes.subarray(start), bytes };
}

/** Write a fetched snapshot's pages into Pyodide's memory (zeros elsewhere: the file leaves zero pages out). */
export function expandSnapshot({ header, pages }, memory) {
  if (header.memory !== memory.length) throw new Error(`snapshot of ${header.memory} bytes, not ${memory.length}`);
  let offset = 0;
  for (const [first, count] of header.runs) {
    const length = Math.min(count * header.page, memory.length - first * header.page);
    memory.set(pages.subarray(offset, offset + length), first * header.page);
    offset += length;
  }
}

/** Write the files of a wheel whose entries are stored uncompressed (build.py makes it so) under folder; pyodide:
 * anything with Pyodide's FS (the instance, or {FS} in fsInit). */
export function unpackStoredWheel(pyodide, bytes, folder) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22; // the end-of-central-directory record (no archive comment)
  if (end < 0 || view.getUint32(end, true) !== 0x06054b50) throw new Error("wheel: no zip directory at its end");
  const decoder = new TextDecoder();
  let entry = view.getUint32(end + 16, true);
  const made = new Set(); // folders made already: a mkdirTree per file was most of the unpacking's time
  for (let i = view.getUint16(end + 10, true); i > 0; i--) {
    if (view.getUint32(entry, true) !== 0x02014b50) throw new Error("wheel: bad zip directory entry");
    const nameLength = view.getUint16(entry + 28, true);
    const name = decoder.decode(bytes.subarray(entry + 46, entry + 46 + nameLength));
    if (view.getUint16(entry + 10, true) !== 0) throw new Error(`wheel: ${name} is compressed, not stored`);
    const local = view.getUint32(entry + 42, true);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const path = `${folder}/${name}`;
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(dir)) {
      pyodide.FS.mkdirTree(dir);
      made.add(dir);
    }
    // canOwn: the file's contents are this slice of the wheel's buffer, not a copy (nothing else writes to it)
    pyodide.FS.writeFile(path, bytes.subarray(start, start + view.getUint32(entry + 24, true)), { canOwn: true });
    entry += 46 + nameLength + view.getUint16(entry + 30, true) + view.getUint16(entry + 32, true);
  }
}

/**
 * Start Pyodide with webtf in site-packages; onPhase(text) reports progress. Resolves to
 * {pyodide, path: "snapshot" | "plain", note}: note says which path ran and why.
 */
export async function startPython({ onPhase = () => {} } = {}) {
  onPhase("downloading Pyodide");
  const [{ loadPyodide, version }, index] = await Promise.all([
    import(here("pyodide/pyodide.mjs")),
    downloads.index,
  ]);
  const options = {
    indexURL: here("pyodide/"),
    // webtf's files go into site-packages before Python starts (Pyodide awaits fsInit once its wasm is compiled):
    // on the snapshot path while the snapshot still downloads, off the critical path
    fsInit: async (fs, info) => {
      unpackStoredWheel({ FS: fs }, new Uint8Array(await downloads.wheel), info.sitePackages);
    },
  };

  let pyodide = null;
  let note;
  if (!wantSnapshot) note = "plain boot (?snapshot=0)";
  else if (!index.snapshot) note = "plain boot (this build has no snapshot)";
  else {
    onPhase("starting Python (snapshot)");
    // Pyodide sizes its memory from the snapshot before it compiles its wasm, and restores the bytes only once
    // that is done: hand it a buffer of the right size now and fill it while the wasm compiles (fsInit runs
    // after compiling and Pyodide waits for it), so that the download and the compile overlap.
    const memory = new Uint8Array(index.snapshot.memory);
    const expected = { pyodide: version, wheel_sha256: index.sha256 };
    const snapshot = fetchSnapshot(index.snapshot, expected, downloads.snapshot);
    snapshot.catch(() => {}); // awaited in fill: not an unhandled rejection meanwhile
    let failure = null;
    const fill = async (fs, info) => {
      await options.fsInit(fs, info);
      try {
        expandSnapshot(await snapshot, memory);
      } catch (error) {
        failure = error; // the buffer stays zeros: Pyodide refuses it (no magic number), the catch below reports
      }
    };
    try {
      pyodide = await loadPyodide({ ...options, fsInit: fill, _loadSnapshot: memory });
      note = `booted from snapshot ${index.snapshot.file}`;
      snapshot.then(({ bytes }) => keepSnapshot(index.snapshot.file, bytes)).catch(() => {}); // in the background
    } catch (error) {
      note = `snapshot ${index.snapshot.file} not used (${(failure ?? error)?.message}): plain boot`;
      console.warn(`[webtf] ${note}`);
      dropSnapshot();
    }
  }
  const path = pyodide ? "snapshot" : "plain";
  if (!pyodide) {
    onPhase("starting Python");
    pyodide = await loadPyodide(options);
  }
  onPhase("importing webtf");
  if (path === "snapshot") pyodide.runPython(RESTORED_PY);
  pyodide.runPython("import webtf"); // the plain path's import; a no-op after a restore
  console.log(`[webtf] ${note}`);
  return { pyodide, path, note };
}
