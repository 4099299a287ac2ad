// The Caravan page: one more client of the client API (specs/client-api.md), over a WebSocket
// to this player's own node. It draws the board the node renders, the log of what happened,
// and the legal moves: by clicking a place on the board, or a button grouped by kind.

const $ = (id) => document.getElementById(id);
const KIND_TITLES = {
  act: ["Your move", ""],
  commit: ["Your secret choice", "Committed now and revealed later: the others see that you chose, not what."],
  return: ["Put a card back face down", "The others will not see which card you return."],
};
const latencies = (window.caravanLatencies = []);   // ms from the node applying an event to this picture
let state = { hello: null, decide: null, group: null, seat: null, closed: false };

// ------------------------------------------------------------------ settings
const auto = $("auto");
auto.checked = localStorage.getItem("caravan.auto") === "1";
auto.addEventListener("change", () => {
  localStorage.setItem("caravan.auto", auto.checked ? "1" : "0");
  if (auto.checked && state.decide && state.decide.actions.length === 1) send(state.decide.actions[0].id);
});
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
  ws = new WebSocket(url);
  ws.onopen = () => { $("conn").textContent = "connected to your node"; $("conn").className = "conn ok"; };
  ws.onmessage = (e) => handle(JSON.parse(e.data));
  ws.onclose = (e) => {
    $("conn").className = "conn";
    if (e.code === 4403) { $("conn").textContent = "refused: open the link your node printed"; return; }
    if (state.closed) { $("conn").textContent = "the game is over; your node has stopped"; return; }
    $("conn").textContent = "node unreachable — reconnecting…";
    setTimeout(connect, 1000);
  };
}
function send(actionId) {
  if (!state.decide || !ws || ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ type: "act", decision: state.decide.decision, action: actionId }));
}

// ------------------------------------------------------------------ messages
function handle(msg) {
  switch (msg.type) {
    case "hello":
      state.hello = msg; state.seat = msg.seat;
      document.title = `${msg.title} — Caravan`;
      $("title").textContent = msg.title;
      const name = msg.names ? msg.names[msg.seat] : `seat ${msg.seat}`;
      $("me").textContent = name === `seat ${msg.seat}` ? `you are seat ${msg.seat} of ${msg.seats}`
        : `you are ${name}, seat ${msg.seat} of ${msg.seats}`;
      if (msg.spectator) {   // caravan watch: the public view, no moves
        $("me").textContent = `spectator of ${msg.seats} players: you see only what is public`;
        auto.parentElement.hidden = true;
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
      $("board").innerHTML = msg.svg;
      $("status").textContent = msg.status;
      if (msg.badge) showBadge(msg.badge);
      markTargets();
      if (msg.at) requestAnimationFrame(() => latencies.push(Date.now() - msg.at * 1000));
      break;
    case "decide": showDecide(msg); break;
    case "decided":
      if (state.decide && state.decide.decision === msg.decision) hideDecide();
      break;
    case "error": showError(msg.message); break;
    case "result": showResult(msg.result); break;
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

function showResult(result) {
  state.closed = true;
  hideDecide();
  const names = (state.hello && state.hello.names) || [];
  const who = (s) => names[s] && names[s] !== `seat ${s}` ? `${names[s]} (seat ${s})` : `seat ${s}`;
  $("status").textContent = "the game is over";
  let text = result ? `Won by ${result.winners.map(who).join(" and ")}.` : "The game ended without a result.";
  if (result && result.scores) text += " Scores: " + result.scores.map((v, s) => `${who(s)} ${v}`).join(", ") + ".";
  $("result-text").textContent = text;
  $("result").hidden = false;
}

// ------------------------------------------------------------------ deciding
function showDecide(msg) {
  state.decide = msg; state.group = null;
  $("decide").dataset.decision = msg.decision;
  if (auto.checked && msg.actions.length === 1) { send(msg.actions[0].id); return; }
  const [title, note] = KIND_TITLES[msg.kind] || ["Your decision", ""];
  $("decide-title").textContent = title;
  $("decide-note").textContent = note + (hasTargets() ? " Click a highlighted place on the board, or choose below." : "");
  $("decide").hidden = false;
  const groups = [...new Set(msg.actions.map((a) => a.group))];
  const groupsBox = $("groups");
  groupsBox.replaceChildren();
  if (groups.length > 1 && msg.actions.length > 8) {
    for (const g of groups) {
      const n = msg.actions.filter((a) => a.group === g).length;
      const b = document.createElement("button");
      b.type = "button"; b.className = "group"; b.dataset.group = g;
      b.textContent = n > 1 ? `${g} (${n})` : g;
      b.addEventListener("click", () => selectGroup(state.group === g ? null : g));
      groupsBox.appendChild(b);
    }
    renderMoves([]);
    if (groups.length === 1) selectGroup(groups[0]);
  } else {
    renderMoves(msg.actions, groups.length > 1);
  }
  markTargets();
}

function selectGroup(g) {
  state.group = g;
  for (const b of $("groups").children) b.classList.toggle("selected", b.dataset.group === g);
  renderMoves(g === null ? [] : state.decide.actions.filter((a) => a.group === g));
  markTargets();
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
    b.textContent = a.text;
    b.addEventListener("click", () => send(a.id));
    box.appendChild(b);
  }
}

function hideDecide() {
  state.decide = null; state.group = null;
  $("decide").hidden = true;
  markTargets();
}

function candidates() {
  if (!state.decide) return [];
  return state.decide.actions.filter((a) => a.target !== null && a.target !== undefined &&
    (state.group === null || a.group === state.group));
}
function hasTargets() { return candidates().length > 0; }

function markTargets() {
  const byTarget = new Map();
  for (const a of candidates()) {
    if (!byTarget.has(a.target)) byTarget.set(a.target, []);
    byTarget.get(a.target).push(a);
  }
  for (const el of $("board").querySelectorAll("[data-target]")) {
    const list = byTarget.get(el.dataset.target);
    el.classList.toggle("legal", !!list);
    el.onclick = list ? () => (list.length === 1 ? send(list[0].id) : renderMoves(list, true)) : null;
  }
}

connect();
