/* The course website's search pages (search.html in English, search-zh.html in Chinese; tools/site/finish.py):
 *
 * - results in the page's language come first: a Chinese learner's query (显存, ZeRO-3) also matches the English
 *   lessons, which follow the Chinese ones instead of being mixed in; bilingual pages (home, glossary) count as both;
 *   among results that match alike, lessons first, instructor guides last; the home page (a list of every title)
 *   after every page of the page's language;
 * - a result's snippet is taken from the lesson text only: not from the page's buttons and contents list (浅色 深色,
 *   目录 ...), nor from the code cells' source (a query's first hit after a code cell read `Markdown("\n".join(...`),
 *   and a formula reads as it is shown, not as its TeX source (KaTeX's MathML copy is left out).
 * - a snippet is centred on the query as typed where the page has it (张量并行, pipeline bubble, ZeRO-3), not on the
 *   first hit of its last word;
 *
 * - opened from disk (file://), where the browser refuses to fetch the result pages a snippet is read from (two
 *   console errors per result), the results show their titles and sections without snippets.
 *
 * Loaded before Sphinx's searchtools.js, which keeps a Scorer defined before it. */
"use strict";

/** ``zh``/``en`` for a page (a docname's language segment or ``_zh``/``_en`` suffix), null for a bilingual page. */
function ckPageLanguage(docname) {
  const parts = docname.split("/");
  const found = parts.filter((part) => part === "zh" || part === "en");
  if (found.length) return found[found.length - 1];
  const suffix = parts[parts.length - 1].split("_").pop();
  return suffix === "zh" || suffix === "en" ? suffix : null;
}

const CK_SEARCH_LANGUAGE = (document.documentElement.lang || "en").startsWith("zh") ? "zh" : "en";
/** Below every result in the page's language: Sphinx's scores are sums of small weights (title 15, term 5 ...). */
const CK_OTHER_LANGUAGE_PENALTY = 100000;
/** Among results that match alike, which comes first: a lesson, then the other course pages (cheat sheet, capstone,
 * glossary, how to run the course), then the instructor guide (a learner looks for the lesson; Sphinx would break the
 * tie by title, "Capstone", "Cheat sheet" and "Instructor guide" before "Lesson"). Fractions: they only break ties. */
function ckTier(docname) {
  if (docname.startsWith("notebooks/")) return 0.3;
  if (docname.startsWith("docs/instructor/")) return 0.1;
  return 0.2;
}
/** The home page lists every lesson's title, so it matched most queries, often first (张量并行): it comes after every
 * page of the search page's language. */
const CK_HOME_PENALTY = 1000;

var Scorer = {
  // Sphinx's defaults (searchtools.js)
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
  /** [docname, title, anchor, descr, score, filename, kind] -> score, the other language's pages last. */
  score: (result) => {
    const [docname, , , , score] = result;
    const language = ckPageLanguage(docname);
    const other = language && language !== CK_SEARCH_LANGUAGE ? CK_OTHER_LANGUAGE_PENALTY : 0;
    return score + ckTier(docname) - (docname === "index" ? CK_HOME_PENALTY : 0) - other;
  },
};

/** A result page's text for its snippet: the article (or the anchored section in it), without the page's buttons,
 * the course bar, headerlinks, the code cells' source and KaTeX's MathML copy of each formula. */
function ckSnippetText(htmlString, anchor) {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  const drop = ".headerlink, script, style, .katex-mathml, .ck-bar, .ck-static-note, .header-article, .cell_input";
  page.querySelectorAll(drop).forEach((element) => element.remove());
  const main = page.querySelector("article.bd-article") || page.querySelector('[role="main"]');
  if (!main) return "";
  if (anchor && anchor.length > 1) {
    const part = page.getElementById(decodeURIComponent(anchor.slice(1)));
    if (part && main.contains(part)) return part.textContent;
  }
  return main.textContent;
}

if (location.protocol === "file:") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;

/** The query as typed, lower-case with its spaces collapsed (``张量并行``, ``pipeline bubble``, ``zero-3``). */
function ckTypedQuery() {
  return (new URLSearchParams(location.search).get("q") || "").trim().replace(/\s+/g, " ").toLowerCase();
}

/** Sphinx centres a snippet on the first hit of the query's last word (并行 of 张量并行, 3 of ZeRO-3), which can be
 * far from the phrase searched for: where the page has the query as typed, the snippet is centred on it. */
function ckPhraseSummary(sphinxSummary) {
  return (htmlText, keywords, anchor) => {
    const phrase = ckTypedQuery();
    const text = phrase ? Search.htmlToText(htmlText, anchor) : "";
    if (text && text.toLowerCase().includes(phrase)) return sphinxSummary(htmlText, [phrase], anchor);
    return sphinxSummary(htmlText, keywords, anchor);
  };
}

document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined") return;
  Search.htmlToText = ckSnippetText;
  Search.makeSearchSummary = ckPhraseSummary(Search.makeSearchSummary);
});
