// The label page (#label) of `peerlake label`: one item at a time, the first this annotator has not
// labelled; keys 1-9 (or a click) choose a label, a mouse selection in the text makes it a span's. Offsets
// are Python's (code points) into the text the judge read: a JavaScript string counts UTF-16 units, so
// they are counted with Array.from. Nothing is kept here: the server appends each label to the lake's log
// and writes data/label/page.js anew on every load, so a reload resumes where the log says.
"use strict";
window.PLLabel = (() => {
  let data = null, span = null, busy = false;
  const cp = s => Array.from(s).length;  // code points, as Python indexes a str

  function current() { return data ? data.items.find(it => !it.done) || null : null; }

  function spanOf(box) {  // the selection inside the text box as {start, end, span}, else null
    const sel = window.getSelection();
    if (!sel || !sel.rangeCount || sel.isCollapsed) return null;
    const r = sel.getRangeAt(0);
    if (!box.contains(r.startContainer) || !box.contains(r.endContainer)) return null;
    const before = document.createRange();
    before.setStart(box, 0); before.setEnd(r.startContainer, r.startOffset);
    const text = r.toString(), start = cp(before.toString());
    return text ? {start, end: start + cp(text), span: text} : null;
  }

  function draw() {
    const {el, show} = PL.lib;
    const it = current(), n = data.items.length, done = data.items.filter(i => i.done).length;
    const head = [el("h2", {}, `Label: ${data.judge} · ${data.dimension} · study ${data.study}`),
      el("p", {class: "dim"}, `annotator ${data.annotator} · ${data.blind ? "blind (the judge's labels are not shown)" : "the judge's units and labels shown"} · ` +
        `${done} of ${n} done (a sample of ${data.n_candidates} judged reviews${data.skipped ? `; ${data.skipped} set aside: their text is not the text the judge read` : ""})`)];
    if (!it) { show(...head, el("p", {id: "label-finished"}, `Every item of the sample is labelled by ${data.annotator}.`)); return; }
    span = null;
    const box = data.blind || !it.units.length ? el("pre", {class: "review", id: "label-text"}, it.text) : PL.lib.highlighted(it.text, it.units);
    box.setAttribute("id", "label-text");
    const where = el("p", {id: "label-span", class: "dim"}, "no span selected: the label is the whole item's");
    const clear = el("button", {type: "button", id: "label-clear"}, "clear the span");
    const status = el("p", {id: "label-status"});
    clear.addEventListener("click", () => { span = null; window.getSelection().removeAllRanges(); where.textContent = "no span selected: the label is the whole item's"; });
    const choices = el("div", {id: "label-choices"}, ...it.choices.map((c, k) => {
      const b = el("button", {type: "button", "data-label": c}, k < 9 ? el("kbd", {}, String(k + 1)) : null, (k < 9 ? " · " : "") + c);
      b.addEventListener("click", () => choose(c));
      return b;
    }));
    show(...head, el("section", {id: "label-item", "data-item": it.key},
      el("p", {}, `item ${data.items.indexOf(it) + 1} of ${n} · `, el("code", {}, it.key), it.paper ? " · paper " + it.paper : ""),
      box, where, clear, el("h3", {}, `${data.dimension}: choose (keys 1–${Math.min(9, it.choices.length)})`), choices, status));
  }

  async function choose(label) {
    const it = current();
    if (!it || busy) return;
    busy = true;
    const status = document.getElementById("label-status");
    const body = {item: it.key, label};
    if (span) Object.assign(body, span);
    try {
      const res = await fetch("label", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      const doc = await res.json().catch(() => ({error: "the server's answer is not JSON (" + res.status + ")"}));
      if (!res.ok) { status.className = "err"; status.textContent = "not saved: " + doc.error; return; }
      data = await PL.lib.load("label/page");
      draw();
    } catch (e) {
      status.className = "err"; status.textContent = "not saved: " + (e.message || e);
    } finally { busy = false; }
  }

  // a drag may end outside the text, so the selection is read on any mouseup; a click in the text clears
  // the span, a click elsewhere (a choice's button) keeps it
  document.addEventListener("mouseup", ev => {
    const box = document.getElementById("label-text"), where = document.getElementById("label-span");
    if (!box || !where || !location.hash.startsWith("#label")) return;
    const s = spanOf(box);
    if (s) span = s; else if (box.contains(ev.target)) span = null; else return;
    where.textContent = span ? `span ${span.start}–${span.end}: “${span.span}”` : "no span selected: the label is the whole item's";
  });

  document.addEventListener("keydown", ev => {
    if (!location.hash.startsWith("#label") || ev.ctrlKey || ev.metaKey || ev.altKey || !/^[1-9]$/.test(ev.key)) return;
    const it = current();
    if (it && Number(ev.key) <= it.choices.length) { ev.preventDefault(); choose(it.choices[Number(ev.key) - 1]); }
  });

  async function page() {
    try { data = await PL.lib.load("label/page"); } catch (e) {
      PL.lib.show(PL.lib.el("p", {}, "No labelling session: `peerlake label STUDY` serves this page."));
      return;
    }
    draw();
  }
  return {page};
})();
