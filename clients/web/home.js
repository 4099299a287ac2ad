// Caravan's home: talks to this machine's own caravan process (node/home.py) under the page's
// token. Every name, option and invite is put in the page as text (never as markup).
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
/** A table page with the home's sound and theme settings (each table is its own origin, so
 * they travel in the fragment, which never reaches a server). */
function withPrefs(url) {
  const theme = {auto: "system"}[$("theme").value] || $("theme").value;
  return `${url}#sound=${$("sound").checked ? 1 : 0}&theme=${encodeURIComponent(theme)}`;
}
const $ = (id) => document.getElementById(id);
let catalog = [], current = null, shownGames = "";
const FINGERPRINT = /^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$/;     // protocol/identity.py's fingerprint()

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function showError(text) {
  $("error").textContent = text || "";
  $("error").hidden = !text;
}

async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify(body)};
  const r = await fetch(base + "api/" + path, opts);
  const data = await r.json().catch(() => ({error: `the home answered ${r.status}`}));
  if (!r.ok || data.error) throw new Error(data.error || `the home answered ${r.status}`);
  return data;
}

async function act(path, body) {
  try { showError(""); return await api(path, body); }
  catch (e) { showError(e.message); return null; }
}

// ------------------------------------------------------------------ your games
function ago(t) {
  const s = Math.max(0, Date.now() / 1000 - t);
  if (s < 90) return "just now";
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 129600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

function renderGames(list) {
  // the games where it is your move come first (newest first within each part)
  list = [...list].sort((a, b) => (b.state === "playing" && b.my_move) - (a.state === "playing" && a.my_move));
  // everything a row shows: a transcript that lands after the state changed brings Replay at once
  const key = JSON.stringify(list.map((g) => [g.game_id, g.state, g.detail, g.table && g.table.state,
                                               !!g.transcript, g.role, g.names, g.my_seat, g.my_move]));
  if (key === shownGames) return;
  shownGames = key;
  const body = $("game-list").tBodies[0];
  body.replaceChildren();
  $("no-games").hidden = list.length > 0;
  for (const g of list) {
    const row = el("tr", null, {"data-game": g.game_id});
    const what = el("td");
    what.append(el("strong", g.title), " ", el("span", g.state, {class: "state"}));
    if (g.state === "playing" && g.my_move) what.append(" ", el("span", "your move", {class: "your-move"}));
    // one name per player, as the table page says it: a player with no name is "seat N" (the
    // store gives its key's fingerprint then), never also a fingerprint or a process number
    const names = g.names.map((n, i) => FINGERPRINT.test(n) ? `seat ${i}` : n);
    const running = g.table && ["starting", "lobby", "playing"].includes(g.table.state);
    const who = (s) => names[s] + (s === g.my_seat ? " (you)" : "");
    const detail = g.state === "finished" && g.result && g.result.winners
      ? "won by " + g.result.winners.map(who).join(" and ")
      : g.detail.replace(/; continue with: .*/, "")
        .replace(/; running in process \d+/, running ? "" : "; open in another Caravan window")
        .replace(/seat (\d+)/g, (m, s) => names[s] || m);
    what.append(el("div", detail, {class: "muted"}));
    what.append(el("div", "players: " + names.map((n, i) => i === g.my_seat ? `${n} (you)` : n).join(", "),
                   {class: "muted"}));
    what.append(el("div", "last move " + ago(g.last), {class: "muted"}));
    const actions = el("td", null, {class: "actions"});
    if (g.state === "playing" && g.my_seat !== null) {
      const b = el("button", running ? "Open" : "Continue", {class: "continue primary"});
      b.onclick = () => running && g.table.url ? (location.href = withPrefs(g.table.url)) : resume(g);
      actions.append(b);
    }
    if (g.state === "finished" && g.my_seat !== null && g.role) {
      const b = el("button", "Play again", {class: "again"});
      b.onclick = () => playAgain(g.game_id, g.title);
      actions.append(b);
      if (g.role === "join") {          // a friend's seat: the host's new table may be declined
        const n = el("button", "Not this time", {class: "decline"});
        n.onclick = () => playAgain(g.game_id, g.title, true);
        actions.append(n);
      }
    }
    if (g.transcript) {
      actions.append(el("a", "Replay", {href: base + "replay/" + g.game_id, class: "replay"}));
      actions.append(el("a", "Transcript", {href: base + "transcript/" + g.game_id, class: "transcript",
                                            download: ""}));
    }
    if (!running) {
      const f = el("button", "Forget", {class: "forget"});
      f.onclick = async () => {
        if (!confirm("Move this game's folder to the trash folder?")) return;
        if (await act("forget", {game_id: g.game_id})) refresh();
      };
      actions.append(f);
    }
    row.append(what, actions);
    body.append(row);
  }
}

async function playAgain(gameId, title, decline = false) {
  const r = await act("rematch", {game_id: gameId, title, decline});
  if (r) follow(r.table);
}

async function resume(g) {
  const r = await act("continue", {game_id: g.game_id, title: g.title});
  if (r) follow(r.table);
}

// ------------------------------------------------------------------ the lobby of the table we follow
function follow(table) {
  current = table.key;
  renderLobby(table);
  $("lobby").scrollIntoView();
}

function renderLobby(t) {
  $("lobby").hidden = false;
  $("lobby-title").textContent = t.title;
  const states = {starting: "starting…", lobby: "waiting for every seat to be taken",
                  playing: "playing: the table opens", over: "over", paused: "paused", failed: "could not go on",
                  cancelled: t.hosted ? "cancelled: the lobby is closed, and whoever joined was told"
                    : "you left this table: the host has the seat free again"};
  const open = ["starting", "lobby"].includes(t.state);
  let said = states[t.state] || t.state;
  if (open && t.declined && t.declined.length)        // Play again: only the last game's players may sit
    said = `${t.declined.join(" and ")} declined to play again, so this table cannot fill: cancel it`;
  $("lobby-state").textContent = said + (t.error ? ": " + t.error : "");
  $("cancel").hidden = !((t.hosted || t.joined) && open);
  $("cancel").textContent = t.hosted ? "Cancel this table" : "Leave this table";
  $("cancel").dataset.key = t.key;
  $("invite-row").hidden = !t.invite || !open;
  $("invite").textContent = t.invite;
  // what a friend waiting here wants: the game and its options, then the seats; the node's own
  // lines (key fingerprints, ports, lobby ids, command lines) go under "for the command line"
  const lobby = open ? t.lobby : null;
  $("lobby-game").hidden = $("lobby-seats").hidden = !lobby;
  if (lobby) {
    const words = (v) => typeof v === "boolean" ? (v ? "yes" : "no")      // as the options form says them
      : Array.isArray(v) ? v.map(words).join("/") : typeof v === "string" ? v : JSON.stringify(v);
    const options = lobby.options.map(([k, v]) => `${k.replace(/_/g, " ")} ${words(v)}`);
    $("lobby-game").replaceChildren(`${lobby.players} players`,
                                    el("span", options.length ? ` · ${options.join(", ")}` : "", {class: "muted"}));
    if (lobby.pace)                                  // a turn-based table: its time per move
      $("lobby-game").append(el("div", lobby.pace, {class: "pace"}));
    if (!lobby.seats.length)                         // a lobby joined, before its host said who sits where
      $("lobby-game").append(el("div", `${lobby.seated} of ${lobby.players} seated when you joined, you included; ` +
                                       "the game starts when every seat is taken", {class: "muted"}));
    $("lobby-seats").hidden = !lobby.seats.length;
    $("lobby-seats").replaceChildren(...lobby.seats.map((s) => {
      const li = el("li", null, {"data-seat": s.seat, class: s.taken ? "taken" : "empty"});
      const kind = s.kind.endsWith(" bot") ? "bot" : s.kind;       // "search bot 2 (bot)", "Bea (friend)"
      const who = s.kind === "you" ? `${s.name} (you${lobby.hosted ? ", the host" : ""})`
        : s.kind === "host" ? (s.name ? `${s.name} (the host)` : "the host") : s.taken ? `${s.name} (${kind})` : `a ${s.kind}`;
      li.append(el("span", `seat ${s.seat}`, {class: "muted"}), " ", el("span", who), " ",
                el("span", s.taken ? "ready" : "empty: waiting", {class: s.taken ? "ready" : "waiting"}));
      return li;
    }));
  }
  $("cli-join").hidden = !t.invite || !open;
  $("cli-join-command").textContent = `caravan join ${t.invite}`;
  $("lobby-cli").hidden = !t.lines.length;
  if ($("lobby").dataset.shown !== t.key) {   // a new table: its lines open only when they are all it has
    $("lobby").dataset.shown = t.key;
    $("lobby-cli").open = !t.hosted && !t.joined;
  }
  $("lobby-lines").replaceChildren(...t.lines.map((l) => el("li", l)));
  const link = $("table-link");
  link.hidden = !t.url;
  if (t.url) link.href = withPrefs(t.url);
  if (t.error) showError(t.error);
  if (t.url && (t.state === "playing" || (!t.wait_here && t.state !== "failed")) && !t.opened) {
    t.opened = true;
    location.href = withPrefs(t.url);
  }
}

// ------------------------------------------------------------------ new table
// One control per option, drawn from the kind the game's options.py gives it (the node sends it
// in the catalog): a select for a choice, a checkbox for yes/no, a number field with its range,
// one select per seat for a per-seat list; a text box only for an option with no kind. Each is
// labelled and described by its help (aria-describedby), and read back as a typed value.
let shownGame = null;

function optionLabel(key) { return key.replace(/_/g, " "); }

function choiceSelect(o, id, value) {
  const sel = el("select", null, {id});
  o.choices.forEach((c, i) => sel.append(el("option", o.labels[i], {value: String(i)})));
  setChoice(sel, o.choices, value);
  return sel;
}

function setChoice(sel, choices, value) {
  const i = choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value));
  if (i >= 0) sel.value = String(i);
}

function optionInputs(game, n) {
  // drawn again when the player count changes: what the person set is kept (a per-seat list
  // only when it still has one entry per seat)
  const kept = {}, keptPreset = $("preset").value;
  if (shownGame && shownGame.game === game.game)
    for (const o of shownGame.options) if ($(`opt-${o.key}`) || $(`opt-${o.key}-0`)) kept[o.key] = optionValue(o);
  shownGame = game;
  const box = $("options");
  box.replaceChildren();
  box.dataset.game = game.game;                  // whose controls these are (the tests wait on it)
  box.dataset.players = String(n);
  for (const o of game.options) {
    const id = `opt-${o.key}`, helpId = `${id}-help`;
    const row = el("div", null, {class: `option ${o.kind}`, "data-key": o.key, "data-kind": o.kind});
    const shown = o.kind === "yesno" ? (o.default ? "yes" : "no")
      : o.kind === "choice" ? o.labels[o.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(o.default))]
      : typeof o.default === "string" ? o.default : JSON.stringify(o.default);
    const help = el("span", `${o.help}; default ${shown}`, {class: "help", id: helpId});
    if (o.kind === "yesno") {
      const box = el("input", null, {type: "checkbox", id, "aria-describedby": helpId});
      box.checked = !!o.default;
      const label = el("label", null, {for: id});
      label.append(box, " " + optionLabel(o.key));
      row.append(label, help);
    } else if (o.kind === "seats") {                       // one select per seat, inside its own group
      const group = el("fieldset", null, {class: "per-seat", "aria-describedby": helpId});
      group.append(el("legend", optionLabel(o.key)));
      o.default.forEach((v, seat) => {
        const sel = choiceSelect(o, `${id}-${seat}`, v);
        sel.dataset.seat = seat;
        const label = el("label", `seat ${seat} `, {for: sel.id});
        label.append(sel);
        group.append(label);
      });
      group.append(help);
      row.append(group);
    } else {
      let control;
      if (o.kind === "choice") control = choiceSelect(o, id, o.default);
      else if (o.kind === "number") {
        control = el("input", null, {type: "number", id, step: "1", inputmode: "numeric"});
        if (o.min !== null && o.min !== undefined) control.min = String(o.min);
        if (o.max !== null && o.max !== undefined) control.max = String(o.max);
        control.value = String(o.default);
      } else {
        control = el("input", null, {id, size: 18});
        control.value = shown;
      }
      control.setAttribute("aria-describedby", helpId);
      const range = o.kind === "number" ? (o.max === null || o.max === undefined ? ` (${o.min} or more)`
                                                                                : ` (${o.min}-${o.max})`) : "";
      const label = el("label", optionLabel(o.key) + range + " ", {for: id});
      row.append(label, control, help);
    }
    box.append(row);
  }
  presetChoices(game);
  for (const o of game.options)
    if (o.key in kept && (o.kind !== "seats" || kept[o.key].length === o.default.length)) setOption(o, kept[o.key]);
  if (Object.keys(kept).length && keptPreset) $("preset").value = keptPreset;
}

// The presets (a game's options.py PRESETS): picking one only fills the controls.
function presetChoices(game) {
  const row = $("preset-row"), sel = $("preset");
  const presets = game.presets || [];
  row.hidden = presets.length === 0;
  sel.replaceChildren(el("option", "choose…", {value: ""}),
                      ...presets.map((p, i) => el("option", p.name, {value: String(i)})));
}

function applyPreset() {
  const p = shownGame && (shownGame.presets || [])[Number($("preset").value)];
  if (!$("preset").value || !p) return;
  for (const o of shownGame.options) if (o.key in p.options) setOption(o, p.options[o.key]);
}

function setOption(o, value) {
  const id = `opt-${o.key}`;
  if (o.kind === "yesno") $(id).checked = !!value;
  else if (o.kind === "choice") setChoice($(id), o.choices, value);
  else if (o.kind === "seats") value.forEach((v, seat) => { if ($(`${id}-${seat}`)) setChoice($(`${id}-${seat}`), o.choices, v); });
  else $(id).value = typeof value === "string" ? value : JSON.stringify(value);
}

// The typed value of each control (true/false, a number, a choice as the game spells it); a
// number box left empty or holding a non-number goes as its text, for the node to refuse in words.
function optionValue(o) {
  const id = `opt-${o.key}`;
  if (o.kind === "yesno") return $(id).checked;
  if (o.kind === "choice") return o.choices[Number($(id).value)];
  if (o.kind === "seats") return o.default.map((_, seat) => o.choices[Number($(`${id}-${seat}`).value)]);
  if (o.kind === "number") {
    const text = $(id).value.trim();
    return /^-?\d+$/.test(text) ? Number(text) : text;
  }
  return $(id).value;
}

function seatInputs(n) {
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let i = 1; i < n; i++) {
    const seat = el("div", null, {class: "seat"});
    const label = el("label", `seat ${i} `);
    const sel = el("select", null, {"data-seat": i});
    for (const [v, t] of [["friend", "a friend"], ["bot:heuristic", "heuristic bot"], ["bot:random", "random bot"],
                          ["bot:search", "search bot"]]) sel.append(el("option", t, {value: v}));
    sel.value = old[i - 1] || "bot:heuristic";
    label.append(sel);
    const thinking = el("label", "thinking time ", {class: "think"});     // the search bot's only
    const think = el("input", null, {type: "number", min: "0.1", step: "0.1", value: "1", size: 4});
    thinking.append(think, " s per move");
    thinking.hidden = sel.value !== "bot:search";
    sel.onchange = () => { thinking.hidden = sel.value !== "bot:search"; };
    seat.append(label, thinking);
    box.append(seat);
  }
}

async function pickGame() {
  const game = catalog.find((g) => g.game === $("game").value);
  $("game-players").textContent = `${game.min}-${game.max} players`;
  const picture = $("picture");
  picture.hidden = true;
  picture.onload = () => { picture.hidden = false; };
  picture.alt = `${game.title}: a table`;
  if (game.picture) picture.src = `${base}img/${encodeURIComponent(game.game)}.png`;
  const players = $("players");
  const keep = Number(players.value) || game.min;
  players.replaceChildren(...Array.from({length: game.max - game.min + 1}, (_, i) => el("option", game.min + i)));
  players.value = String(Math.min(Math.max(keep, game.min), game.max));
  await pickPlayers();
}

async function pickPlayers() {
  const n = Number($("players").value);
  seatInputs(n);
  const r = await act(`options?game=${encodeURIComponent($("game").value)}&players=${n}`);
  if (r) optionInputs(r.catalog.find((g) => g.game === $("game").value), n);
}

async function create(ev) {
  ev.preventDefault();
  const seats = [...$("seats").querySelectorAll(".seat")].map((l) => {
    const v = l.querySelector("select").value, think = l.querySelector("input").value;
    return v === "bot:search" ? `${v}@${think}` : v;
  });
  const options = {};
  for (const o of shownGame ? shownGame.options : []) {
    const value = optionValue(o), shown = typeof o.default === "string" ? o.default : JSON.stringify(o.default);
    if (o.kind === "text" ? value !== shown : JSON.stringify(value) !== JSON.stringify(o.default)) options[o.key] = value;
  }
  const network = document.querySelector("input[name=network]:checked").value;
  const body = {game: $("game").value, seats, options, network, ...paceFields()};
  if (network === "lan") Object.assign(body, {spectators: $("spectators").checked,
                                              spectators_chat: $("spectators").checked && $("spectators-chat").checked});
  if (network === "broker") Object.assign(body, {relay: $("relay").value, relay_user: $("relay-user").value,
                                                relay_password: $("relay-password").value});
  const r = await act("host", body);
  $("relay-password").value = "";
  if (r) follow(r.table);
}

// The table's pace: live with its time limit in seconds, or turn-based with a time per move
// sent as the CLI writes it ("24h", "3d"); the node checks the bounds (1h to 14d).
function paceFields() {
  if ($("pace").value !== "turn-based") return {pace: "live", time_limit: Number($("time-limit").value)};
  return {pace: "turn-based", move_time: `${Math.round(Number($("move-time").value))}${$("move-unit").value}`};
}

function showPace() {
  const turnBased = $("pace").value === "turn-based";
  $("time-limit-row").hidden = turnBased;
  $("move-time-row").hidden = !turnBased;
}

// ------------------------------------------------------------------ open tables
async function look() {
  $("looking").textContent = "listening…";
  const r = await act("open");
  $("looking").textContent = "";
  if (!r) return;
  const others = r.lobbies.filter((l) => !l.mine);
  $("lobbies").replaceChildren(...(others.length ? others.map((l) => {
    const li = el("li", null, {"data-lobby": l.lobby});
    li.append(el("strong", l.title), ` hosted by ${l.player || "someone with no name"}: ${l.seated}/${l.players} seated`,
              el("span", `, at ${l.address} (on ${l.name})`, {class: "muted"}), " ");
    const b = el("button", "Join", {class: "join"});
    b.onclick = () => join(l.address);
    li.append(b);
    if (l.spectators !== false) {      // an older node does not say: try, and show its refusal
      const w = el("button", "Watch", {class: "watch"});
      w.onclick = () => watch(l.address, l.title);
      li.append(" ", w);
    } else li.append(" ", el("span", "(no spectators)", {class: "muted"}));
    return li;
  }) : [el("li", "no open table heard on this LAN", {class: "muted"})]));
}

async function watch(address, title) {
  const r = await act("watch", {address, title});
  if (r) follow(r.table);
}

async function join(invite) {
  const r = await act("join", {invite});
  if (r) follow(r.table);
}

// ------------------------------------------------------------------ settings
function applyTheme(theme) {
  document.documentElement.classList.toggle("dark", theme === "dark");
  document.documentElement.classList.toggle("light", theme === "light");
}

async function saveSettings(ev) {
  ev.preventDefault();
  const r = await act("settings", {name: $("name").value, theme: $("theme").value, sound: $("sound").checked});
  if (r) { $("saved").textContent = "saved"; applyTheme(r.settings.theme); }
}

// ------------------------------------------------------------------ start
async function refresh(first = false) {
  let s;
  try { s = await api("state"); } catch (e) { showError(e.message); return; }
  renderGames(s.games);
  const waiting = s.tables.filter((t) => ["starting", "lobby"].includes(t.state));
  if (!current && waiting.length) current = waiting[waiting.length - 1].key;   // a reload keeps the lobby
  if (current) {
    const t = s.tables.find((x) => x.key === current);
    if (t) renderLobby(Object.assign(t, {opened: $("lobby").dataset.opened === current}));
    if (t && t.url && (t.state === "playing" || !t.wait_here)) $("lobby").dataset.opened = current;
  }
  if (first) {
    catalog = s.catalog;
    $("game").replaceChildren(...catalog.map((g) => el("option", g.title, {value: g.game})));
    // what the person typed or picked before the first answer came (a slow machine) stays
    const fill = (id, prop, value) => { if (!$(id).dataset.edited) $(id)[prop] = value; };
    fill("name", "value", s.settings.name || "");
    fill("theme", "value", s.settings.theme || "auto");
    fill("sound", "checked", !!s.settings.sound);
    fill("relay", "value", s.relay || "");
    applyTheme(s.settings.theme);
    await pickGame();
  }
}

$("game").onchange = pickGame;
$("players").onchange = pickPlayers;
$("preset").onchange = applyPreset;
$("options").addEventListener("change", () => { $("preset").value = ""; });    // edited: no longer the preset
$("new-form").onsubmit = create;
$("pace").onchange = showPace;
showPace();                            // a reloaded form keeps its pace
$("look").onclick = look;
$("join-form").onsubmit = (ev) => { ev.preventDefault(); join($("invite-in").value.trim()); };
$("settings-form").onsubmit = saveSettings;
for (const id of ["name", "theme", "sound", "relay"])
  for (const kind of ["input", "change"]) $(id).addEventListener(kind, () => { $(id).dataset.edited = "1"; });
for (const r of document.querySelectorAll("input[name=network]"))
  r.onchange = () => {
    $("broker").hidden = r.value !== "broker" || !r.checked;
    $("watchable").hidden = $("talk-read").hidden = r.value === "broker" && r.checked;
  };
$("spectators").onchange = () => { $("spectators-chat").disabled = !$("spectators").checked; };
$("cancel").onclick = async () => {
  const r = await act("cancel", {key: $("cancel").dataset.key});
  if (r) renderLobby(r.table);
};
$("copy").onclick = () => navigator.clipboard.writeText($("invite").textContent)
  .then(() => { $("copy").textContent = "Copied"; }, () => { $("copy").textContent = "Select and copy"; });
refresh(true).then(() => {             // the table page's "Play again" comes here as #again=GAME_ID
  const again = location.hash.match(/^#(again|decline)=([0-9a-f]+)$/);     // "Not this time": #decline=
  if (again) { history.replaceState(null, "", location.pathname); playAgain(again[2], undefined, again[1] === "decline"); }
});
(function poll() {                     // quicker while a table we follow is about to open
  const soon = current && !$("lobby").dataset.opened;
  setTimeout(() => refresh().finally(poll), soon ? 250 : 1500);
})();
