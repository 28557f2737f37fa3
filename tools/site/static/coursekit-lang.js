/* The language switch of a page's bar (tools/site/coursekit_site.py) opens the other language's page at the section
 * being read: a Chinese section carries its English twin's anchor (build_site.section_ids), so the section's id is
 * the same on both pages. The section being read is the last one whose heading has scrolled to the top third of the
 * window; above the first section, the switch opens the page's top. */
"use strict";

function ckSectionBeingRead() {
  const article = document.querySelector("article.bd-article") || document.querySelector('[role="main"]');
  if (!article) return null;
  let current = null;
  const line = window.innerHeight / 3;
  for (const section of article.querySelectorAll("section[id]")) {
    const heading = section.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4");
    if (!heading || heading.tagName === "H1") continue;
    if (heading.getBoundingClientRect().top <= line) current = section;
    else break;
  }
  return current;
}

function ckKeepSection(link) {
  const url = new URL(link.getAttribute("href").split("#")[0], document.baseURI);
  const section = ckSectionBeingRead();
  link.href = section ? `${url.href}#${encodeURIComponent(section.id)}` : url.href;
}

document.querySelectorAll("a.ck-lang[data-ck-same-sections]").forEach((link) => {
  for (const kind of ["click", "auxclick", "contextmenu", "focus", "pointerenter"]) {
    link.addEventListener(kind, () => ckKeepSection(link));
  }
});
