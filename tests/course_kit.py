"""The course kit as data: chapter times, course plans and capstone points from book/course.yml; the
objectives, rubrics and questions of the assessment pages.

The instructor pages print book/course.yml's numbers through MyST substitutions (``{{ alone_2 }}``, made
by ``posenc_book.build.course_substitutions``), so the times and plans are read from the data, not from
the pages. ``test_course_kit.py`` checks that the data and each edition's kit are complete and add up;
``test_parity.py`` that the three editions say the same thing; ``test_hidden_solutions.py`` that what is
marked ``solutions-only`` stays off the site built without solutions. Prose differs between the
editions; the markup parsed here (ids in bold, tables, ``{ref}`` links) is the same in all three.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import jinja2
import nbformat
from book_files import BOOK
from posenc_book.build import COURSE, course_substitutions, load_yaml

REF = re.compile(r"\{ref\}`(?:[^`<]*<)?(?P<label>[\w-]+)>?`")
LANG_SUFFIX = re.compile(r"-(en|id|ko)$")
TIME = re.compile(r"^\*\*[^*\n]+:\*\*\D*?(\d+) ?(?:minutes|menit|분)", re.M)
OBJECTIVE = re.compile(r"^- \*\*(\d+\.\d+)\*\* ", re.M)
RUBRIC_ROW = re.compile(r"^\| \{ref\}`(\d+\.\d+) <(ex-[\w-]+)>` \| ([\d., ]+) \| .+ \| (\d+) \|$", re.M)
TOTAL_ROW = re.compile(r"^\| \*\*[^*|]+\*\* \|(?: \|)* \*\*(\d+)\*\* \|$", re.M)
QUESTION = re.compile(r"^\*\*\S+ (\d+\.\d+)\*\* \(\S+ (\d+\.\d+)\)", re.M)
MAP_ROW = re.compile(r"^\| (\d+\.\d+) \| (.*) \| (.*) \|$", re.M)
SUBSTITUTION = re.compile(r"\{\{(.*?)\}\}")
FENCE = re.compile(r"^(:{3,})\{(\w[\w-]*)\}(.*)$")


def neutral(label: str) -> str:
    return LANG_SUFFIX.sub("", label)


def chapters(lang: str = "en") -> dict[str, int]:
    """Chapter number of each chapter label, without its edition suffix: {"motivation": 1, ...}."""
    numbers = {}
    for path in sorted((BOOK / lang).glob("[0-9][0-9]_*.ipynb")):
        first = next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
        numbers[neutral(re.match(r"\(([\w-]+)\)=", first.source).group(1))] = int(path.name[:2])
    return numbers


def about_box(lang: str, number: int) -> str:
    """The "About this chapter" box of chapter ``number``: its first Markdown cell."""
    path = next((BOOK / lang).glob(f"{number:02d}_*.ipynb"))
    return next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown").source


def box_minutes(lang: str) -> dict[int, int]:
    return {n: int(TIME.search(about_box(lang, n)).group(1)) for n in chapters(lang).values()}


def box_objectives(lang: str, number: int) -> int:
    """How many objectives the box lists: the bullets before its prerequisites."""
    paragraphs = about_box(lang, number).split("\n\n**")  # "**You will be able to**", "**Prerequisites:**"...
    listed = next(part for part in paragraphs[1:] if re.search(r"^- ", part, re.M))
    return len(re.findall(r"^- ", listed, re.M))


def course() -> dict:
    """book/course.yml: the chapter times, plans and capstone points that the instructor pages print."""
    return load_yaml(COURSE)


def substitutions(lang: str) -> dict[str, int | str]:
    """What ``{{ ... }}`` stands for on ``lang``'s instructor pages, as the build gives it to MyST."""
    return course_substitutions(course(), lang)


def substituted(markdown: str) -> list[str]:
    """The expressions of the ``{{ ... }}`` substitutions in ``markdown``, in order."""
    return [expression.strip() for expression in SUBSTITUTION.findall(markdown)]


def rendered(markdown: str, lang: str) -> str:
    """``markdown`` with its substitutions rendered as MyST renders them (Jinja, undefined names fail)."""
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    values = substitutions(lang)
    return SUBSTITUTION.sub(lambda m: str(environment.from_string(m.group()).render(values)), markdown)


def glance(lang: str = "en") -> dict[int, tuple[int, int]]:
    """(alone, in a lab) minutes of each chapter, as the instructor page's table shows them."""
    values = substitutions(lang)
    return {n: (values[f"alone_{n}"], values[f"lab_{n}"]) for n in course()["chapters"]}


def page(lang: str, name: str) -> str:
    return (BOOK / lang / f"{name}.md").read_text(encoding="utf-8")


def solutions_only_blocks(markdown: str) -> tuple[list[str], str]:
    """The blocks with the class ``solutions-only`` (their text), and the Markdown without them."""
    blocks, kept, lines = [], [], markdown.splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        options = []
        while (
            match
            and index + 1 + len(options) < len(lines)
            and lines[index + 1 + len(options)].startswith(":")
        ):
            options.append(lines[index + 1 + len(options)])
        if match and "solutions-only" in " ".join([match.group(3), *options]):
            end = lines.index(match.group(1), index + 1)
            blocks.append("\n".join(lines[index + 1 + len(options) : end]))
            index = end + 1
            continue
        kept.append(lines[index])
        index += 1
    return blocks, "\n".join(kept)


def sections(markdown: str) -> dict[str, str]:
    """The text under each ``## `` heading, keyed by the heading."""
    parts = re.split(r"^## (.+)$", markdown, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@dataclass
class ChapterKit:
    number: int
    objectives: list[str] = field(default_factory=list)
    rubric: list[tuple[str, str, tuple[str, ...], int]] = field(
        default_factory=list
    )  # (ex id, label, objs, pts)
    total: int | None = None
    questions: list[tuple[str, str]] = field(default_factory=list)  # (question id, objective id)
    answers: int = 0  # questions directly followed by a solutions-only answer


@dataclass
class Assessment:
    chapters: dict[int, ChapterKit]
    map: dict[str, tuple[frozenset[str], frozenset[str]]]  # objective -> (exercise labels, question ids)


def assessment(lang: str) -> Assessment:
    kits, table = {}, {}
    for heading, body in sections(page(lang, "assessment")).items():
        if match := re.match(r"(\d+)\. ", heading):
            kit = kits[int(match.group(1))] = ChapterKit(int(match.group(1)))
            kit.objectives = OBJECTIVE.findall(body)
            kit.rubric = [
                (ex, neutral(label), tuple(o.strip() for o in objs.split(",")), int(points))
                for ex, label, objs, points in RUBRIC_ROW.findall(body)
            ]
            totals = TOTAL_ROW.findall(body)
            kit.total = int(totals[0]) if len(totals) == 1 else None
            kit.questions = QUESTION.findall(body)
            starts = [m.start() for m in QUESTION.finditer(body)] + [len(body)]
            kit.answers = sum(answered(body[start:end]) for start, end in itertools.pairwise(starts))
        for objective, exercises, questions in MAP_ROW.findall(body):
            labels = frozenset(neutral(m.group("label")) for m in REF.finditer(exercises))
            table[objective] = (labels, frozenset(re.findall(r"\d+\.\d+", questions)))
    return Assessment(kits, table)


def answered(question: str) -> bool:
    """Whether the first block after a question is its answer, an admonition marked solutions-only."""
    first = re.search(r"^:{3,}\{.*$", question, re.M)
    return (
        bool(first)
        and first.group().startswith(":::{admonition}")
        and bool(re.match(r"\n:class: [^\n]*solutions-only", question[first.end() :]))
    )


def exercise_labels(lang: str, number: int) -> list[str]:
    """The labels of chapter ``number``'s exercises, in order, without their suffix."""
    path = next((BOOK / lang).glob(f"{number:02d}_*.ipynb"))
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    return [neutral(label) for label in re.findall(r"^:label: (ex-[\w-]+)$", text, re.M)]


@dataclass
class PlanRow:
    name: str  # the session: "before", "1", ...
    in_class: list[int]  # chapters taught in the session
    in_class_activities: list[int]  # minutes of the other activities
    in_class_minutes: int
    homework: list[int]
    homework_activities: list[int]
    homework_minutes: int


def plans(lang: str = "en") -> dict[str, tuple[list[PlanRow], tuple[int, int]]]:
    """Each course plan: its sessions with the minutes the page prints, and its totals (class, homework)."""
    values, found = substitutions(lang), {}
    for plan, sessions in course()["plans"].items():
        rows = []
        for session in sessions:
            work = {where: session.get(where, []) for where in ("in_class", "homework")}
            chapters_of = {where: [i for i in items if isinstance(i, int)] for where, items in work.items()}
            minutes_of = {
                where: [m for i in items if isinstance(i, dict) for m in i.values()]
                for where, items in work.items()
            }
            name = str(session["session"])
            rows.append(
                PlanRow(
                    name,
                    chapters_of["in_class"],
                    minutes_of["in_class"],
                    values[f"{plan}_{name}_class"],
                    chapters_of["homework"],
                    minutes_of["homework"],
                    values[f"{plan}_{name}_homework"],
                )
            )
        found[plan] = (rows, (values[f"{plan}_class"], values[f"{plan}_homework"]))
    return found


def capstone(lang: str) -> tuple[str, list[int], int]:
    """The capstone section of the course-plans page: its text, its rubric's points and their total."""
    body = list(sections(page(lang, "syllabi")).values())[-1]
    values = substitutions(lang)
    points = [values[f"capstone_{name}"] for name in course()["capstone"]]
    return body, points, values["capstone_total"]


def code_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", markdown, re.M | re.S)
