// stridelab memory-map widget: draws panels that Python laid out, links cells and slots on
// hover, and reports clicks. All layout arithmetic happens in Python (stridelab.render.scene);
// this file only turns the plain data it receives into SVG and CSS classes.

const NS = "http://www.w3.org/2000/svg";
const HATCH = "stridelab-hatch";

function node(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function labelSize(label) {
  return label.length <= 3 ? 12 : label.length === 4 ? 10 : 8;
}

function box(x, y, w, h, fill, stroke, extra) {
  return node("rect", { x, y, width: w, height: h, fill, stroke, ...(extra || {}) });
}

function label(g, x, y, w, text) {
  const size = labelSize(text);
  g.appendChild(node("text", size === 12 ? { x: x + w / 2, y: y + 16 } : { x: x + w / 2, y: y + 16, "font-size": size }, text));
}

// One panel: the same elements, classes and data attributes as stridelab.render_svg.
function drawPanel(p, pi) {
  const W = p.cell_w, H = p.cell_h, st = p.style;
  const svg = node("svg", {
    class: "stridelab-map", width: p.width, height: p.height, viewBox: `0 0 ${p.width} ${p.height}`,
    "font-family": st.font, "data-panel": pi, role: "img", "aria-label": p.title,
  });
  const defs = node("defs");
  const pattern = node("pattern", { id: HATCH, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  pattern.appendChild(node("rect", { width: 6, height: 6, fill: st.padding_fill }));
  pattern.appendChild(node("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: st.padding_hatch, "stroke-width": 2 }));
  defs.appendChild(pattern);
  svg.appendChild(defs);
  svg.appendChild(node("rect", { class: "background", width: p.width, height: p.height, fill: st.background }));
  const s = p.slots, c = p.cells;
  // the scene's texts, then each slot's element offset above it and byte offset below it
  const all = p.texts.slice();
  for (let k = 0; k < s.x.length; k++) {
    all.push([s.x[k] + W / 2, s.y[k] + p.offset_dy, String(s.offset[k]), "offset"]);
    all.push([s.x[k] + W / 2, s.y[k] + p.byte_dy, String(s.offset[k] * p.element_size), "byte"]);
  }
  const texts = node("g", { class: "texts" });
  const groups = {};
  for (const [x, y, text, role] of all) {
    if (!groups[role]) {
      const r = p.roles[role];
      groups[role] = node("g", { class: role, "font-size": r.size, "font-weight": r.weight, "text-anchor": r.anchor, fill: r.colour });
      texts.appendChild(groups[role]);
    }
    groups[role].appendChild(node("text", { x, y }, text));
  }
  svg.appendChild(texts);

  const logical = node("g", { class: "logical", "text-anchor": "middle", "font-size": 12, fill: st.ink });
  const cellEls = [];
  for (let i = 0; i < c.x.length; i++) {
    const k = c.slot[i];
    const g = node("g", { class: "cell", "data-coords": c.coords[i], "data-slot": s.offset[k], "data-label": s.label[k], "data-i": i });
    g.appendChild(box(c.x[i], c.y[i], W, H, s.fill[k], st.stroke));
    label(g, c.x[i], c.y[i], W, s.label[k]);
    if (c.badge && c.badge[i]) {
      g.appendChild(node("text", { class: "badge", x: c.x[i] + 2, y: c.y[i] + 9, "font-size": 9, "font-weight": "bold", "text-anchor": "start" }, c.badge[i]));
    }
    g.appendChild(node("title", {}, `(${c.coords[i].split(",").join(", ")}): element ${s.offset[k]}, byte ${s.offset[k] * p.element_size}`));
    logical.appendChild(g);
    cellEls.push(g);
  }
  svg.appendChild(logical);

  const buffer = node("g", { class: "buffer", "text-anchor": "middle", "font-size": 12, fill: st.ink });
  const slotEls = [];
  for (let k = 0; k < s.x.length; k++) {
    const kind = p.kind_names[s.kind[k]];
    const g = node("g", { class: `slot ${kind}`, "data-slot": s.offset[k], "data-byte": s.offset[k] * p.element_size, "data-count": s.count[k], "data-label": s.label[k], "data-k": k });
    g.appendChild(box(s.x[k], s.y[k], W, H, s.fill[k], st.stroke, kind === "alignment" ? { "stroke-dasharray": "3 2" } : {}));
    label(g, s.x[k], s.y[k], W, s.label[k]);
    if (kind === "shared") {
      g.appendChild(node("text", { class: "count", x: s.x[k] + W - 2, y: s.y[k] + 8, "font-size": 8, "text-anchor": "end" }, `×${s.count[k]}`));
    }
    g.appendChild(node("title", {}, `element ${s.offset[k]}, byte ${s.offset[k] * p.element_size}: ${s.count[k]} element(s)`));
    buffer.appendChild(g);
    slotEls.push(g);
  }
  for (const [x, y, skipped] of p.gaps) {
    const g = node("g", { class: "gap", "data-skipped": skipped });
    g.appendChild(box(x, y, W / 2, H, "none", st.stroke, { "stroke-dasharray": "2 2" }));
    g.appendChild(node("text", { x: x + W / 4, y: y + 16 }, "⋯"));
    g.appendChild(node("title", {}, `${skipped} slots not drawn`));
    buffer.appendChild(g);
  }
  svg.appendChild(buffer);

  const legend = node("g", { class: "legend", "text-anchor": "middle", fill: st.ink });
  const marks = { padding: "x", alignment: ".", shared: "×n", gap: "⋯" };
  for (const [x, y, name] of p.legend) {
    const fill = name === "padding" ? `url(#${HATCH})` : name === "alignment" ? st.alignment_fill : st.background;
    const dash = name === "alignment" || name === "gap" ? { "stroke-dasharray": "3 2" } : {};
    const g = node("g", { class: `legend-${name}` });
    g.appendChild(box(x, y, 16, 14, fill, st.stroke, dash));
    g.appendChild(node("text", { x: x + 8, y: y + 11, "font-size": 9 }, marks[name]));
    legend.appendChild(g);
  }
  svg.appendChild(legend);

  // lookups for linking: slot -> cells, key -> cells
  const slotCells = new Map(), keyCells = new Map();
  for (let i = 0; i < c.x.length; i++) {
    if (!slotCells.has(c.slot[i])) slotCells.set(c.slot[i], []);
    slotCells.get(c.slot[i]).push(i);
    for (const key of keysOf(c.key[i])) {
      if (!keyCells.has(key)) keyCells.set(key, []);
      keyCells.get(key).push(i);
    }
  }
  return { svg, cellEls, slotEls, slotCells, keyCells, data: p };
}

// A cell's link keys: one number (-1 for none) or a list (an output linked to every input it sums).
function keysOf(key) {
  return (Array.isArray(key) ? key : [key]).filter((k) => k >= 0);
}

// The cells and slots lit when cell or slot `index` of panel `pi` is pointed at: its slot, every
// cell stored there, and in the other panels the cells sharing a link key and their slots.
function litSets(views, pi, kind, index) {
  const lit = views.map(() => ({ cells: new Set(), slots: new Set() }));
  const v = views[pi];
  const addSlot = (q, k) => {
    lit[q].slots.add(k);
    for (const i of views[q].slotCells.get(k) || []) lit[q].cells.add(i);
  };
  if (kind === "cell") {
    lit[pi].cells.add(index);
    addSlot(pi, v.data.cells.slot[index]);
  } else {
    addSlot(pi, index);
  }
  const keys = new Set([...lit[pi].cells].flatMap((i) => keysOf(v.data.cells.key[i])));
  views.forEach((w, q) => {
    if (q === pi) return;
    for (const key of keys) {
      for (const i of w.keyCells.get(key) || []) {
        lit[q].cells.add(i);
        addSlot(q, w.data.cells.slot[i]);
      }
    }
  });
  return lit;
}

function apply(views, lit, cls) {
  views.forEach((v, q) => {
    for (const e of v.svg.querySelectorAll(`.${cls}`)) e.classList.remove(cls);
    if (!lit) return;
    for (const i of lit[q].cells) v.cellEls[i].classList.add(cls);
    for (const k of lit[q].slots) v.slotEls[k].classList.add(cls);
  });
}

function describe(views, pi, k) {
  const p = views[pi].data, s = p.slots;
  const kind = p.kind_names[s.kind[k]];
  const coords = (views[pi].slotCells.get(k) || []).map((i) => `(${p.cells.coords[i].split(",").join(", ")})`);
  const where = `${p.name ? p.name + ": " : ""}element ${s.offset[k]}, byte ${s.offset[k] * p.element_size}`;
  if (kind === "padding" || kind === "alignment") return `${where}: ${kind}, no element`;
  const more = s.count[k] > coords.length ? ` (${s.count[k] - coords.length} more not drawn)` : "";
  return `${where}: ${s.label[k]} at ${coords.join(" ")}${more}`;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "stridelab-widget";
  const row = document.createElement("div");
  row.className = "stridelab-panels";
  const info = document.createElement("div");
  info.className = "stridelab-info";
  root.append(row, info);
  el.appendChild(root);
  let views = [];

  function selectedSlot() {
    const sel = model.get("selected") || {};
    if (sel.panel === undefined || !views[sel.panel]) return null;
    const k = views[sel.panel].data.slots.offset.indexOf(sel.slot);
    return k < 0 ? null : [sel.panel, k];
  }

  function showSelection() {
    const found = selectedSlot();
    apply(views, found ? litSets(views, found[0], "slot", found[1]) : null, "sel");
    info.textContent = found ? describe(views, found[0], found[1]) : "hover or click a cell or a slot";
  }

  function showMarks() {
    const marks = model.get("marks") || [];
    views.forEach((v, q) => {
      for (const e of v.svg.querySelectorAll("[data-mark]")) e.removeAttribute("data-mark");
      const m = marks[q] || {};
      for (const [cls, items] of Object.entries(m.cells || {})) for (const i of items) v.cellEls[i]?.setAttribute("data-mark", cls);
      for (const [cls, items] of Object.entries(m.slots || {})) for (const k of items) v.slotEls[k]?.setAttribute("data-mark", cls);
    });
  }

  function showStale() {
    root.classList.toggle("stale", Boolean(model.get("stale")));
  }

  function draw() {
    row.replaceChildren();
    row.classList.toggle("stacked", Boolean(model.get("stacked")));
    views = (model.get("panels") || []).map((p, pi) => {
      const v = drawPanel(p, pi);
      const figure = document.createElement("div");
      figure.className = "stridelab-panel";
      if (p.name) {
        const caption = document.createElement("div");
        caption.className = "stridelab-panel-name";
        caption.textContent = p.name;
        figure.appendChild(caption);
      }
      figure.appendChild(v.svg);
      row.appendChild(figure);
      return v;
    });
    showMarks();
    showSelection();
    root.dataset.drawn = String((Number(root.dataset.drawn) || 0) + 1);
    root.dataset.drawnAt = String(performance.now());
  }

  function target(event) {
    const g = event.target.closest("g.cell, g.slot");
    if (!g) return null;
    const pi = Number(g.ownerSVGElement.dataset.panel);
    return g.classList.contains("cell") ? [pi, "cell", Number(g.dataset.i)] : [pi, "slot", Number(g.dataset.k)];
  }

  row.addEventListener("mouseover", (event) => {
    const t = target(event);
    apply(views, t ? litSets(views, ...t) : null, "hl");
    if (t) {
      const k = t[1] === "cell" ? views[t[0]].data.cells.slot[t[2]] : t[2];
      info.textContent = describe(views, t[0], k);
    } else {
      showSelection();
    }
  });
  row.addEventListener("mouseleave", () => {
    apply(views, null, "hl");
    showSelection();
  });
  row.addEventListener("click", (event) => {
    const t = target(event);
    if (!t) return;
    const p = views[t[0]].data;
    const k = t[1] === "cell" ? p.cells.slot[t[2]] : t[2];
    model.set("selected", { panel: t[0], slot: p.slots.offset[k] });
    model.save_changes();
  });

  model.on("change:panels", draw);
  model.on("change:stacked", draw);
  model.on("change:marks", showMarks);
  model.on("change:selected", showSelection);
  model.on("change:stale", showStale);
  draw();
  showStale();
  return () => {
    model.off("change:panels", draw);
    model.off("change:stacked", draw);
    model.off("change:marks", showMarks);
    model.off("change:selected", showSelection);
    model.off("change:stale", showStale);
  };
}

export default { render };
