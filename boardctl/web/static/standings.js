// The standings page (a projector): every board's results ranked the ACC way, live.
// The server sends a message on /results/events whenever a result arrives; the page then
// fetches /api/standings. No framework, no external files.
"use strict";

const $ = (id) => document.getElementById(id);
const COLUMNS = [
  ["place", "#"], ["player", "Player"], ["games", "G"], ["wins", "W"], ["losses", "L"],
  ["game_points", "GP"], ["spread", "Spread"], ["skunks_given", "Sk+"], ["skunks_taken", "Sk−"],
];

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function showTable(doc) {
  const table = $("standings");
  const head = el("tr");
  for (const [, title] of COLUMNS) head.append(el("th", null, title));
  const rows = doc.standings.map((row, i) => {
    const tr = el("tr");
    tr.dataset.player = row.player;
    if (!doc.bracket && doc.cut && i === doc.cut - 1) tr.classList.add("cut");
    for (const [key] of COLUMNS) {
      tr.append(el("td", null, key === "spread" ? signed(row[key]) : String(row[key])));
    }
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

function showBracket(doc) {
  const box = $("bracket-box");
  box.hidden = !doc.bracket;
  if (!doc.bracket) return;
  $("bracket").replaceChildren(...doc.bracket.map((matches, r) => {
    const list = el("ol");
    const title = r === doc.bracket.length - 1 ? "Final" : `Round ${r + 1}`;
    list.setAttribute("aria-label", `${title}, best of ${doc.best_of}`);
    list.append(el("li", "note", `${title} (best of ${doc.best_of})`));
    for (const m of matches) {
      const item = el("li", null, `${m.first || "?"} v ${m.second || "?"}`);
      if (m.first_wins || m.second_wins) item.append(` ${m.first_wins}–${m.second_wins}`);
      if (m.winner) item.append(" → ", el("span", "through", m.winner));
      list.append(item);
    }
    return list;
  }));
}

const SKUNKS = ["", " · skunk", " · double skunk", " · triple skunk"];

function gameLine(g) {
  const scores = g.names.map((n, i) => `${n} ${g.scores[i]}`).join(" – ");
  const final = g.final ? "" : " · not final";
  return `${g.board}: ${scores} · ${g.winner_name} +${g.spread}${SKUNKS[g.skunk] || ""}${final}`;
}

function showLatest(doc) {
  $("latest").replaceChildren(...doc.latest.map((g) => el("li", null, gameLine(g))));
}

function showApart(doc) {
  // Results that do not count (unsigned, unverified, failing): listed apart with the reason.
  const apart = doc.apart || [];
  $("apart-box").hidden = !apart.length && !doc.skipped;
  $("skipped").hidden = !doc.skipped;
  $("skipped").textContent = doc.note || "";
  $("apart").replaceChildren(...apart.map((g) => el("li", null, `${gameLine(g)} — ${g.reason}`)));
}

async function refresh() {
  let doc;
  try {
    doc = await (await fetch("/api/standings")).json();
  } catch (err) {
    return;
  }
  const problem = doc.ok ? doc.source_error : doc.error;
  $("problem").hidden = !problem;
  $("problem").textContent = problem || "";
  if (!doc.ok) return;
  const by = doc.by === "player" ? " · every partner credited" : "";
  const cut = doc.bracket ? "" : doc.cut ? ` · the top ${doc.cut} qualify` : "";
  $("summary").textContent =
    `${doc.games} game${doc.games === 1 ? "" : "s"}${by}${cut} · updated ${new Date().toLocaleTimeString()}`;
  showTable(doc);
  showBracket(doc);
  showLatest(doc);
  showApart(doc);
}

function setConn(text, kind) {
  $("conn").textContent = text;
  $("conn").className = "conn " + kind;
}

function connect() {
  const events = new EventSource("/results/events");
  events.onmessage = () => refresh();
  events.onopen = () => setConn("live", "ok");
  events.onerror = () => setConn("connection lost: reconnecting…", "bad");
}

refresh().then(connect);
