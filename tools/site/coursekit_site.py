"""Sphinx extension of the course website: language switch, launch buttons, prev/next within a language.

Loaded by the ``conf.py`` that :mod:`build_site` writes. Every page gets a bar at the top:

* the language switch: the same page in the other language (``.../zh/...`` <-> ``.../en/...``), at the section
  being read (coursekit-lang.js: a Chinese section has its English twin's anchor), or, for a page written in both
  languages (the home page, the glossary), links to both course indexes;
* on a lesson page: Binder (JupyterLab at that notebook), Colab (the notebook opened from the repository), the
  ModelScope how-to and the how-to for one's own computer (``make lab``); the repository comes from
  ``coursekit_repository`` (owner/name, read from pyproject.toml);
* a link to the glossary.

Previous/next links never cross from one language's course into the other's.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sphinx.search.zh import SearchChinese

from coursekit.i18n import Text

LANGS = ("zh", "en")

#: The bar's words, each in the page's language ("switch" names the other language, in that language).
LABELS: dict[str, Text] = {
    "switch": Text(zh="English", en="中文"),
    "binder": Text(zh="在 Binder 上运行", en="Run on Binder"),
    "colab": Text(zh="在 Colab 中打开", en="Open in Colab"),
    "modelscope": Text(zh="在魔搭 (ModelScope) 上运行", en="Run on ModelScope"),
    "local": Text(zh="在自己的电脑上运行 (make lab)", en="Run on your computer (make lab)"),
    "glossary": Text(zh="术语表", en="Glossary"),
    "home": Text(zh="课程首页", en="Course home"),
    "launch": Text(zh="运行本课：", en="Run this lesson:"),
    "bar": Text(zh="课程", en="Course"),
}
#: The language of JupyterLab's interface in Binder's image (binder/postBuild); a Binder link can choose the path only.
BINDER_UI_LANGUAGE = "zh"
#: What a page in another language says about it (markup of our own).
BINDER_UI_NOTE = (
    'Binder opens JupyterLab in Chinese: switch with <span lang="zh-CN">设置</span> (Settings) → '
    '<span lang="zh-CN">语言</span> (Language) → English.'
)
INDEX_DOC = "notebooks/{lang}/00_index"
GLOSSARY_DOC = "docs/GLOSSARY"
LAUNCH_DOC = "launch/{lang}"


def page_language(docname: str) -> str | None:
    """``zh``/``en`` when a path segment or a ``_zh``/``_en`` name suffix names it, else None (a bilingual page)."""
    parts = docname.split("/")
    found = [part for part in parts if part in LANGS]
    if found:
        return found[-1]
    suffix = parts[-1].rsplit("_", 1)[-1]
    return suffix if suffix in LANGS else None


def counterpart(docname: str) -> str | None:
    """The same page in the other language (language segment or suffix swapped), or None for a bilingual page."""
    parts = docname.split("/")
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] in LANGS:
            parts[index] = "en" if parts[index] == "zh" else "zh"
            return "/".join(parts)
    stem, _, suffix = parts[-1].rpartition("_")
    if stem and suffix in LANGS:
        parts[-1] = f"{stem}_{'en' if suffix == 'zh' else 'zh'}"
        return "/".join(parts)
    return None


def launch_urls(repository: str, branch: str, notebook_path: str) -> dict[str, str]:
    """Binder (JupyterLab at the notebook) and Colab URLs of a notebook given by its path in the repository."""
    path = quote(notebook_path)
    return {
        "binder": f"https://mybinder.org/v2/gh/{repository}/{branch}?urlpath={quote('lab/tree/' + notebook_path)}",
        "colab": f"https://colab.research.google.com/github/{repository}/blob/{branch}/{path}",
    }


def _link(href: str, text: str, css: str) -> str:
    return f'<a class="{css}" href="{html.escape(href)}">{html.escape(text)}</a>'


def _bar(app: Any, pagename: str) -> str:
    builder = app.builder
    found = app.env.found_docs
    lang = page_language(pagename)
    uri = builder.get_relative_uri
    items: list[str] = []
    labels = {name: text.render(lang or "zh") for name, text in LABELS.items()}
    if lang is None:
        for other in LANGS:
            target = INDEX_DOC.format(lang=other)
            if target in found:
                items.append(_link(uri(pagename, target), LABELS["home"].render(other), f"ck-lang ck-lang-{other}"))
    else:
        other = "en" if lang == "zh" else "zh"
        target = counterpart(pagename)
        twin = target in found  # the same page in the other language: its sections have this page's anchors
        if not twin:
            target = INDEX_DOC.format(lang=other)
        if target in found:
            link = _link(uri(pagename, target), labels["switch"], f"ck-lang ck-lang-{other}")
            items.append(link.replace("<a ", '<a data-ck-same-sections="" ', 1) if twin else link)
    if GLOSSARY_DOC in found and pagename != GLOSSARY_DOC:
        items.append(
            _link(uri(pagename, GLOSSARY_DOC), labels["glossary"] if lang else "术语表 / Glossary", "ck-glossary")
        )
    source = app.env.doc2path(pagename, base=False)
    if lang is not None and str(source).endswith(".ipynb"):
        urls = launch_urls(app.config.coursekit_repository, app.config.coursekit_branch, str(source))
        launch = [
            _link(urls["binder"], labels["binder"], "ck-launch ck-binder"),
            _link(urls["colab"], labels["colab"], "ck-launch ck-colab"),
        ]
        how_to = LAUNCH_DOC.format(lang=lang)
        if how_to in found:
            launch.append(_link(uri(pagename, how_to) + "#modelscope", labels["modelscope"], "ck-launch ck-modelscope"))
            launch.append(_link(uri(pagename, how_to) + "#local", labels["local"], "ck-launch ck-local"))
        items.append(f'<span class="ck-launch-label">{html.escape(labels["launch"])}</span> ' + " ".join(launch))
        if lang != BINDER_UI_LANGUAGE:
            items.append(f'<span class="ck-binder-ui">{BINDER_UI_NOTE}</span>')
    return f'<nav class="ck-bar" aria-label="{labels["bar"]}">' + " ".join(items) + "</nav>"


def _same_language(app: Any, pagename: str, docname: str | None) -> bool:
    return docname is not None and page_language(docname) == page_language(pagename)


def on_page_context(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is None or "body" not in context:
        return
    context["body"] = _bar(app, pagename) + context["body"]
    lang = page_language(pagename)
    if lang is not None:  # <html lang>: Chinese pages pick Chinese glyph forms and screen-reader voices
        context["language"] = "zh-CN" if lang == "zh" else "en"
    relations = app.env.collect_relations().get(pagename)
    if relations:
        _, prev_doc, next_doc = relations
        if not _same_language(app, pagename, prev_doc):
            context["prev"] = None
        if not _same_language(app, pagename, next_doc):
            context["next"] = None


#: Splits a query the way the index was split: Latin words as Sphinx does, and each run of Chinese characters
#: into the longest words the index holds (the index's words are jieba's, so the query gets jieba's words).
#: Characters that start no indexed word are dropped: they could match nothing, and keeping them would make
#: every query containing them return nothing.
CHINESE_QUERY_SPLITTER = r"""
var splitQuery = (query) => {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const known = (word) =>
    (index.terms && Object.hasOwn(index.terms, word)) || (index.titleterms && Object.hasOwn(index.titleterms, word));
  const words = [];
  for (const token of query.split(/[^\p{Letter}\p{Number}_]+/u)) {
    for (const run of token.split(/(\p{Script=Han}+)/u)) {
      if (!run) continue;
      if (!/\p{Script=Han}/u.test(run) || known(run)) { words.push(run); continue; }
      let start = 0;
      while (start < run.length) {
        let end = Math.min(run.length, start + 8);
        while (end > start + 1 && !known(run.slice(start, end))) end -= 1;
        if (end > start + 1) words.push(run.slice(start, end));
        start = end > start + 1 ? end : start + 1;
      }
    }
  }
  return words;
};
"""


def _minified_stemmer(name: str) -> str:
    import sphinx.search

    folder = Path(sphinx.search.__file__).parent / "minified-js"
    return (folder / name).read_text(encoding="utf-8")


class CourseChineseSearch(SearchChinese):
    """Sphinx's Chinese search with a working stemmer line and a query splitter that segments Chinese.

    Sphinx 9.0.4 ends ``language_data.js`` with ``window.Stemmer = ChineseStemmer``, a name nothing defines
    (sphinx-doc/sphinx#14229): the script stops there and every search fails. The Chinese index stems Latin
    words with the English stemmer, so the page gets that stemmer under its own name.
    """

    js_stemmer_rawcode = ""
    js_splitter_code = CHINESE_QUERY_SPLITTER

    @property
    def js_stemmer_code(self) -> str:  # type: ignore[override]
        stemmers = (_minified_stemmer("base-stemmer.js"), _minified_stemmer("english-stemmer.js"))
        return "\n".join((*stemmers, "window.Stemmer = EnglishStemmer;"))


def on_doctree_read(app: Any, doctree: Any) -> None:
    """Give a Chinese page's sections their English twin's anchors (listed by the site builder)."""
    from docutils import nodes

    name = app.config.coursekit_section_ids
    if not name:
        return
    path = Path(app.srcdir) / name
    table = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    ids = table.get(app.env.docname)
    sections = list(doctree.findall(nodes.section))
    if not ids or len(ids) != len(sections):
        return
    taken: set[str] = set()
    for section, wanted in zip(sections, ids, strict=True):
        anchor, n = wanted, 1
        while anchor in taken or (anchor in doctree.ids and doctree.ids[anchor] is not section):
            n += 1
            anchor = f"{wanted}-{n}"
        taken.add(anchor)
        if anchor not in section["ids"]:
            section["ids"].insert(0, anchor)
            doctree.ids[anchor] = section
        else:
            section["ids"].remove(anchor)
            section["ids"].insert(0, anchor)


def on_env_updated(app: Any, env: Any) -> None:
    """Drop the executed widgets' saved state: pages show build-time views and load no widget manager."""
    for data in getattr(env, "nb_metadata", {}).values():
        data.get("js_files", {}).pop("ipywidgets_state", None)


def setup(app: Any) -> dict[str, Any]:
    import sphinx.search

    sphinx.search.languages["zh"] = CourseChineseSearch
    app.add_config_value("coursekit_section_ids", "", "env")
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-updated", on_env_updated)
    app.add_config_value("coursekit_repository", "", "html")
    app.add_config_value("coursekit_branch", "main", "html")
    app.connect("html-page-context", on_page_context)
    app.add_css_file("coursekit.css")
    app.add_js_file("coursekit-live.js", loading_method="defer")  # lesson widgets' precomputed states
    app.add_js_file("coursekit-lang.js", loading_method="defer")  # the language switch keeps the section read
    app.add_js_file("coursekit-scroll.js", loading_method="defer")  # a wide formula's box: a tab stop while it scrolls
    app.add_css_file("coursekit-print.css", media="print")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
