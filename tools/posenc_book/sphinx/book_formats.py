"""What the PDF (LaTeX) and the EPUB of an edition need beyond Sphinx's own builders.

posenc_book.build loads this extension for `make pdf` and `make epub` only, never for the site.

- LaTeX: docutils' table of Babel names has no Korean, so Sphinx would warn ("no Babel option known
  for language 'ko'") and fall back to English words; with the name, polyglossia sets Korean captions.
- LaTeX: the edition's landing page is the front matter, before chapter 1; its sections (how to run
  the notebooks from a clone) would each become a chapter, numbered before the first, and are left out;
  its toctree's caption, the language's name, would become the title of the table of contents.
- LaTeX: sphinx-exercise labels an exercise ``exercise:<label>`` only, while a ``{ref}`` to it links
  ``<docname>:<label>``, the label of any Sphinx target: every link to an exercise pointed nowhere, and
  "Exercise \\ref{...}" printed "??". The exercise gets that label too, carrying its number (2.2).
- EPUB: readers run no JavaScript, and an EPUB 3 with scripts must declare them, so pages carry none;
  every file a page refers to must be in the EPUB, and its XHTML valid (``no_scripts``, ``valid_xhtml``).
- EPUB: Sphinx names the table of contents (nav.xhtml, the reader's "Contents") "Table of Contents" in
  every language: its ``GUIDE_TITLES`` are never translated. The edition's words are Sphinx's own
  translation of them ("Daftar Isi", "목차").
- EPUB: the math is SVG pictures (sphinx.ext.imgmath). imgmath runs LaTeX once per formula, about
  0.4 s each, and an edition has some 1,400: 9 minutes. All the formulas that have no picture yet
  are typeset first in one LaTeX run, a page each, and dvisvgm splits the pages; imgmath then finds
  every picture under the name it would have given it, and only renders what failed here.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from hashlib import sha1
from pathlib import Path

from docutils import nodes
from docutils.writers.latex2e import Babel
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.ext.imgmath import generate_latex_macro, write_svg_depth
from sphinx.locale import _
from sphinx.util.math import wrap_displaymath
from sphinx_exercise import nodes as exercise_nodes
from sphinx_exercise.utils import get_node_number


def visit_exercise(self, node) -> None:
    exercise_nodes.visit_exercise_enumerable_node(self, node)
    label = node.attributes["label"]
    docname = self.builder.env.sphinx_exercise_registry[label]["docname"]
    number = ".".join(map(str, get_node_number(self.builder.app, node, "exercise")))
    # \ref prints \@currentlabel: the exercise's number, as the HTML shows it.
    self.body.append(
        f"\\makeatletter\\def\\@currentlabel{{{number}}}\\makeatother"
        f"\\label{{{self.idescape(f'{docname}:{label}')}}}\n"
    )


def landing_page_as_front_matter(app, doctree) -> None:
    if app.builder.format != "latex" or app.env.docname != app.config.root_doc:
        return
    for toctree in doctree.findall(addnodes.toctree):
        toctree["caption"] = None  # Sphinx would name the table of contents after it ("English")
    for top in doctree.findall(nodes.section):
        for section in [child for child in top.children if isinstance(child, nodes.section)]:
            # Jupyter Book puts the toctree of the chapters at the end of the page: it stays.
            top.extend(list(section.findall(addnodes.toctree)))
            top.remove(section)
        break


def no_scripts(app, pagename, templatename, context, doctree) -> None:
    """No scripts, and only the styles already written: the extensions' own (myst-nb, sphinx-exercise,
    sphinx-proof) are copied after the EPUB's manifest, which would then not list them."""
    if app.builder.name == "epub":
        context["script_files"] = []
        static = Path(app.builder.outdir)
        context["css_files"] = [css for css in context["css_files"] if (static / css.filename).is_file()]


# Raw HTML that an EPUB cannot keep: the site's own links (the instructor page's zip of handouts),
# whose text stays, and the scripts that sphinx-thebe adds to every page.
SITE_ONLY = re.compile(r"^\s*(<a\s[^>]*>|</a>|<script\b.*)\s*$", re.S)


def translated_guide_titles(app) -> None:
    if app.builder.name == "epub":
        # An instance attribute: the class's dict, the same for every build, stays English.
        app.builder.guide_titles = {key: _(title) for key, title in app.builder.guide_titles.items()}


def valid_xhtml(app, doctree, docname) -> None:
    """Leave out what the site keeps but an EPUB may not have: raw links and scripts for the site, and
    a second element with the same id (sphinx-exercise gives every exercise "exercise-content")."""
    if app.builder.name != "epub":
        return
    for node in list(doctree.findall(nodes.raw)):
        if "html" in node.get("format", "").split() and SITE_ONLY.match(node.astext()):
            node.parent.remove(node)
    seen = set()
    for node in doctree.findall(nodes.Element):
        ids = node.get("ids", [])
        node["ids"] = [identifier for identifier in ids if identifier not in seen]
        seen.update(ids)


def formulas(app) -> dict[Path, str]:
    """Every formula of the edition that has no picture yet: picture path -> the LaTeX imgmath writes."""
    folder = Path(app.builder.outdir) / app.builder.imagedir / "math"
    found = {}
    for docname in sorted(app.env.found_docs):
        doctree = app.env.get_doctree(docname)
        maths = ["$" + node.astext() + "$" for node in doctree.findall(nodes.math)]
        maths += [
            node.astext() if node.get("nowrap") else wrap_displaymath(node.astext(), None, False)
            for node in doctree.findall(nodes.math_block)
        ]
        for math in maths:
            latex = generate_latex_macro("svg", math, app.config, app.confdir)
            path = folder / f"{sha1(latex.encode(), usedforsecurity=False).hexdigest()}.svg"
            if not path.is_file():
                found[path] = latex
    return found


def prerender_math(app, env) -> list[str]:
    if app.builder.name != "epub" or not (todo := formulas(app)):
        return []
    # Each picture's document is preamble + one preview + \end{document}: put all the previews in one.
    header = next(iter(todo.values())).split("\\begin{document}")[0]
    pages = [latex.split("\\begin{document}")[1].split("\\end{document}")[0] for latex in todo.values()]
    # Equation numbers restart on every page, as in a document of its own.
    body = "".join("\\setcounter{equation}{0}" + page for page in pages)
    with tempfile.TemporaryDirectory() as work:
        tex = Path(work) / "math.tex"
        tex.write_text(header + "\\begin{document}" + body + "\\end{document}\n", encoding="utf-8")
        config = app.config
        run = [config.imgmath_latex, "--interaction=nonstopmode", *config.imgmath_latex_args, tex.name]
        if subprocess.run(run, cwd=work, capture_output=True, check=False).returncode:
            return []  # imgmath renders them one by one, and reports the formula that fails
        split = subprocess.run(
            [config.imgmath_dvisvgm, *config.imgmath_dvisvgm_args, "--page=1-", "-o", "%p.svg", "math.dvi"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        # dvisvgm reports each page's "depth=...pt", which imgmath turns into pixels (at 100 ppi).
        depths = [float(depth) for depth in re.findall(r", depth=(-?[\d.]+)pt", split.stderr)]
        pictures = sorted(Path(work).glob("*.svg"), key=lambda picture: int(picture.stem))  # 1, 2, ... 10
        if split.returncode or not len(depths) == len(pictures) == len(todo):
            return []
        for path, depth, picture in zip(todo, depths, pictures, strict=True):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(picture.read_bytes())
            write_svg_depth(str(path), round(depth * 100 / 72.27))
    return []


def setup(app: Sphinx) -> dict:
    Babel.language_codes.setdefault("ko", "korean")
    app.setup_extension("sphinx_exercise")
    app.add_node(
        exercise_nodes.exercise_enumerable_node,
        override=True,
        latex=(visit_exercise, exercise_nodes.depart_exercise_enumerable_node),
    )
    app.connect("builder-inited", translated_guide_titles)
    app.connect("html-page-context", no_scripts, priority=900)
    app.connect("doctree-read", landing_page_as_front_matter)
    app.connect("env-updated", prerender_math)
    app.connect("doctree-resolved", valid_xhtml)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
