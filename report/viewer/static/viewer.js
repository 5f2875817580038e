// peerlake call viewer. Every text from the lake is put in with textContent (createTextNode), never as
// HTML: manuscripts and model answers are untrusted. Data files are scripts calling PL.put(name, data).
"use strict";
const PL = (() => {
  const waiting = {};
  const PAGE = 100;  // calls per page of the list
  let meta = null;

  function put(name, data) { if (waiting[name]) { waiting[name].resolve(data); delete waiting[name]; } }

  function load(name) {  // a data file by <script>: works over http and from file://
    return new Promise((resolve, reject) => {
      waiting[name] = {resolve, reject};
      const s = document.createElement("script");
      s.src = "data/" + name.split("/").map(encodeURIComponent).join("/") + ".js";
      s.onload = () => { s.remove(); if (waiting[name]) { delete waiting[name]; reject(new Error("empty " + name)); } };
      s.onerror = () => { s.remove(); delete waiting[name]; reject(new Error("not in this page set: " + name)); };
      document.head.appendChild(s);
    });
  }

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
    for (const k of kids) if (k !== null && k !== undefined) e.appendChild(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  }
  const link = (hash, text) => el("a", {href: "#" + hash}, text);
  // 2026-12-04T23:29:17+00:00 -> 2026-12-04 23:29:17 (the index's times are UTC): one line in the table
  const shortTime = at => typeof at === "string" && at[10] === "T" ? at.slice(0, 19).replace("T", " ") : at;
  const fmt = (v, nd) => v === null || v === undefined ? "—" : (typeof v === "number" && nd !== undefined ? v.toFixed(nd) : String(v));
  const main = () => document.getElementById("main");
  function show(...kids) { const m = main(); m.replaceChildren(...kids); window.scrollTo(0, 0); }
  function kv(pairs) {
    return el("table", {}, ...pairs.filter(p => p[1] !== null && p[1] !== undefined && p[1] !== "")
      .map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v instanceof Node ? v : fmt(v)))));
  }
  function table(head, rows) {
    return el("table", {}, el("tr", {}, ...head.map(h => el("th", {}, h))),
      ...rows.map(r => el("tr", {}, ...r.map(c => el("td", typeof c === "number" ? {class: "num"} : {}, c instanceof Node ? c : fmt(c))))));
  }
  const pre = (text, cls) => el("pre", cls ? {class: cls} : {}, text === null || text === undefined ? "—" : text);

  // ---- the call list: chunks scanned one at a time, only the page shown is kept
  const FILTERS = ["study", "paper", "cfg", "purpose", "model", "status", "origin"];
  function matches(r, f) {
    if (f.study && r.paid !== f.study && !r.replayed.includes(f.study)) return false;
    if (f.paper && r.paper !== f.paper) return false;
    if (f.cfg && !r.cfgs.includes(f.cfg)) return false;
    if (f.purpose && r.purpose !== f.purpose && r.step !== f.purpose) return false;
    if (f.model && r.model !== f.model) return false;
    if (f.status && r.status !== f.status) return false;
    if (f.origin === "paid" && f.study && r.paid !== f.study) return false;
    if (f.origin === "replayed" && !(f.study ? r.replayed.includes(f.study) : r.replayed.length)) return false;
    return true;
  }
  function chunkMayMatch(c, f) {  // meta.chunks[k] lists the values each small facet takes in chunk k
    return (!f.study || c.paid.includes(f.study)) && (!f.cfg || c.cfgs.includes(f.cfg)) &&
      (!f.model || c.model.includes(f.model)) && (!f.status || c.status.includes(f.status));
  }
  async function scan(f, from) {  // from = [chunk, row]; returns {rows, next, scanned}
    const out = []; let [k, i] = from; let scanned = 0;
    for (; k < meta.chunks.length; k++, i = 0) {
      if (!chunkMayMatch(meta.chunks[k], f)) continue;
      const rows = await load("index/" + k); scanned++;
      for (; i < rows.length; i++) {
        if (matches(rows[i], f)) {
          if (out.length === PAGE) return {rows: out, next: [k, i], scanned};
          out.push(rows[i]);
        }
      }
    }
    return {rows: out, next: null, scanned};
  }
  function select(name, label, options, value) {
    const s = el("select", {name}, el("option", {value: ""}, "any"));
    for (const o of options) {
      const [v, t] = typeof o === "string" ? [o, o] : [o.id, o.label];
      const opt = el("option", {value: v}, t); if (v === value) opt.selected = true; s.appendChild(opt);
    }
    return el("label", {}, label, s);
  }
  async function calls(params) {
    const f = {}; for (const n of FILTERS) f[n] = params.get(n) || "";
    const start = (params.get("at") || "0,0").split(",").map(Number);
    const fa = meta.facets;
    const paper = el("input", {name: "paper", list: "papers", value: f.paper, placeholder: "paper id"});
    const form = el("form", {class: "filters"},
      select("study", "study", fa.study, f.study), el("label", {}, "paper", paper),
      el("datalist", {id: "papers"}, ...fa.paper.slice(0, 5000).map(p => el("option", {value: p}))),
      select("cfg", "reviewer / judge / system configuration", fa.cfg, f.cfg),
      select("purpose", "purpose / step", fa.purpose, f.purpose), select("model", "model", fa.model, f.model),
      select("status", "status", fa.status, f.status),
      select("origin", "replayed or paid", [{id: "paid", label: "paid (made by the study)"}, {id: "replayed", label: "replayed from the log"}], f.origin),
      el("button", {type: "submit"}, "filter"));
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      const q = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
      location.hash = "calls?" + q.toString();
    });
    const status = el("p", {class: "dim"}, "scanning…");
    const body = el("div", {id: "calls"});
    show(el("h2", {}, `Calls (${meta.n_calls.toLocaleString()} in this page set${meta.study ? ", study " + meta.study : ""})`), form, status, body);
    const res = await scan(f, start);
    body.replaceChildren(table(["call", "at (UTC)", "purpose", "paper", "sample", "model", "status", "attempt", "tokens in/out", "cost USD", "ms", "paid by", "replayed for"],
      res.rows.map(r => [link("call/" + r.id, r.id), shortTime(r.at), r.step ? r.purpose + " · " + r.step : r.purpose, r.paper, r.sample, r.model, r.status, r.attempt,
        fmt(r.tin) + " / " + fmt(r.tout), fmt(r.cost, 6), r.ms, r.paid, r.replayed.join(", ")])));
    body.firstChild.setAttribute("id", "call-table");
    const first = start[0] === 0 && start[1] === 0;
    status.textContent = `${res.rows.length} call(s) shown${first ? "" : " (a later page)"}; ${res.rows.length === PAGE && res.next ? "more follow" : "no more"}.`;
    const pager = el("p", {class: "pager"});
    if (!first) pager.appendChild(el("button", {type: "button", id: "first"}, "first page"));
    if (res.next) pager.appendChild(el("button", {type: "button", id: "next"}, "next page"));
    pager.addEventListener("click", ev => {
      const q = new URLSearchParams(params);
      if (ev.target.id === "next") q.set("at", res.next.join(",")); else if (ev.target.id === "first") q.delete("at"); else return;
      location.hash = "calls?" + q.toString();
    });
    body.appendChild(pager);
  }

  // ---- one call
  async function call(id) {
    const c = await load("call/" + id);
    const kids = [el("h2", {}, "Call " + c.id),
      kv([["purpose", c.step ? c.purpose + " · step " + c.step + (c.round !== null ? " round " + c.round : "") : c.purpose],
        ["paper", c.paper ? link("calls?paper=" + encodeURIComponent(c.paper), c.paper) : null], ["sample", c.sample],
        ["model", c.provider + "/" + c.model], ["endpoint", c.endpoint], ["template", c.template], ["prompt hash", c.prompt_hash],
        ["reviewer configuration", c.reviewer_config], ["params", c.params], ["request key", c.request_key],
        ["status", c.status + (c.error ? " · " + c.error : "")], ["finish reason", c.finish_reason], ["attempt", c.attempt],
        ["at", c.at], ["latency ms", fmt(c.latency_ms, 0)],
        ["cost USD (recorded)", fmt(c.cost_usd, 6) + " · " + c.cost_status + (c.price_table_version ? " · prices " + c.price_table_version : "")],
        ["cost USD (recomputed by fct_llm_calls)", c.recomputed_cost_usd === undefined ? null : fmt(c.recomputed_cost_usd, 6) + " · " + fmt(c.recomputed_cost_status)],
        ["duplicate success", c.is_duplicate_success ? "a second paid answer to an answered request: counted in costs, never an answer" : null],
        ["paid by study", c.paid_by], ["replayed for", c.replayed_in.join(", ")], ["Dagster run", c.dagster_run_id], ["asset", c.asset]]),
      el("h3", {}, "Usage"), table(Object.keys(c.usage), [Object.values(c.usage)]),
      el("h3", {}, `Messages (the request as sent: ${c.messages.length})`)];
    if (c.request_problem) kids.push(el("p", {class: "err"}, c.request_problem));
    for (const m of c.messages) kids.push(el("div", {class: "msg-role"}, m.role), pre(m.content, "message"));
    if (c.response_schema) kids.push(el("details", {}, el("summary", {}, "response schema"), pre(JSON.stringify(c.response_schema, null, 1))));
    kids.push(el("h3", {}, "Response (as received)"), pre(c.response, "response"));
    if (c.response_problem) kids.push(el("p", {class: "err"}, c.response_problem));
    kids.push(el("h3", {}, "Parse result"), c.parse.ok ? pre(c.parse.value, "parse") : el("p", {class: "dim"}, c.parse.note));
    if (c.raw_response || c.raw_problem) kids.push(el("details", {}, el("summary", {}, "raw response body"), c.raw_problem ? el("p", {class: "err"}, c.raw_problem) : pre(c.raw_response)));
    kids.push(el("h3", {}, "Attempts at this request"), table(["call", "at", "attempt", "status", "error", "ms"],
      c.attempts.map(a => [a.id === c.id ? a.id + " (this)" : link("call/" + a.id, a.id), a.at, a.attempt, a.status, a.error, a.ms])));
    if (c.judgments.length) kids.push(el("h3", {}, "Judgments made from this call"), table(["judge", "step", "judge configuration", "subject", "status"],
      c.judgments.map(j => [j.judge, j.step, j.judge_config, j.subject_key, j.status])));
    if (c.systems.length) kids.push(el("h3", {}, "System runs using this call"), table(["run", "system", "step"],
      c.systems.map(s => [link("system/" + s.n, "run " + s.n), s.system, `${s.index + 1}. ${fmt(s.step)}`])));
    show(...kids);
  }

  // ---- judged reviews, each with the units its judges extracted highlighted
  async function list(kind, n, title, head, cells) {
    const parts = []; const size = meta.chunk_size;
    for (let k = 0; k * size < n && k < 20; k++) parts.push(...await load(kind + "/" + k));
    show(el("h2", {}, `${title} (${n})`), table(head, parts.map(cells)),
      n > parts.length ? el("p", {class: "dim"}, `first ${parts.length} shown`) : null);
  }
  function highlighted(text, units) {
    const box = el("pre", {class: "review"}); let at = 0;
    const placed = units.filter(u => u.start !== null).sort((a, b) => a.start - b.start);
    for (const u of placed) {
      if (u.start < at) continue;  // overlaps the previous unit: listed below, not marked twice
      box.appendChild(document.createTextNode(text.slice(at, u.start)));
      box.appendChild(el("mark", {title: u.label}, text.slice(u.start, u.end)));
      at = u.end;
    }
    box.appendChild(document.createTextNode(text.slice(at)));
    return box;
  }
  async function review(n) {
    const r = await load("review/" + n);
    const kids = [el("h2", {}, "Review " + r.review_key), kv([["paper", r.paper], ["reviewer", r.system], ["judges", r.judges.join(", ")]])];
    if (!r.found) kids.push(el("p", {class: "err"}, "The review's text is not in the published data or its blob is missing: units listed without it."));
    for (const v of r.views) {
      kids.push(el("h3", {}, `${v.judge} · ${v.step} · repeat ${v.repeat} · ${v.status}${v.null_reason ? " (" + v.null_reason + ")" : ""}`),
        el("p", {class: "dim"}, "judge configuration " + v.judge_config + " · calls: ", ...v.calls.flatMap(i => [link("call/" + i, i), " "])));
      if (v.text !== null) kids.push(highlighted(v.text, v.units));
      kids.push(table(["unit", "label", "where"], v.units.map((u, i) => [i + 1 + ". " + u.span, u.label, u.start === null ? "not found in the text" : `${u.start}–${u.end}`])));
    }
    show(...kids);
  }
  async function system(n) {
    const s = await load("system/" + n);
    show(el("h2", {}, `System run ${s.n}: ${s.system} on ${s.paper} (sample ${s.sample})`),
      kv([["configuration", s.system_config], ["model", s.model], ["status", s.status + (s.null_reason ? " · " + s.null_reason : "")],
        ["score", s.score === null ? null : s.score + " (" + fmt(s.score_scale) + ")"], ["study", s.study], ["options", s.options]]),
      el("h3", {}, `Its chain of steps (${s.steps.length} calls, in the order made)`),
      table(["#", "step", "round", "member", "call", "purpose", "cost USD", "ms", "failed attempts"],
        s.steps.map(t => [t.index + 1, t.step, t.round, t.member, t.call ? link("call/" + t.call, t.call) : "no answer in the log", t.purpose, fmt(t.cost_usd, 6), t.ms, t.failed_attempts])),
      el("h3", {}, "The normalized review"), pre(s.review));
  }

  // ---- an audit key of a report figure: its row and the calls behind it
  async function key(fid) {
    const name = meta.keys[fid];
    if (!name) { show(el("h2", {}, fid), el("p", {}, "No report page in this page set links to this key; trace it in a terminal:"), pre("peerlake audit '" + fid.replace(/'/g, "'\\''") + "'")); return; }
    let k;
    try { k = await load("key/" + name); } catch (e) {  // opened from disk before `peerlake view` resolved it
      show(el("h2", {}, fid), el("p", {}, "This key is resolved by the viewer's server (`peerlake view`) or in a page set written with `peerlake view --out DIR`; in a terminal:"),
        pre("peerlake audit '" + fid.replace(/'/g, "'\\''") + "'"));
      return;
    }
    const kids = [el("h2", {}, "Audit key " + k.figure_id)];
    if (k.error) kids.push(el("p", {class: "err"}, k.error));
    else {
      kids.push(kv(Object.entries(k.row)), el("p", {class: "dim"}, "lineage: " + k.models.join(" ← ")),
        el("h3", {}, `Calls whose answers the row used (${k.calls.length})`),
        el("ul", {id: "key-calls"}, ...k.calls.map(i => el("li", {}, link("call/" + i, i)))));
      if (k.missing.length) kids.push(el("p", {class: "dim"}, `${k.missing.length} more call(s) outside this page set's study`));
    }
    show(...kids);
  }

  // ---- what changed: the published marts against the build before, and each judge panel's judges
  // (report.viewer.diff; the same as `peerlake diff --build prev` and `peerlake diff STUDY --judges A B`)
  const num = v => typeof v === "number" ? String(+v.toPrecision(4)) : fmt(v);
  const short = h => h ? String(h).slice(0, 12) : "—";
  function callLinks(ids, side) {
    if (!ids || !ids.length) return "—";
    return el("span", {}, ...ids.flatMap(i => [el("a", {href: "#call/" + i, class: "call-" + side}, i), " "]));
  }
  // peerlake:<64 hex> -> peerlake:0b41d548cb10…, the whole key in its title: the table stays readable
  const shortKey = k => typeof k === "string" && k.length > 40 ? el("span", {title: k}, k.slice(0, 30) + "…") : fmt(k);
  function explained(m) {  // builds_diff's explain(): the prompt templates and hashes whose new calls reach the mart
    const names = (m.explained_by || []).map(e => `${fmt(e.prompt_template)}@${short(e.prompt_hash)}${e.new_hash ? " (new hash)" : ""}`);
    return names.join(", ") + (m.lake_wide ? " (lake-wide: the mart names no study)" : "");
  }
  function notCompared(m) {
    if (m.status !== "compared") return "mart only in the " + (m.status === "only_new" ? "new" : "old") + " build";
    return (m.not_compared || []).map(c => `${c.column} (${c.why})`).join(", ");
  }
  function what(kind, ex) {
    if (kind === "changed") return (ex.changes || []).map(c => `${c.column} ${fmt(c.old)} → ${fmt(c.new)}`).join("; ");
    if (kind === "moved") return (ex.moves || []).map(c => `${c.column} ${num(c.old)} → ${num(c.new)}, outside [${num(c.old_low)}, ${num(c.old_high)}]`).join("; ");
    return "";
  }
  function since(s, oldId) {
    if (!s) return [];
    if (s.note) return [el("p", {class: "dim"}, s.note)];
    const groups = s.groups || [];
    if (!groups.length) return [el("p", {class: "dim"}, `No call or replay since build ${oldId}: what changed comes from code or settings (a model's SQL, a price table, a study file).`)];
    const t = table(["prompt template", "prompt hash", "new hash", "hashes before", "new calls", "new replays", "studies"],
      groups.map(g => [fmt(g.prompt_template), short(g.prompt_hash), g.new_hash ? "new" : "", (g.hashes_before || []).map(short).join(", "),
        g.calls, g.replays, (g.studies || []).join(", ")]));
    t.setAttribute("id", "diff-since");
    return [el("h4", {}, `Events since build ${oldId}`), t];
  }
  function buildsPart(b) {
    const kids = [el("h3", {}, "Builds: the published marts against the build before")];
    if (!b.report) {
      kids.push(el("p", {class: "err", id: "diff-builds-error"}, b.error));
      if (b.detail) kids.push(el("p", {class: "dim"}, b.detail));
      if (b.how) kids.push(el("p", {}, b.how));
      return kids;
    }
    const r = b.report, old = r.old || {}, marts = r.marts || [];
    kids.push(el("p", {}, `published marts (${(r.new || {}).build_id ? "build " + r.new.build_id : "no snapshot kept"}) against build ${fmt(old.build_id)} ` +
      `(published ${fmt(old.published_at)}, chain head seq ${fmt(old.chain_head_seq)})`), ...since(r.since, old.build_id));
    const differ = marts.filter(m => m.status !== "compared" || m.added || m.removed || m.changed || (m.not_compared || []).length);
    if (differ.length) {
      const t = table(["mart", "rows", "added", "removed", "changed", "moved beyond CI", "not compared", "explained by", "studies"],
        differ.map(m => [m.mart, `${m.rows_old} → ${m.rows_new}`, m.added, m.removed, m.changed, m.moved, notCompared(m), explained(m), (m.studies || []).join(", ")]));
      t.setAttribute("id", "diff-marts");
      kids.push(el("h4", {}, "Marts that differ"), t);
    }
    kids.push(el("p", {class: "dim", id: "diff-unchanged"}, `${marts.length - differ.length} of ${marts.length} marts unchanged`));
    for (const m of differ) {
      const ex = m.examples || {};
      const rows = ["moved", "changed", "added", "removed"].flatMap(k => (ex[k] || []).map(e => [k, typeof e === "string" ? e : e.key, what(k, e)]));
      const calls = m.calls || [], books = m.bookkeeping || [];
      if (!rows.length && !calls.length) continue;
      kids.push(el("h4", {}, m.mart), el("p", {class: "dim"}, "key: " + (m.key || []).join(" | ") + (m.key_note ? ` (${m.key_note})` : "") +
        "; the first few of each kind (`peerlake diff --build prev --mart " + m.mart + "` lists more)" +
        (books.length ? "; not compared, they say how a build ran: " + books.join(", ") : "")));
      if (rows.length) kids.push(table(["", "key", "what"], rows));
      if (calls.length) kids.push(el("p", {class: "mart-calls"}, "calls of the differing rows: ",
        ...calls.flatMap(i => [link("call/" + i, i), " "])));
    }
    return kids;
  }
  function judgePair(p) {
    const kids = [el("h4", {}, `${p.study ? "study " + p.study + ": " : ""}judge ${p.judge_b} − judge ${p.judge_a}`)];
    if (p.error) { kids.push(el("p", {class: "err"}, p.error)); return kids; }
    kids.push(el("p", {class: "dim"}, "per system over the papers both judged (paired paper-bootstrap 95% interval; fewer than 10 papers: means only)"));
    const diffs = p.differences || [];
    if (!diffs.length) kids.push(el("p", {class: "dim"}, "No review judged by both."));
    else {
      const t = table(["judge", "metric", "system", "papers", p.judge_a, p.judge_b, "difference [95% CI]", "Wilcoxon p", "Holm p", "note"],
        diffs.map(d => [d.judge, d.metric, d.system, d.n_papers, num(d.mean_a), num(d.mean_b),
          num(d.diff_b_minus_a) + (d.ci_low !== null && d.ci_low !== undefined ? ` [${num(d.ci_low)}, ${num(d.ci_high)}]` : ""),
          num(d.wilcoxon_p), num(d.holm_p), d.skip_reason || ""]));
      t.setAttribute("class", "judge-differences");
      kids.push(t);
    }
    const moved = p.reviews_moved_most || [];
    if (moved.length) {
      const t = table(["judge", "metric", "review", "system", p.judge_a, p.judge_b, "moved", `calls (${p.judge_a})`, `calls (${p.judge_b})`],
        moved.map(m => [m.judge, m.metric, m.pool_key ? el("span", {}, shortKey(m.review_key), " in ", shortKey(m.pool_key)) : shortKey(m.review_key), m.system, num(m.value_a), num(m.value_b),
          num(m.diff_b_minus_a), callLinks(m.llm_call_ids_a, "a"), callLinks(m.llm_call_ids_b, "b")]));
      t.setAttribute("class", "judge-moved");
      kids.push(el("h4", {}, "The reviews that moved most, each with both judgments' calls"), t);
    }
    return kids;
  }
  function judgesPart(j) {
    const kids = [el("h3", {}, "Judges: each judge panel's primary configuration against each other one")];
    if (j.error) { kids.push(el("p", {class: "err", id: "diff-judges-error"}, j.error)); return kids; }
    if (!(j.studies || []).length) {
      kids.push(el("p", {class: "dim", id: "diff-no-panel"}, "No study" + (meta.study ? " " + meta.study : "") + " has a judge panel (two or more judge configurations in dim_judge_configs; [[judging.panel]] in a study file)."));
      return kids;
    }
    for (const s of j.studies) {
      const box = el("section", {class: "judge-panel", "data-study": s.study}, el("p", {}, `study ${s.study}: configurations ${s.labels.join(", ")} (${s.labels[0]} first: the primary)`));
      for (const p of s.pairs) box.append(...judgePair(p));
      kids.push(box);
    }
    return kids;
  }
  async function diffPage() {
    const d = await load("diff/diff");
    show(el("h2", {}, "What changed"), el("section", {id: "diff-builds"}, ...buildsPart(d.builds || {})),
      el("section", {id: "diff-judges"}, ...judgesPart(d.judges || {})));
  }

  async function route() {
    const h = location.hash.slice(1) || "calls";  // the path part is decoded, the query by URLSearchParams
    const q = h.indexOf("?");
    const [path, query] = q < 0 ? [decodeURIComponent(h), ""] : [decodeURIComponent(h.slice(0, q)), h.slice(q + 1)];
    const [what, ...rest] = path.split("/"); const arg = rest.join("/");
    main().removeAttribute("data-done");
    try {
      if (what === "call") await call(arg);
      else if (what === "review") await review(arg);
      else if (what === "system") await system(arg);
      else if (what === "key") await key(arg);
      else if (what === "diff") await diffPage();
      else if (what === "label" && window.PLLabel) await window.PLLabel.page();  // label.js: `peerlake label`
      else if (what === "reviews") await list("reviews", meta.n_reviews, "Judged reviews", ["review", "paper", "reviewer", "judges"],
        r => [link("review/" + r.n, r.review_key), r.paper, r.system, r.judges.join(", ")]);
      else if (what === "systems") await list("systems", meta.n_systems, "System runs", ["run", "system", "paper", "sample", "model", "status", "score", "steps"],
        s => [link("system/" + s.n, "run " + s.n), s.system, s.paper, s.sample, s.model, s.status, s.score, s.steps]);
      else await calls(new URLSearchParams(query));
    } catch (e) { show(el("p", {class: "err"}, String(e.message || e))); }
    if (location.hash.slice(1) === h || !location.hash) main().setAttribute("data-done", h);  // tests wait for it
  }

  async function start() {
    meta = await load("meta/meta");
    const rep = document.getElementById("reports");
    for (const r of meta.reports) rep.appendChild(el("a", {href: "../reports/" + encodeURIComponent(r)}, "report " + r.replace(/\.html$/, "")));
    if (meta.label) rep.appendChild(el("a", {href: "#label", id: "nav-label"}, "label"));
    window.addEventListener("hashchange", route);
    await route();
  }
  return {put, start, lib: {el, load, show, main, highlighted}};  // lib: what label.js draws with
})();
document.addEventListener("DOMContentLoaded", () => PL.start());
