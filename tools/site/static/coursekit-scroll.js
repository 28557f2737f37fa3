/* A displayed formula wider than its column (a phone, a projector at 125 %) scrolls in its own box (coursekit.css);
 * like the theme's code blocks and tables, such a box is a tab stop while it scrolls, so a keyboard can scroll it
 * too (axe: scrollable-region-focusable). Checked again whenever the box's size changes (the window's width, a
 * code cell's output laid out when it nears the screen). */
"use strict";

function ckFormulaTabStop(box) {
  if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
  else box.removeAttribute("tabindex");
}

document.addEventListener("DOMContentLoaded", () => {
  const boxes = document.querySelectorAll(".bd-article div.math > .katex-display");
  if (!boxes.length) return;
  const watch = new ResizeObserver((entries) => entries.forEach((entry) => ckFormulaTabStop(entry.target)));
  boxes.forEach((box) => {
    ckFormulaTabStop(box);
    watch.observe(box);
  });
});
