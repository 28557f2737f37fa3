"""Sphinx extension of the course website: language switch, launch buttons, prev/next within a language.

Loaded by the ``conf.py`` that :mod:`build_site` writes. Every page gets a bar at the top:

* the language switch: the same page in the other language (``.../zh/...`` <-> ``.../en/...``), or, for a page
  written in both languages (the home page, the glossary), links to both course indexes;
* on a lesson page: Binder (JupyterLab at that notebook), Colab (the notebook opened from the repository) and the
  ModelScope how-to; the repository comes from ``coursekit_repository`` (owner/name, read from pyproject.toml);
* a link to the glossary.

Previous/next links never cross from one language's course into the other's.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import quote

LANGS = ("zh", "en")

LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "switch": "English",
        "binder": "在 Binder 上运行",
        "colab": "在 Colab 中打开",
        "modelscope": "在魔搭 (ModelScope) 上运行",
        "glossary": "术语表",
        "home": "课程首页",
        "launch": "运行本课：",
    },
    "en": {
        "switch": "中文",
        "binder": "Run on Binder",
        "colab": "Open in Colab",
        "modelscope": "Run on ModelScope",
        "glossary": "Glossary",
        "home": "Course home",
        "launch": "Run this lesson:",
    },
}
INDEX_DOC = "notebooks/{lang}/00_index"
GLOSSARY_DOC = "docs/GLOSSARY"
LAUNCH_DOC = "launch/{lang}"


def page_language(docname: str) -> str | None:
    """``zh``/``en`` when one path segment names the language, else None (a bilingual page)."""
    found = [part for part in docname.split("/") if part in LANGS]
    return found[-1] if found else None


def counterpart(docname: str) -> str | None:
    """The same page in the other language (last language segment swapped), or None for a bilingual page."""
    parts = docname.split("/")
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] in LANGS:
            parts[index] = "en" if parts[index] == "zh" else "zh"
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
    labels = LABELS[lang or "zh"]
    if lang is None:
        for other in LANGS:
            target = INDEX_DOC.format(lang=other)
            if target in found:
                items.append(_link(uri(pagename, target), LABELS[other]["home"], f"ck-lang ck-lang-{other}"))
    else:
        other = "en" if lang == "zh" else "zh"
        target = counterpart(pagename)
        if target not in found:
            target = INDEX_DOC.format(lang=other)
        if target in found:
            items.append(_link(uri(pagename, target), labels["switch"], f"ck-lang ck-lang-{other}"))
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
        items.append(f'<span class="ck-launch-label">{html.escape(labels["launch"])}</span> ' + " ".join(launch))
    return '<nav class="ck-bar" aria-label="course">' + " ".join(items) + "</nav>"


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


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("coursekit_repository", "", "html")
    app.add_config_value("coursekit_branch", "main", "html")
    app.connect("html-page-context", on_page_context)
    app.add_css_file("coursekit.css")
    app.add_css_file("coursekit-print.css", media="print")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
