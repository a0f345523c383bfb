// The competition's page, served by `cudal1 serve --competition`: the boards
// per task and GPU kind with the best time over the competition (Chart.js),
// the newest submissions, an editor to submit (CodeMirror, bundled), and a
// submission's own page at /submissions/ID. Live by Server-Sent Events
// (/v1/competition/events), polling when they are unavailable. Every text
// from the server is put in as text, never as HTML.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  };
  const cell = (tr, text, cls) => tr.appendChild(el("td", text, cls));
  const fmt = (v, d = 3) => (v === null || v === undefined ? "-" : Number(v).toFixed(d));
  const ms = (v) => (v === null || v === undefined ? "-" : Number(v) < 1 ? fmt(v, 4) + " ms" : fmt(v, 3) + " ms");
  const pct = (v) => (v === null || v === undefined ? "-" : (100 * Number(v)).toFixed(1) + "%");
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : "-");
  // A time of today as hh:mm:ss, an older one with its date.
  const short = (iso) => {
    if (!iso) return "-";
    const t = new Date(iso);
    return t.toDateString() === new Date().toDateString() ? t.toLocaleTimeString() : t.toLocaleString();
  };
  const TOKEN_KEY = "cudal1-competition-token";

  let competition = null;
  let board = null;
  let editor = null;
  const charts = new Map();
  let watching = null;  // the id of the submission this page waits for

  function token() { return $("token").value.trim(); }

  async function api(path, options = {}) {
    const headers = Object.assign({}, options.headers || {});
    if (options.auth && token()) headers.Authorization = "Bearer " + token();
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, { method: options.method || "GET", headers,
                                    body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    let body = null;
    try { body = await res.json(); } catch (e) { body = null; }
    return { status: res.status, body, retryAfter: res.headers.get("Retry-After") };
  }
  const errorText = (r) => (r.body && r.body.error ? r.body.error.message : "HTTP " + r.status);

  function verdictText(s) {
    if (s.state === "queued" || s.state === "judging") return s.state;
    if (s.state === "failed") return "failed";
    let t = s.verdict || "-";
    if (s.verdict === "rejected") t = "rejected: " + (s.class || "hack");
    if (s.part === "hidden") t += " (hidden run)";
    return t;
  }
  const verdictClass = (s) => (s.state === "done" ? s.verdict : s.state);

  // ---- the clock -------------------------------------------------------------------
  function renderClock() {
    if (!competition) return;
    const now = Date.now(), start = Date.parse(competition.start), end = Date.parse(competition.end);
    const span = (s) => { s = Math.max(0, Math.round(s / 1000));
      return s >= 7200 ? Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min" : s >= 120 ? Math.floor(s / 60) + " min" : s + " s"; };
    const c = $("clock");
    if (now < start) { c.textContent = "opens in " + span(start - now) + " (" + when(competition.start) + ")"; c.dataset.state = "before"; }
    else if (now >= end) { c.textContent = "ended " + when(competition.end); c.dataset.state = "ended"; }
    else { c.textContent = "open: ends in " + span(end - now) + " (" + when(competition.end) + ")"; c.dataset.state = "open"; }
  }

  // ---- the boards --------------------------------------------------------------------
  function drawChart(canvas, key, b) {
    if (typeof Chart === "undefined") return;
    const start = Date.parse(competition.start), end = Date.parse(competition.end);
    // Minutes since the start, or hours for a competition of more than two days.
    const [unit, unitName] = end - start > 48 * 3600e3 ? [3600e3, "hours"] : [60e3, "minutes"];
    const bySpeedup = board.ranking === "speedup";
    const points = b.history.map((h) => ({ x: (h.t_ms - start) / unit, y: bySpeedup ? h.speedup : h.time_ms,
                                           who: h.participant, id: h.id }));
    if (points.length) {  // the best stands until now
      const last = points[points.length - 1];
      points.push({ x: Math.max(last.x, (Math.min(Date.now(), end) - start) / unit), y: last.y, who: last.who, id: last.id });
    }
    const old = charts.get(key);
    if (old) old.destroy();
    charts.set(key, new Chart(canvas, {
      type: "line",
      data: { datasets: [{ label: bySpeedup ? "best speedup" : "best time (ms)", data: points, stepped: true,
                           borderColor: "#3366cc", backgroundColor: "#3366cc", pointRadius: 3 }] },
      options: { animation: false, maintainAspectRatio: false, parsing: false,
                 scales: { x: { type: "linear", title: { display: true, text: unitName + " since the start" } },
                           y: { title: { display: true, text: bySpeedup ? "speedup" : "ms (public run)" } } },
                 plugins: { legend: { display: false },
                            tooltip: { callbacks: { label: (c) => c.raw.who + " (#" + c.raw.id + "): " + fmt(c.raw.y, 4) } } } },
    }));
  }

  function renderBoards() {
    const box = $("boards");
    for (const c of charts.values()) c.destroy();
    charts.clear();
    box.textContent = "";
    for (const t of board.tasks) {
      const sec = el("section", undefined, "task");
      sec.dataset.task = t.name;
      sec.appendChild(el("h2", t.name + (t.title ? ": " + t.title : "")));
      if (!t.boards.length) sec.appendChild(el("p", "No standing submission yet.", "empty"));
      for (const b of t.boards) {
        sec.appendChild(el("h3", "on " + b.gpu));
        const grid = el("div", undefined, "board");
        const table = el("table");
        table.className = "leaderboard";
        table.dataset.task = t.name;
        table.dataset.gpu = b.gpu;
        const head = table.createTHead().insertRow();
        for (const [h, cls] of [["rank"], ["entrant", "text"], ["public time"], ["speedup"], ["of speed of light"], ["submitted", "text"], ["#"]])
          head.appendChild(el("th", h, cls));
        const body = table.createTBody();
        for (const e of b.entries) {
          const tr = body.insertRow();
          tr.className = "rank-" + e.rank;
          tr.dataset.participant = e.participant;
          tr.dataset.rank = e.rank;
          tr.dataset.id = e.id;
          cell(tr, e.rank);
          cell(tr, e.participant, "text");
          cell(tr, ms(e.time_ms));
          cell(tr, e.speedup === null ? "-" : fmt(e.speedup, 2) + "x");
          cell(tr, pct(e.sol_fraction));
          cell(tr, short(e.submitted_at), "text");
          const link = el("a", "#" + e.id);
          link.href = "/submissions/" + e.id;
          tr.insertCell().appendChild(link);
        }
        const left = el("div", undefined, "scroll");
        left.appendChild(table);
        grid.appendChild(left);
        const chartBox = el("div", undefined, "chart");
        const canvas = el("canvas");
        canvas.setAttribute("aria-label", "best over the competition: " + t.name + " on " + b.gpu);
        chartBox.appendChild(canvas);
        grid.appendChild(chartBox);
        sec.appendChild(grid);
        drawChart(canvas, t.name + "|" + b.gpu, b);
      }
      box.appendChild(sec);
    }
    box.dataset.charts = String(charts.size);
    box.dataset.version = String(board.version);
  }

  function renderRecent() {
    const body = $("recent").tBodies[0];
    body.textContent = "";
    for (const s of board.recent) {
      const tr = body.insertRow();
      tr.dataset.id = s.id;
      tr.dataset.participant = s.participant;
      tr.dataset.verdict = s.state === "done" ? s.verdict : s.state;
      const link = el("a", "#" + s.id);
      link.href = "/submissions/" + s.id;
      tr.insertCell().appendChild(link);
      cell(tr, s.participant, "text");
      cell(tr, s.task, "text");
      cell(tr, verdictText(s), "text " + verdictClass(s));
      cell(tr, ms(s.time_ms));
      cell(tr, s.speedup === null ? "-" : fmt(s.speedup, 2) + "x");
      cell(tr, s.hidden ? s.hidden.verdict : "-", "text");
      cell(tr, short(s.submitted_at), "text");
    }
  }

  function onBoard(b) {
    board = b;
    if (!$("board-view").hidden) { renderBoards(); renderRecent(); }
    if (watching !== null) followSubmission(watching);
    if (!$("submission-view").hidden) loadSubmission(currentSubmissionId());
  }

  // ---- live updates ----------------------------------------------------------------------
  let polling = null;
  function poll() {
    if (polling) return;
    $("live").textContent = "(live: polling every 3 s)";
    polling = setInterval(async () => { const r = await api("/v1/competition/board"); if (r.status === 200) onBoard(r.body); }, 3000);
  }
  function listen() {
    if (typeof EventSource === "undefined") return poll();
    const source = new EventSource("/v1/competition/events");
    source.addEventListener("board", (e) => { $("live").textContent = "(live)"; onBoard(JSON.parse(e.data)); });
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) poll(); };
  }

  // ---- submitting ----------------------------------------------------------------------------
  function formats() {
    const native = competition.backend === "cuda" ? ["cuda", "CUDA (.cu)"] : ["cpp", "C++ (.cpp, CPU)"];
    return [["", "by its text"], native, ["modelnew", "KernelBench ModelNew (Python)"]];
  }
  function code() { return editor ? editor.get() : $("code-text").value; }

  function showTask() {
    const t = competition.tasks.find((x) => x.name === $("task").value);
    if (!t) return;
    $("task-source").textContent = t.source;
    $("task-note").textContent = (t.public_profile ? "public sizes: profile " + t.public_profile + "; " : "") +
      t.hidden_runs + " hidden run" + (t.hidden_runs === 1 ? "" : "s");
  }

  async function signIn() {
    if (!token()) { $("who").textContent = ""; return; }
    const r = await api("/v1/competition/me", { auth: true });
    const who = $("who");
    if (r.status === 200) { who.textContent = "signed in as " + r.body.participant; who.className = "meta ok"; localStorage.setItem(TOKEN_KEY, token()); }
    else { who.textContent = errorText(r); who.className = "meta error"; }
  }

  function say(text, cls) {
    const out = $("submit-result");
    out.textContent = "";
    out.className = cls || "";
    if (typeof text === "string") out.textContent = text; else out.appendChild(text);
  }

  async function submit(ev) {
    ev.preventDefault();
    const result = $("submit-result");
    delete result.dataset.status;
    delete result.dataset.verdict;
    watching = null;
    if (!token()) return say("Enter your entrant token first.", "error");
    $("submit").disabled = true;
    say("Sending…");
    try {
      const r = await api("/v1/competition/submissions", { method: "POST", auth: true,
        body: { task: $("task").value, code: code(), format: $("format").value } });
      if (r.status !== 202 && r.status !== 200) {
        const wait = r.status === 429 && r.retryAfter ? " (try again in " + r.retryAfter + " s)" : "";
        say("Refused: " + errorText(r) + wait, "error");
        $("submit-result").dataset.status = String(r.status);
        return;
      }
      localStorage.setItem(TOKEN_KEY, token());
      watching = r.body.id;
      $("submit-result").dataset.status = String(r.status);
      followSubmission(watching);
    } finally {
      $("submit").disabled = false;
    }
  }

  // The verdict of the submission this page sent, when it comes.
  async function followSubmission(id) {
    const r = await api("/v1/competition/submissions/" + id, { auth: true });
    if (r.status !== 200 || watching !== id) return;
    const s = r.body;
    const line = el("span");
    const link = el("a", "Submission #" + s.id);
    link.href = s.url;
    line.appendChild(link);
    if (s.state === "queued" || s.state === "judging") {
      line.appendChild(document.createTextNode(": " + s.state + "…"));
      say(line, "");
      return;
    }
    let text = ": " + verdictText(s);
    if (s.state === "failed") text += " (" + s.error + ")";
    if (s.standing && s.standing_now) {
      const st = s.standing_now;
      text += st.this_is_best ? ", rank " + st.rank + " of " + st.of + " on " + st.gpu
                              : "; your best (#" + st.best_id + ") is rank " + st.rank + " of " + st.of;
    }
    line.appendChild(document.createTextNode(text));
    say(line, s.standing ? "ok" : "error");
    $("submit-result").dataset.verdict = s.state === "done" ? s.verdict : s.state;
    watching = null;
  }

  // ---- a submission's page ---------------------------------------------------------------------
  function currentSubmissionId() {
    const m = location.pathname.match(/^\/submissions\/(\d+)$/);
    return m ? Number(m[1]) : null;
  }

  async function loadSubmission(id) {
    const stored = localStorage.getItem(TOKEN_KEY);
    const headers = stored ? { Authorization: "Bearer " + stored } : {};
    let r = await api("/v1/competition/submissions/" + id, { headers });
    if (r.status === 401) r = await api("/v1/competition/submissions/" + id);  // a stale token: as anyone
    if (r.status !== 200) { $("sub-title").textContent = errorText(r); return; }
    const s = r.body;
    $("sub-title").textContent = "Submission #" + s.id + " by " + s.participant + " for " + s.task;
    const v = $("sub-verdict");
    v.textContent = verdictText(s) + (s.standing ? ": standing" : "");
    v.className = "verdict " + verdictClass(s);
    v.dataset.verdict = s.state === "done" ? s.verdict : s.state;
    const rows = [["submitted", when(s.submitted_at)], ["judged", when(s.judged_at)], ["format", s.format],
                  ["device", s.device || "-"], ["public run: time (median)", ms(s.time_ms)],
                  ["public run: reference time", ms(s.reference_ms)],
                  ["speedup over the reference", s.speedup === null ? "-" : fmt(s.speedup, 3) + "x"],
                  ["fraction of the speed-of-light floor", pct(s.sol_fraction)],
                  ["hidden runs", s.hidden.verdict + (s.hidden.class ? " (" + s.hidden.class + ")" : "")]];
    const st = s.standing_now;
    if (st && st.this_is_best) rows.push(["rank now", st.rank + " of " + st.of + " on " + st.gpu]);
    else if (st) rows.push([s.participant + "'s rank now", st.rank + " of " + st.of + " on " + st.gpu + ", by #" + st.best_id]);
    if (s.error) rows.push(["error", s.error]);
    const fig = $("sub-figures").tBodies[0];
    fig.textContent = "";
    for (const [k, val] of rows) { const tr = fig.insertRow(); cell(tr, k); cell(tr, val); }
    const pub = s.public || {};
    const checks = $("sub-checks").tBodies[0];
    checks.textContent = "";
    for (const c of pub.checks || []) {
      const tr = checks.insertRow();
      cell(tr, c.name, "text");
      cell(tr, c.pass ? "passed" : "failed", "text " + (c.pass ? "correct" : "incorrect"));
      cell(tr, c.reason || "", "text");
    }
    const hacks = $("sub-hacks");
    hacks.textContent = "";
    for (const h of pub.hacks || []) hacks.appendChild(el("p", "Hack caught: " + h["class"] + ": " + (h.evidence || ""), "rejected"));
    if (s.part === "hidden" && s.verdict === "rejected") hacks.appendChild(el("p", "Hack caught in a hidden run: " + s["class"], "rejected"));
    $("sub-message-box").hidden = !pub.message;
    $("sub-message").textContent = pub.message || "";
    $("sub-code-box").hidden = s.code === undefined;
    $("sub-code").textContent = s.code || "";
    $("sub-note").textContent = s.code === undefined ? "The code and the messages are shown to their entrant only." : "";
  }

  // ---- start -------------------------------------------------------------------------------------------
  async function start() {
    const missing = [];
    if (typeof Chart === "undefined") missing.push("the chart library (no charts)");
    if (!window.cudal1Editor) missing.push("the code editor (a plain text box instead)");
    if (missing.length) { $("missing").hidden = false; $("missing").textContent = "This build lacks " + missing.join(" and ") + ": run scripts/install-deps.sh and rebuild cudal1."; }
    const r = await api("/v1/competition");
    if (r.status !== 200) { $("boards").textContent = "The competition could not be read: " + errorText(r); return; }
    competition = r.body;
    $("description").textContent = competition.description || "";
    renderClock();
    setInterval(renderClock, 1000);
    const id = currentSubmissionId();
    if (id !== null) {
      $("board-view").hidden = true;
      $("submission-view").hidden = false;
      await loadSubmission(id);
    }
    for (const t of competition.tasks) $("task").appendChild(new Option(t.name, t.name));
    for (const [value, label] of formats()) $("format").appendChild(new Option(label, value));
    $("task").addEventListener("change", showTask);
    showTask();
    if (window.cudal1Editor) {
      editor = window.cudal1Editor.create($("editor"), "", "");
      $("format").addEventListener("change", () => editor.setFormat($("format").value));
    } else {
      const area = el("textarea");
      area.id = "code-text";
      area.setAttribute("aria-label", "kernel source");
      $("editor").appendChild(area);
    }
    $("token").value = localStorage.getItem(TOKEN_KEY) || "";
    if (token()) signIn();
    $("sign-in").addEventListener("click", signIn);
    $("submit-form").addEventListener("submit", submit);
    const b = await api("/v1/competition/board");
    if (b.status === 200) onBoard(b.body);
    listen();
  }
  start();
})();
