// The tab's Python, in a Web Worker (issue 32): Pyodide runs protocol/ here, never on the
// page's thread. Every file it loads is fetched from the bundle's own origin and refused
// unless its SHA-256 is the manifest's: Pyodide's own fetches (the wasm, the standard library)
// go through the same checked fetch, and a URL not in the manifest is refused outright.
// Messages: {id, op, data} in, {id, result} or {id, error} out; the first op is "init". And
// {page: text} out unasked: a line of the table page (tab_table.py), as the seat advances.

let base = null;
let manifest = null;
let byUrl = null;          // absolute URL of a logical name -> its manifest entry
let python = null;         // tab_worker.handle once loaded
let pythonAsync = null;    // tab_worker.handle_async: the ops that wait (broker, relay link)
let asyncOps = new Set();
const nativeFetch = globalThis.fetch.bind(globalThis);

const TYPES = { wasm: "application/wasm", mjs: "text/javascript", js: "text/javascript", json: "application/json" };

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function checked(name) {
  const entry = manifest.files[name];
  if (!entry) throw new Error(`${name} is not in the manifest`);
  const response = await nativeFetch(new URL(entry.path, base));
  if (!response.ok) throw new Error(`${entry.path}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const got = hex(await crypto.subtle.digest("SHA-256", bytes));
  if (got !== entry.sha256) throw new Error(`${entry.path} was tampered with: its SHA-256 is ${got}, the manifest says ${entry.sha256}`);
  return bytes;
}

// Each file is fetched and checked once, all at the start: a tampered one stops the start
// before any of it runs (Pyodide would only log a wasm it cannot instantiate, and hang).
const fetched = new Map();
function checkedOnce(name) {
  if (!fetched.has(name)) fetched.set(name, checked(name));
  return fetched.get(name);
}

// fetch() for everything running in this worker: only the manifest's files, checked.
async function checkedFetch(input, init) {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url, base).href;
  const name = byUrl.get(url);
  if (name === undefined) throw new TypeError(`refused to fetch ${url}: not a file of this bundle`);
  const bytes = (await checkedOnce(name)).slice(0);
  const type = TYPES[name.split(".").pop()] || "application/octet-stream";
  return new Response(bytes, { status: 200, headers: { "Content-Type": type } });
}

async function importChecked(name, rewrite) {
  let bytes = await checkedOnce(name);
  if (rewrite) bytes = rewrite(new TextDecoder().decode(bytes));
  return import(URL.createObjectURL(new Blob([bytes], { type: "text/javascript" })));
}

async function init(data) {
  if (manifest) throw new Error("the worker is already initialised");
  base = data.base;
  manifest = data.manifest;
  byUrl = new Map(Object.keys(manifest.files).map((name) => [new URL(name, base).href, name]));
  globalThis.fetch = checkedFetch;
  const needed = [...Object.keys(manifest.files).filter((name) => /^(pyodide|libsodium|mqtt)\//.test(name)), "broker.js",
                  ...manifest.python.wheels, manifest.python.code];
  await Promise.all(needed.map(checkedOnce));
  // libsodium-wrappers imports "libsodium-sumo" by name: point it at the checked copy
  const core = URL.createObjectURL(new Blob([await checkedOnce("libsodium/libsodium-sumo.mjs")], { type: "text/javascript" }));
  const wrappers = await importChecked("libsodium/libsodium-wrappers.mjs",
    (text) => text.replaceAll(/from\s*"libsodium-sumo"/g, `from"${core}"`));
  const sodium = wrappers.default;
  await sodium.ready;
  const { loadPyodide } = await importChecked("pyodide/pyodide.mjs");
  const asm = await importChecked("pyodide/pyodide.asm.mjs");
  const pyodide = await loadPyodide({
    indexURL: new URL("pyodide/", base).href,
    lockFileContents: new TextDecoder().decode(await checkedOnce("pyodide/pyodide-lock.json")),
    packageBaseUrl: new URL("pyodide/", base).href,
    createPyodideModule: asm.default,
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
  });
  pyodide.registerJsModule("_caravan_sodium", sodium);
  pyodide.registerJsModule("_caravan_broker", await brokerModule());
  pyodide.registerJsModule("_caravan_store", await mountStore(pyodide));
  pyodide.registerJsModule("_caravan_page", { post: (text) => self.postMessage({ page: text }) });   // tab_table.py's lines
  for (const wheel of manifest.python.wheels) {
    pyodide.unpackArchive(await checkedOnce(wheel), "wheel");
  }
  const home = "/home/pyodide/caravan";
  pyodide.unpackArchive(await checkedOnce(manifest.python.code), "zip", { extractDir: home });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(home)})`);
  const tabWorker = pyodide.pyimport("tab_worker");
  python = tabWorker.handle;
  pythonAsync = tabWorker.handle_async;
  asyncOps = new Set(tabWorker.async_ops().toJs());
  fetched.clear();                   // about 14 MB a phone need not keep: all of it is loaded
  return JSON.parse(python("versions"));
}

// The tab's data folder (tab_store.py): Emscripten's IDBFS, loaded from this origin's
// IndexedDB before Python starts and written back by `sync()` (one write-back at a time).
// One tab of a browser at a time: two would each load the folder and write back over the
// other's (two fresh tabs would make two keys and keep one). So the worker holds a Web Lock
// on it for its life; a second tab waits a moment (a reload's old page is going away) and
// then works without the data, saying why (`busy`).
const DATA_DIR = "/caravan-data";
const DATA_LOCK = "caravan-tab-data";
const LOCK_WAIT_MS = 5000;

function holdDataLock() {
  if (!navigator.locks) return Promise.resolve(true);
  return new Promise((resolve) => {
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), LOCK_WAIT_MS);
    navigator.locks.request(DATA_LOCK, { signal: giveUp.signal }, () => {
      clearTimeout(timer);
      resolve(true);
      return new Promise(() => {});            // held until this worker ends
    }).catch(() => resolve(false));
  });
}

async function mountStore(pyodide) {
  if (!(await holdDataLock())) {
    const busy = "this tab's data (its key) is open in another tab of this browser: close that tab, then reload this one";
    return { dir: null, busy, sync: () => Promise.reject(new Error(busy)) };
  }
  const { FS } = pyodide;
  const syncfs = (populate) => new Promise((resolve, reject) =>
    FS.syncfs(populate, (error) => (error ? reject(new Error(`the tab's storage (IndexedDB) failed: ${error.message || error}`)) : resolve())));
  FS.mkdirTree(DATA_DIR);
  FS.mount(FS.filesystems.IDBFS, {}, DATA_DIR);
  await syncfs(true);
  let last = Promise.resolve();
  const sync = () => (last = last.then(() => syncfs(false), () => syncfs(false)));
  return { dir: DATA_DIR, busy: null, sync };
}

// mqtt.js and the tab's bridge to it (broker.js), both checked like every other file.
async function brokerModule() {
  const mqtt = (await importChecked("mqtt/mqtt.esm.js")).default;
  const { brokerModule: make } = await importChecked("broker.js");
  return make(mqtt);
}

// An op that waits: Python's future of its JSON answer, awaited here, then let go.
async function awaitPython(op, data) {
  const future = pythonAsync(op, data);
  try {
    return await future;
  } finally {
    future.destroy();
  }
}

async function run(op, data) {
  if (op === "init") return init(data);
  if (op === "resources") return performance.getEntriesByType("resource").map((e) => e.name);   // what it fetched
  if (!python) throw new Error("the worker is not initialised");
  const answer = JSON.parse(asyncOps.has(op) ? await awaitPython(op, data ?? null) : python(op, data ?? null));
  if (answer.error) throw new Error(answer.error);
  return answer;
}

let queue = Promise.resolve();
self.onmessage = ({ data: { id, op, data } }) => {
  const done = queue.then(() => run(op, data)).then(
    (result) => self.postMessage({ id, result }),
    (error) => self.postMessage({ id, error: String(error && error.message || error) }));
  if (!asyncOps.has(op)) queue = done;      // an op that waits (for the broker) holds up no other
};
