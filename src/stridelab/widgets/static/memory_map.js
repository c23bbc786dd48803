// stridelab memory-map widget: shows the SVG drawings Python painted, links cells and slots on
// hover, and reports clicks. Layout and painting happen in Python (stridelab.render); this file
// only wires pointer events onto the drawings and sets CSS classes.

// One panel: the SVG Python painted (stridelab.render.svg, the same picture every surface shows),
// and lookups from the plain lists sent beside it: slot -> cells, link key -> cells.
function drawPanel(p, pi) {
  const template = document.createElement("template");
  template.innerHTML = p.svg;
  const svg = template.content.querySelector("svg");
  svg.dataset.panel = String(pi);
  const cellEls = [...svg.querySelectorAll("g.logical > g.cell")];
  const slotEls = [...svg.querySelectorAll("g.buffer > g.slot")];
  cellEls.forEach((g, i) => { g.dataset.i = String(i); });
  // the memory traffic (MemoryMapView(..., access=True)): the outlined sectors, in order
  const sectorEls = [...svg.querySelectorAll("g.access > g.sector")];
  slotEls.forEach((g, k) => { g.dataset.k = String(k); });
  const c = p.cells;
  const slotCells = new Map(), keyCells = new Map();
  for (let i = 0; i < c.slot.length; i++) {
    if (!slotCells.has(c.slot[i])) slotCells.set(c.slot[i], []);
    slotCells.get(c.slot[i]).push(i);
    for (const key of keysOf(c.key[i])) {
      if (!keyCells.has(key)) keyCells.set(key, []);
      keyCells.get(key).push(i);
    }
  }
  return { svg, cellEls, slotEls, sectorEls, slotCells, keyCells, data: p };
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

// With the memory traffic shown: light the sectors cell `i` of panel `pi`'s thread reads (their
// drawn slots and outlines), or none (`i` null); return what to say about the thread, or null.
function lightSectors(views, pi, i) {
  views.forEach((v) => {
    for (const e of v.svg.querySelectorAll(".sector-lit")) e.classList.remove("sector-lit");
  });
  const v = views[pi], access = v && v.data.access;
  if (!access || i === null) return null;
  const [start, stop] = access.slots[i];
  for (let k = start; k < stop; k++) v.slotEls[k].classList.add("sector-lit");
  for (const o of access.outlines[i]) v.sectorEls[o]?.classList.add("sector-lit");
  return access.info[i];
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
  const copies = document.createElement("div");
  copies.className = "stridelab-copy";
  root.append(row, info, copies);
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

  // Each copy line: selectable text and a button that puts it on the clipboard (where the page
  // may use it: a secure context); elsewhere the button selects the text for Ctrl+C.
  function showCopyLines() {
    copies.replaceChildren(...(model.get("copy_lines") || []).map((text) => {
      const line = document.createElement("div");
      const code = document.createElement("code");
      code.textContent = text;
      const button = document.createElement("button");
      button.textContent = "copy";
      button.title = "copy this line";
      button.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(text);
          button.textContent = "copied";
        } catch {
          window.getSelection().selectAllChildren(code);
          button.textContent = "press Ctrl+C";
        }
        setTimeout(() => { button.textContent = "copy"; }, 1500);
      });
      line.append(code, button);
      return line;
    }));
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
    const thread = t ? lightSectors(views, t[0], t[1] === "cell" ? t[2] : null) : null;
    if (t) {
      const k = t[1] === "cell" ? views[t[0]].data.cells.slot[t[2]] : t[2];
      info.textContent = thread || describe(views, t[0], k);
    } else {
      showSelection();
    }
  });
  row.addEventListener("mouseleave", () => {
    apply(views, null, "hl");
    if (views.length) lightSectors(views, 0, null);
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
  model.on("change:copy_lines", showCopyLines);
  draw();
  showStale();
  showCopyLines();
  // Python lays drawings out for the output area's width: report it, and again when it changes
  // by more than a few cells' worth (a redraw changes the height, never the width).
  const reportWidth = () => {
    const width = Math.floor(el.getBoundingClientRect().width);
    if (width > 0 && Math.abs(width - (model.get("available_width") || 0)) >= 40) {
      model.set("available_width", width);
      model.save_changes();
    }
  };
  const resizes = new ResizeObserver(reportWidth);
  resizes.observe(el);
  return () => {
    model.off("change:panels", draw);
    model.off("change:stacked", draw);
    model.off("change:marks", showMarks);
    model.off("change:selected", showSelection);
    model.off("change:stale", showStale);
    model.off("change:copy_lines", showCopyLines);
    resizes.disconnect();
  };
}

export default { render };
