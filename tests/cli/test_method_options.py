"""Method options on the command line: ``solve --option KEY=VALUE`` and ``methods --options``."""

from __future__ import annotations

import json

import pytest

from hybridsched import get_family
from hybridsched.hybrid_deadline.generator import generate
from hybridsched.storage import save_instance


@pytest.fixture
def instance_file(tmp_path):
    path = tmp_path / "hd.json"
    save_instance(path, get_family("hybrid-deadline"), generate(40, 1.0, 3))
    return path


def _solve(cli, path, *options):
    code, out, err = cli("solve", str(path), "--method", "ffd", "--json", *options)
    assert code == 0, err
    return json.loads(out)


def test_a_reading_given_on_the_command_line_is_the_one_run(cli, instance_file):
    from hybridsched import run_method
    from hybridsched.storage import load_instance

    _, instance = load_instance(instance_file)
    default = _solve(cli, instance_file)
    appended = _solve(cli, instance_file, "--option", "fit=append")
    assert default["objective"] == pytest.approx(run_method(
        "hybrid-deadline", "ffd", instance).objective)
    assert appended["objective"] == pytest.approx(run_method(
        "hybrid-deadline", "ffd", instance, fit="append").objective)
    assert appended["objective"] != pytest.approx(default["objective"])  # the reading matters


@pytest.mark.parametrize(("option", "words"), [
    ("fit", "expected KEY=VALUE, got 'fit'"),
    ("=edf", "expected KEY=VALUE"),
    ("fit=sideways", "fit"),
    ("ra-accept=task", "option --ra-accept is not accepted"),
])
def test_a_bad_option_is_one_line_and_exit_2(cli, instance_file, option, words):
    code, out, err = cli("solve", str(instance_file), "--method", "ffd", "--option", option)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_an_option_given_twice_is_refused(cli, instance_file):
    code, _, err = cli("solve", str(instance_file), "--method", "ffd", "--option", "fit=edf",
                       "--option", "fit=append")
    assert code == 2 and "fit given twice" in err


def test_values_are_typed_as_a_user_means_them():
    from hybridsched.cli.solving import method_options

    assert method_options(["k=3", "epsilon=0.5", "flag=true", "weights=0.2,0.8", "x=nan"]) == {
        "k": 3, "epsilon": 0.5, "flag": True, "weights": "0.2,0.8", "x": "nan"}


def test_methods_lists_each_method_s_options_with_defaults(cli):
    code, out, _ = cli("methods", "hybrid-deadline", "--options")
    assert code == 0
    lines = out.splitlines()
    ffd = lines.index(next(line for line in lines if " ffd " in f" {line} "))
    assert "options: fit=edf" in lines[ffd + 1]
    code, plain, _ = cli("methods", "hybrid-deadline")
    assert "options:" not in plain
