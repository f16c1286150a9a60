"""posenc_book.sphinx.hidden_solutions, which makes sphinx-exercise's ``hide_solutions`` leave out gated
solutions, and the configuration of a hidden build (``posenc_book.build.edition_config``). The whole
English edition built that way is tests/site/test_hidden_solutions.py.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import posenc_book.build as build
import pytest
import yaml
from book_files import ROOT
from site_helpers import page_text

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
EXTENSION = "posenc_book.sphinx.hidden_solutions"


def test_hidden_config_sets_sphinx_exercise_option_and_drops_the_launch_buttons():
    shown = build.edition_config(CONFIG, "en")
    hidden = build.edition_config(CONFIG, "en", hidden=True)
    assert "hide_solutions" not in shown["sphinx"]["config"]
    assert EXTENSION not in shown["sphinx"]["extra_extensions"]
    assert shown["launch_buttons"]["colab_url"] and shown["launch_buttons"]["binderhub_url"]
    assert hidden["sphinx"]["config"]["hide_solutions"] is True
    assert EXTENSION in hidden["sphinx"]["extra_extensions"] and importlib.util.find_spec(EXTENSION)
    assert hidden["launch_buttons"]["colab_url"] == hidden["launch_buttons"]["binderhub_url"] == ""


SMALL_PAGE = """# Page

:::{exercise}
:label: ex-small-1

The exercise.
:::

```{solution-start} ex-small-1
:class: dropdown
```

The gated solution.

```{solution-end}
```

:::{admonition} Answers
:class: solutions-only

The answer to a question.
:::

:::{container} solutions-only
A rubric.
:::

The end.
"""


@pytest.mark.parametrize("hide", [True, False])
def test_extension_removes_gated_solutions_and_solutions_only_text(tmp_path, hide):
    """posenc_book.sphinx.hidden_solutions on a small project, with warnings as errors, both ways."""
    (tmp_path / "index.md").write_text(SMALL_PAGE, encoding="utf-8")
    (tmp_path / "conf.py").write_text(
        f"extensions = ['myst_parser', 'sphinx_exercise', {EXTENSION!r}]\n"
        f"myst_enable_extensions = ['colon_fence']\nhide_solutions = {hide}\n",
        encoding="utf-8",
    )
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(tmp_path), str(tmp_path / "_out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    text = page_text(tmp_path / "_out" / "index.html")
    assert "The exercise." in text and "The end." in text
    for hidden in ("The gated solution.", "The answer to a question.", "A rubric."):
        assert (hidden in text) != hide, hidden
