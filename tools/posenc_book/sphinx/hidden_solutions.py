"""Make sphinx-exercise's ``hide_solutions`` leave out gated solutions too.

``make book SOLUTIONS=hidden`` sets sphinx-exercise's own option ``hide_solutions``. In sphinx-exercise
1.2.1 that option drops a ``{solution}`` directive, but of a gated solution only the
``{solution-start}`` marker: the ``{solution-end}`` node that remains stops the HTML writer
("departing unknown node type: solution_end_node", executablebooks/sphinx-exercise#89), and the text
and code cells between the markers would stay on the page. With this extension the start marker leaves
a placeholder, and a transform removes everything from it through the ``{solution-end}``.

Other text that gives answers away (a rubric, the answers of a question bank) goes the same way when it
carries the class ``solutions-only``: ``:::{admonition} Answers`` with ``:class: solutions-only``, or
``:::{container} solutions-only``. When ``hide_solutions`` is off, nothing changes.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms import SphinxTransform
from sphinx_exercise.directive import SolutionStartDirective
from sphinx_exercise.nodes import solution_end_node


class hidden_solution_start(nodes.Element):  # docutils names its nodes in lower case
    """Where a hidden gated solution started; removed, with the solution, before anything is written."""


class HiddenSolutionStart(SolutionStartDirective):
    def run(self):
        shown = super().run()  # registers the marker, so that sphinx-exercise still checks the pairs
        return [hidden_solution_start()] if self.config.hide_solutions else shown


SOLUTIONS_ONLY = "solutions-only"


class RemoveHiddenSolutions(SphinxTransform):
    """Remove each hidden solution (its placeholder, the nodes after it, its ``{solution-end}``), and
    every element of the class ``solutions-only``."""

    # After sphinx-exercise's check that the markers pair up (priority 1), before it merges them (10).
    default_priority = 5

    def apply(self) -> None:
        for start in list(self.document.findall(hidden_solution_start)):
            parent = start.parent
            first = parent.index(start)
            for last in range(first, len(parent.children)):
                if isinstance(parent[last], solution_end_node):
                    break
            else:
                message = "a hidden solution-start without a solution-end after it"
                raise ExtensionError(f"{self.env.docname}: {message}")
            del parent[first : last + 1]
        if self.config.hide_solutions:
            for node in list(self.document.findall(nodes.Element)):
                if SOLUTIONS_ONLY in node.get("classes", []) and node.parent is not None:
                    node.parent.remove(node)


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")
    app.add_directive("solution-start", HiddenSolutionStart, override=True)
    app.add_transform(RemoveHiddenSolutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
