"""``rng`` as the Scientific Python ecosystem passes it (SPEC 7), ``seed`` kept for old code.

An integer ``rng`` is exactly the old ``seed`` (the benchmark library's
generated files regenerate from their recorded seeds, byte for byte); a
``numpy.random.Generator`` is consumed by one draw, the seed then used and
recorded; both given is an error naming both; a library error names the
Python parameter, the command line the flag the user typed.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from hybridsched import run_method
from hybridsched.catalogue import get_family
from hybridsched.errors import InputError, ParameterError
from hybridsched.seeding import MAX_SEED, resolve_rng, resolve_seed

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "instances"
TRACE = "\n".join(["1 0 n1 0 c 1 1000 40000 0", "2 0 n1 0 c 0 40000 50000 0",
                   "3 0 n1 0 c 1 50000 100000 0", "4 0 n2 0 c 1 0 200000 0",
                   "5 0 n3 0 c 1 1000 90000 0"]) + "\n"


def _document(family: str, instance) -> str:
    return json.dumps(get_family(family).instance_to_dict(instance), sort_keys=True)


def _generators(tmp_path: Path) -> dict[str, tuple[str, object]]:
    """Each generator (and the FTA importer) as ``family, call(**seeding)``."""
    from hybridsched.bot_sites.generator import generate as bot_sites
    from hybridsched.gang.generator import generate as gang
    from hybridsched.hybrid_deadline.generator import generate as hybrid_deadline
    from hybridsched.malleable.generator import generate as malleable
    from hybridsched.pull.generator import generate as pull
    from hybridsched.pull.traces import instance_from_traces

    trace = tmp_path / "t.txt"
    trace.write_text(TRACE)
    return {
        "hybrid-deadline": ("hybrid-deadline", lambda **kw: hybrid_deadline(30, "mixed", **kw)),
        "bot-sites": ("bot-sites", lambda **kw: bot_sites(sites=3, bots=4, tasks_per_bot=(5, 9),
                                                          procs_per_site=(2, 4), **kw)),
        "gang": ("gang", lambda **kw: gang(20, None, "table1", vms=8, **kw)),
        "malleable": ("malleable", lambda **kw: malleable(15, "mixed", **kw)),
        "pull": ("pull", lambda **kw: pull(30, ("idg", "beg"), capacity=1500.0, **kw)),
        "fta": ("pull", lambda **kw: instance_from_traces([(trace, "idg")], units=5, **kw)),
    }


GENERATORS = ("hybrid-deadline", "bot-sites", "gang", "malleable", "pull", "fta")


def test_resolve_seed_rules():
    assert resolve_seed(5) == resolve_seed(seed=5) == 5
    assert resolve_seed() == 0 and resolve_seed(default=3) == 3
    assert resolve_seed(np.int64(7)) == 7 and resolve_seed(MAX_SEED) == MAX_SEED
    one, two = np.random.default_rng(4), np.random.default_rng(4)
    assert resolve_seed(one) == resolve_seed(two)  # the same state, the same seed
    assert resolve_seed(one) != resolve_seed(np.random.default_rng(4))  # the state advanced
    assert 0 <= resolve_seed(np.random.SeedSequence(1)) <= MAX_SEED
    generator = np.random.default_rng(2)
    assert resolve_rng(generator) is generator
    assert resolve_rng(9).random() == np.random.default_rng(9).random()
    assert resolve_rng().random() == np.random.default_rng(0).random()


@pytest.mark.parametrize(("kwargs", "name"), [({"rng": -1}, "rng"), ({"seed": -1}, "seed"),
                                              ({"rng": 2**63}, "rng"), ({"seed": 1.5}, "seed"),
                                              ({"rng": True}, "rng"), ({"rng": "abc"}, "rng")])
def test_bad_seeds_name_their_parameter(kwargs, name):
    with pytest.raises(ParameterError) as error:
        resolve_seed(**kwargs)
    assert error.value.parameter == name and str(error.value).startswith(f"{name}: ")
    assert "--" not in str(error.value)


def test_parameter_errors_pickle_whole():
    error = pickle.loads(pickle.dumps(ParameterError("rng", "must be ...")))
    assert (error.parameter, error.reason, str(error)) == ("rng", "must be ...",
                                                           "rng: must be ...")
    assert isinstance(error, InputError)


@pytest.mark.parametrize("which", GENERATORS)
def test_int_rng_is_the_old_seed_and_a_generator_is_accepted(which, tmp_path):
    family, call = _generators(tmp_path)[which]
    assert _document(family, call(rng=5)) == _document(family, call(seed=5))
    assert _document(family, call()) == _document(family, call(seed=0))  # None: seed 0
    generator = np.random.default_rng(5)
    drawn = call(rng=generator)
    seed = drawn.provenance["seed"]
    # The generator gave one draw, the seed used and recorded: it regenerates the instance.
    assert seed == np.random.default_rng(5).integers(0, MAX_SEED, endpoint=True)
    assert _document(family, call(rng=seed)) == _document(family, drawn)
    assert _document(family, call(rng=generator)) != _document(family, drawn)  # consumed


@pytest.mark.parametrize("which", GENERATORS)
def test_rng_and_seed_together_is_an_error_naming_both(which, tmp_path):
    _, call = _generators(tmp_path)[which]
    with pytest.raises(TypeError, match="rng or seed"):
        call(rng=1, seed=1)


def test_a_library_error_names_the_parameter_not_the_flag():
    from hybridsched.bot_sites.generator import generate as bot_sites
    from hybridsched.hybrid_deadline.generator import generate

    with pytest.raises(ParameterError, match=r"^seed: must be an integer"):
        generate(3, seed=-1)
    with pytest.raises(ParameterError, match=r"^rng: must be"):
        generate(3, rng=-1)
    with pytest.raises(ParameterError, match=r"^n_tasks: "):
        generate(-1)
    with pytest.raises(ParameterError, match=r"^local_share: "):
        generate(3, local_share=0)
    with pytest.raises(ParameterError, match=r"^private_share: "):
        bot_sites(private_share=2)


def _regenerate(family: str, recorded: dict):
    """The instance the generator makes from a library file's provenance, with ``rng``."""
    from hybridsched.bot_sites.generator import generate as bot_sites
    from hybridsched.gang.generator import generate as gang
    from hybridsched.hybrid_deadline.generator import generate as hybrid_deadline
    from hybridsched.pull.generator import generate as pull

    options = {k: v for k, v in recorded.items() if k not in ("generator", "seed")}
    rng = recorded["seed"]
    if family == "hybrid-deadline":
        return hybrid_deadline(options.pop("n_tasks"), options.pop("alpha"), rng=rng, **options)
    if family == "bot-sites":
        for key in ("tasks_per_bot", "procs_per_site"):
            options[key] = tuple(options[key])
        return bot_sites(rng=rng, **options)
    if family == "gang":
        return gang(options.pop("jobs"), options.pop("rate"), options.pop("scenario"), rng=rng,
                    **options)
    return pull(options.pop("units"), tuple(options.pop("dcis")), rng=rng, **options)


#: Library files made by ``generate`` with every setting in their provenance (the
#: malleable files do not record their platform, so they are left out).
GENERATED = sorted(
    path for path in LIBRARY.glob("*/**/*.json")
    if path.parent.name != "real" and isinstance(document := json.loads(path.read_text()), dict)
    and (document.get("provenance") or {}).get("generator") in (
        "hybridsched.hybrid_deadline.generator.generate",
        "hybridsched.bot_sites.generator.generate", "gang", "pull"))


def test_the_library_has_generated_files_of_four_families():
    families = {json.loads(p.read_text())["family"] for p in GENERATED}
    assert families == {"hybrid-deadline", "bot-sites", "gang", "pull"}


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_library_files_regenerate_from_their_recorded_seed(path):
    document = json.loads(path.read_text())
    made = get_family(document["family"]).instance_to_dict(
        _regenerate(document["family"], document["provenance"]))
    made = json.loads(json.dumps(made))  # tuples as lists, as in the file
    for key in set(made) | set(document):
        if key not in ("name", "reference", "provenance"):
            assert made.get(key) == document.get(key), key


SMALL = {"hybrid-deadline": "hybrid-deadline/small-01.json", "malleable": "malleable/batch-04.json",
         "pull": "pull/small-s1.json"}


@pytest.mark.parametrize(("family", "method"), [("malleable", "round-robin"),
                                                ("pull", "promethee"), ("pull", "fcfs")])
def test_run_method_takes_rng(family, method):
    instance = get_family(family).instance_from_dict(
        json.loads((LIBRARY / SMALL[family]).read_text()), "f")
    by_rng = run_method(family, method, instance, rng=3)
    by_seed = run_method(family, method, instance, seed=3)
    assert by_rng.seed == by_seed.seed == 3 and by_rng.objective == by_seed.objective
    assert run_method(family, method, instance).seed == 0
    drawn = run_method(family, method, instance, rng=np.random.default_rng(8))
    assert drawn.seed == np.random.default_rng(8).integers(0, MAX_SEED, endpoint=True)
    assert run_method(family, method, instance, rng=drawn.seed).objective == drawn.objective
    with pytest.raises(TypeError, match="rng or seed"):
        run_method(family, method, instance, rng=1, seed=1)
    with pytest.raises(ParameterError, match="^rng: "):
        run_method(family, method, instance, rng=-2)


def test_malleable_simulation_uses_a_generator_as_it_is():
    from hybridsched.heuristics.malleable.simulation import simulate
    from hybridsched.malleable.generator import generate

    instance = generate(20, "mixed", rng=1)
    by_int, _ = simulate(instance, "round-robin", "A", rng=4)
    by_seed, _ = simulate(instance, "round-robin", "A", 4)
    by_generator, _ = simulate(instance, "round-robin", "A", rng=np.random.default_rng(4))
    for other in (by_seed, by_generator):
        assert np.array_equal(by_int.resource, other.resource)
    generator = np.random.default_rng(4)
    simulate(instance, "round-robin", "A", rng=generator)
    assert generator.random() != np.random.default_rng(4).random()  # consumed


def test_compare_and_solve_take_rng():
    import hybridsched

    path = str(LIBRARY / SMALL["hybrid-deadline"])
    table = hybridsched.compare([path], ["cdf"], rng=2)
    assert list(table["method"]) == ["cdf"] and table["status"].iloc[0] == "feasible"
    with pytest.raises(TypeError, match="rng or seed"):
        hybridsched.compare([path], ["cdf"], rng=2, seed=2)
    with pytest.raises(ParameterError, match="^method_names: no method given"):
        hybridsched.compare([path], [])
    result = hybridsched.solve(path, "cdf", rng=4)
    assert result.seed == 4 and result.status.value == "feasible"
    with pytest.raises(ParameterError, match="^family: "):
        hybridsched.solve(object(), "cdf")


def test_the_command_line_names_the_flag_it_was_given(cli, tmp_path):
    code, _, err = cli("generate", "hybrid-deadline", "--pms", "99", "-o", tmp_path / "x.json")
    assert code == 2 and err.strip().splitlines() == [
        "error: --pms: must be between 0 and 15, got 99"]
    code, _, err = cli("generate", "bot-sites", "--preset", "nope", "-o", tmp_path / "x.json")
    assert code == 2 and "error: --preset: unknown preset 'nope'" in err


def test_flags_for_parameters():
    import click

    from hybridsched.cli.flags import flag_for, message_for_command_line

    command = click.Command("x", params=[click.Option(["--seed"]), click.Option(["--tasks"]),
                                         click.Option(["--local-share"]),
                                         click.Option(["-m", "--methods", "methods_"])])
    assert [flag_for(p, command) for p in ("rng", "seed", "n_tasks", "local_share",
                                           "method_names", "other")] == [
        "--seed", "--seed", "--tasks", "--local-share", "--methods", None]
    assert message_for_command_line(ParameterError("rng", "bad"), command) == "--seed: bad"
    assert message_for_command_line(ParameterError("other", "bad"), command) == "other: bad"
