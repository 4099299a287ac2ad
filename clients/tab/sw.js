// The tab's service worker (issue 32): the installable, offline tab. Registered by the page as
// `sw.<hash>.js?bundle=<the bundle hash the page showed>`, it copies exactly the files of that
// bundle's manifest into a cache of its own, each refused unless its SHA-256 is the manifest's
// (as the Python worker checks them), and then serves them when the network cannot: the page,
// its manifest and the files named by content hash. A new bundle is a new registration, which
// replaces this one and its cache. The page and the worker still check every file they load.

const bundle = new URL(self.location.href).searchParams.get("bundle");
const PREFIX = "caravan-tab-";
const CACHE = PREFIX + bundle;
const scope = self.registration.scope;

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// The bytes of `path` from the network (or the browser's HTTP cache, where the page's own
// loads just put them) with its response headers, refused unless their SHA-256 is `sha256`.
async function fetchChecked(path, sha256, cache = "default") {
  const response = await fetch(new URL(path, scope), { cache });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const got = hex(await crypto.subtle.digest("SHA-256", bytes));
  if (got !== sha256) throw new Error(`${path} was tampered with: its SHA-256 is ${got}, the manifest says ${sha256}`);
  return new Response(bytes, { headers: response.headers });
}

async function copyBundle() {
  const raw = await fetchChecked("manifest.json", bundle, "no-cache");   // the page showed this manifest's hash
  const manifest = JSON.parse(new TextDecoder().decode(await raw.clone().arrayBuffer()));
  const cache = await caches.open(CACHE);
  for (const entry of Object.values(manifest.files)) {
    const response = await fetchChecked(entry.path, entry.sha256);
    if (entry.path === "index.html") await cache.put(scope, response.clone());
    await cache.put(new URL(entry.path, scope).href, response);
  }
  await cache.put(new URL("manifest.json", scope).href, raw);
}

// A refusal is told to the pages (an install failure is otherwise silent).
async function tell(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true, type: "window" })) {
    client.postMessage(message);
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(copyBundle().then(() => self.skipWaiting(), async (error) => {
    await caches.delete(CACHE);
    await tell({ type: "offline-refused", error: String(error && error.message || error) });
    throw error;
  }));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// The page and the manifest: the network first (a newer bundle wins), this copy when it
// cannot answer. The other files are named by their content: this copy first.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || !url.href.startsWith(scope)) return;
  const key = url.origin + url.pathname;
  const cache = caches.open(CACHE);
  const copy = () => cache.then((c) => c.match(key));
  const page = event.request.mode === "navigate" || key === new URL("manifest.json", scope).href;
  event.respondWith(page
    ? fetch(event.request).catch(async (error) => (await copy()) || Promise.reject(error))
    : copy().then((hit) => hit || fetch(event.request)));
});
