/* The course website's search pages (search.html in English, search-zh.html in Chinese; tools/site/finish.py):
 *
 * - Sphinx's index finds the pages that hold the query's words; they are ranked by where and how often the query
 *   occurs in each (coursekit-search-rank.js, on the page texts of coursekit-search-pages.js): a page whose title,
 *   heading or glossary entry holds the query first (its result opens at that heading or entry), then by how often
 *   and how near together the terms occur; one result per page; the first CK_SHOWN results are shown, the rest
 *   behind a button that shows CK_SHOWN more at a time;
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
 * Loaded after coursekit-search-rank.js and before Sphinx's searchtools.js, which keeps a Scorer defined before it. */
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
const CK_GUIDE_TIER = 0.1;
function ckTier(docname) {
  if (docname.startsWith("notebooks/")) return 0.3;
  if (docname.startsWith("docs/instructor/")) return CK_GUIDE_TIER;
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
 * the course bar, a lesson's navigation lines, headerlinks, the code cells' source and KaTeX's MathML copy of each formula. */
function ckSnippetText(htmlString, anchor) {
  const page = new DOMParser().parseFromString(htmlString, "text/html");
  const drop =
    ".headerlink, script, style, .katex-mathml, .ck-bar, .ck-lesson-nav, .ck-static-note, .header-article, .cell_input";
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
  Search.query = ckQuery;
});

/** Results shown at first, and shown more at each press of the button below them. */
const CK_SHOWN = 10;

/** Sphinx's results (``[docname, title, anchor, descr, score, filename, kind]``, best last) ranked again by
 * ckRankPages, best last too, as Sphinx's display takes them: this language's pages and the bilingual ones (the
 * glossary) first, the home page after them and the other language's pages last, as before; within each, by where
 * the query stands (title, glossary entry, heading, text; an instructor guide whose title or heading holds the query
 * after every other such page, as its lesson says the same), then the rank, then lessons before the other course
 * pages before the instructor guides. */
function ckRerank(query, results, pages) {
  const docnames = [...new Set(results.map((result) => result[0]))];
  const extra = Object.keys(pages).filter((name) => !docnames.includes(name));
  const terms = ckQueryTerms(query);
  // a page Sphinx's index missed but whose text holds every term (a word in an output Sphinx split otherwise)
  extra.forEach((name) => {
    if (terms.length && terms.every((term) => ckPositions(String(pages[name].text).toLowerCase(), term).length))
      docnames.push(name);
  });
  const ranked = new Map(ckRankPages(query, pages, docnames).map((entry) => [entry.docname, entry]));
  const sphinx = new Map();
  results.forEach((result) => sphinx.has(result[0]) || sphinx.set(result[0], result));
  const group = (docname) => {
    const language = ckPageLanguage(docname);
    if (language && language !== CK_SEARCH_LANGUAGE) return 2;
    return docname === "index" ? 1 : 0;
  };
  const rows = docnames.map((docname) => {
    const entry = ranked.get(docname);
    const base = sphinx.get(docname);
    const page = pages[docname];
    let title = page ? page.title : base[1];
    let anchor = "";
    if (entry && entry.anchor) {
      anchor = entry.anchor;
      title = `${page.title} > ${entry.heading}`;
    }
    const rank = entry ? entry.rank : 0;
    let place = entry ? entry.place : 0;
    const kind = place ? "title" : "text";
    // an instructor guide's titles repeat its lesson's: after every page whose title, glossary entry or heading
    // holds the query, before the pages that only mention it
    if (place && ckTier(docname) === CK_GUIDE_TIER) place = 0.5;
    const row = [docname, title, anchor, null, rank, base ? base[5] : "", kind];
    return { row, group: group(docname), place, rank };
  });
  rows.sort(
    (a, b) => a.group - b.group || b.place - a.place || b.rank - a.rank || ckTier(b.row[0]) - ckTier(a.row[0]),
  );
  return rows.map((entry) => entry.row).reverse();
}

/** Sphinx's query, ranked by ckRerank, shown CK_SHOWN results at a time. */
function ckQuery(query) {
  const [searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms] = Search._parseQuery(query);
  const found = Search._performSearch(searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms);
  const pages = typeof CK_SEARCH_PAGES === "undefined" ? {} : CK_SEARCH_PAGES;
  const results = ckRerank(query, found, pages).reverse();
  results.forEach((result, index) => {
    _displayItem(result, searchTerms, highlightTerms);
    if (index >= CK_SHOWN) Search.output.lastElementChild.hidden = true;
  });
  if (results.length > CK_SHOWN) {
    const more = document.createElement("button");
    more.type = "button";
    more.className = "ck-search-more";
    const label = () => {
      const left = Search.output.querySelectorAll("li[hidden]").length;
      more.textContent = Documentation.gettext("Show ${more} more (${left} not shown yet)")
        .replace("${more}", Math.min(CK_SHOWN, left))
        .replace("${left}", left);
      more.hidden = left === 0;
    };
    more.addEventListener("click", () => {
      const hidden = [...Search.output.querySelectorAll("li[hidden]")].slice(0, CK_SHOWN);
      hidden.forEach((item) => (item.hidden = false));
      label();
      if (hidden.length) hidden[0].querySelector("a")?.focus();
    });
    label();
    Search.output.after(more);
  }
  _finishSearch(results.length);
}
