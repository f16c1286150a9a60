"""Tests of the student handouts (`make handouts`, python -m posenc_book handouts).

The English handouts run, top to bottom with empty answers, in a kernel: every cell that is not an answer
or a check must run without error, and each check must say "not yet checked" for an empty answer, pass
the chapter's own solution and reject a plausible wrong answer. The Indonesian and Korean handouts are
checked against the English ones cell by cell in tests/book/test_parity.py: the same cells, the same
code, only the words differ.
"""

from __future__ import annotations

import zipfile

import nbformat
import posenc_book.handouts.checks as table
import posenc_book.handouts.strip as strip
import pytest
from book_files import BOOK
from nbclient import NotebookClient
from posenc_book.paths import editions

EDITIONS = list(editions())
CHAPTERS = sorted(path.name for path in (BOOK / "en").glob("[0-9][0-9]_*.ipynb"))
HANDOUT_TAGS = {strip.ANSWER_TAG, strip.CHECK_TAG}


def source(lang: str, name: str):
    return nbformat.read(BOOK / lang / name, as_version=4)


def tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def text(cell) -> str:
    """Everything a code cell printed, and the name of any error it raised."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
        else:
            parts.append(strip.output_text(output))
    return "".join(parts)


def exercise_labels(notebook) -> list[str]:
    return [
        label.group("label")
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for exercise in strip.EXERCISE.finditer(cell.source)
        if (label := strip.LABEL.search(exercise.group(0)))
    ]


def words(lang: str, key: str) -> str:
    """The start of one of the verdicts a check cell prints, up to any placeholder."""
    return table.WORDS[lang][key].split("{")[0]


# --- The table of checks -------------------------------------------------------------------------------


def test_every_check_belongs_to_an_exercise_of_the_book():
    labels = {label for name in CHAPTERS for label in exercise_labels(source("en", name))}
    assert set(table.CHECKS) <= {strip.exercise_key(label, "en") for label in labels}
    assert table.CHECKS, "at least one exercise has a check"


@pytest.mark.parametrize("key", sorted(table.CHECKS))
def test_every_check_speaks_every_language(key):
    check = table.CHECKS[key]
    assert set(check.define) == set(check.claims) == set(EDITIONS)
    assert len({len(claims) for claims in check.claims.values()}) == 1, "as many claims in each language"
    for lang, sentence in check.define.items():
        for name in check.names:
            assert f"`{name}" in sentence, f"{key} ({lang}) does not name {name}"
    # Printed text, not Markdown: no backticks in what the cell prints.
    assert not any("`" in claim for claims in check.claims.values() for claim in claims)


def test_every_edition_has_the_same_words():
    assert set(table.WORDS) == set(EDITIONS)
    assert len({tuple(sorted(words)) for words in table.WORDS.values()}) == 1
    assert all("{name}" in table.WORDS[lang]["missing"] for lang in EDITIONS)


# --- Handouts of every edition, their structure ---------------------------------------------------------


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("name", CHAPTERS)
def test_handout_has_no_solution_and_an_answer_after_each_exercise(lang, name):
    notebook = source(lang, name)
    handout = strip.make_handout(notebook, lang)
    nbformat.validate(handout)
    markdown = "\n".join(cell.source for cell in handout.cells if cell.cell_type == "markdown")
    assert "solution-start" not in markdown and "solution-end" not in markdown
    labels = exercise_labels(notebook)
    assert exercise_labels(handout) == labels
    answers = [
        cell for cell in handout.cells if cell.cell_type == "markdown" and strip.ANSWER_TAG in tags(cell)
    ]
    assert [cell.id for cell in answers] == [f"{strip.exercise_key(label, lang)}-answer" for label in labels]
    assert all(cell.source.startswith(table.WORDS[lang]["answer"]) for cell in answers)
    for index, cell in enumerate(handout.cells):
        if cell.cell_type == "markdown" and strip.EXERCISE.search(cell.source):
            after = index + 1
            while handout.cells[after].cell_type == "code" and not HANDOUT_TAGS & set(
                tags(handout.cells[after])
            ):
                after += 1  # the code the exercise's statement gives comes first
            assert handout.cells[after] in answers, "the answer prompt follows its exercise"
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
            if HANDOUT_TAGS & set(tags(cell)):
                assert strip.MAY_FAIL in tags(cell)
    solved = strip.solutions(notebook)
    for label in labels:
        key = strip.exercise_key(label, lang)
        ids = {cell.id for cell in handout.cells}
        assert (f"{key}-code" in ids) == (bool(solved[label].code) or key in table.CHECKS)
        assert (f"{key}-check" in ids) == (key in table.CHECKS)


def test_exercises_sharing_a_cell_each_get_their_answer():
    markdown, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    exercise = ":::{{exercise}}\n:label: ex-demo-{}-en\n\nDo {}.\n:::"
    notebook = nbformat.v4.new_notebook(
        cells=[
            code('LANG = "en"', metadata={"tags": ["lang"]}),
            markdown(f"## Exercises\n\n{exercise.format(1, 'this')}\n\n{exercise.format(2, 'it')}\n\nAfter."),
            markdown(f"{exercise.format(3, 'more')}\n\n```{{solution-start}} ex-demo-3-en\n```\n\nSecret."),
            code("secret = 42"),
            markdown("```{solution-end}\n```\n\n## References"),
        ]
    )
    handout = strip.make_handout(notebook)
    assert [(cell.cell_type, cell.source.split("\n")[0]) for cell in handout.cells] == [
        ("code", 'LANG = "en"'),
        ("markdown", "## Exercises"),
        ("markdown", "**Your answer:**"),
        ("markdown", ":::{exercise}"),
        ("markdown", "**Your answer:**"),
        ("markdown", "After."),
        ("markdown", ":::{exercise}"),
        ("markdown", "**Your answer:**"),
        ("code", ""),  # exercise 3's solution has code: a code cell to answer in
        ("markdown", "## References"),
    ]
    nbformat.validate(handout)
    with pytest.raises(ValueError, match="suffix '-id'"):
        strip.make_handout(notebook, "id")


def test_the_answer_follows_the_code_an_exercise_gives():
    markdown, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    notebook = nbformat.v4.new_notebook(
        cells=[
            code('LANG = "en"', metadata={"tags": ["lang"]}),
            markdown(":::{exercise}\n:label: ex-demo-1-en\n\nFind the bug in the function below.\n:::"),
            code("def buggy():\n    return 1"),
            markdown("```{solution-start} ex-demo-1-en\n```\n\nIt returns 1."),
            code("def fixed():\n    return 2"),
            markdown("```{solution-end}\n```\n\n## References"),
        ]
    )
    handout = strip.make_handout(notebook)
    assert [(cell.cell_type, cell.source.split("\n")[0]) for cell in handout.cells] == [
        ("code", 'LANG = "en"'),
        ("markdown", ":::{exercise}"),
        ("code", "def buggy():"),
        ("markdown", "**Your answer:**"),
        ("code", ""),
        ("markdown", "## References"),
    ]


def test_solutions_are_read_with_their_text_code_and_outputs():
    notebook = source("en", "02_formula.ipynb")
    found = strip.solutions(notebook)
    assert list(found) == ["ex-formula-1-en", "ex-formula-2-en", "ex-formula-3-en", "ex-formula-4-en"]
    assert "cosine is even" in " ".join(found["ex-formula-2-en"].markdown)
    assert any("best = int(" in code for code in found["ex-formula-3-en"].code)
    assert any("710" in output for output in found["ex-formula-3-en"].outputs)


# --- The English handouts, run ----------------------------------------------------------------------------


def run(client, notebook, source_code: str):
    """Run one more cell in the handout's kernel and return it."""
    cell = nbformat.v4.new_code_cell(source_code)
    notebook.cells.append(cell)
    client.execute_cell(cell, len(notebook.cells) - 1)
    return cell


def answer(function) -> str:
    """A cell that gives an answer of the table (a check's wrong or right one) as a student would: the
    function's source, then the names it returns, defined from the kernel's names of its parameters."""
    return f"{table.function_source(function)}\n\n\nglobals().update({table.call(function)})"


# Chapter 8's handout trains its models (about 40 s on two cores); the others take seconds.
@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if "08_" in name else name for name in CHAPTERS]
)
def test_english_handout_runs_and_its_checks_tell_right_from_wrong(name):
    original = source("en", name)
    handout = strip.make_handout(original, "en")
    client = NotebookClient(
        handout, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(BOOK / "en")}}
    )
    checks = {cell.id.removesuffix("-check"): cell for cell in handout.cells if strip.CHECK_TAG in tags(cell)}
    with client.setup_kernel():
        # Top to bottom with empty answers. An error in a cell not tagged raises-exception fails the test.
        for index, cell in enumerate(list(handout.cells)):
            client.execute_cell(cell, index)
        for cell in handout.cells:
            if cell.cell_type == "code" and not HANDOUT_TAGS & set(tags(cell)):
                assert not any(output.output_type == "error" for output in cell.outputs), cell.source
        for cell in checks.values():
            assert text(cell).startswith(words("en", "missing")), text(cell)
        # The chapter's solutions (or the table's right answer) pass every check ...
        for solution in strip.solutions(original).values():
            for code in solution.code:
                run(client, handout, code)
        for key, cell in checks.items():
            check = table.CHECKS[key]
            if check.right:
                defined = run(client, handout, answer(check.right))
                assert not any(output.output_type == "error" for output in defined.outputs), text(defined)
            printed = text(run(client, handout, cell.source))
            assert printed.count("✓") == len(check.claims["en"]) and "✗" not in printed, printed
            assert printed.rstrip().endswith(table.WORDS["en"]["passed"]), printed
        # ... and a plausible wrong answer fails at least one.
        for key, cell in checks.items():
            defined = run(client, handout, answer(table.CHECKS[key].wrong))
            assert not any(output.output_type == "error" for output in defined.outputs), text(defined)
            printed = text(run(client, handout, cell.source))
            assert "✗" in printed and printed.rstrip().endswith(table.WORDS["en"]["failed"]), printed


# --- make handouts ----------------------------------------------------------------------------------------


def test_build_handouts_writes_notebooks_and_a_reproducible_zip(tmp_path, capsys):
    assert strip.main(["--output", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    for lang in EDITIONS:
        archive = tmp_path / strip.zip_name(lang)
        assert archive.name in printed
        files = sorted(path.name for path in (tmp_path / lang).iterdir())
        assert files == CHAPTERS
        with zipfile.ZipFile(archive) as bundle:
            assert bundle.namelist() == [f"posenc-handouts-{lang}/{name}" for name in files]
            for name in files:
                assert bundle.read(f"posenc-handouts-{lang}/{name}") == (tmp_path / lang / name).read_bytes()
    first = (tmp_path / strip.zip_name("ko")).read_bytes()
    strip.build_handouts(["ko"], tmp_path)
    assert (tmp_path / strip.zip_name("ko")).read_bytes() == first


def test_command_line_writes_one_handout(tmp_path):
    assert strip.main([str(BOOK / "id" / "03_numpy.ipynb"), "--output", str(tmp_path), "--answer-cells"]) == 0
    handout = nbformat.read(tmp_path / "03_numpy.ipynb", as_version=4)
    assert any(cell.source.startswith("**Jawaban Anda:**") for cell in handout.cells)
    with pytest.raises(SystemExit):
        strip.main([str(BOOK / "id"), "--output", str(tmp_path), "--answer-cells", "--keep-outputs"])
