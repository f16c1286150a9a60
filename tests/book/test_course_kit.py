"""The course kit of every edition is complete and adds up: times, rubrics, questions, objectives, plans.

The times, plans and capstone points are book/course.yml's, which the instructor pages print through
MyST substitutions; the rest is read from the pages by ``course_kit.py``. ``test_parity.py`` checks that
the editions match each other.
"""

from __future__ import annotations

import re

import pytest
import torch
from course_kit import (
    RUBRIC_ROW,
    assessment,
    box_minutes,
    box_objectives,
    capstone,
    chapters,
    code_blocks,
    course,
    exercise_labels,
    glance,
    page,
    plans,
    rendered,
    solutions_only_blocks,
    substituted,
    substitutions,
)
from posenc_book.build import lab_minutes

from posenc.words import LANGUAGES

LANGS = LANGUAGES  # the editions, named once (posenc.words)
NUMBERS = sorted(chapters().values())
PAGES = ("instructor", "syllabi")


def test_the_course_data_has_every_chapter_at_the_time_of_its_box():
    assert sorted(course()["chapters"]) == NUMBERS
    for lang in LANGS:
        assert {n: alone for n, (alone, _) in glance(lang).items()} == box_minutes(lang), lang


def test_lab_minutes_are_half_as_much_again_rounded_up_to_5():
    assert [lab_minutes(alone) for alone in (35, 40, 60, 75, 90)] == [55, 60, 90, 115, 135]
    assert glance() == {n: (alone, lab_minutes(alone)) for n, alone in course()["chapters"].items()}


def test_the_substitutions_add_up():
    values = substitutions("en")
    alone, lab = zip(*glance().values(), strict=True)
    assert values["alone_sum"] == " + ".join(map(str, alone)) and values["alone_total"] == f"{sum(alone):,}"
    assert values["lab_sum"] == " + ".join(map(str, lab)) and values["lab_total"] == f"{sum(lab):,}"
    assert values["lab_sinusoidal"] == sum(lab[:5]) and values["lab_sinusoidal_time"] == "8 h 5 min"
    assert (values["unit_total"], values["unit_total_time"]) == ("1,520", "25 h 20 min")
    assert (substitutions("id")["unit_total"], substitutions("id")["unit_total_time"]) == (
        "1.520",
        "25 jam 20 menit",
    )
    assert substitutions("ko")["alone_total_time"] == "11시간 30분"
    assert substitutions("ko")["lab_sinusoidal_time"] == "8시간 5분"  # hours and minutes


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", PAGES)
def test_every_substitution_on_the_instructor_pages_renders(lang, name):
    text = page(lang, name)
    assert len(substituted(text)) >= 20, "the page prints the course data's numbers"
    assert "{{" not in rendered(text, lang)  # an unknown name raises jinja2's UndefinedError


@pytest.mark.parametrize("name", PAGES)
def test_the_editions_print_the_same_numbers_in_the_same_order(name):
    english = substituted(page("en", name))
    for lang in ("id", "ko"):
        assert substituted(page(lang, name)) == english, f"{lang}/{name}.md"


@pytest.mark.parametrize("lang", LANGS)
def test_the_instructor_table_gives_each_chapter_its_own_times(lang):
    rows = [
        line for line in page(lang, "instructor").splitlines() if line.startswith("| ") and "{ref}" in line
    ]
    table = [substituted(row)[:2] for row in rows if substituted(row)]
    assert table == [[f"alone_{n}", f"lab_{n}"] for n in NUMBERS]


def test_the_lab_sessions_of_the_instructor_page_fit():
    values, lab = substitutions("en"), {n: times[1] for n, times in glance().items()}
    # Three-hour sessions: chapter 1 read before, chapter 2, chapters 3 and 4, then one chapter each.
    assert max(lab[3] + lab[4], *lab.values()) <= values["long_session"]
    # Two-hour sessions: one chapter each; the longest fill a session exactly, as the page says.
    assert max(lab.values()) == values["short_session"]


@pytest.mark.parametrize("lang", LANGS)
def test_objectives_are_numbered_by_chapter_as_the_chapter_boxes_list_them(lang):
    kits = assessment(lang).chapters
    assert sorted(kits) == NUMBERS
    for number, kit in kits.items():
        expected = [f"{number}.{k}" for k in range(1, box_objectives(lang, number) + 1)]
        assert len(expected) >= 3 and kit.objectives == expected, (number, kit.objectives)


@pytest.mark.parametrize("lang", LANGS)
def test_every_exercise_has_a_rubric_and_each_chapter_has_100_points(lang):
    for number, kit in assessment(lang).chapters.items():
        labels = exercise_labels(lang, number)
        assert [label for _, label, _, _ in kit.rubric] == sorted(
            (label for _, label, _, _ in kit.rubric), key=labels.index
        ), f"chapter {number}: rubric rows out of the exercises' order"
        for k, label in enumerate(labels, start=1):
            rows = [row for row in kit.rubric if row[1] == label]
            assert len(rows) >= 2, f"{label}: {len(rows)} criteria"
            assert {ex for ex, *_ in rows} == {f"{number}.{k}"}, f"{label} is exercise {number}.{k}"
        assert {label for _, label, _, _ in kit.rubric} == set(labels)
        points = sum(row[3] for row in kit.rubric)
        expected = course()["points_per_chapter"]
        assert points == kit.total == expected, f"chapter {number}: {points} points, total {kit.total}"
        for _, label, objectives, _ in kit.rubric:
            assert set(objectives) <= set(kit.objectives), f"{label} cites {objectives}"


@pytest.mark.parametrize("lang", LANGS)
def test_five_concept_questions_per_chapter_each_with_its_objective_and_answer(lang):
    for number, kit in assessment(lang).chapters.items():
        ids = [question for question, _ in kit.questions]
        assert len(ids) >= 5 and ids == [f"{number}.{k}" for k in range(1, len(ids) + 1)], ids
        for question, objective in kit.questions:
            assert objective in kit.objectives, f"question {question} checks {objective}"
        assert kit.answers == len(ids), f"chapter {number}: {kit.answers} answers for {len(ids)} questions"


@pytest.mark.parametrize("lang", LANGS)
def test_the_map_lists_every_objective_with_what_assesses_it(lang):
    kit = assessment(lang)
    objectives = [o for chapter in kit.chapters.values() for o in chapter.objectives]
    assert list(kit.map) == objectives
    for objective, (exercises, questions) in kit.map.items():
        rubric = {label for c in kit.chapters.values() for _, label, objs, _ in c.rubric if objective in objs}
        asked = {q for c in kit.chapters.values() for q, o in c.questions if o == objective}
        assert exercises == rubric, f"{objective}: map {sorted(exercises)}, rubrics {sorted(rubric)}"
        assert questions == asked, f"{objective}: map {sorted(questions)}, questions {sorted(asked)}"
        assert exercises or questions, f"objective {objective} is assessed by nothing"


@pytest.mark.parametrize("lang", LANGS)
def test_rubrics_and_answers_are_marked_solutions_only(lang):
    blocks, rest = solutions_only_blocks(page(lang, "assessment"))
    kit = assessment(lang)
    assert len(blocks) == sum(
        len(c.questions) + 1 for c in kit.chapters.values()
    )  # answers + one rubric each
    hidden = "\n".join(blocks)
    for chapter in kit.chapters.values():
        assert all(f"`{ex} <{label}-{lang}>`" in hidden for ex, label, _, _ in chapter.rubric)
    assert not RUBRIC_ROW.search(rest) and ":class: dropdown solutions-only" not in rest


def test_plans_add_up_fit_their_sessions_and_teach_the_chapters_in_order():
    times, values = glance(), substitutions("en")
    found = plans()
    # The one-week module has class sessions of at most two hours, the three-week unit of at most three.
    limits = {"module": values["short_session"], "unit": values["long_session"]}
    assert list(found) == list(limits)
    covered = []
    for plan, (rows, totals) in found.items():
        for row in rows:
            in_class = sum(times[n][1] for n in row.in_class) + sum(row.in_class_activities)
            homework = sum(times[n][0] for n in row.homework) + sum(row.homework_activities)
            assert row.in_class_minutes == in_class <= limits[plan], (
                f"{plan}, {row.name}: in class {in_class} min"
            )
            assert row.homework_minutes == homework, f"{plan}, {row.name}: homework {homework} min"
        assert totals == (sum(r.in_class_minutes for r in rows), sum(r.homework_minutes for r in rows)), plan
        taught = [n for row in rows for n in row.in_class + row.homework]
        assert taught == list(range(1, len(taught) + 1)), f"{plan}: chapters {taught}"
        covered.append(len(taught))
    assert max(covered) == len(NUMBERS), "one plan teaches the whole book"


@pytest.mark.parametrize("lang", LANGS)
def test_capstone_uses_chapters_6_to_8_and_its_rubric_has_100_points(lang):
    body, points, total = capstone(lang)
    for label in ("rope", "longctx", "experiment"):
        assert f"<{label}-{lang}>" in body
    assert len(points) >= 4 and sum(points) == total == 100, points
    assert [f"capstone_{name}" for name in course()["capstone"]] + ["capstone_total"] == substituted(body)


def test_capstone_example_trains_the_model_it_defines():
    """The page's example runs as printed, and its hand-made ALiBi gives the built-in model's numbers."""
    from posenc import experiment

    (code,) = code_blocks(page("en", "syllabi"))
    namespace = {}
    exec(compile(code, "syllabi.md", "exec"), namespace)  # the book's own example, as printed
    result = namespace["result"]
    built_in = experiment.run("relative", "alibi")
    assert result.accuracy == built_in.accuracy and result.curve == built_in.curve
    assert isinstance(result.model, namespace["HandMadeAlibi"]) and isinstance(result.model, torch.nn.Module)


@pytest.mark.parametrize("lang", LANGS)
def test_the_landing_page_states_each_chapter_time_from_the_course_data(lang):
    # The landing page's table of chapters once kept its own minutes, which drifted from the boxes.
    rows = [line for line in page(lang, "index").splitlines() if re.match(r"\| \d+\. \{ref\}", line)]
    assert [substituted(row) for row in rows] == [[f"alone_{n}"] for n in NUMBERS]
    assert "{{" not in rendered("\n".join(rows), lang)
