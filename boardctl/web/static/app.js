// The board page: live state over server-sent events, commands as JSON POSTs.
// No framework, no external files: everything the page needs is served by the board.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const TOKEN_KEY = "boardctl-token";
const HOLE = "#26190f";
const WOOD = "#795232";
const INK = "#f6ead0";
const $ = (id) => document.getElementById(id);

let token = localStorage.getItem(TOKEN_KEY) || "";
let paired = false;
let plan = null;
let portrait = null;
let last = null;
let choices = null;
let shownSeq = null;
let scoreText = "";
let resultsOn = false;
let recordsKey = null;
const circles = new Map();
const picked = [];

// --- talking to the board -------------------------------------------------------
// One tap is one entry: its request id is made here, once, and sent unchanged with every
// try, by this page and by the server; the service applies an id once. Only a definite
// answer ends the tries: 200 confirmed (in the board's journal), 4xx refused (nothing
// written). 202 (sent, no answer yet), 503 (service unreachable) or no reply: not
// confirmed, so the page asks again, with the same id, until it knows.
function newRequestId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);  // (randomUUID needs HTTPS; the page is plain HTTP on the LAN)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function command(op, fields = {}, control = null) {
  const body = JSON.stringify({ op, ...fields, request_id: newRequestId() });
  for (let attempt = 1, pause = 1000; ; attempt++, pause = Math.min(4000, pause * 2)) {
    let status = 0;
    let reply = null;
    try {
      const response = await fetch("/api/command", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Board-Token": token },
        body,
      });
      status = response.status;
      reply = await response.json();
    } catch (err) {
      reply = null;  // the board's page server is away: not confirmed
    }
    if (reply && (status === 200 || (status >= 400 && status < 500))) {
      if (status === 401) setPaired(false);
      if (reply.ok) {
        const once = reply.repeated ? " (an earlier try had reached it: counted once)" : "";
        notify(control, "ok", `Recorded by the board${once}.`);
      } else {
        notify(control, "bad", `Refused: ${reply.error}`);
      }
      return reply;
    }
    const why = (reply && reply.why) || "no reply from the page's server";
    notify(control, "wait", `Not confirmed yet (${why}; try ${attempt}). ` +
      "Asking again with the same request id: it counts once.");
    await sleep(pause);
  }
}

// A command's outcome, shown beside the control that sent it (and scrolled into view).
let noticeBox = null;  // kept here: a rebuilt row may take it out of the page
function notify(control, kind, text) {
  const box = noticeBox || (noticeBox = $("notice"));
  box.textContent = text;
  box.className = `notice ${kind}`;
  box.hidden = false;
  const anchor = control && (control.closest(".ask, .peg, .row, fieldset") || control);
  if (anchor && box.previousElementSibling !== anchor) anchor.after(box);
  box.scrollIntoView({ block: "nearest" });
}

async function refreshSession() {
  try {
    const response = await fetch("/api/state", { headers: { "X-Board-Token": token } });
    const data = await response.json();
    choices = data.choices || choices;
    fillChoices();
    setPaired(Boolean(data.paired));
    resultsOn = Boolean(data.results);
    if (data.board && !plan) drawPlan(data.board);
    if (data.status) update(data, false);
  } catch (err) {
    /* the stream's own retry shows the connection state */
  }
}

function connect() {
  const events = new EventSource("/events");
  events.addEventListener("plan", (e) => drawPlan(JSON.parse(e.data)));
  events.onmessage = (e) => update(JSON.parse(e.data));
  events.onopen = () => setConn("live", "ok");
  events.onerror = () => setConn("connection lost: reconnecting…", "bad");
}

// --- the score ------------------------------------------------------------------
function setConn(text, kind) {
  const el = $("conn");
  el.textContent = text;
  el.className = "conn " + kind;
}

/* `fromStream`: the event stream alone says how the page hears of changes (a reply to
   /api/state may arrive after a newer event). */
function update(message, fromStream = true) {
  if (fromStream && !message.up) {
    setConn("the board service is not running: reconnecting…", "bad");
  } else if (fromStream) {
    setConn(message.via === "watch" ? "live" : "live (checked 4× a second)", "ok");
  }
  if (message.refusal) showRefusal(message.refusal);
  if (!message.status) return;
  last = message.status;
  $("rules").textContent = rulesWords(last);
  showScore(last);
  showAsk(last);
  showLink(last.remote);
  if (message.leds) paint(message.leds);
  if (last.seq !== shownSeq) {
    shownSeq = last.seq;
    fillSettings(last);
    if ($("history-box").open) loadHistory();
  }
  const key = JSON.stringify([last.match_number, last.game_number, last.winner]);
  if (key !== recordsKey) {  // a game ended, or was taken back: the records change
    recordsKey = key;
    if ($("results-box").open) loadResults();
  }
}

function trackNotes(s, i) {
  const notes = [];
  if (s.to_count === i && s.phase !== "over") notes.push("to count now");
  const pending = (s.pending || [])[i];
  if (pending && s.winner == null) notes.push(`+${pending} being entered`);
  if (s.winner === i) notes.push("won the game");
  const failed = s.tracks[i].lines_failed || 0;
  if (failed) notes.push(["", "skunked", "double skunked", "triple skunked"][failed]);
  return notes;
}

function showScore(s) {
  const colours = (choices && choices.colours) || [];
  const parts = s.tracks.map((t, i) => {
    const games = s.match_target ? `, ${t.game_points} of ${s.match_target} game points` : "";
    return { t, i, notes: trackNotes(s, i), games };
  });
  const text = JSON.stringify([parts, s.phase, s.target]);
  if (text === scoreText) return;
  scoreText = text;
  const box = $("tracks");
  box.replaceChildren(
    ...parts.map(({ t, i, notes, games }) => {
      const card = el("div", "track");
      card.style.setProperty("--c", colours[i % colours.length] || INK);
      const head = el("p", "name", t.name);
      if (s.dealer === i) {
        const mark = el("span", "crib", " ◆ crib");
        mark.setAttribute("aria-hidden", "true");
        head.append(mark, el("span", "sr-only", ", deals: the crib is theirs"));
      }
      const big = el("p", "front", String(t.front));
      big.setAttribute("aria-label", `${t.name}: ${t.front}`);
      const back = el("p", "back", `back peg ${t.back}${games}`);
      const note = el("p", "notes", notes.join(" · "));
      card.append(head, big, back, note);
      if (s.winner === i) card.classList.add("won");
      if (s.dealer === i) card.classList.add("dealer");
      return card;
    }),
  );
  const match = s.match_target ? ` · match to ${s.match_target}` : "";
  $("game").textContent =
    `Game ${s.game_number} · ${s.variant} to ${s.target} · ${s.mode} · ${phaseWords(s)}${match}`;
  buildPegs(s);
}

// The board's question (its white start hole): an entry that fits the phase and a
// forgotten menu press. Answered as on the board (undo held) by a refile command.
let askedFor = "";
function showAsk(s) {
  const ask = s.winner == null ? s.ask : null;
  const key = JSON.stringify(ask || null);
  if (key === askedFor) return;
  askedFor = key;
  const box = $("ask");
  box.hidden = !ask;
  if (!ask) return;
  const name = (s.tracks[ask.track] || {}).name || `Track ${ask.track + 1}`;
  $("ask-text").textContent = `The board asks: is ${name}'s ${ask.points} ${ask.kind} ` +
    `or ${ask.other}? (On the board: undo held files it as ${ask.other}; ` +
    `the next entry keeps it as ${ask.kind}.)`;
  const answers = [[ask.other, `It is ${ask.other}`], [ask.kind, `Keep it as ${ask.kind}`]];
  $("ask-buttons").replaceChildren(...answers.map(([kind, words]) => {
    const b = el("button", null, words);
    b.type = "button";
    b.dataset.cmd = "refile";
    b.dataset.kind = kind;
    b.addEventListener("click", () =>
      command("refile", { kind, track: ask.track, points: ask.points }, b));
    return b;
  }));
  setPaired(paired);
}

function rulesWords(s) {
  const sets = (choices && choices.rule_sets) || {};
  const house = (choices && choices.house_rules) || {};
  const name = s.rules || "acc";
  const title = sets[name] ? ` (${sets[name]})` : "";
  const own = (s.house_rules || []).map((r) => (house[r] ? `${r}: ${house[r]}` : r));
  const extra = own.length ? own.join("; ") : "none";
  const p = s.preset_points || {};
  const points = p.win != null ? ` · game points (${s.preset}): win ${p.win}, skunk ${p.skunk}` +
    (p.double !== p.skunk ? `, double skunk ${p.double}` : "") : "";
  return `Rules: ${name}${title} · house rules: ${extra}${points} · muggins ${s.muggins ? "on" : "off"}`;
}

function phaseWords(s) {
  if (s.winner != null) return `${s.tracks[s.winner].name} won`;
  return { cut: "cut for deal", deal: "the deal", play: "the play", show: "the show" }[s.phase]
    || s.phase;
}

function showRefusal(refusal) {
  const box = $("refusal");
  const when = new Date(refusal.at * 1000).toLocaleTimeString();
  box.textContent = `Refused (${when}): ${refusal.text}`;
  box.hidden = false;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

// --- the board as SVG ------------------------------------------------------------
function drawPlan(p) {
  plan = p;
  portrait = null;
  layoutBoard();
}

function layoutBoard() {
  if (!plan) return;
  const tall = window.innerWidth < 700;
  if (tall === portrait) return;
  portrait = tall;
  const at = (x, y) => (tall ? [y, x] : [x, y]);
  let [x0, y0] = [0, 0];
  let [w, h] = at(plan.w, plan.h);
  const spots = new Map(plan.leds.map(([led, x, y]) => [led, at(x, y)]));
  if (tall) {  // held upright, the board needs no captions: crop to the holes
    const holes = [...spots].filter(([led]) => led !== plan.status).map(([, xy]) => xy);
    const xs = holes.map(([x]) => x);
    const ys = holes.map(([, y]) => y);
    const m = 3 * plan.r;
    [x0, y0] = [Math.min(...xs) - m, Math.min(...ys) - m];
    [w, h] = [Math.max(...xs) + m - x0, Math.max(...ys) + m - y0];
    if (spots.has(plan.status)) spots.set(plan.status, [x0 + w - m, y0 + h - m]);
  }
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `${x0} ${y0} ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "the board: holes lit as on the LEDs");
  svg.classList.toggle("tall", tall);
  svg.append(shape("rect", { x: x0, y: y0, width: w, height: h, rx: 8, fill: WOOD }));
  for (const [x0, x1, y] of plan.rules) {
    const [ax, ay] = at(x0, y);
    const [bx, by] = at(x1, y);
    svg.append(shape("line", { x1: ax, y1: ay, x2: bx, y2: by, class: "rule" }));
  }
  if (!tall) {
    for (const [x, y, text] of plan.labels) {
      const label = shape("text", { x, y: y + 10, class: "label" });
      label.textContent = text;
      svg.append(label);
    }
  }
  circles.clear();
  for (const [led, [cx, cy]] of spots) {
    const c = shape("circle", { cx, cy, r: plan.r, fill: HOLE });
    circles.set(led, c);
    svg.append(c);
  }
  $("board").replaceChildren(svg);
  if (lastLeds) paint(lastLeds);
}

let lastLeds = null;
function paint(leds) {
  lastLeds = leds;
  if (circles.size && !performance.getEntriesByName("board-drawn").length) {
    performance.mark("board-drawn");  // page load -> first board with its LEDs (benchmarks)
  }
  for (const [led, c] of circles) {
    const colour = leds[led] || "";
    c.setAttribute("fill", colour || HOLE);
    c.classList.toggle("lit", Boolean(colour));
  }
}

function shape(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// --- entries ---------------------------------------------------------------------
async function showLink(remote) {  // a board linked with another home's (docs/remote.md)
  const box = $("link");
  box.hidden = !remote;
  if (!remote) return;
  $("link-words").textContent = remote.words;
  box.className = remote.link_lost ? "note bad" : "note";
  const code = $("link-code");
  if (remote.role !== "host" || !paired) {
    code.hidden = true;
    delete code.dataset.game;
    return;
  }
  if (code.dataset.game === remote.game) return;  // asked once per game
  code.dataset.game = remote.game;
  const reply = await (await fetch("/api/invite", { headers: { "X-Board-Token": token } }))
    .json().catch(() => ({}));
  if (!reply.code) return void delete code.dataset.game;
  code.textContent = `the other board joins with: boardctl remote join ${reply.code}`;
  code.hidden = false;
}

let pegsFor = "";
function buildPegs(s) {
  const own = s.remote && s.remote.role === "guest" ? s.remote.tracks : null;  // a joined board's
  const key = JSON.stringify([s.tracks.map((t) => t.name), s.phase === "cut", own]);
  if (key === pegsFor) return;
  pegsFor = key;
  if (s.phase === "cut") {  // the first dealer: as a track's first press on the board
    const row = el("div", "row");
    s.tracks.forEach((t, i) => {
      const b = el("button", null, `${t.name} deals`);
      Object.assign(b, { type: "button" });
      b.dataset.cmd = "cut";
      b.dataset.cut = String(i);
      b.addEventListener("click", () => command("cut", { dealer: i }, b));
      row.append(b);
    });
    const draw = el("button", null, "Draw for deal");
    draw.dataset.cmd = "cut";
    draw.addEventListener("click", () => command("cut", {}, draw));
    row.append(draw);
    const cut = el("form", "row");  // the cut cards, one per player in seat order: lowest deals
    const cards = el("input");
    Object.assign(cards, { id: "cut-cards", placeholder: "cut cards in seat order: QH 3S" });
    cards.setAttribute("aria-label", "cut cards, one per player in seat order (lowest deals)");
    const go = el("button", null, "Cut");
    Object.assign(go, { type: "submit" });
    go.dataset.cmd = "cut";
    cut.append(cards, go);
    cut.addEventListener("submit", (e) => {
      e.preventDefault();
      command("cut", { cards: cards.value.split(/[\s,]+/).filter(Boolean) }, go);
    });
    $("pegs").replaceChildren(row, cut);
    setPaired(paired);
    return;
  }
  const kinds = (choices && choices.kinds) || [];
  $("pegs").replaceChildren(
    ...s.tracks.map((t, i) => {
      if (own && !own.includes(i)) return "";  // the host's players: entered on the host
      const row = el("form", "peg row");
      const label = el("label", null, t.name);
      label.htmlFor = `points-${i}`;
      const points = el("input");
      Object.assign(points, { type: "number", value: 2, id: `points-${i}` });  // the engine checks
      points.setAttribute("inputmode", "numeric");
      const kind = el("select");
      kind.id = `kind-${i}`;
      kind.setAttribute("aria-label", `kind of entry for ${t.name}`);
      kind.append(new Option("kind: auto", ""));
      for (const k of kinds) kind.append(new Option(k, k));
      const go = el("button", null, "Peg");
      go.setAttribute("aria-label", `Peg for ${t.name}`);
      go.type = "submit";
      go.dataset.cmd = "peg";
      row.append(label, points, kind, go);
      row.addEventListener("submit", (e) => {
        e.preventDefault();
        const fields = { track: i, points: Number(points.value) };
        if (kind.value) fields.kind = kind.value;
        command("peg", fields, go);
      });
      return row;
    }),
  );
  setPaired(paired);
}

function setPaired(value) {
  paired = value;
  document.querySelectorAll("[data-op], [data-set], [data-cmd], #new-game").forEach((b) => {
    b.disabled = !paired;
  });
  $("readonly").hidden = paired;
  $("pair-form").hidden = paired;
  $("paired").hidden = !paired;
  if (last) showLink(last.remote);  // a paired phone sees the link's code
}

function fillChoices() {
  if (!choices) return;
  const fill = (id, values) => {
    const select = $(id);
    if (select.options.length) return;
    for (const v of values) select.append(new Option(v, v));
  };
  fill("preset", choices.presets);
  fill("mode", choices.modes);
  fill("variant", choices.variants);
}

function fillSettings(s) {
  const names = $("names");
  const inputs = names.querySelectorAll("input");
  if (inputs.length !== s.tracks.length) {
    names.replaceChildren(el("legend", null, "Names"));
    s.tracks.forEach((t, i) => {
      const label = el("label", null, `Track ${i + 1} `);
      const input = el("input");
      Object.assign(input, { id: `name-${i}`, maxLength: 24, value: t.name });
      label.append(input);
      names.append(label);
    });
  } else {
    s.tracks.forEach((t, i) => {
      if (document.activeElement !== inputs[i]) inputs[i].value = t.name;
    });
  }
  const set = (id, value) => {
    if (document.activeElement !== $(id) && value != null) $(id).value = value;
  };
  set("target", s.target);
  set("preset", s.preset);
  set("match", s.match_target);
  set("mode", s.mode);
  set("variant", s.variant);
  set("brightness", s.brightness);
}

function settingValue(key) {
  if (key === "names") {
    return [...$("names").querySelectorAll("input")].map((i) => i.value);
  }
  const value = $(key).value;
  return ["target", "match", "brightness"].includes(key) ? Number(value) : value;
}

// --- history -----------------------------------------------------------------------
async function loadHistory() {
  const reply = await (await fetch("/api/history")).json().catch(() => ({ rows: [] }));
  const list = $("history");
  list.replaceChildren(
    ...(reply.rows || []).map((row) => {
      const item = el("li", null);
      item.append(el("span", "when", row.time), el("span", "what", row.text),
        el("span", "scores", row.scores.join("–")));
      if (row.count) item.append(countBlock(row.count));
      return item;
    }),
  );
}

function countBlock(count) {
  const box = el("div", "count");
  const list = el("ul");
  for (const item of count.items) {
    list.append(el("li", null, `${item.kind} ${item.cards.join(" ")}: ${item.points}`));
  }
  box.append(el("p", "cards", `${count.hand.join(" ")} · starter ${count.starter}`), list,
    el("p", "said", `“${count.said}” — ${count.total}`));
  return box;
}

// --- results (from the club's broker) and player records (from the board's journal) ----
async function getJSON(url) {
  return (await fetch(url)).json().catch(() => ({ ok: false }));
}

async function loadResults() {
  const note = $("results-note");
  const [reply, recs] = await Promise.all([
    resultsOn ? getJSON("/api/results") : { ok: false },
    getJSON("/api/records"),
  ]);
  if (!resultsOn) {
    note.textContent = "Results come from the club's MQTT broker: not configured on this board.";
  } else if (!reply.ok) {
    note.textContent = reply.error || "no results";
  } else {
    note.textContent = reply.error ? `Broker: ${reply.error}` :
      `${reply.games} finished game${reply.games === 1 ? "" : "s"} on this board.`;
    fillTable($("results"), ["when", "players", "scores", "winner", "spread", "GP"],
      reply.results.map((r) => [r.end.slice(0, 16).replace("T", " "), r.names.join(" v "),
        r.scores.join("–"), r.winner + (["", " (skunk)", " (double skunk)", " (triple skunk)"][r.skunk] || ""), `+${r.spread}`,
        String(r.game_points) + (r.final ? "" : " (not final)")]));
  }
  showRecords(recs, reply);
}

function showRecords(recs, reply) {
  // The journal's records (as boardctl stats players); else those the broker's results give.
  const full = Boolean(recs.ok);
  const players = full ? [...recs.players] : (reply.ok ? reply.players : []);
  players.sort((a, b) => b.wins - a.wins || b.game_points - a.game_points ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  $("records-note").textContent = full ?
    `From the board's journal: ${recs.games} finished game${recs.games === 1 ? "" : "s"}.` :
    (recs.error || "The board's records are not available.");
  const num = (v, d = 1) => (v == null ? "–" : v.toFixed(d));
  const heads = ["#", "player", "games", "wins", "win %", "GP", "Sk+", "Sk−", "spread"];
  const more = full ? ["hand", "crib", "peg", "24", "28", "29"] : [];
  fillTable($("players"), [...heads, ...more], players.map((p, i) => {
    const row = [String(i + 1), p.name, String(p.games), String(p.wins), num(p.win_percent, 0),
      String(p.game_points), String(p.skunks_given), String(p.skunks_taken), num(p.average_spread)];
    if (!full) return row;
    return [...row, num(p.average_hand), num(p.average_crib), num(p.average_pegging),
      ...["24", "28", "29"].map((n) => String(p.big_hands[n]))];
  }));
  const big = $("big-hands");
  big.replaceChildren(...players.flatMap((p) => p.big_hand_cards ? p.big_hand_cards.map((h) =>
    el("li", null, `${p.name}: ${h.points} (${h.kind} ${h.cards.join(" ")}, ` +
      `starter ${h.starter}), game ${h.game}`)) : []));
  $("big-hands-box").hidden = big.childElementCount === 0;
}

function fillTable(table, heads, rows) {
  const head = el("tr");
  for (const h of heads) head.append(el("th", null, h));
  table.replaceChildren(head, ...rows.map((cells) => {
    const tr = el("tr");
    for (const c of cells) tr.append(el("td", null, c));
    return tr;
  }));
}

function followResults() {
  if (!resultsOn) return;
  const events = new EventSource("/results/events");
  events.onmessage = () => {
    if ($("results-box").open) loadResults();
  };
}

// --- the card tools ---------------------------------------------------------------
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];

function buildDeck() {
  const deck = $("deck");
  const names = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  for (const [suit, symbol] of SUITS) {
    const row = el("div", "suit");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", names[suit]);
    deck.append(row);
    for (const rank of RANKS) {
      const b = el("button", `card s${suit}`, `${rank}${symbol}`);
      b.type = "button";
      b.dataset.card = `${rank}${suit}`;
      b.setAttribute("aria-pressed", "false");
      b.setAttribute("aria-label", `${rank} of ${names[suit]}`);
      b.addEventListener("click", () => toggleCard(b));
      row.append(b);
    }
  }
}

function toggleCard(b) {
  const at = picked.indexOf(b.dataset.card);
  if (at >= 0) picked.splice(at, 1);
  else if (picked.length < 6) picked.push(b.dataset.card);
  b.setAttribute("aria-pressed", String(at < 0 && picked.includes(b.dataset.card)));
  showPicked();
}

function showPicked() {
  const text = picked.length === 5
    ? `${picked.slice(0, 4).join(" ")} · starter ${picked[4]}` : picked.join(" ");
  $("chosen").textContent = text || "none";
}

async function runTool(path, params) {
  const reply = await (await fetch(`${path}?${new URLSearchParams(params)}`)).json();
  const out = $("tool-out");
  if (!reply.ok) {
    out.replaceChildren(el("p", "error", reply.error));
    return;
  }
  if (reply.score) {
    out.replaceChildren(countBlock(reply.score));
    return;
  }
  const table = el("table");
  const head = el("tr");
  for (const h of ["lay away", "keep", "hand", "crib", "net"]) head.append(el("th", null, h));
  table.append(head);
  for (const o of reply.options.slice(0, 6)) {
    const row = el("tr");
    for (const v of [o.discard.join(" "), o.keep.join(" "), o.hand.toFixed(2),
      o.crib.toFixed(2), o.net.toFixed(2)]) row.append(el("td", null, v));
    table.append(row);
  }
  out.replaceChildren(table);
}

// --- wiring ---------------------------------------------------------------------------
function wire() {
  document.querySelectorAll("[data-op]").forEach((b) => {
    b.addEventListener("click", () => command(b.dataset.op, {}, b));
  });
  document.querySelectorAll("[data-set]").forEach((b) => {
    b.addEventListener("click", () =>
      command("set", { key: b.dataset.set, value: settingValue(b.dataset.set) }, b));
  });
  $("new-game").addEventListener("click", () => {
    if (confirm(`Start a new game of ${$("variant").value}? This one ends here.`)) {
      command("new_game", { variant: $("variant").value }, $("new-game"));
    }
  });
  $("pair-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const response = await fetch("/api/pair", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: $("code").value }),
    });
    const reply = await response.json();
    $("pair-msg").textContent = reply.ok ? "Paired." : reply.error;
    if (reply.ok) {
      token = reply.token;
      localStorage.setItem(TOKEN_KEY, token);
      setPaired(true);
    }
  });
  $("forget").addEventListener("click", () => {
    localStorage.removeItem(TOKEN_KEY);
    token = "";
    setPaired(false);
  });
  $("history-box").addEventListener("toggle", () => {
    if ($("history-box").open) loadHistory();
  });
  $("results-box").addEventListener("toggle", () => {
    if ($("results-box").open) loadResults();
  });
  $("count-btn").addEventListener("click", () =>
    runTool("/api/score", { cards: picked.join(" "), crib: $("crib").checked ? 1 : 0 }));
  $("discard-btn").addEventListener("click", () =>
    runTool("/api/discard", { cards: picked.join(" "), dealer: $("dealer").checked ? 1 : 0 }));
  $("clear-btn").addEventListener("click", () => {
    picked.length = 0;
    document.querySelectorAll(".card").forEach((b) => b.setAttribute("aria-pressed", "false"));
    showPicked();
    $("tool-out").replaceChildren();
  });
  window.addEventListener("resize", layoutBoard);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refreshSession();
  });
  setInterval(refreshSession, 30000);
}

buildDeck();
wire();
setPaired(false);
refreshSession().then(() => {
  connect();
  followResults();
});
