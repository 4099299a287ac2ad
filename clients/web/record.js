// Your record: talks to this machine's caravan home (node/home.py, api/record) under the page's
// token. Every name comes from elsewhere (unsigned), so it is put in the page as text, never as markup.
const base = location.pathname.replace(/record\/?$/, "");
const $ = (id) => document.getElementById(id);

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function applyTheme(theme) {
  document.documentElement.classList.toggle("dark", theme === "dark");
  document.documentElement.classList.toggle("light", theme === "light");
}

const num = (x) => x.toFixed(1);
const rating = (r) => `${num(r.ordinal)} (${num(r.mu)} ± ${num(r.sigma)})`;
const when = (t) => t ? new Date(t * 1000).toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short"}) : "—";
const day = (t) => t ? new Date(t * 1000).toLocaleDateString(undefined, {dateStyle: "medium"}) : "—";
const place = (n) => n + (n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd"
                          : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th");

/** A person: the name they use, and under it the fingerprint of their key (who they are). */
function person(p, you = false) {
  const named = p.name !== p.fingerprint;
  const cell = el("span", p.name + (you ? " (you)" : ""), {class: (you ? "you " : "") + (named ? "" : "key")});
  if (named) cell.append(el("span", p.fingerprint, {class: "key", title: "key fingerprint"}));
  return cell;
}

function render(rec) {
  const me = rec.me;
  $("me").textContent = me
    ? `${me.name} (${me.fingerprint}): ${me.games} game${me.games === 1 ? "" : "s"} with friends, ${me.won} won; ` +
      `rating ${rating(me.rating)}`
    : "No key on this machine yet: play a game first. The ratings below are the players' of the games you keep.";

  const body = $("friend-list").tBodies[0];
  body.replaceChildren();
  for (const f of rec.friends) {
    const row = el("tr", null, {"data-key": f.key});
    const who = el("td");
    who.append(person(f));
    row.append(who, el("td", f.games, {class: "num"}), el("td", `${f.wins}–${f.losses}–${f.draws}`, {class: "num"}),
               el("td", day(f.last_played), {class: "when", title: when(f.last_played)}), el("td", num(f.rating.ordinal), {class: "num"}));
    body.append(row);
  }
  $("friend-list").hidden = rec.friends.length === 0;
  $("no-friends").hidden = rec.friends.length > 0;

  $("people").replaceChildren(...rec.people.map((p) => {
    const li = el("li", null, {"data-key": p.key});
    li.append(person(p, !!me && p.key === me.key), el("span", rating(p.rating), {class: "score"}));
    return li;
  }));

  // newest first as this machine kept them (the rating itself goes by game id: see the note)
  const newest = [...rec.games].sort((a, b) => (b.when || 0) - (a.when || 0) || (a.game_id < b.game_id ? -1 : 1));
  $("games").replaceChildren(...newest.map((g) => {
    const li = el("li", null, {"data-game": g.game_id});
    const others = g.seats.filter((s, i) => i !== g.my_seat).map((s) => s.name);
    let how;
    if (g.my_seat === null) how = `watched: ${g.seats.map((s) => s.name).join(", ")}`;
    else if (g.winners.includes(g.my_seat)) how = g.winners.length > 1 ? "you shared the win" : "you won";
    else how = `you came ${place(g.places[g.my_seat])} of ${g.seats.length}`;
    const winners = g.winners.map((w) => g.seats[w].name).join(", ");
    li.append(el("strong", g.title), ` ${g.my_seat === null ? "" : "with " + others.join(", ") + ": "}`,
              el("span", how, {class: g.winners.includes(g.my_seat) ? "won" : ""}),
              `; won by ${winners || "nobody"}${g.when ? " · " + when(g.when) : ""}`);
    if (g.replay) li.append(el("a", "Replay", {href: `${base}replay/${g.game_id}`,
                                                 "aria-label": `Replay ${g.title} of ${when(g.when)}`}));
    return li;
  }));
  $("no-games").hidden = rec.games.length > 0;

  $("skipped-list").replaceChildren(...rec.skipped.map((s) => {
    const li = el("li");
    li.append(el("code", s.file), ": ", s.reason);
    return li;
  }));
  $("skipped").hidden = rec.skipped.length === 0;
  document.body.dataset.ready = "1";
}

async function load() {
  try {
    const r = await fetch(base + "api/record");
    const data = await r.json().catch(() => ({error: `the home answered ${r.status}`}));
    if (!r.ok || data.error) throw new Error(data.error || `the home answered ${r.status}`);
    applyTheme(data.settings.theme);
    render(data.record);
  } catch (e) {
    $("me").textContent = "";
    $("error").textContent = e.message;
    $("error").hidden = false;
    document.body.dataset.ready = "error";
  }
}

load();
