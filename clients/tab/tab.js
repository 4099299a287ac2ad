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

// Joining a game: the invite (typed, or from a link `#invite=...`), the seats while the lobby
// fills (lobby_state), then the table page of the joined game (kept in the tab's store, so the
// table page resumes it: table.html#game=ID). A turn-based table's invite takes the seat by
// mail instead: the page says so, and Your games shows where its lobby stands until the game
// starts. Your games lists the stored games and those lobbies.
const tableUrl = async (gameId) => `${(await loaded).manifest.files["table.html"].path}#game=${gameId}`;
const invited = new URLSearchParams(location.hash.slice(1)).get("invite");
if (invited) $("join-invite").value = invited;
$("join-name").value = localStorage.getItem("caravan.name") || "";

function joinStatus(text, good) {
  $("join-status").textContent = text.replace(/^lobby_join: /, "");
  $("join-status").className = good ? "good" : "bad";
}

function showSeats({ seats, title, players }) {
  const list = $("join-seats");
  list.hidden = !seats.length;
  list.replaceChildren(...seats.map((s) => {
    const li = document.createElement("li");
    li.textContent = s.you ? `${s.name || "you"} (you)` : s.taken ? s.name || "taken" : "free";
    li.className = s.you ? "you" : s.taken ? "" : "free";
    return li;
  }));
  if (seats.length) {
    const free = seats.filter((s) => !s.taken).length;
    joinStatus(`Seated at ${title} for ${players} players: ${free ? `waiting for ${free} more` : "everyone is here, signing the start"}…`, true);
  }
}

// A turn-based table (its lobby by mail, tab_mail_lobby.py in the worker): where it stands,
// in words a friend reads on a phone.
const whose = (lobby) => (lobby.host ? `${lobby.host}'s` : "the host's");
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function lobbyText(lobby) {
  if (lobby.error) return lobby.error;
  const seat = lobby.seat === null ? "" : `You have seat ${lobby.seat}. `;
  const seats = lobby.seated === null ? "" : ` ${lobby.seated} of ${lobby.players} seats taken at the host's last run.`;
  if (lobby.refused) return capital(`${whose(lobby)} turn-based ${lobby.title} table: ${lobby.refused}.`);
  return capital(`${whose(lobby)} turn-based ${lobby.title} table (${lobby.per_move} per move).${seats} ${seat}` +
    `Waiting for ${lobby.waiting}.${lobby.note ? ` ${lobby.note}.` : ""}`);
}

function joinedByMail(lobby) {
  return `You asked for a seat at ${whose(lobby)} turn-based ${lobby.title} table (${lobby.per_move} per move): ` +
    "the host's node gives you your seat when it next runs. The game starts once everyone has joined and the " +
    "host's node has run again; keep this page, or open it again later.";
}

async function showGames() {
  const [{ games }, { lobbies }] = await Promise.all([window.caravanTab.call("games_list"),
                                                       window.caravanTab.call("mail_lobbies")]);
  $("games-none").hidden = games.length + lobbies.length > 0;
  const pending = lobbies.map((lobby) => {
    const li = document.createElement("li");
    li.className = "lobby";
    li.dataset.lobby = lobby.lobby_id;
    li.textContent = lobbyText(lobby);
    return li;
  });
  $("games").replaceChildren(...pending, ...await Promise.all(games.map(async (g) => {
    const li = document.createElement("li");
    if (g.error) { li.textContent = g.error; return li; }
    const a = document.createElement("a");
    a.href = await tableUrl(g.game_id);
    // one name per player, "seat N" for a player who gave none; the pace of a turn-based table
    const names = g.names.map((n, i) => (n || `seat ${i}`) + (i === g.seat ? " (you)" : ""));
    a.textContent = `${g.title}${g.pace ? ` (${g.pace})` : ""}: ${names.join(", ")}`;
    li.append(a, ` (${g.messages} messages)`);
    return li;
  })));
  return lobbies.filter((lobby) => !lobby.error && !lobby.refused && !lobby.started);
}

// While the page is open, each pending turn-based lobby runs every few seconds (what waited on
// the broker is taken, the start is signed, the game kept), for at most an hour: a phone left
// open does not poll forever.
const LOBBY_EVERY_MS = 5000, LOBBY_RUNS_FOR_MS = 3600 * 1000;
let lobbyRunner = null;

async function runLobbies(until) {
  let pending = await showGames();
  while (pending.length && Date.now() < until) {
    for (const lobby of pending) {
      try {
        const run = await window.caravanTab.call("mail_lobby_run", asJson({ lobby_id: lobby.lobby_id }));
        $("games-status").textContent = run.unconfirmed ? `${lobby.title}: ${run.unconfirmed}.` : "";
      } catch (error) {
        $("games-status").textContent = `Checking a turn-based table failed: ${error.message.replace(/^mail_lobby_run: /, "")}`;
      }
    }
    pending = await showGames();
    if (pending.length) await new Promise((resolve) => setTimeout(resolve, LOBBY_EVERY_MS));
  }
  if (pending.length) $("games-status").textContent = "Stopped checking the turn-based tables after an hour: reload the page to check again.";
}

function keepLobbiesRunning() {
  if (lobbyRunner) return;
  lobbyRunner = runLobbies(Date.now() + LOBBY_RUNS_FOR_MS)
    .catch((error) => { $("games-status").textContent = error.message; })
    .finally(() => { lobbyRunner = null; });
}

ready.then(() => {
  $("join").disabled = false;
  keepLobbiesRunning();
}, () => {});

$("join").addEventListener("click", async () => {
  const invite = $("join-invite").value.trim();
  if (!invite) return joinStatus("Paste the invite first.", false);
  const name = $("join-name").value.trim();
  localStorage.setItem("caravan.name", name);
  $("join").disabled = true;
  joinStatus("Asking the host…", true);
  const poll = setInterval(() => window.caravanTab.call("lobby_state").then((s) => s.joining && showSeats(s), () => {}), 500);
  try {
    const joined = await window.caravanTab.call("lobby_join", asJson({ invite, name }));
    if (joined.by_mail) {                        // a turn-based table: the seat is taken by mail
      joinStatus(joinedByMail(joined), true);
      $("join").disabled = false;
      keepLobbiesRunning();
      return;
    }
    joinStatus(`The game starts: you are seat ${joined.seat} of ${joined.players}. Opening the table…`, true);
    location.href = await tableUrl(joined.game_id);
  } catch (error) {
    joinStatus(error.message, false);
    $("join").disabled = false;
  } finally {
    clearInterval(poll);
  }
});

// Hosting a game: the broker (remembered), the game of this bundle (games_offered), the players,
// a preset or the game's default options, the time limit per move (live, 300 s as a desktop
// host's default), your name; "Open the table" opens the lobby with this
// tab's key (lobby_host), shows the invite (copy, share link `#invite=...` as a friend opens it)
// and the seats as they fill (lobby_state), then the table page of the game once all signed.
let offered = [];                 // games_offered: {game, title, min, max, defaults, presets}
let optionsEdited = false;        // typed in by hand: a change of players keeps them
$("host-url").value = localStorage.getItem("caravan.broker") || "";
$("host-name").value = localStorage.getItem("caravan.name") || "";

function hostStatus(text, good) {
  $("host-status").textContent = text.replace(/^(lobby_host|lobby_state|games_offered): /, "");
  $("host-status").className = good ? "good" : "bad";
}

const option = (value, text) => Object.assign(document.createElement("option"), { value, textContent: text });
const chosenGame = () => offered.find((g) => g.game === $("host-game").value);

function fillOptions() {
  const g = chosenGame();
  if (!g) return;
  const preset = g.presets[Number($("host-preset").value)];
  const options = { ...g.defaults[$("host-players").value], ...($("host-preset").value && preset ? preset.options : {}) };
  $("host-options").value = JSON.stringify(options, null, 1);
  optionsEdited = false;
}

function chooseGame() {
  const g = chosenGame();
  if (!g) return;
  const players = [];
  for (let n = g.min; n <= g.max; n++) players.push(option(String(n), String(n)));
  $("host-players").replaceChildren(...players);
  $("host-preset-row").hidden = g.presets.length === 0;
  $("host-preset").replaceChildren(option("", "The default options"), ...g.presets.map((p, i) => option(String(i), p.name)));
  fillOptions();
}

async function showOffered() {
  ({ games: offered } = await window.caravanTab.call("games_offered"));
  offered = offered.filter((g) => !g.error);
  $("host-game").replaceChildren(...offered.map((g) => option(g.game, g.title)));
  chooseGame();
  $("host").disabled = offered.length === 0;
}

ready.then(() => showOffered().catch((error) => hostStatus(error.message, false)), () => {});
$("host-game").addEventListener("change", chooseGame);
$("host-preset").addEventListener("change", fillOptions);
$("host-players").addEventListener("change", () => { if (!optionsEdited) fillOptions(); });
$("host-options").addEventListener("input", () => { optionsEdited = true; });

const shareLink = (invite) => `${location.origin}${location.pathname}#invite=${encodeURIComponent(invite)}`;

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {                                      // (no clipboard API here: a selection's copy)
    const area = Object.assign(document.createElement("textarea"), { value: text });
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

let hostedTitle = "";             // the game the lobby is for, as lobby_host said

function showHostSeats({ seats, players, state, error }) {
  $("host-seats").replaceChildren(...seats.map((s) => {
    const li = document.createElement("li");
    li.textContent = s.you ? `${s.name || "you"} (you)` : s.taken ? s.name || "taken" : "free";
    li.className = s.you ? "you" : s.taken ? "" : "free";
    return li;
  }));
  const free = seats.filter((s) => !s.taken).length;
  if (state === "failed") hostStatus(`The lobby failed: ${error}`, false);
  else if (state === "hosting") hostStatus(`Hosting ${hostedTitle} for ${players} players: waiting for ${free} more…`, true);
  else hostStatus("Everyone is here: signing the start…", true);
}

// The form while a lobby opens (disabled), while it is open (hidden: the invite and seats take
// its place) and once it failed (usable again).
function hostForm(disabled, hidden = false) {
  $("host-form").hidden = hidden;
  for (const id of ["host-url", "host-game", "host-players", "host-preset", "host-options", "host-time-limit", "host-name", "host"]) {
    $(id).disabled = disabled;
  }
}

async function watchLobby() {
  for (;;) {
    const state = await window.caravanTab.call("lobby_state");
    if (!state.hosting) throw new Error("the lobby is gone");
    showHostSeats(state);
    if (state.state === "started") {
      hostStatus("Every seat signed: the game starts. Opening the table…", true);
      location.href = await tableUrl(state.game_id);
      return;
    }
    if (state.state === "failed") return hostForm(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

$("host-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const url = $("host-url").value.trim(), name = $("host-name").value.trim();
  if (!url) return hostStatus("Type the broker's address first (ws://… or wss://…).", false);
  let options;
  try {
    options = JSON.parse($("host-options").value || "{}");
  } catch (error) {
    return hostStatus(`The options are not JSON: ${error.message}`, false);
  }
  localStorage.setItem("caravan.broker", url);
  localStorage.setItem("caravan.name", name);
  hostForm(true);
  hostStatus(`Opening the table through ${url}…`, true);
  try {
    const args = { url, game: $("host-game").value, players: Number($("host-players").value), options, name,
                   time_limit: Number($("host-time-limit").value) };
    const hosted = await window.caravanTab.call("lobby_host", asJson(args));
    $("host-invite").value = hosted.invite;
    $("host-link").href = shareLink(hosted.invite);
    $("host-lobby").hidden = false;
    hostedTitle = hosted.title;
    hostForm(true, true);
    await watchLobby();
  } catch (error) {
    hostStatus(error.message, false);
    hostForm(false);
  }
});

$("host-copy").addEventListener("click", async () => {
  await copy($("host-invite").value);
  $("host-copy").textContent = "Copied";
  setTimeout(() => { $("host-copy").textContent = "Copy"; }, 2000);
});

$("host-share").addEventListener("click", async () => {
  const url = $("host-link").href;
  if (navigator.share) {
    try {
      return await navigator.share({ title: "Caravan", text: "Join my game of Caravan", url });
    } catch (error) {
      if (error.name === "AbortError") return;     // the player closed the share sheet
    }
  }
  await copy(url);
  $("host-share").textContent = "Link copied";
  setTimeout(() => { $("host-share").textContent = "Share the link"; }, 2000);
});
