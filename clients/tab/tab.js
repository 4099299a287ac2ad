// The tab's page (issue 32): checks the bundle's manifest, shows its hash, starts Python in
// a Web Worker (never on this thread) from a worker script checked against the manifest, and
// talks to it with small messages: python.js, loaded before this script, does these three.
// `window.caravanTab.call(op, bytes)` is the page's (and the tests') way in.

const { base, fetchChecked, loadManifest, start } = window.caravanPython;   // python.js: how a page starts Python
const $ = (id) => document.getElementById(id);

// The offline copy: this bundle's service worker (sw.js) keeps every file of the manifest,
// checked, once it is installed and active. Resolves when it is; rejects with its refusal.
async function keepOffline({ bundleHash, manifest }) {
  if (!("serviceWorker" in navigator)) throw new Error("this browser has no service workers");
  const refused = new Promise((_, reject) => navigator.serviceWorker.addEventListener("message", ({ data }) => {
    if (data && data.type === "offline-refused") reject(new Error(data.error));
  }));
  const script = new URL(`${manifest.files["sw.js"].path}?bundle=${bundleHash}`, base).href;
  let registration = await navigator.serviceWorker.getRegistration(base);
  if (!registration || !registration.active || registration.active.scriptURL !== script) {   // (offline: kept as is)
    await fetchChecked(manifest, "sw.js");      // the script the browser is about to run is this bundle's
    registration = await navigator.serviceWorker.register(script, { scope: "./", updateViaCache: "none" });
  }
  const worker = registration.installing || registration.waiting || registration.active;
  const activated = new Promise((resolve, reject) => {
    const settle = () => {
      if (worker.state === "activated") resolve(bundleHash);
      if (worker.state === "redundant") refused.then(null, reject);
    };
    worker.addEventListener("statechange", settle);
    settle();
  });
  return Promise.race([activated, refused]);
}

function showChecks(result) {
  const list = $("selftest-results");
  list.replaceChildren(...result.checks.map((c) => {
    const li = document.createElement("li");
    li.className = c.ok ? "pass" : "fail";
    li.textContent = `${c.ok ? "✓" : "✗"} ${c.name}${c.ok ? "" : `: ${c.error}`}`;
    return li;
  }));
}

const loaded = loadManifest();
const ready = loaded.then(start);
const offline = loaded.then(keepOffline);
window.caravanTab = {
  ready,
  offline,
  async call(op, data) { return (await ready).call(op, data); },
};

ready.then(({ info, loadMs }) => {
  $("status").textContent = `Python ${info.python} is ready in a worker (${(loadMs / 1000).toFixed(1)} s).`;
  $("selftest").disabled = false;
  $("transcript").disabled = false;
}, (error) => {
  $("status").textContent = `Refused: ${error.message}`;
  $("status").className = "bad";
});

offline.then(() => {
  $("offline").textContent = "Kept for offline use: this page opens without a network, and can be added to the home screen.";
}, (error) => {
  $("offline").textContent = `No offline copy: ${error.message}`;
});

$("selftest").addEventListener("click", async () => {
  $("selftest").disabled = true;
  try {
    showChecks(await window.caravanTab.call("selftest"));
  } catch (error) {
    $("selftest-results").textContent = error.message;
  } finally {
    $("selftest").disabled = false;
  }
});

$("transcript").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  $("verdict").textContent = "Checking…";
  try {
    const { report } = await window.caravanTab.call("verify", new Uint8Array(await file.arrayBuffer()));
    const e = report.error;
    $("verdict").textContent = report.valid && report.complete ? `VALID: ${report.game}, ${report.messages} messages`
      : `${report.valid ? "UNFINISHED" : "INVALID"}: ${e ? `${e.code}: ${e.reason}` : ""}`;
    $("verdict").className = report.valid && report.complete ? "good" : "bad";
  } catch (error) {
    $("verdict").textContent = error.message;
  }
});

// The tab's key (tab_store.py in the worker): its fingerprint, an encrypted backup to download,
// and a restore. The page never holds the key itself: only its fingerprint and the backup file.
const asJson = (args) => new TextEncoder().encode(JSON.stringify(args));

function showKey(fingerprint) {
  $("key-fingerprint").textContent = fingerprint;
  $("backup-make").disabled = false;
  $("restore").disabled = false;
}

function keyStatus(text, good) {
  $("key-status").textContent = text.replace(/^(identity|backup_make|backup_restore): /, "");   // the refusal, not the op
  $("key-status").className = good ? "good" : "bad";
}

ready.then(async () => {
  try {
    showKey((await window.caravanTab.call("identity")).fingerprint);
  } catch (error) {
    keyStatus(error.message, false);
  }
}, () => {});

$("backup-make").addEventListener("click", async () => {
  $("backup-make").disabled = true;
  keyStatus("Encrypting…", true);
  try {
    const backup = await window.caravanTab.call("backup_make", asJson({ passphrase: $("backup-passphrase").value }));
    const link = $("backup-link");
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([backup.file], { type: "application/json" }));
    link.download = backup.name;
    link.hidden = false;
    keyStatus(`Backup of ${backup.fingerprint} ready: download it and keep the passphrase apart.`, true);
  } catch (error) {
    keyStatus(error.message, false);
  } finally {
    $("backup-make").disabled = false;
  }
});

$("restore").addEventListener("click", async () => {
  const file = $("backup-file").files[0];
  if (!file) return keyStatus("Choose the backup file first.", false);
  $("restore").disabled = true;
  keyStatus("Opening the backup…", true);
  try {
    const args = { file: await file.text(), passphrase: $("restore-passphrase").value, replace: $("restore-replace").checked };
    const restored = await window.caravanTab.call("backup_restore", asJson(args));
    showKey(restored.fingerprint);
    keyStatus(`Restored: this tab's key is ${restored.fingerprint}.`, true);
  } catch (error) {
    keyStatus(error.message, false);
  } finally {
    $("restore").disabled = false;
    $("restore-passphrase").value = "";
  }
});
