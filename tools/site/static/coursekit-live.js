/* Lesson widgets on the course website: replay the states the build computed with coursekit
 * (coursekit/widgets/frames.py). No formula lives here: each state's verdict box, figure and control values
 * are the widget's own, recorded at build time. A widget gets either
 *
 * - a slider over one control's grid (most widgets), or
 * - a choice of the lesson's cases and links that run the lesson live (the workbench, whose controls span too
 *   many combinations to precompute).
 *
 * The figure is drawn on a canvas from bitmaps decoded ahead (createImageBitmap, off the main thread) for the
 * states next to the one shown: a step then costs a canvas copy, not a PNG decode. A state carries its figure
 * inline (``png``, base64: a slider's states) or names an image file (``src``: a widget's cases, which the site's
 * build moved out of the page, tools/site/finish.py); a file is loaded only when its state is asked for. A case's
 * verdict box is likewise a file (``message_src``), but for the case the page shows (``message_shown``): its box
 * shows a short note while the file loads, and says so in the page's language if it does not load. */
"use strict";

/** Decoded states kept per widget, nearest to the shown one first (a 2x figure is about 3 MB decoded). */
const CK_KEEP_DECODED = 9;

function ckBytes(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Blob([bytes], { type: "image/png" });
}

/** A state's figure as something createImageBitmap takes: its inline PNG, or its image file once loaded. */
function ckSource(state) {
  if (!state.src) return Promise.resolve(ckBytes(state.png));
  return new Promise((loaded, failed) => {
    const file = new Image();
    file.onload = () => loaded(file);
    file.onerror = () => failed(new Error(`figure ${state.src} did not load`));
    file.src = state.src;
  });
}

/** The widget's figure, showing state ``i`` of ``states`` (each with ``png`` or ``src``, and ``alt``) on
 * ``show(i)``, which returns a Promise settled once it shows (rejected if its file did not load). The page shows
 * state ``start`` already; states named by a file are not decoded ahead. */
function ckLiveFigure(image, states, start) {
  let shown = start;
  const mark = (i) => { image.dataset.frame = String(i); };
  if (typeof createImageBitmap !== "function") {  // an old browser: swap the image's source
    mark(start);
    return (i) => {
      shown = i;
      image.src = states[i].src || "data:image/png;base64," + states[i].png;
      image.alt = states[i].alt;
      mark(i);
      return image.decode ? image.decode() : Promise.resolve();
    };
  }
  const canvas = document.createElement("canvas");
  canvas.className = image.className;
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", image.alt);
  canvas.style.setProperty("--ck-figure-width", `${image.getAttribute("width") || image.naturalWidth}px`);
  const bitmaps = new Map();  // index -> ImageBitmap, or a Promise of one while it decodes
  const decode = (i) => {
    if (!bitmaps.has(i)) {
      const pending = ckSource(states[i]).then((source) => createImageBitmap(source)).then((bitmap) => {
        if (bitmaps.get(i) === pending) bitmaps.set(i, bitmap);
        else bitmap.close();  // let go while it decoded
        return bitmap;
      });
      pending.catch(() => {
        if (bitmaps.get(i) === pending) bitmaps.delete(i);  // asked again, it loads again
      });
      bitmaps.set(i, pending);
    }
    return Promise.resolve(bitmaps.get(i));
  };
  const nearest = () => states.map((_, i) => i).sort((a, b) => Math.abs(a - shown) - Math.abs(b - shown));
  let busy = false;
  const prepare = () => {  // decode the shown state's neighbours, one at a time; let the farthest go
    const order = nearest();
    for (const i of order.slice(CK_KEEP_DECODED)) {
      const held = bitmaps.get(i);
      bitmaps.delete(i);
      if (held instanceof ImageBitmap) held.close();
    }
    const next = order.slice(0, CK_KEEP_DECODED).find((i) => !bitmaps.has(i) && !states[i].src);
    if (busy || next === undefined) return;
    busy = true;
    decode(next).then(() => {
      busy = false;
      prepare();
    });
  };
  const draw = (i, bitmap) => {
    if (i !== shown || bitmap.width === 0) return;  // another state was asked for, or this one let go
    if (!canvas.isConnected) {
      canvas.width = bitmap.width;
      canvas.height = bitmap.height;
      image.replaceWith(canvas);
    }
    canvas.getContext("2d").drawImage(bitmap, 0, 0);
    canvas.setAttribute("aria-label", states[i].alt);
    canvas.dataset.frame = String(i);
  };
  const show = (i) => {
    shown = i;
    const ready = bitmaps.get(i);
    const drawn = ready instanceof ImageBitmap ? Promise.resolve(draw(i, ready)) : decode(i).then((b) => draw(i, b));
    prepare();
    return drawn;
  };
  mark(start);
  if (states[start].src) return show;  // the page's own image shows it until another state is asked for
  show(start);
  return show;
}

/** The page's own launch links (Binder, Colab, ModelScope in the page's language), copied beside a widget. */
function ckLaunchLinks(text) {
  const links = [...document.querySelectorAll(".ck-bar a.ck-launch")];
  if (!links.length) return null;
  const line = document.createElement("p");
  line.className = "ck-live-launch";
  line.append(text, " ");
  links.forEach((link, i) => {
    if (i) line.append(" ");
    line.append(link.cloneNode(true));
  });
  return line;
}

function ckSlider(block, replay, rows, message) {
  const frames = replay.frames;
  const shown = rows[replay.control].querySelector("b");
  const start = Math.max(0, frames.findIndex((frame) => frame.value === shown.textContent));
  const figure = ckLiveFigure(block.querySelector("img.ck-static-figure"), frames, start);
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: 0, max: frames.length - 1, step: 1, value: start });
  slider.className = "ck-live-slider";
  slider.setAttribute("aria-label", replay.label);
  slider.setAttribute("aria-valuetext", frames[start].value);
  slider.addEventListener("input", () => {
    const i = Number(slider.value);
    const frame = frames[i];
    figure(i);
    message.innerHTML = frame.message;
    shown.textContent = frame.value;
    slider.setAttribute("aria-valuetext", frame.value);
  });
  rows[replay.control].append(" ", slider);
  // Where to move the other controls: the page's launch links, under the note that names them, so that a learner
  // far down the page (a phone) need not scroll back to the page's top.
  const label = document.querySelector(".ck-bar .ck-launch-label");
  const launch = label && ckLaunchLinks(label.textContent.trim());
  if (launch) block.querySelector(".ck-static-note").after(launch);
}

/** Verdict boxes of a widget's cases by file, each a Promise of its HTML; a file that failed is asked for again. The
 * file is a script calling ``ckCaseMessage(key, box)`` (tools/site/finish.py: it loads from disk too, where fetch is
 * refused); ``key`` is its name's hash. */
const ckCaseBoxes = new Map();
const ckCaseWaiting = new Map();  // key -> the function that takes its box

function ckCaseMessage(key, markup) {
  const take = ckCaseWaiting.get(key);
  ckCaseWaiting.delete(key);
  if (take) take(markup);
}

function ckCaseBox(src) {
  if (!ckCaseBoxes.has(src)) {
    const key = src.replace(/^.*ck-case-|\.js$/g, "");
    const box = new Promise((loaded, failed) => {
      ckCaseWaiting.set(key, loaded);
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => {
        script.remove();
        if (ckCaseWaiting.delete(key)) failed(new Error(`${src} gave no verdict box`));
      };
      script.onerror = () => {
        script.remove();
        ckCaseWaiting.delete(key);
        failed(new Error(`${src} did not load`));
      };
      document.head.append(script);
    });
    box.catch(() => ckCaseBoxes.delete(src));
    ckCaseBoxes.set(src, box);
  }
  return ckCaseBoxes.get(src);
}

function ckPresets(block, replay, rows, message) {
  const cases = replay.presets;
  const current = rows.map((row) => row.querySelector("b").textContent);
  const start = Math.max(0, cases.findIndex((c) => c.controls.every(([, value], i) => value === current[i])));
  const figure = ckLiveFigure(block.querySelector("img.ck-static-figure"), cases, start);
  const label = document.createElement("label");
  label.className = "ck-live-preset";
  const shownMessage = message.innerHTML;  // the case the page was built at (the build kept one copy of its box)
  const select = document.createElement("select");
  cases.forEach((c, i) => select.append(new Option(c.name, String(i), i === start, i === start)));
  label.append(replay.label, " ", select);
  const note = (text, className, role) => {  // the box while a case loads, or when it did not
    const line = document.createElement("p");
    line.className = className;
    line.setAttribute("role", role);
    line.textContent = text;
    message.replaceChildren(line);
  };
  let asked = 0;  // the latest pick: an earlier one that settles later changes nothing
  select.addEventListener("change", () => {
    const i = Number(select.value);
    const chosen = cases[i];
    const pick = ++asked;
    chosen.controls.forEach(([name, value], row) => {
      rows[row].firstChild.textContent = `${name}: `;
      rows[row].querySelector("b").textContent = value;
    });
    // The case's box once its box and its figure are both there; until then the box says it is loading (and the
    // figure, the last case's still, is faded), and if either file does not load, the box says so.
    let box = chosen.message;
    if (chosen.message_shown) box = shownMessage;
    else if (chosen.message_src) box = ckCaseBox(chosen.message_src);
    const settle = (failed) => {
      block.removeAttribute("aria-busy");
      block.classList.toggle("ck-live-stale", failed);
    };
    block.setAttribute("aria-busy", "true");
    note(replay.loading || "...", "ck-live-pending", "status");
    Promise.all([box, figure(i)]).then(
      ([markup]) => {
        if (pick !== asked) return;
        message.innerHTML = markup;
        settle(false);
      },
      (error) => {
        if (pick !== asked) return;
        console.error(error);
        note(replay.failed || String(error), "ck-live-failed", "alert");
        settle(true);
      },
    );
  });
  const list = block.querySelector(".ck-static-controls");
  list.before(label);
  const launch = ckLaunchLinks(replay.live);
  if (launch) label.before(launch);
}

// The frames' verdict boxes refer to shared inline styles (coursekit.widgets.frames.share_styles): each style is
// written once, as a rule on its reference, important so that it wins as the inline style did.
function ckSharedStyles(block, styles) {
  const rules = Object.entries(styles || {}).map(([key, attribute]) => {
    const declarations = attribute.slice(8, -1).split(";").filter((d) => d.trim());
    return `[data-cks="${key}"]{${declarations.map((d) => `${d} !important`).join(";")}}`;
  });
  if (!rules.length) return;
  const sheet = document.createElement("style");
  sheet.textContent = rules.join("\n");
  block.append(sheet);
}

document.querySelectorAll(".ck-static").forEach((block) => {
  const data = block.querySelector("script.ck-live-frames");
  if (!data) return;
  const replay = JSON.parse(data.textContent);
  ckSharedStyles(block, replay.styles);
  const rows = [...block.querySelectorAll(".ck-static-controls > li")];
  const message = block.querySelector(".ck-static-message");
  if (replay.presets) ckPresets(block, replay, rows, message);
  else ckSlider(block, replay, rows, message);
  block.classList.add("ck-live");
});
