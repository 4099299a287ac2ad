// The table page in the tab (issue 32): the desktop table page (clients/web/app.js, its markup
// and style) fed by this tab's worker instead of a node's WebSocket. Python starts as on the
// tab's first page (python.js); app.js and games.js are fetched checked against the manifest
// and run from blobs, app.js given `window.caravanSocket`: a WebSocket-like object whose lines
// come from the worker (tab_table.py pushes them as the seat advances) and whose sends go to
// it. `window.caravanTab` is the way in for the page's tests, as on the tab's first page.
// Opened as `table.html#game=ID` it resumes that stored game with its seat decided here.

const { fetchChecked, loadManifest, start } = window.caravanPython;   // python.js
const lines = (window.caravanTableLines = []);                       // every line shown (tests)

const loaded = loadManifest();
const ready = loaded.then(start);
window.caravanTab = {
  ready,
  async call(op, data) { return (await ready).call(op, data); },
};

// The game this page plays (`#game=ID`, as the tab's first page links it): resumed from the
// tab's store (IndexedDB), so a reload or a phone that dropped the page goes on where it was.
const game = new URLSearchParams(location.hash.slice(1)).get("game");
window.addEventListener("hashchange", () => location.reload());   // another game's link: that game's page

// What app.js takes for its WebSocket (readyState, onopen, onmessage, onclose, send).
class WorkerSocket {
  constructor() {
    this.readyState = 0;
    this.onopen = this.onmessage = this.onclose = null;
    ready.then(async (python) => {
      this.python = python;
      // a line pushed before the page's snapshot is in the snapshot: only later ones are new
      python.onPage((text) => { if (this.readyState === 1) this.deliver(text); });
      if (game) {            // table.html#game=ID: this tab's stored game, its seat decided here
        const asked = { game_id: game, seed: 0, decider: "page" };
        await python.call("game_resume", new TextEncoder().encode(JSON.stringify(asked)));
      }
      const { lines: snapshot } = await python.call("table_open");
      this.readyState = 1;
      if (this.onopen) this.onopen();
      for (const line of snapshot) this.deliver(JSON.stringify(line));
    }).catch((error) => this.fail(error));
  }

  deliver(text) {
    lines.push(JSON.parse(text));
    if (this.onmessage) this.onmessage({ data: text });
  }

  send(text) {
    this.python.call("table_act", new TextEncoder().encode(text)).then(
      ({ lines: answer }) => answer.forEach((line) => this.deliver(JSON.stringify(line))),
      (error) => this.deliver(JSON.stringify({ type: "error", message: error.message })));
  }

  fail(error) {
    this.readyState = 3;
    const conn = document.getElementById("conn");
    if (this.onclose) this.onclose({ code: 4403 });     // app.js: no retry
    if (conn) conn.textContent = `Refused: ${error.message.replace(/^[a-z_]+: /, "")}`;   // the refusal, not the op
  }
}

let socket = null;
window.caravanSocket = () => (socket = socket || new WorkerSocket());   // one worker, one socket

// A module of the bundle from a blob, its `./NAME` imports pointed at the blobs of `imports`.
async function importChecked(manifest, name, imports = {}) {
  let text = new TextDecoder().decode(await fetchChecked(manifest, name));
  for (const [other, url] of Object.entries(imports)) text = text.replaceAll(`"./${other}"`, `"${url}"`);
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  await import(url);
  return url;
}

loaded.then(async ({ manifest }) => {
  const games = await importChecked(manifest, "games.js");
  await importChecked(manifest, "app.js", { "games.js": games });
}).catch((error) => {
  const conn = document.getElementById("conn");
  if (conn) conn.textContent = `Refused: ${error.message}`;
});
