// The Caravan page: one more client of the client API (specs/client-api.md), over a WebSocket
// to this player's own node. It draws the board the node renders, the log of what happened,
// and the legal moves: by clicking a place on the board, or a button grouped by kind.

import { GAMES } from "./games.js";

const $ = (id) => document.getElementById(id);
const KIND_TITLES = {
  act: ["Your move", ""],
  commit: ["Your secret choice", "Committed now and revealed later: the others see that you chose, not what."],
  return: ["Put a card back face down", "The others will not see which card you return."],
};
const latencies = (window.caravanLatencies = []);   // ms from the node applying an event to this picture
let state = { hello: null, decide: null, group: null, seat: null, closed: false, sent: null, board: null,
              mine: false, warned: new Set(), pick: null };
const seatName = (s) => {
  const names = (state.hello && state.hello.names) || [];
  return s === state.seat ? "you" : names[s] && names[s] !== `seat ${s}` ? names[s] : `seat ${s}`;
};
const listNames = (seats) => seats.map(seatName).join(", ");

// ------------------------------------------------------------------ settings
const auto = $("auto");
auto.checked = localStorage.getItem("caravan.auto") === "1";
auto.addEventListener("change", () => {
  localStorage.setItem("caravan.auto", auto.checked ? "1" : "0");
  if (auto.checked && state.decide && state.decide.actions.length === 1) post(state.decide.actions[0].id);
});
// confirm before sending (off by default): a chosen move waits for a second click, Send or
// Enter, and Esc takes it back; nothing goes to the node (which signs it) until then
const confirmBox = $("confirm");
confirmBox.checked = localStorage.getItem("caravan.confirm") === "1";
confirmBox.addEventListener("change", () => {
  localStorage.setItem("caravan.confirm", confirmBox.checked ? "1" : "0");
  if (!confirmBox.checked) takeBack();
});
const prefs = new URLSearchParams(location.hash.slice(1));   // from the home: #sound=1&theme=dark
if (prefs.has("sound")) localStorage.setItem("caravan.sound", prefs.get("sound") === "1" ? "1" : "0");
if (["system", "light", "dark"].includes(prefs.get("theme"))) localStorage.setItem("caravan.theme", prefs.get("theme"));
if (prefs.has("sound") || prefs.has("theme")) history.replaceState(null, "", location.pathname + location.search);
const sound = $("sound");
sound.checked = localStorage.getItem("caravan.sound") === "1";          // off by default
sound.addEventListener("change", () => localStorage.setItem("caravan.sound", sound.checked ? "1" : "0"));
const notify = $("notify");
function showNotifyState() {
  const p = window.Notification ? Notification.permission : "unsupported";
  notify.textContent = p === "granted" ? "notifications on" : p === "denied" ? "notifications blocked" : "notify me";
  notify.disabled = p !== "default";
}
if (window.Notification) notify.addEventListener("click", () => Notification.requestPermission().then(showNotifyState));
showNotifyState();
const THEMES = ["system", "light", "dark"];
function setTheme(t) {
  document.documentElement.classList.remove("light", "dark");
  if (t !== "system") document.documentElement.classList.add(t);
  $("theme").textContent = "theme: " + t;
  localStorage.setItem("caravan.theme", t);
}
setTheme(localStorage.getItem("caravan.theme") || "system");
$("theme").addEventListener("click", () => {
  const now = localStorage.getItem("caravan.theme") || "system";
  setTheme(THEMES[(THEMES.indexOf(now) + 1) % THEMES.length]);
});

// ------------------------------------------------------------------ the socket
let ws = null;
function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + location.pathname.replace(/\/?$/, "/") + "ws";
  // the page's one seam: a WebSocket to this player's node, or the socket-like object the page
  // that runs this script gives instead (the browser tab's table page: its worker, clients/tab/table.js)
  ws = window.caravanSocket ? window.caravanSocket() : new WebSocket(url);
  ws.onopen = () => { $("conn").textContent = "connected to your node"; $("conn").className = "conn ok"; };
  ws.onmessage = (e) => handle(JSON.parse(e.data));
  ws.onclose = (e) => {
    $("conn").className = "conn";
    if (e.code === 4403) { $("conn").textContent = "refused: open the link your node printed"; return; }
    if (state.closed) {
      $("conn").textContent = state.hello && state.hello.spectator ? "the game is over; the watch has ended"
        : "the game is over; your node has stopped";
      return;
    }
    $("conn").textContent = "node unreachable — reconnecting…";
    setTimeout(connect, 1000);
  };
}
/** A move chosen on the page: posted at once, or (confirm before sending) held until confirmed. */
function send(actionId) {
  if (!confirmBox.checked) return post(actionId);
  if (!state.decide || state.sent === state.decide.decision) return;
  if (state.pick === actionId) return post(actionId);         // the second click on the same move
  const a = state.decide.actions.find((x) => x.id === actionId);
  if (!a) return;
  state.pick = actionId;
  $("confirm-text").textContent = `Send “${a.text}”? Click Send (or the move again) or press Enter; Esc takes it back.`;
  $("confirm-bar").hidden = false;
  for (const b of document.querySelectorAll("#decide button.move, #decide button.group"))
    b.classList.toggle("picked", Number(b.dataset.action) === actionId && b.dataset.action !== undefined);
  $("confirm-send").focus();
}
/** The held move is dropped: nothing was sent. */
function takeBack() {
  state.pick = null;
  $("confirm-bar").hidden = true;
  for (const b of document.querySelectorAll("#decide .picked")) b.classList.remove("picked");
}
$("confirm-send").addEventListener("click", () => { if (state.pick !== null) post(state.pick); });
$("confirm-cancel").addEventListener("click", takeBack);
function post(actionId) {
  takeBack();
  // a second click (a double-click, a click on the next picture) on an answered decision is ignored
  if (!state.decide || state.sent === state.decide.decision || !ws || ws.readyState !== WebSocket.OPEN) return;
  const d = state.decide;
  state.sent = d.decision;
  if (d.kind === "commit") {
    const a = d.actions.find((x) => x.id === actionId);
    sessionStorage.setItem(choiceKey(), a ? a.text : "");
  }
  ws.send(JSON.stringify({ type: "act", decision: d.decision, action: actionId }));
}
const choiceKey = () => `caravan.choice.${state.hello ? state.hello.game_id : ""}`;

// ------------------------------------------------------------------ messages
function handle(msg) {
  switch (msg.type) {
    case "hello":
      state.hello = msg; state.seat = msg.seat;
      setTurn(!!state.decide);
      // a spectator holds no seat: it cannot talk (node.md "Chat"); it reads the talk once there is
      // any (the host allowed it: node.md "Spectators"), with no box to type in
      $("chat").hidden = !!msg.spectator;
      $("chat-form").hidden = !!msg.spectator;
      $("chat-watch").hidden = !msg.spectator;
      $("chat-text").placeholder = msg.spectators_read_chat ? "say something (spectators read it too)"
        : "say something to the table";      // players know who reads their talk (node.md "Spectators")
      showRules(msg.game, msg.title);
      $("title").textContent = msg.title;
      const name = msg.names ? msg.names[msg.seat] : `seat ${msg.seat}`;
      $("me").textContent = name === `seat ${msg.seat}` ? `you are seat ${msg.seat} of ${msg.seats}`
        : `you are ${name}, seat ${msg.seat} of ${msg.seats}`;
      if (msg.spectator) {   // caravan watch: the public view, no moves
        $("me").textContent = `spectator of ${msg.seats} players: you see only what is public`;
        auto.parentElement.hidden = true;
        confirmBox.parentElement.hidden = true;   // nor moves to confirm
        $("sound").parentElement.hidden = true;   // nor a turn to be told of
        notify.hidden = true;
        $("conn").textContent = "following the game (caravan watch)";
      }
      break;
    case "history":
      $("log").replaceChildren();
      msg.events.forEach(addEvent);
      requestAnimationFrame(() => { $("log").scrollTop = $("log").scrollHeight; });
      break;
    case "event": addEvent(msg); break;
    case "board":
      state.board = msg;
      showBoard(msg.svg);
      showStatus();
      if (msg.badge) showBadge(msg.badge);
      markTargets();
      if (msg.at) requestAnimationFrame(() => latencies.push(Date.now() - msg.at * 1000));
      break;
    case "decide": showDecide(msg); break;
    case "chat": addChat(msg); break;
    case "chat_history": $("chat-log").replaceChildren(); msg.lines.forEach(addChat); break;
    case "chat_said": chatAnswered(msg, ""); break;
    case "chat_refused": chatAnswered(msg, msg.message); showError(msg.message); break;
    case "decided":
      if (state.decide && state.decide.decision === msg.decision) hideDecide();
      break;
    case "error": showError(msg.message); break;
    case "result": showResult(msg.result); showFiles(msg); afterGame(msg); break;
    case "result_files": showFiles(msg); break;
  }
}

function addEvent(msg) {
  const log = $("log");
  for (const line of (msg.text || "").split("\n")) {
    if (!line) continue;
    const li = document.createElement("li");
    li.textContent = line;
    if (msg.seat !== null && msg.seat === state.seat) li.className = "mine";
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

// ------------------------------------------------------------------ your turn: title, icon, sound, notification
const ICON = (colour) => "data:image/svg+xml," + encodeURIComponent(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="${colour}"/></svg>`);
function setTurn(mine) {
  const title = state.hello ? state.hello.title : "Caravan";
  document.title = mine ? `● Your turn — ${title}` : `${title} — Caravan`;
  $("favicon").href = ICON(mine ? "#e6550d" : "#8a8172");
  document.body.classList.toggle("my-turn", mine);
  if (mine && !state.mine) {
    if (sound.checked) beep();
    if (document.hidden && window.Notification && Notification.permission === "granted")
      new Notification(`Your turn — ${title}`, { body: "Caravan: a decision waits for you.", tag: "caravan-turn" });
  }
  state.mine = mine;
}
function beep() {
  try {
    const ctx = new AudioContext(), osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = 660; gain.gain.value = 0.08;
    osc.connect(gain).connect(ctx.destination);
    osc.start(); osc.stop(ctx.currentTime + 0.18);
  } catch (e) { /* no audio here: the title and icon still say it */ }
}

// ------------------------------------------------------------------ the status line and the clock
function showStatus() {
  const b = state.board;
  if (!b) return;
  const chosen = b.chosen || [], waiting = b.waiting || [];
  let text = b.status;
  if (chosen.length && waiting.length) {
    const others = chosen.filter((s) => s !== state.seat).map((s) => `${seatName(s)} has chosen`);
    const mine = chosen.includes(state.seat)
      ? [`You chose ${sessionStorage.getItem(choiceKey()) || "in secret"} — hidden until everyone reveals`] : [];
    text = [...mine, ...others].join("; ") + `; waiting for ${listNames(waiting)}`;
  } else if (!chosen.length) {
    sessionStorage.removeItem(choiceKey());
  }
  $("status").textContent = text;
  tick();
}
const fmt = (sec) => { sec = Math.max(0, Math.round(sec));      // a turn-based table's clock runs in hours, days
  if (sec >= 86400) return `${Math.floor(sec / 86400)} d ${Math.floor(sec % 86400 / 3600)} h`;
  if (sec >= 3600) return `${Math.floor(sec / 3600)} h ${Math.floor(sec % 3600 / 60)} min`;
  return sec >= 60 ? `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}` : `${sec} s`; };
function tick() {
  const b = state.board, clock = $("clock");
  const limit = (state.hello && state.hello.time_limit) || 0;
  if (!b || !b.since || state.closed || !(b.waiting || []).length) { clock.hidden = true; return; }
  const silent = Date.now() / 1000 - b.since;
  clock.hidden = false;
  const key = `${b.since}`;
  if (state.decide && (b.waiting || []).includes(state.seat) && limit) {
    const left = limit - silent;
    clock.textContent = `Clock: ${fmt(left)} left before the others may record you as silent`;
    clock.className = "clock" + (left <= 10 ? " urgent" : left <= 60 ? " warn" : "");
    for (const at of [60, 10]) {
      if (limit > at && left <= at && !state.warned.has(key + at)) {
        state.warned.add(key + at);
        showWarning(`${at} s left: after that the others may record you as silent.`);
      }
    }
  } else {
    const others = (b.waiting || []).filter((s) => s !== state.seat);
    if (!others.length) { clock.hidden = true; return; }
    clock.className = "clock";
    clock.textContent = `Clock: ${listNames(others)} silent for ${fmt(silent)}` +
      (limit ? ` (may be recorded silent after ${fmt(limit)})` : "");
  }
}
setInterval(tick, 500);
function showWarning(text) {
  const box = $("warning");
  box.textContent = "⚠ " + text; box.hidden = false;
  if (sound.checked) beep();
  clearTimeout(showWarning.timer);
  showWarning.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

// ------------------------------------------------------------------ chat
function addChat(msg) {
  const log = $("chat-log");
  $("chat").hidden = false;                        // a spectator's page opens it with the first line
  const li = document.createElement("li");
  const who = document.createElement("b");
  who.textContent = (msg.seat === state.seat ? "you" : String(msg.name)) + ": ";
  li.append(who, document.createTextNode(String(msg.text)));      // always text, never markup
  if (msg.seat === state.seat) li.className = "mine";
  log.appendChild(li);
  while (log.children.length > 200) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}
// the box keeps what was typed until the node says the line was said; a refused line stays in
// the box, and the note under it says why (too fast, too long, not yet: specs/node.md "Chat")
function chatAnswered(msg, refusal) {
  const input = $("chat-text"), note = $("chat-note");
  if (!refusal) {
    if (input.value === msg.text) input.value = "";
    note.hidden = true; note.textContent = "";
    return;
  }
  if (!input.value) input.value = String(msg.text ?? "");
  note.textContent = `not sent: ${refusal}`;
  note.hidden = false;
}
$("chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("chat-text");
  if (!input.value.trim() || !ws || ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ type: "chat", text: input.value }));
});

function showBadge(badge) {   // a spectator's count of verified messages, or the one that failed
  let el = $("badge");
  if (!el) { el = document.createElement("span"); el.id = "badge"; $("me").after(el); }
  el.className = "badge " + badge.kind;
  el.textContent = badge.text;
}

function showError(text) {
  const box = $("error");
  box.textContent = text; box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

const LABELS = { scores: "Final score" };
/** The game's bits of the page (how to play, result captions, tie-break): from its presentation, via games.js. */
const gameBits = (game) => GAMES[game] || { rules: [], labels: {}, tie_break: null };

function showRules(game, title) {
  const box = $("rules-body");
  box.replaceChildren();
  $("rules-title").textContent = `How to play ${title}`;
  const rules = gameBits(game).rules;
  for (const [head, text] of rules) {
    const h = document.createElement("h3"); h.textContent = head;
    const p = document.createElement("p"); p.textContent = text;
    box.append(h, p);
  }
  $("rules").hidden = !rules.length;
}

function showResult(result) {
  state.closed = true;
  hideDecide();
  $("clock").hidden = true;
  $("status").textContent = "the game is over";
  const names = (state.hello && state.hello.names) || [];
  const who = (s) => names[s] && names[s] !== `seat ${s}` ? `${names[s]} (seat ${s})` : `seat ${s}`;
  $("result-text").textContent = result ? `Won by ${result.winners.map(who).join(" and ")}.` : "The game ended without a result.";
  const table = $("result-table");
  table.replaceChildren();
  if (result && result.scores) {
    const bits = gameBits(state.hello && state.hello.game);
    const rows = Object.keys(result).filter((k) => Array.isArray(result[k]) && result[k].length === result.scores.length
      && k !== "winners");
    rows.sort((a, b) => (a === "scores" ? 1 : b === "scores" ? -1 : 0));       // the total last
    const head = table.createTHead().insertRow();
    for (const h of ["", ...result.scores.map((_, s) => who(s))]) {
      const th = document.createElement("th"); th.textContent = h; th.scope = "col"; head.appendChild(th);
    }
    const body = table.createTBody();
    for (const k of rows) {
      const tr = body.insertRow();
      const th = document.createElement("th"); th.scope = "row";
      th.textContent = bits.labels[k] || LABELS[k] || k.replace(/_/g, " ");
      tr.appendChild(th);
      result[k].forEach((v, s) => { const td = tr.insertCell(); td.textContent = v; if (result.winners.includes(s)) td.className = "win"; });
    }
    const best = Math.max(...result.scores);
    const tied = result.scores.filter((v) => v === best).length;
    const tb = bits.tie_break;
    $("result-tie").textContent = tied > result.winners.length && tb ? `Tied on score: the tie was broken by ${tb[1]}.`
      : tied > 1 ? "A tie: the winners share the victory." : "";
  }
  if (result && result.reason) $("result-tie").textContent += ` The game ended: ${END_REASONS[result.reason]
    || String(result.reason).replace(/_/g, " ")}.`;
  $("result").hidden = false;
}

/** A result's end reason (an engine's code) in words. */
const END_REASONS = {
  goal: "a player reached the scenario's goal",
  turn_limit: "the last turn was played (the turn limit): players are ranked by their progress",
};

/** The game-over panel's verify badge and links: the transcript and its replay page (blobs:
 * the node stops once the page has them, so nothing is fetched later). */
const files = {};              // what the node sent so far (it sends each as soon as it is ready)
function showFiles(msg) {
  for (const k of ["verify", "replay", "transcript", "transcript_path", "home_replay", "home_transcript"])
    if (msg[k]) files[k] = msg[k];
  const box = $("result-files");
  box.replaceChildren();
  if (files.verify) {
    const badge = document.createElement("p");
    badge.className = `badge ${files.verify.kind}`; badge.textContent = files.verify.text;
    box.appendChild(badge);
  }
  const link = (text, href, name, cls) => {
    const a = document.createElement("a");
    a.textContent = text; a.href = href; a.className = cls;
    if (name) a.download = name; else a.target = "_blank";
    box.appendChild(a); box.append(" ");
  };
  const blob = (data, type) => URL.createObjectURL(new Blob([data], { type }));
  // the page's own copies (blobs: they outlive the node); else the home's, read from disk
  if (files.replay) link("watch the replay", blob(files.replay, "text/html"), null, "replay");
  else if (files.home_replay) link("watch the replay", files.home_replay, null, "replay");
  if (files.transcript) {
    const bytes = Uint8Array.from(atob(files.transcript), (c) => c.charCodeAt(0));
    link("download the transcript", blob(bytes, "application/octet-stream"), "game.caravan", "transcript");
  } else if (files.home_transcript) link("download the transcript", files.home_transcript, "game.caravan", "transcript");
  if (files.transcript_path) {
    const p = document.createElement("p");
    p.className = "note"; p.textContent = `Kept at ${files.transcript_path}; check it any time with caravan verify.`;
    box.appendChild(p);
  }
}

// ------------------------------------------------------------------ the board: zoom and pan
let zoom = null;                // null: fit the width; a number: times the picture's own size
function minFont(svg) {
  let min = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const f = parseFloat(getComputedStyle(t).fontSize);
    if (f > 0) min = Math.min(min, f);
  }
  return min === Infinity ? 12 : min;
}
function showBoard(html) {
  const box = $("board"), wrap = $("board-wrap");
  const left = wrap.scrollLeft, top = wrap.scrollTop;
  box.innerHTML = html;
  applyZoom();
  wrap.scrollLeft = left; wrap.scrollTop = top;
}
function applyZoom() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const w = Number(svg.getAttribute("width")), h = Number(svg.getAttribute("height"));
  // at phone width the board opens at the zoom that makes its smallest text 12 CSS px (pan to see it all)
  let z = zoom;
  if (z === null && window.innerWidth < 700) z = Math.max(1, 12 / minFont(svg));
  if (z === null) { svg.style.width = ""; svg.style.maxWidth = "100%"; svg.style.height = "auto"; }
  else { svg.style.maxWidth = "none"; svg.style.width = `${w * z}px`; svg.style.height = `${h * z}px`; }
  $("zoom-level").textContent = z === null ? "fit" : `${Math.round(z * 100)}%`;
}
function currentZoom() {
  const svg = $("board").querySelector("svg");
  return svg ? svg.getBoundingClientRect().width / Number(svg.getAttribute("width")) : 1;
}
$("zoom-in").addEventListener("click", () => { zoom = Math.min(4, currentZoom() * 1.25); applyZoom(); });
$("zoom-out").addEventListener("click", () => { zoom = Math.max(0.3, currentZoom() / 1.25); applyZoom(); });
$("zoom-fit").addEventListener("click", () => { zoom = null; applyZoom(); });
window.addEventListener("resize", applyZoom);

function afterGame(msg) {            // a table opened from the home: links back to it
  for (const [id, href] of [["play-again", msg.play_again], ["decline", msg.decline], ["home", msg.home]])
    if (href) { $(id).href = href; $(id).hidden = false; }
}

// ------------------------------------------------------------------ deciding
function showDecide(msg) {
  state.decide = msg; state.group = null; state.sent = null;
  $("error").hidden = true;                // an old error belongs to an old decision
  $("decide").dataset.decision = msg.decision;
  takeBack();                              // a move held for an older decision is gone with it
  if (auto.checked && msg.actions.length === 1) { post(msg.actions[0].id); return; }
  setTurn(true);
  const [title, note] = KIND_TITLES[msg.kind] || ["Your decision", ""];
  $("decide-title").textContent = title;
  $("decide-note").textContent = note + (hasTargets() ? " Click a highlighted place on the board, or choose below." : "")
    + " Number keys choose, Esc goes back.";
  $("decide").hidden = false;
  showGroups();
  markTargets();
  tick();
}

function showGroups() {
  const msg = state.decide;
  const groups = [...new Set(msg.actions.map((a) => a.group))];
  const groupsBox = $("groups");
  groupsBox.replaceChildren();
  state.group = null;
  if (groups.length > 1 && msg.actions.length > 8) {
    for (const g of groups) {
      const members = msg.actions.filter((a) => a.group === g);
      const b = document.createElement("button");
      b.type = "button"; b.className = "group"; b.dataset.group = g;
      // a group of one move plays it at once: its button says the move
      const only = members[0].text;
      b.textContent = members.length > 1 ? `${g} (${members.length})`
        : only.toLowerCase().startsWith(g.toLowerCase()) ? only : `${g}: ${only}`;
      b.title = members.length > 1 ? `${members.length} moves of this kind` : members[0].text;
      b.addEventListener("click", () => members.length === 1 ? send(members[0].id) : selectGroup(state.group === g ? null : g));
      groupsBox.appendChild(b);
    }
    renderMoves([]);
  } else {
    renderMoves(msg.actions, groups.length > 1);
  }
  numberKeys();
}

function selectGroup(g) {
  state.group = g;
  for (const b of $("groups").children) b.classList.toggle("selected", b.dataset.group === g);
  renderMoves(g === null ? [] : state.decide.actions.filter((a) => a.group === g));
  markTargets();
  numberKeys();
  const first = $("moves").querySelector("button");
  if (first) first.scrollIntoView({ block: "nearest" });
}

function renderMoves(actions, withGroups = false) {
  const box = $("moves");
  box.replaceChildren();
  let last = null;
  for (const a of actions) {
    if (withGroups && a.group !== last) {
      const h = document.createElement("h3");
      h.textContent = a.group; h.className = "muted";
      box.appendChild(h); last = a.group;
    }
    const b = document.createElement("button");
    b.type = "button"; b.className = "move"; b.dataset.action = a.id;
    b.textContent = a.text; b.title = `${a.group}: ${a.text}`;
    b.addEventListener("click", () => send(a.id));
    box.appendChild(b);
  }
}

/** The buttons number keys choose: the moves listed, else the kinds of move. */
function keyed() {
  const moves = [...$("moves").querySelectorAll("button.move")];
  return moves.length ? moves : [...$("groups").querySelectorAll("button.group")];
}
function numberKeys() {
  for (const b of document.querySelectorAll("#decide button")) b.removeAttribute("aria-keyshortcuts");
  keyed().slice(0, 9).forEach((b, i) => {
    b.setAttribute("aria-keyshortcuts", String(i + 1));
    b.dataset.key = i + 1;
  });
}
document.addEventListener("keydown", (e) => {
  if (!state.decide || e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
  if (state.pick !== null && (e.key === "Enter" || e.key === "Escape")) {
    e.preventDefault();                    // not also a click on the focused button
    if (e.key === "Enter") post(state.pick); else takeBack();
    return;
  }
  if (/^[1-9]$/.test(e.key)) {
    const b = keyed()[Number(e.key) - 1];
    if (b) { e.preventDefault(); b.click(); }
  } else if (e.key === "Escape") {
    e.preventDefault();
    showGroups(); markTargets();
  }
});

function hideDecide() {
  takeBack();
  state.decide = null; state.group = null;
  $("decide").hidden = true;
  setTurn(false);
  markTargets();
}

function candidates() {
  if (!state.decide) return [];
  return state.decide.actions.filter((a) => a.target !== null && a.target !== undefined &&
    (state.group === null || a.group === state.group));
}
function hasTargets() { return candidates().length > 0 || groupTargets().size > 0; }

/** Places that choose a kind of move first (a move's `group_target`: e.g. a first click picks
 * one piece's space, a second the other's), while no kind is chosen. */
function groupTargets() {
  const out = new Map();
  if (!state.decide || state.group !== null) return out;
  for (const a of state.decide.actions) if (a.group_target) out.set(a.group_target, a.group);
  return out;
}

function markTargets() {
  const byTarget = new Map();
  const firsts = groupTargets();
  for (const a of firsts.size ? [] : candidates()) {
    if (!byTarget.has(a.target)) byTarget.set(a.target, []);
    byTarget.get(a.target).push(a);
  }
  for (const el of $("board").querySelectorAll("[data-target]")) {
    const list = byTarget.get(el.dataset.target), first = firsts.get(el.dataset.target);
    const tip = el.dataset.tip || (el.querySelector("title") || {}).textContent || el.dataset.target;
    el.dataset.tip = tip;
    el.classList.toggle("legal", !!(list || first));
    if (first) {
      el.setAttribute("tabindex", "0"); el.setAttribute("role", "button");
      el.setAttribute("aria-label", `${tip}: ${first}`);
      el.onclick = () => selectGroup(first);
      el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); el.onclick(); } };
    } else if (list) {
      const what = list.length === 1 ? list[0].text : `${list.length} moves`;
      el.setAttribute("tabindex", "0"); el.setAttribute("role", "button");
      el.setAttribute("aria-label", `${tip}: ${what}`);
      el.onclick = () => (list.length === 1 ? send(list[0].id) : (renderMoves(list, true), numberKeys()));
      el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); el.onclick(); } };
    } else {
      el.removeAttribute("tabindex"); el.setAttribute("role", "img"); el.setAttribute("aria-label", tip);
      el.onclick = null; el.onkeydown = null;
    }
  }
}

connect();
