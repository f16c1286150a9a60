"""The instructor pages read as data: chapter times, objectives, rubrics, questions, course plans.

``test_course_kit.py`` checks that each edition's kit is complete and adds up; ``test_parity.py`` that
the three editions say the same thing; ``test_hidden_solutions.py`` that what is marked
``solutions-only`` stays off the site built without solutions. Prose differs between the editions; the
markup parsed here (ids in bold, tables, ``{ref}`` links, minutes) is the same in all three.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

import nbformat
from book_files import BOOK

REF = re.compile(r"\{ref\}`(?:[^`<]*<)?(?P<label>[\w-]+)>?`")
LANG_SUFFIX = re.compile(r"-(en|id|ko)$")
# "(30 min)", "(30 menit)", "(30분)": the time of an activity that is not a chapter.
ACTIVITY = re.compile(r"\((\d+) ?(?:min|menit|분)\)")
TIME = re.compile(r"^\*\*[^*\n]+:\*\*\D*?(\d+) ?(?:minutes|menit|분)", re.M)
GLANCE_ROW = re.compile(r"^\| (\d+)\. \{ref\}`[\w-]+` \| (\d+) ?\S+ \| (\d+) ?\S+ \|", re.M)
# "990 + 500 = 1,490" (en, ko), "990 + 500 = 1.490" (id)
SUM = re.compile(r"(\d[\d.,]*(?: \+ \d[\d.,]*)+) = (\d[\d.,]*\d|\d)")
OBJECTIVE = re.compile(r"^- \*\*(\d+\.\d+)\*\* ", re.M)
RUBRIC_ROW = re.compile(r"^\| \{ref\}`(\d+\.\d+) <(ex-[\w-]+)>` \| ([\d., ]+) \| .+ \| (\d+) \|$", re.M)
TOTAL_ROW = re.compile(r"^\| \*\*[^*|]+\*\* \|(?: \|)* \*\*(\d+)\*\* \|$", re.M)
QUESTION = re.compile(r"^\*\*\S+ (\d+\.\d+)\*\* \(\S+ (\d+\.\d+)\)", re.M)
MAP_ROW = re.compile(r"^\| (\d+\.\d+) \| (.*) \| (.*) \|$", re.M)
PLAN_ROW = re.compile(r"^\| ([^|*]+) \| (.*) \| (\d+) \| (.*) \| (\d+) \|$", re.M)
PLAN_TOTAL = re.compile(r"^\| \*\*[^*|]+\*\* \| \| \*\*(\d+)\*\* \| \| \*\*(\d+)\*\* \|$", re.M)
POINTS_ROW = re.compile(r"^\| ([^*|][^|]*) \| (\d+) \|$", re.M)
FENCE = re.compile(r"^(:{3,})\{(\w[\w-]*)\}(.*)$")


def _integer(text: str) -> int:
    """A whole number of minutes, written with any edition's thousands separator."""
    return int(text.replace(",", "").replace(".", ""))


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


def lab_minutes(alone: int) -> int:
    """A lab session takes half as much again as working alone, rounded up to 5 minutes."""
    return 5 * math.ceil(1.5 * alone / 5)


def glance(lang: str) -> dict[int, tuple[int, int]]:
    """(alone, in a lab) minutes of each chapter, from the table of the instructor page."""
    text = page(lang, "instructor")
    return {int(n): (int(alone), int(lab)) for n, alone, lab in GLANCE_ROW.findall(text)}


def page(lang: str, name: str) -> str:
    return (BOOK / lang / f"{name}.md").read_text(encoding="utf-8")


def sums(text: str) -> list[tuple[list[int], int]]:
    """Every "a + b + ... = c" written in ``text``."""
    found = SUM.findall(text)
    return [([_integer(t) for t in terms.split(" + ")], _integer(total)) for terms, total in found]


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
    name: str
    in_class: list[int]  # chapters taught in the session
    in_class_activities: list[int]  # minutes of the other activities
    in_class_minutes: int
    homework: list[int]
    homework_activities: list[int]
    homework_minutes: int


def plans(lang: str) -> dict[str, tuple[list[PlanRow], tuple[int, int] | None]]:
    """Each plan of the course-plans page: its rows, and the totals its last row states."""
    numbers = chapters(lang)
    found = {}
    for heading, body in sections(page(lang, "syllabi")).items():
        rows = []
        for name, work, minutes, homework, homework_minutes in PLAN_ROW.findall(body):
            rows.append(
                PlanRow(
                    name.strip(),
                    [numbers[neutral(m.group("label"))] for m in REF.finditer(work)],
                    [int(m) for m in ACTIVITY.findall(work)],
                    int(minutes),
                    [numbers[neutral(m.group("label"))] for m in REF.finditer(homework)],
                    [int(m) for m in ACTIVITY.findall(homework)],
                    int(homework_minutes),
                )
            )
        if rows:
            totals = PLAN_TOTAL.findall(body)
            found[heading] = (rows, tuple(map(int, totals[0])) if len(totals) == 1 else None)
    return found


def capstone(lang: str) -> tuple[str, list[int], int | None]:
    """The capstone section of the course-plans page: its text, its rubric's points and stated total."""
    body = list(sections(page(lang, "syllabi")).values())[-1]
    totals = re.findall(r"^\| \*\*[^*|]+\*\* \| \*\*(\d+)\*\* \|$", body, re.M)
    points = [int(p) for _, p in POINTS_ROW.findall(body)]
    return body, points, int(totals[0]) if len(totals) == 1 else None


def code_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", markdown, re.M | re.S)
