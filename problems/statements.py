"""Problem statements as HTML: CommonMark with raw HTML disabled (markup in an imported
statement is shown as text, never run), and `$…$` / `$$…$$` math rendered as MathML, which
Chromium, Firefox and Safari draw natively: no script, no CDN. latex2mathml converts the TeX;
its output is passed through nh3 (the ammonia sanitizer) keeping MathML elements only, since
latex2mathml copies `\\text{…}` verbatim. Plain Python."""

from __future__ import annotations

import nh3
from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

MATHML_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "semantics", "annotation",
}  # fmt: skip
MATHML_ATTRIBUTES = {
    "math": {"xmlns", "display"},
    "*": {"mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "width",
          "columnalign", "accent", "movablelimits", "largeop", "symmetric", "linethickness"},
}  # fmt: skip


def _math(tex: str, options: dict) -> str:
    display = "block" if options.get("display_mode") else "inline"
    try:
        mathml = convert(tex, display=display)
    except Exception:  # latex2mathml raises assorted errors on TeX it does not know
        return f'<code class="math-error">{nh3.clean_text(tex)}</code>'
    return nh3.clean(mathml, tags=MATHML_TAGS, attributes=MATHML_ATTRIBUTES)


MARKDOWN = MarkdownIt("commonmark", {"html": False}).use(dollarmath_plugin, renderer=_math)


def statement_html(text: str) -> str:
    """The statement as HTML safe to put in a page."""
    return MARKDOWN.render(text)
