"""posenc.experiment: the names it gathers from the experiment's modules, and its command line."""

import subprocess
import sys

import pytest

from posenc import experiment as ex
from posenc.experiment import __main__ as cli
from posenc.experiment import extension, model, sweeps, tasks, training
from posenc.experiment import results as R

MODULES = (tasks, model, training, extension, sweeps)


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_the_experiment_gathers_every_public_name_of_its_modules(module):
    # The chapters and the course kit call posenc.experiment.<name>: each is the very object of its module.
    for name in module.__all__:
        assert name in ex.__all__ and getattr(ex, name) is getattr(module, name), f"{module.__name__}.{name}"


def test_the_experiment_has_no_names_of_its_own():
    homes = {name: next((m for m in MODULES if name in m.__all__), None) for name in ex.__all__}
    assert [name for name, home in homes.items() if home is None] == []
    assert ex.results is R  # the stored results, which chapter 8 reads as ex.results


def test_bench_prints_times_and_the_table(capsys):
    cli.main(["--bench", "--steps", "2", "--tasks", "order", "--positions", "alibi"])
    out = capsys.readouterr().out
    assert "order     alibi" in out and " s " in out and "training time: total" in out
    assert out.rstrip().splitlines()[-1].startswith("alibi")


def test_import_posenc_still_does_not_import_torch():
    code = "import sys, posenc; print('torch' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "False"


def test_the_command_line_writes_the_sweep_and_checks_a_file_against_it(tmp_path, monkeypatch, capsys):
    record = R.Record("main", "order", "nope", 0, 600, "", {16: ((240, 250), (250, 250))})
    made = R.Results({"seeds": [0]}, [record])
    monkeypatch.setattr(cli, "chapter_sweep", lambda **options: made)
    path = tmp_path / "results.json"
    assert cli.main(["sweep", "--output", str(path)]) == 0 and R.load(path) == made
    assert cli.main(["check", "--output", str(path)]) == 0
    assert "0 differences beyond the tolerance (mean 10%, seed 25%, label 30%)" in capsys.readouterr().out
    moved = R.Record("main", "order", "nope", 0, 600, "", {16: ((100, 250), (250, 250))})
    R.Results({"seeds": [0]}, [moved]).dump(path)
    assert cli.main(["check", "--output", str(path)]) == 1
    assert "label 0: 0.400 -> 0.960" in capsys.readouterr().out


def test_check_with_seeds_trains_those_seeds_and_compares_only_their_records(tmp_path, monkeypatch, capsys):
    meta = {"seeds": [0, 1], "control": {"seeds": [0, 1]}}
    records = [
        R.Record("main", "order", "nope", seed, 600, "", {16: ((220, 250), (220, 250))}) for seed in (0, 1)
    ]
    path = tmp_path / "results.json"
    R.Results(meta, records).dump(path)
    asked = {}

    def sweep(**options):
        asked.update(options)
        # seed 0 moved by 16 points (88% -> 72%, "mixed" both): within a seed's 25, beyond a mean's 10
        moved = R.Record("main", "order", "nope", 0, 600, "", {16: ((180, 250), (180, 250))})
        return R.Results({"seeds": [0], "control": {"seeds": [0]}}, [moved])

    monkeypatch.setattr(cli, "chapter_sweep", sweep)
    assert cli.main(["check", "--seeds", "0", "--output", str(path)]) == 0
    assert asked["seeds"] == [0] and asked["control_seeds"] == [0]
    assert "0 differences beyond the tolerance (mean 25%, seed 25%, label 30%)" in capsys.readouterr().out
    # the whole check of the same run: seed 1 is missing
    assert cli.main(["check", "--output", str(path)]) == 1
    assert "missing record ('main', 'order', 'nope', '', 1)" in capsys.readouterr().out
