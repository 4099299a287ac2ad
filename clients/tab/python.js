// The one way a page of the tab starts its Python (issue 32): the bundle's manifest (its hash
// shown), the worker script checked against it, and small messages to the worker. Loaded with
// its subresource-integrity hash before the page's own script (tab.js, table.js), which finds
// it as `window.caravanPython`.
//
// Worker messages: {id, op, data} out; {id, result} or {id, error} back; and {page: text},
// a line the worker pushes unasked (the table page's, tab_table.py), to `onPage` listeners.

const base = new URL(".", location.href).href;

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(buffer) {
  return hex(await crypto.subtle.digest("SHA-256", buffer));
}

// A bundle file's bytes, refused unless their SHA-256 is the manifest's.
async function fetchChecked(manifest, name) {
  const entry = manifest.files[name];
  if (!entry) throw new Error(`${name} is not in the manifest`);
  const response = await fetch(new URL(entry.path, base));
  if (!response.ok) throw new Error(`${entry.path}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const got = await sha256(bytes);
  if (got !== entry.sha256) throw new Error(`${entry.path} was tampered with: its SHA-256 is ${got}, the manifest says ${entry.sha256}`);
  return bytes;
}

// The bundle's manifest and its hash (shown in `#bundle-hash` when the page has one).
async function loadManifest() {
  const response = await fetch("manifest.json", { cache: "no-store" });
  if (!response.ok) throw new Error(`manifest.json: HTTP ${response.status}`);
  const raw = await response.arrayBuffer();
  const bundleHash = await sha256(raw);
  const shown = document.getElementById("bundle-hash");
  if (shown) shown.textContent = bundleHash;
  return { bundleHash, manifest: JSON.parse(new TextDecoder().decode(raw)) };
}

// Python in its worker, from a worker script checked against the manifest: {bundleHash, call,
// onPage, info (the init's answer), loadMs}.
async function start({ bundleHash, manifest }) {
  const script = await fetchChecked(manifest, "worker.js");
  const url = URL.createObjectURL(new Blob([script], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module", name: "caravan-python" });
  const waiting = new Map();
  const listeners = [];
  let next = 0;
  worker.onmessage = ({ data }) => {
    if (data.page !== undefined) {
      for (const listener of listeners) listener(data.page);
      return;
    }
    const pending = waiting.get(data.id);
    if (!pending) return;
    waiting.delete(data.id);
    data.error ? pending.reject(new Error(data.error)) : pending.resolve(data.result);
  };
  worker.onerror = (event) => {
    const error = new Error(`the worker failed: ${event.message || "unknown error"}`);
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  const call = (op, data) => new Promise((resolve, reject) => {
    const id = ++next;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, data });
  });
  const onPage = (listener) => listeners.push(listener);
  const started = performance.now();
  const info = await call("init", { base, manifest });
  return { bundleHash, call, onPage, info, loadMs: performance.now() - started };
}

window.caravanPython = { base, sha256, fetchChecked, loadManifest, start };
