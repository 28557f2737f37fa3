/* Lesson widgets on the course website: replay the states the build computed with coursekit
 * (coursekit/widgets/frames.py) as a slider over the widget's main control. No formula lives here: each
 * state's verdict box, figure and value are the widget's own, recorded at build time. */
"use strict";
document.querySelectorAll(".ck-static").forEach((block) => {
  const data = block.querySelector("script.ck-live-frames");
  if (!data) return;
  const replay = JSON.parse(data.textContent);
  const frames = replay.frames;
  const row = block.querySelectorAll(".ck-static-controls > li")[replay.control];
  const shown = row.querySelector("b");
  const message = block.querySelector(".ck-static-message");
  const image = block.querySelector("img.ck-static-figure");
  const sources = frames.map((frame) => "data:image/png;base64," + frame.png);
  const start = Math.max(0, frames.findIndex((frame) => frame.value === shown.textContent));
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: 0, max: frames.length - 1, step: 1, value: start });
  slider.className = "ck-live-slider";
  slider.setAttribute("aria-label", replay.label);
  slider.setAttribute("aria-valuetext", frames[start].value);
  const decoded = sources.map((src) => { const img = new Image(); img.src = src; return img; });
  slider.addEventListener("input", () => {
    const frame = frames[slider.value];
    image.src = decoded[slider.value].src;
    image.alt = frame.alt;
    message.innerHTML = frame.message;
    shown.textContent = frame.value;
    slider.setAttribute("aria-valuetext", frame.value);
  });
  row.append(" ", slider);
  block.classList.add("ck-live");
});
