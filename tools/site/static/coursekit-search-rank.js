/* How the course website's search orders its results (loaded by search.html and search-zh.html before
 * coursekit-search.js; no page elements here, so tests run it under Node: tests/test_instructor_review20.py).
 *
 * Sphinx's index says only whether a page holds a word, so its results come in no useful order ("ZeRO-3" matched
 * 39 pages, the pages that say ZeRO-3 among those that say only ZeRO). The site writes each page's text, title,
 * headings and glossary entries to _static/coursekit-search-pages.js (tools/site/finish.py); a page is ranked by
 *
 * 1. where the query stands: in the page's title first (the page is about it), then in a glossary entry's name (the
 *    term's own entry), then in one of its headings, then only in its text;
 * 2. then by how much of the query the page holds (every term before some), how often the query as typed occurs,
 *    how often its terms occur near one another (within CK_NEAR_CHARS) and how often each occurs.
 *
 * A term is a run of Chinese characters or a run of other characters between spaces ("ZeRO 显存" and "ZeRO显存" are
 * the terms zero and 显存): a Chinese term matches anywhere (Chinese has no spaces between words), another at the
 * start of a word ("parallel" in "parallelism", not "tp" in "http"; a term of three letters or fewer only as a
 * whole word: "tp" is not "tpot"), and a final plural s is dropped ("bubbles" finds "bubble"). */
"use strict";

/** Chinese (CJK) characters: a query splits where they meet other characters. */
const CK_CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
const CK_CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
/** Terms this many characters apart or closer count as occurring together. */
const CK_NEAR_CHARS = 80;

/** The terms of a query, lower-case, each once, in order: ``"ZeRO 显存"`` -> ``["zero", "显存"]``. */
function ckQueryTerms(query) {
  const terms = [];
  for (const word of String(query).toLowerCase().split(/[\s,;，；、。]+/)) {
    for (const part of word.match(CK_CJK_RUN) || []) {
      const term = part.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      if (term && !terms.includes(term)) terms.push(term);
    }
  }
  return terms;
}

function ckEscape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A regular expression that finds ``term`` in lower-case text, by the rules above. */
function ckTermPattern(term) {
  if (CK_CJK.test(term)) return new RegExp(ckEscape(term), "g");
  let stem = term;
  if (/^[a-z]{4,}s$/.test(term) && !term.endsWith("ss")) stem = term.slice(0, -1);
  const whole = /^[a-z0-9]{1,3}$/.test(stem) ? "(?![\\p{L}\\p{N}])" : "";
  return new RegExp(`(?<![\\p{L}\\p{N}])${ckEscape(stem)}${whole}`, "gu");
}

/** Where ``term`` occurs in ``text`` (lower-case): character offsets. */
function ckPositions(text, term) {
  const found = [];
  const pattern = ckTermPattern(term);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    found.push(match.index);
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  return found;
}

/** Whether ``text`` holds every term. */
function ckHoldsAll(text, terms) {
  const lower = String(text).toLowerCase();
  return terms.length > 0 && terms.every((term) => ckTermPattern(term).test(lower));
}

/** How often the terms occur together: occurrences of the rarest term with every other term within
 * CK_NEAR_CHARS of it. */
function ckNearCount(positions) {
  if (positions.length < 2) return positions.length ? positions[0].length : 0;
  const sorted = [...positions].sort((a, b) => a.length - b.length);
  const [rarest, ...others] = sorted;
  return rarest.filter((at) => others.every((list) => list.some((p) => Math.abs(p - at) <= CK_NEAR_CHARS))).length;
}

/** Where a page stands for a query: 3 title, 2 glossary entry, 1 heading, 0 text only; with the anchor of the
 * heading or entry (``""`` for the title) and the heading's words. */
function ckPlace(page, terms) {
  if (ckHoldsAll(page.title || "", terms)) return { place: 3, anchor: "", heading: "" };
  let best = null;
  for (const [text, anchor, glossary] of page.headings || []) {
    if (!ckHoldsAll(text, terms)) continue;
    const place = glossary ? 2 : 1;
    if (!best || place > best.place) best = { place, anchor, heading: text };
    if (place === 2) break;
  }
  return best || { place: 0, anchor: "", heading: "" };
}

/** A page's score for ``query``: an object with its ``place`` (above) and ``text`` score, ``rank`` (both together,
 * what the results are sorted by) and the counts they came from; null when the page holds none of the terms. */
function ckScorePage(query, page) {
  const terms = ckQueryTerms(query);
  if (!terms.length) return null;
  const text = String(page.text || "").toLowerCase();
  const phrase = String(query).trim().toLowerCase().replace(/\s+/g, " ");
  const positions = terms.map((term) => ckPositions(text, term));
  const counts = positions.map((list) => list.length);
  const held = counts.filter((count) => count > 0).length;
  const { place, anchor, heading } = ckPlace(page, terms);
  if (!held && !place) return null;
  const phraseCount = terms.length > 1 ? ckPositions(text, phrase).length : counts[0];
  const near = held === terms.length ? ckNearCount(positions) : 0;
  const each = counts.reduce((sum, count) => sum + Math.log2(1 + count), 0) / terms.length;
  const score = 4 * Math.log2(1 + phraseCount) + 2 * Math.log2(1 + near) + each;
  const textScore = (10 * held) / terms.length + score;
  return { place, anchor, heading, text: textScore, rank: 1000 * place + textScore, counts, phraseCount, near };
}

/** The pages of ``pages`` (``{docname: {title, headings: [[text, anchor, isGlossary]], text}}``) ordered for
 * ``query``, best first: ``[{docname, anchor, title, heading, rank, ...}]``; pages that hold no term are left out.
 * ``candidates`` (docnames) limits the pages scored when given. Ties keep the order of ``pages``. */
function ckRankPages(query, pages, candidates) {
  const names = candidates ? [...new Set(candidates)].filter((name) => name in pages) : Object.keys(pages);
  const ranked = [];
  names.forEach((docname, order) => {
    const score = ckScorePage(query, pages[docname]);
    if (score) ranked.push({ docname, title: pages[docname].title, order, ...score });
  });
  ranked.sort((a, b) => b.rank - a.rank || a.order - b.order);
  return ranked;
}

if (typeof module !== "undefined" && module.exports) {
  module.exports = { ckQueryTerms, ckTermPattern, ckPositions, ckNearCount, ckScorePage, ckRankPages, CK_NEAR_CHARS };
}
