"""The course kit of every edition is complete and adds up: times, rubrics, questions, objectives, plans.

The pages are read by ``course_kit.py``; ``test_parity.py`` checks that the editions match each other.
"""

from __future__ import annotations

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
    exercise_labels,
    glance,
    lab_minutes,
    page,
    plans,
    solutions_only_blocks,
    sums,
)

LANGS = ("en", "id", "ko")
NUMBERS = sorted(chapters().values())


@pytest.mark.parametrize("lang", LANGS)
def test_instructor_table_gives_each_chapter_the_time_of_its_box(lang):
    table, boxes = glance(lang), box_minutes(lang)
    assert sorted(table) == NUMBERS == sorted(boxes)
    for number, (alone, lab) in table.items():
        assert alone == boxes[number], f"chapter {number}: {alone} min, {boxes[number]} in its box"
        assert lab == lab_minutes(alone), f"chapter {number}: lab {lab} min, 1.5 x {alone} rounded up to 5"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["instructor", "syllabi"])
def test_every_sum_written_on_the_instructor_pages_is_right(lang, name):
    written = sums(page(lang, name))
    assert len(written) >= 2, "the page states its totals as sums"
    for terms, total in written:
        assert sum(terms) == total, f"{' + '.join(map(str, terms))} = {sum(terms)}, not {total}"


def test_the_instructor_page_sums_are_the_chapter_times():
    alone, lab = zip(*glance("en").values(), strict=True)
    written = [terms for terms, _ in sums(page("en", "instructor"))]
    assert list(alone) in written and list(lab) in written


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
        assert points == kit.total == 100, f"chapter {number}: {points} points, total {kit.total}"
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


@pytest.mark.parametrize("lang", LANGS)
def test_plans_add_up_and_teach_the_chapters_in_order(lang):
    times = glance(lang)
    found = plans(lang)
    assert len(found) == 2, list(found)
    covered = []
    for heading, (rows, totals) in found.items():
        for row in rows:
            in_class = sum(times[n][1] for n in row.in_class) + sum(row.in_class_activities)
            homework = sum(times[n][0] for n in row.homework) + sum(row.homework_activities)
            assert row.in_class_minutes == in_class, f"{heading}, {row.name}: in class {in_class} min"
            assert row.homework_minutes == homework, f"{heading}, {row.name}: homework {homework} min"
        assert totals == (sum(r.in_class_minutes for r in rows), sum(r.homework_minutes for r in rows)), (
            heading
        )
        taught = [n for row in rows for n in row.in_class + row.homework]
        assert taught == list(range(1, len(taught) + 1)), f"{heading}: chapters {taught}"
        # The prose states the plan's total as "in class + homework = all".
        assert (list(totals), sum(totals)) in sums(page(lang, "syllabi")), f"{heading}: no sum of {totals}"
        covered.append(len(taught))
    assert max(covered) == len(NUMBERS), "one plan teaches the whole book"


@pytest.mark.parametrize("lang", LANGS)
def test_capstone_uses_chapters_6_to_8_and_its_rubric_has_100_points(lang):
    body, points, total = capstone(lang)
    for label in ("rope", "longctx", "experiment"):
        assert f"<{label}-{lang}>" in body
    assert len(points) >= 4 and sum(points) == total == 100, points


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
