"""The rule that leaves an Indonesian or Korean notebook to the English nbval run, and what it leaves."""

import copy
import json

import pytest
from book_files import BOOK
from nbval_twins import proven_by_english


def write(path, notebook):
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


@pytest.fixture
def english():
    return json.loads((BOOK / "en" / "03_numpy.ipynb").read_text(encoding="utf-8"))


def test_the_same_code_and_outputs_are_proven_and_a_changed_one_is_not(tmp_path, english):
    en = write(tmp_path / "en.ipynb", english)
    assert proven_by_english(write(tmp_path / "same.ipynb", english), en)
    code = [cell for cell in english["cells"] if cell["cell_type"] == "code"]
    printing = next(cell for cell in code if any(out["output_type"] == "stream" for out in cell["outputs"]))
    other = copy.deepcopy(english)
    index = english["cells"].index(printing)
    stream = next(out for out in other["cells"][index]["outputs"] if out["output_type"] == "stream")
    stream["text"] = ["another number\n"]
    assert not proven_by_english(write(tmp_path / "output.ipynb", other), en)
    other = copy.deepcopy(english)
    other["cells"][index]["source"] = ["print('other code')\n"]
    assert not proven_by_english(write(tmp_path / "code.ipynb", other), en)


def test_images_and_the_lang_cell_may_differ(tmp_path, english):
    en = write(tmp_path / "en.ipynb", english)
    other = copy.deepcopy(english)
    for cell in other["cells"]:
        if "lang" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = ['LANG = "ko"\n']
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                output["data"]["image/png"] = "another picture"
    assert proven_by_english(write(tmp_path / "ko.ipynb", other), en)


def test_the_editions_left_to_nbval_are_those_with_outputs_in_their_language():
    # Today: the chapters whose interactive figures store HTML and JSON with labels in the language.
    run = sorted(
        f"{lang}/{path.name}"
        for lang in ("id", "ko")
        for path in sorted((BOOK / lang).glob("[0-9][0-9]_*.ipynb"))
        if not proven_by_english(path, BOOK / "en" / path.name)
    )
    assert {name.split("/")[1] for name in run} >= {"02_formula.ipynb", "05_rotation.ipynb", "06_rope.ipynb"}
    assert all(name.split("/")[0] in ("id", "ko") for name in run)
