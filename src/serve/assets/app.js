// damone's page: the board (the server holds the rules and sends the legal
// moves), analysis, and the run dashboard. No dependencies.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const el = (name, attrs, parent) => {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
};

// ---------- board ----------
const SQ = 50, MARGIN = 20;
let state = null;       // last "state" message
let selection = null;   // { from, steps: [] }
let analysis = null;    // last "analysis" message
let ws = null;

function coords(sq, flip) {
  const f = sq.charCodeAt(0) - 97, r = sq.charCodeAt(1) - 49;
  const x = flip ? 7 - f : f, y = flip ? r : 7 - r;
  return [MARGIN + x * SQ, MARGIN + y * SQ];
}

function drawPiece(g, p, flip) {
  const [x, y] = coords(p.sq, flip);
  const cx = x + SQ / 2, cy = y + SQ / 2;
  const grp = el("g", { class: `piece piece-${p.rank}`, "data-sq": p.sq, "data-rank": p.rank, "data-color": p.color }, g);
  el("circle", { cx, cy, r: 19, class: `piece-${p.color}` }, grp);
  const mark = `mark-${p.color}`;
  // Damone's Dama and Italian draughts' king: a crowned disc.
  if (p.rank === "dama" || p.rank === "damone" || p.rank === "king") el("circle", { cx, cy, r: 12, class: mark }, grp);
  if (p.rank === "damone") {
    // A crown: three points above a band.
    el("path", { d: `M${cx - 8} ${cy + 5} L${cx - 8} ${cy - 4} L${cx - 4} ${cy + 1} L${cx} ${cy - 7} L${cx + 4} ${cy + 1} L${cx + 8} ${cy - 4} L${cx + 8} ${cy + 5} Z`, class: mark }, grp);
  }
}

// `numbers` (cell -> number) are the numbers the game's notation gives
// its cells (Italian draughts' 1-32), drawn in their corners.
function drawBoard(svg, pieces, flip, interactive, numbers) {
  svg.innerHTML = "";
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const sq = String.fromCharCode(97 + f) + String.fromCharCode(49 + r);
      const [x, y] = coords(sq, flip);
      const dark = (f + r) % 2 === 1;
      const rect = el("rect", { x, y, width: SQ, height: SQ, class: dark ? "sq-dark" : "sq-light", "data-sq": sq }, svg);
      if (interactive) rect.addEventListener("click", () => clickSquare(sq));
      if (numbers && numbers[sq] !== undefined) {
        el("text", { x: x + 3, y: y + 11, class: "sq-number" }, svg).textContent = String(numbers[sq]);
      }
    }
  }
  for (let i = 0; i < 8; i++) {
    const file = String.fromCharCode(97 + (flip ? 7 - i : i));
    const rank = String(flip ? i + 1 : 8 - i);
    el("text", { x: MARGIN + i * SQ + SQ / 2 - 3, y: 436, class: "coord" }, svg).textContent = file;
    el("text", { x: 5, y: MARGIN + i * SQ + SQ / 2 + 4, class: "coord" }, svg).textContent = rank;
  }
  const g = el("g", {}, svg);
  for (const p of pieces) {
    drawPiece(g, p, flip);
  }
  if (interactive) {
    for (const p of g.querySelectorAll(".piece")) p.addEventListener("click", () => clickSquare(p.getAttribute("data-sq")));
  }
}

function flipped() { return state && state.you === "black"; }

function render() {
  if (!state) return;
  const svg = $("board");
  drawBoard(svg, state.board, flipped(), true, state.numbers);
  // Selection and targets.
  if (selection) {
    mark(selection.steps.length ? selection.steps[selection.steps.length - 1] : selection.from, "selected");
    for (const t of targets()) mark(t, "target");
  }
  drawArrows();
  let s;
  if (state.over) s = `Game over: ${state.over.result} (${state.over.reason})`;
  else if (state.thinking) s = `${state.opponent} is thinking...`;
  else s = state.side === state.you ? `Your move (${state.you})` : `${state.opponent} to move`;
  $("status").textContent = s;
  drawHistory();
  drawValues();
}

function mark(sq, cls) {
  const r = document.querySelector(`#board rect[data-sq="${sq}"]`);
  if (r) r.classList.add(cls);
}

function candidates() {
  if (!selection) return [];
  return state.moves.filter((m) => m.from === selection.from &&
    selection.steps.every((s, i) => m.path[i] === s));
}

function targets() {
  return [...new Set(candidates().filter((m) => m.path.length > selection.steps.length)
    .map((m) => m.path[selection.steps.length]))];
}

function say(text) { $("message").textContent = text; }

function clickSquare(sq) {
  if (!state || state.over) return;
  if (state.side !== state.you || state.thinking) { say("Not your turn."); return; }
  if (selection && targets().includes(sq)) {
    selection.steps.push(sq);
    const c = candidates();
    const done = c.filter((m) => m.path.length === selection.steps.length);
    const longer = c.filter((m) => m.path.length > selection.steps.length);
    if (done.length && !longer.length) {
      const mv = done[0].text;
      selection = null;
      say("");
      ws.send(JSON.stringify({ type: "move", move: mv }));
      return;
    }
    render();
    return;
  }
  if (state.moves.some((m) => m.from === sq)) {
    selection = { from: sq, steps: [] };
    say("");
    render();
    return;
  }
  selection = null;
  say(`Illegal: ${sq} is not a legal start or landing square here.`);
  render();
}

function drawArrows() {
  if (!analysis || !state || analysis.fen !== state.fen) return;
  const svg = $("board");
  const max = Math.max(1, ...analysis.lines.map((l) => l.visits));
  for (const l of analysis.lines.slice(0, 5)) {
    const [x1, y1] = coords(l.from, flipped());
    const [x2, y2] = coords(l.path[l.path.length - 1], flipped());
    el("line", { x1: x1 + SQ / 2, y1: y1 + SQ / 2, x2: x2 + SQ / 2, y2: y2 + SQ / 2,
      class: "arrow", "stroke-width": 2 + 10 * l.visits / max, "data-move": l.text }, svg);
  }
}

function renderAnalysis() {
  const a = analysis;
  const body = $("lines").querySelector("tbody");
  body.innerHTML = "";
  for (const l of a.lines) {
    const tr = document.createElement("tr");
    for (const v of [l.text, l.visits, l.prior.toFixed(3), l.q === null ? "-" : l.q.toFixed(3)]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  const bar = $("wdl");
  if (!a.wdl) {
    render();
    return;
  }
  const [w, d, l] = a.wdl;
  bar.querySelector(".w").style.width = `${100 * w}%`;
  bar.querySelector(".d").style.width = `${100 * d}%`;
  bar.querySelector(".l").style.width = `${100 * l}%`;
  bar.title = `win ${w.toFixed(3)} draw ${d.toFixed(3)} loss ${l.toFixed(3)} (${a.sims} simulations${a.done ? "" : ", running"})`;
  render();
}

// The move list numbered by moves (a White ply and a Black ply each), as
// PDN does; a game starting with Black to move opens with "1. ...".
function drawHistory() {
  const hist = $("history");
  hist.innerHTML = "";
  const plies = state.history;
  const blackFirst = (state.side === "black") === (plies.length % 2 === 0);
  const cells = blackFirst ? [null, ...plies] : plies.slice();
  for (let i = 0; i < cells.length; i += 2) {
    const li = document.createElement("li");
    for (const m of cells.slice(i, i + 2)) {
      const span = document.createElement("span");
      span.className = m === null ? "ply none" : "ply";
      span.textContent = m === null ? "..." : m;
      li.appendChild(span);
    }
    hist.appendChild(li);
  }
}

function drawValues() {
  const svg = $("values");
  svg.innerHTML = "";
  el("line", { x1: 0, y1: 60, x2: 320, y2: 60, class: "axis" }, svg);
  const pts = state.values;
  if (!pts.length) return;
  const maxPly = Math.max(10, ...pts.map((p) => p[0]));
  const xy = pts.map(([ply, v]) => `${(ply / maxPly) * 310 + 5},${60 - 55 * v}`).join(" ");
  el("polyline", { points: xy, class: "series", stroke: "#1f6fb2" }, svg);
  for (const [ply, v] of pts) el("circle", { cx: (ply / maxPly) * 310 + 5, cy: 60 - 55 * v, r: 3, fill: "#1f6fb2" }, svg);
}

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => newGame();
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      if (!state || m.fen !== state.fen) analysis = null;
      state = m;
      selection = null;
      render();
    } else if (m.type === "analysis") {
      m.fen = state ? state.fen : null;
      analysis = m;
      renderAnalysis();
    } else if (m.type === "error" || m.type === "busy") {
      say(m.message);
    }
  };
  ws.onclose = () => say("Connection to the server lost; reload the page.");
}

function newGame() {
  analysis = null;
  ws.send(JSON.stringify({ type: "new", opponent: $("opponent").value, color: $("color").value }));
}

// ---------- run dashboard ----------
const run = { metrics: [], evals: [], ratings: [], protocol: [] };
const COLORS = ["#1f6fb2", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#2c3e50"];

// Ticks along an axis from a to b: at whole numbers when `whole` (an
// iteration count), else at four equal steps.
function ticks(a, b, whole) {
  if (!whole) return [0, 1, 2, 3, 4].map((i) => a + (b - a) * i / 4);
  const step = Math.max(1, Math.ceil((b - a) / 4));
  const out = [];
  for (let v = Math.ceil(a / step) * step; v <= b; v += step) out.push(v);
  return out;
}

// A line chart; the legend sits above the plot area, never over the data.
// opts.y fixes the y range; opts.wholeX puts x ticks at whole numbers.
function chart(svg, series, opts) {
  svg.innerHTML = "";
  const W = 420, H = 220, L = 50, B = 25, T = 28, R = 10;
  const all = series.flatMap((s) => s.points);
  if (!all.length) {
    el("text", { x: 150, y: 110, class: "tick" }, svg).textContent = "no data yet";
    return;
  }
  let x0 = Math.min(...all.map((p) => p[0])), x1 = Math.max(...all.map((p) => p[0]));
  let y0 = Math.min(...all.map((p) => p[1] - (p[2] || 0))), y1 = Math.max(...all.map((p) => p[1] + (p[2] || 0)));
  if (opts && opts.y) [y0, y1] = opts.y;
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const X = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }, svg);
  el("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }, svg);
  for (const yv of ticks(y0, y1, false)) {
    el("text", { x: 2, y: Y(yv) + 3, class: "tick" }, svg).textContent = Math.abs(yv) < 0.01 && yv !== 0 ? yv.toExponential(1) : +yv.toPrecision(3);
  }
  for (const xv of ticks(x0, x1, opts && opts.wholeX)) {
    el("text", { x: X(xv) - 8, y: H - 8, class: "tick x-tick" }, svg).textContent = +xv.toPrecision(3);
  }
  let legendX = L;
  series.forEach((s, i) => {
    const c = s.color || COLORS[i % COLORS.length];
    if (s.points.length > 1) {
      el("polyline", { points: s.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(" "), class: "series", stroke: c }, svg);
    }
    for (const p of s.points) {
      el("circle", { cx: X(p[0]), cy: Y(p[1]), r: 3, fill: c, class: "point", "data-series": s.name }, svg);
      if (p[2]) el("line", { x1: X(p[0]), y1: Y(p[1] - p[2]), x2: X(p[0]), y2: Y(p[1] + p[2]), stroke: c }, svg);
    }
    el("text", { x: legendX, y: 14, class: "tick legend", style: `fill: ${c}; font-weight: 600` }, svg).textContent = s.name;
    legendX += 6 * s.name.length + 14;
  });
}

function drawRun() {
  const m = run.metrics;
  const pts = (f) => m.map((r) => [r.iteration, f(r)]);
  const byIteration = { wholeX: true };
  chart($("chart-loss"), [{ name: "policy", points: pts((r) => r.loss_policy) }, { name: "value", points: pts((r) => r.loss_value) }], byIteration);
  chart($("chart-lr"), [{ name: "lr", points: pts((r) => r.lr) }], byIteration);
  chart($("chart-speed"), [{ name: "moves/s", points: pts((r) => r.positions_per_s) }, { name: "samples/s", points: pts((r) => r.samples_per_s) }], byIteration);
  const depths = [...new Set(run.evals.map((e) => e.depth))].sort((a, b) => a - b);
  chart($("chart-eval"), depths.map((d) => ({ name: `depth ${d}`, points: run.evals.filter((e) => e.depth === d).map((e) => [e.iteration, e.score, e.score_95]) })), { y: [0, 1], wholeX: true });
  const rating = ratingSeries();
  chart($("chart-rating"), rating.series, rating.opts);
  $("run-name").textContent = m.length ? `Run '${run.name}': ${m.length} iterations, ${m[m.length - 1].total_games} games, ${(m[m.length - 1].wall_s / 60).toFixed(1)} minutes` : (run.name ? `Run '${run.name}': no iteration yet` : "No run: start the server with --run DIR");
}

// The rating chart: the checkpoint tournament's Elo when there is one,
// else the rating protocol's scores (damone rate's rating.csv) against
// training hours, one series per match kind (each row's `series`, named by
// the server as `damone rate`'s and `damone plot`'s curves), in percent.
function ratingSeries() {
  if (run.ratings.length) {
    $("rating-caption").textContent = "Checkpoint ratings (Elo, damone tournament --run)";
    return { series: [{ name: "Elo", points: run.ratings }], opts: { wholeX: true } };
  }
  $("rating-caption").textContent = "Rating protocol (score % against training hours, damone rate)";
  const series = new Map();
  for (const r of run.protocol) {
    const name = r.series;
    if (!series.has(name)) series.set(name, []);
    series.get(name).push([r.train_minutes / 60, 100 * r.score, 100 * r.score_95]);
  }
  return { series: [...series].map(([name, points]) => ({ name, points })), opts: {} };
}

function addIteration(d) {
  run.metrics = run.metrics.filter((r) => r.iteration !== d.metrics.iteration).concat([d.metrics]).sort((a, b) => a.iteration - b.iteration);
  run.evals = run.evals.filter((e) => e.iteration !== d.metrics.iteration).concat(d.evals);
}

function drawLive(live) {
  if (!live) return;
  drawBoard($("live"), live.board, false, false, live.numbers);
  $("live-caption").textContent = `iteration ${live.iteration}, ply ${live.ply}: ${live.fen}`;
}

async function startRun() {
  const snap = await (await fetch("/api/run")).json();
  run.name = snap.run;
  if (!snap.run) { drawRun(); return; }
  run.metrics = snap.metrics;
  run.evals = snap.evals;
  run.protocol = snap.protocol || [];
  if (snap.ratings_csv) {
    run.ratings = snap.ratings_csv.trim().split("\n").slice(1).map((l) => l.split(",")).map((c) => [+c[0], +c[2], +c[3]]);
  }
  drawRun();
  drawLive(snap.live);
  const es = new EventSource("/api/run/events");
  es.addEventListener("iteration", (ev) => { addIteration(JSON.parse(ev.data)); drawRun(); });
  es.addEventListener("live", (ev) => drawLive(JSON.parse(ev.data)));
}

// ---------- wiring ----------
for (const b of document.querySelectorAll(".tab")) {
  b.addEventListener("click", () => {
    for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t === b);
    for (const v of document.querySelectorAll(".view")) v.classList.toggle("hidden", v.id !== `view-${b.dataset.view}`);
  });
}
$("new").addEventListener("click", newGame);
$("undo").addEventListener("click", () => ws.send(JSON.stringify({ type: "undo" })));
$("analyse").addEventListener("click", () => ws.send(JSON.stringify({ type: "analyse", sims: +$("sims").value })));
$("stop").addEventListener("click", () => ws.send(JSON.stringify({ type: "stop" })));
$("pdn").addEventListener("click", () => {
  if (!state) return;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([state.pdn], { type: "application/x-pdn" }));
  a.download = "damone-game.pdn";
  a.click();
});

(async () => {
  const players = await (await fetch("/api/players")).json();
  for (const p of players) {
    const o = document.createElement("option");
    o.value = p.spec;
    o.textContent = p.label;
    $("opponent").appendChild(o);
  }
  connect();
  startRun();
})();
