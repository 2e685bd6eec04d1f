// Weir's UI: polls /api/overview and the selected query's /api/queries/{run} once a second
// and draws the charts of Spark's Structured Streaming tab on <canvas>. No dependencies.
"use strict";

const POLL_MS = 1000;
const MAX_POINTS = 300;
const COLORS = ["#1f6feb", "#e8590c", "#2f9e44", "#ae3ec9", "#f59f00", "#0c8599", "#d6336c", "#5c7cfa"];

let token = sessionStorage.getItem("weir-token") || "";
let selected = (location.hash.match(/run=([^&]+)/) || [])[1] || "";
let detail = null; // the selected run: summary fields and points

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? "" : String(c)));
  return e;
}

async function api(path, body) {
  const opts = { headers: {} };
  if (token) opts.headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  if (r.status === 401) {
    document.getElementById("token-form").hidden = false;
    throw new Error("a token is needed");
  }
  const v = await r.json();
  if (!r.ok) throw new Error(v.error || r.statusText);
  return v;
}

function fmt(n) {
  if (n == null || isNaN(n)) return "";
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (n / 1e6).toFixed(1) + "M";
  if (a >= 1e4) return (n / 1e3).toFixed(1) + "k";
  if (a >= 100 || Number.isInteger(n)) return String(Math.round(n));
  return n.toFixed(1);
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? s + "s" : s < 3600 ? Math.floor(s / 60) + "m " + (s % 60) + "s" : Math.floor(s / 3600) + "h " + Math.floor(s % 3600 / 60) + "m";
}

// ---- queries ----

function queryStatus(q) {
  return q.active ? "active" : q.error ? "failed" : "stopped";
}

function renderQueries(queries) {
  const body = document.querySelector("#queries tbody");
  body.replaceChildren(...queries.map(q => {
    const st = queryStatus(q);
    const stop = q.active ? el("button", { class: "danger stop", "data-query": q.id, onclick: ev => {
      ev.stopPropagation();
      act("/api/queries/stop", { sessionId: q.sessionId, userId: q.userId, queryId: q.id });
    } }, "Stop") : "";
    const row = el("tr", { class: "query" + (q.runId === selected ? " selected" : ""), "data-run": q.runId,
      onclick: () => select(q.runId) },
      el("td", {}, q.name || el("span", { class: "muted" }, "(unnamed)")),
      el("td", { class: "id" }, q.id.slice(0, 8)),
      el("td", { class: "id" }, q.runId.slice(0, 8)),
      el("td", {}, el("span", { class: "badge " + st }, st)),
      el("td", { class: "num" }, q.batches),
      el("td", { class: "num" }, fmt(q.inputRate)),
      el("td", { class: "num" }, fmt(q.processRate)),
      el("td", {}, stop));
    return row;
  }));
  document.getElementById("no-queries").hidden = queries.length > 0;
  if (!selected) {
    const first = queries.find(q => q.active) || queries[0];
    if (first) select(first.runId);
  }
}

function select(runId) {
  if (runId === selected && detail) return;
  selected = runId;
  detail = null;
  history.replaceState(null, "", "#run=" + runId);
  document.getElementById("plan").textContent = "";
  for (const tr of document.querySelectorAll("tr.query")) tr.classList.toggle("selected", tr.dataset.run === runId);
  pollDetail();
}

async function pollDetail() {
  if (!selected) return;
  const run = selected;
  const after = detail ? detail.firstSeq + detail.points.length - 1 : -1;
  const needPlan = !detail || !detail.plan;
  const d = await api("/api/queries/" + encodeURIComponent(run) + "?after=" + after + (needPlan ? "&plan=1" : ""));
  if (run !== selected) return;
  if (!detail || d.firstSeq !== detail.firstSeq + detail.points.length) {
    detail = d; // first fetch, or points were dropped meanwhile: start over
  } else {
    const points = detail.points.concat(d.points);
    const drop = Math.max(0, points.length - MAX_POINTS);
    detail = Object.assign(d, { points: points.slice(drop), firstSeq: detail.firstSeq + drop, plan: d.plan || detail.plan });
  }
  renderDetail();
}

function renderDetail() {
  const d = detail;
  document.getElementById("detail").hidden = false;
  document.getElementById("detail-title").textContent = "Query " + (d.name || d.id);
  const info = "id " + d.id + " · run " + d.runId + " · " + queryStatus(d) + " · " + d.batches + " batches" +
    (d.lastBatchId != null ? " · last batch " + d.lastBatchId : "");
  document.getElementById("detail-info").textContent = info;
  const err = document.getElementById("detail-error");
  err.hidden = !d.error;
  err.textContent = d.error ? (d.error.class ? "[" + d.error.class + "] " : "") + d.error.message : "";
  if (d.plan) document.getElementById("plan").textContent = d.plan;
  drawCharts(d.points);
}

// ---- charts ----

// chartDefs: the charts of Spark's Structured Streaming tab; each series maps a point to a value (or null).
const chartDefs = [
  { id: "rate", title: "Input rate vs process rate", unit: "rows/s", series: [
    ["input", p => p.inputRate], ["processed", p => p.processRate]] },
  { id: "rows", title: "Input rows", unit: "rows", series: [["input rows", p => p.inputRows]] },
  { id: "duration", title: "Batch duration", unit: "ms", series: [["batch", p => p.batchMs]] },
  { id: "ops", title: "Operation duration", unit: "ms", stacked: true, series: "ops" },
  { id: "watermark", title: "Global watermark gap", unit: "s", optional: true,
    series: [["batch time − watermark", p => p.watermarkGapS ?? null]] },
  { id: "state-rows", title: "State rows", unit: "rows", optional: true, series: [
    ["total", p => p.state ? p.state.rows : null], ["updated", p => p.state ? p.state.updated : null]] },
  { id: "state-memory", title: "State memory", unit: "bytes", optional: true,
    series: [["memory used", p => p.state ? p.state.memoryBytes : null]] },
  { id: "dropped", title: "Rows dropped by watermark", unit: "rows", optional: true,
    series: [["dropped", p => p.state ? p.state.droppedByWatermark : null]] },
];

function chartBox(def) {
  let box = document.getElementById("chart-" + def.id);
  if (!box) {
    box = el("div", { class: "chart", id: "chart-" + def.id, "data-points": "0" },
      el("h3", {}, def.title + " (" + def.unit + ")"), el("div", { class: "legend" }), el("canvas", {}));
    document.getElementById("charts").append(box);
  }
  return box;
}

function drawCharts(points) {
  for (const def of chartDefs) {
    let series = def.series;
    if (series === "ops") {
      const names = [...new Set(points.flatMap(p => Object.keys(p.ops || {})))].sort();
      series = names.map(n => [n, p => (p.ops && p.ops[n]) || 0]);
    }
    const data = series.map(([name, f]) => ({ name, values: points.map(p => [p.t, f(p)]).filter(v => v[1] != null) }));
    const n = Math.max(0, ...data.map(s => s.values.length));
    if (def.optional && n === 0) {
      const old = document.getElementById("chart-" + def.id);
      if (old) old.remove();
      continue;
    }
    const box = chartBox(def);
    box.dataset.points = String(n);
    box.querySelector(".legend").replaceChildren(...data.map((s, i) =>
      el("span", {}, swatch(COLORS[i % COLORS.length]), s.name + (s.values.length ? " " + fmt(s.values[s.values.length - 1][1]) : ""))));
    plot(box.querySelector("canvas"), data, !!def.stacked);
  }
}

function swatch(color) {
  const i = el("i", {});
  i.style.background = color;
  return i;
}

// plot draws the series as lines (stacked: as stacked areas) over time, with y and time ticks.
function plot(canvas, data, stacked) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 400, h = canvas.clientHeight || 150;
  canvas.width = w * dpr; canvas.height = h * dpr;
  const g = canvas.getContext("2d");
  g.scale(dpr, dpr);
  g.clearRect(0, 0, w, h);
  const left = 48, right = 8, top = 6, bottom = 18;
  let xs = data.flatMap(s => s.values.map(v => v[0]));
  if (stacked) {
    const sums = new Map();
    data = data.map(s => ({ name: s.name, values: s.values.map(([x, y]) => {
      const base = sums.get(x) || 0; sums.set(x, base + y); return [x, base + y, base];
    }) }));
  }
  const ys = data.flatMap(s => s.values.map(v => v[1]));
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const y0 = Math.min(0, ...ys), top1 = Math.max(...ys, y0);
  const y1 = top1 > y0 ? y0 + (top1 - y0) * 1.1 : y0 + 1; // a flat series still gets a scale
  const X = x => left + (x1 === x0 ? (w - left - right) / 2 : (x - x0) / (x1 - x0) * (w - left - right));
  const Y = y => top + (1 - (y - y0) / (y1 - y0)) * (h - top - bottom);
  g.font = "10px system-ui, sans-serif";
  g.fillStyle = "#6b7280"; g.strokeStyle = "#e3e6ea"; g.lineWidth = 1;
  for (let i = 0; i <= 3; i++) {
    const v = y0 + (y1 - y0) * i / 3, y = Y(v);
    g.beginPath(); g.moveTo(left, y); g.lineTo(w - right, y); g.stroke();
    g.textAlign = "right"; g.fillText(fmt(v), left - 4, y + 3);
  }
  if (xs.length) {
    g.textAlign = "left"; g.fillText(new Date(x0).toLocaleTimeString(), left, h - 4);
    g.textAlign = "right"; g.fillText(new Date(x1).toLocaleTimeString(), w - right, h - 4);
  }
  data.forEach((s, i) => {
    if (!s.values.length) return;
    const c = COLORS[i % COLORS.length];
    g.strokeStyle = c; g.lineWidth = 1.5;
    g.beginPath();
    s.values.forEach(([x, y], j) => j ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y)));
    g.stroke();
    if (stacked) {
      for (let j = s.values.length - 1; j >= 0; j--) g.lineTo(X(s.values[j][0]), Y(s.values[j][2]));
      g.closePath(); g.globalAlpha = 0.25; g.fillStyle = c; g.fill(); g.globalAlpha = 1;
    }
    if (s.values.length === 1) {
      g.fillStyle = c; g.beginPath(); g.arc(X(s.values[0][0]), Y(s.values[0][1]), 2.5, 0, 7); g.fill();
    }
  });
}

// ---- sessions and operations ----

function renderSessions(sessions) {
  const box = document.getElementById("sessions");
  box.replaceChildren(...sessions.map(s => el("div", { class: "session", "data-session": s.id },
    el("h3", {}, "Session ", el("span", { class: "id" }, s.id), " ",
      el("span", { class: "muted" }, "user " + (s.userId || "(none)") + " · used " + ago(s.lastUsedMs) + " ago")),
    s.operations.length ? el("table", {},
      el("thead", {}, el("tr", {}, ...["Operation", "Tags", "State", "Running for", "Stages", "Tasks", ""].map(t => el("th", {}, t)))),
      el("tbody", {}, ...s.operations.map(o => el("tr", { class: "operation", "data-operation": o.id },
        el("td", { class: "id" }, o.id),
        el("td", {}, o.tags.join(", ")),
        el("td", {}, el("span", { class: "badge " + o.state }, o.state)),
        el("td", { class: "num" }, o.state === "running" ? ago(o.startedMs) : ""),
        el("td", { class: "num" }, o.stages ? o.stagesDone + "/" + o.stages : ""),
        el("td", { class: "num" }, o.tasks ? o.tasksDone + "/" + o.tasks : ""),
        el("td", {}, o.state === "running" ? el("button", { class: "danger cancel", "data-operation": o.id,
          onclick: () => act("/api/operations/cancel", { sessionId: s.id, userId: s.userId, operationId: o.id }) }, "Cancel") : ""))))
    ) : el("div", { class: "muted" }, "no operation"))));
  document.getElementById("no-sessions").hidden = sessions.length > 0;
}

async function act(path, body) {
  try {
    await api(path, body);
  } catch (e) {
    alert(e.message);
  }
  refresh();
}

// ---- polling ----

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const o = await api("/api/overview");
    document.getElementById("token-form").hidden = true;
    renderQueries(o.queries);
    renderSessions(o.sessions);
    if (selected) await pollDetail();
    document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = e.message;
  } finally {
    busy = false;
  }
}

document.getElementById("token-form").addEventListener("submit", ev => {
  ev.preventDefault();
  token = document.getElementById("token").value;
  sessionStorage.setItem("weir-token", token);
  refresh();
});
refresh();
setInterval(refresh, POLL_MS);
