"""No function of posenc or of the book's build grades worse than C in radon's cyclomatic complexity (20
branches or fewer)."""

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (ROOT / "src" / "posenc", ROOT / "tools" / "posenc_book")
WORST = "C"


def too_complex(source: str) -> list[str]:
    """The functions and methods of ``source`` that grade worse than :data:`WORST`, with their grade."""
    found = []
    # cc_visit lists every function and method once (a class's own grade is its methods' mean).
    for block in cc_visit(source):
        if not hasattr(block, "methods") and cc_rank(block.complexity) > WORST:
            found.append(f"{block.fullname}: {cc_rank(block.complexity)} ({block.complexity})")
    return found


def test_no_function_of_the_two_packages_grades_worse_than_c():
    problems = {
        str(path.relative_to(ROOT)): found
        for package in PACKAGES
        for path in sorted(package.rglob("*.py"))
        if (found := too_complex(path.read_text(encoding="utf-8")))
    }
    assert not problems, problems


def test_a_tangled_function_is_caught():
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(25))
    assert too_complex(f"def tangled(x):\n{branches}\n    return -1\n") == ["tangled: D (26)"]
    assert too_complex("def plain(x):\n    return x\n") == []
