"""The notebook runner behind `make execute` (posenc_book.execute)."""

import nbformat
import posenc_book.execute as execute
from book_files import KERNELSPEC


def stream(text, name="stdout"):
    return nbformat.v4.new_output("stream", name=name, text=text)


def test_consecutive_chunks_of_one_stream_are_joined():
    result = nbformat.v4.new_output("execute_result", data={"text/plain": "3"}, execution_count=1)
    outputs = [stream("a\n"), stream("b\n"), stream("!", "stderr"), result, stream("c\n"), stream("d\n")]
    merged = execute.merge_streams(outputs)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in merged] == [
        ("stream", "stdout", "a\nb\n"),
        ("stream", "stderr", "!"),
        ("execute_result", None, None),
        ("stream", "stdout", "c\nd\n"),
    ]


def test_executing_twice_gives_the_same_notebook(tmp_path):
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": KERNELSPEC})
    notebook.cells = [nbformat.v4.new_code_cell("for i in range(3):\n    print(i)\n1 + 1")]
    path = tmp_path / "demo.ipynb"
    nbformat.write(notebook, path)
    execute.execute(path)
    first = path.read_text()
    execute.execute(path)
    assert path.read_text() == first
    executed = nbformat.read(path, as_version=4)
    assert executed.cells[0].execution_count == 1
    assert [o.output_type for o in executed.cells[0].outputs] == ["stream", "execute_result"]
    assert "execution" not in executed.cells[0].metadata
    assert "version" not in executed.metadata.language_info
