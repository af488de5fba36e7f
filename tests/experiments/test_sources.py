"""Instance sources (files, generators, importers) and plugins of campaigns."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hybridsched import registry
from hybridsched.errors import InputError
from hybridsched.experiments.file_cache import sha256_file
from hybridsched.experiments.plugins import import_plugins
from hybridsched.experiments.source_options import (
    GENERATOR_FAMILIES,
    IMPORTERS,
    OptionError,
    check_generator_options,
    check_importer_options,
)
from hybridsched.experiments.sources import (
    InstanceSource,
    file_source,
    generator_source,
    import_source,
    load_cached,
)
from hybridsched.io.jsonio import dumps_strict
from hybridsched.io.shared_data import BRAUN_FOLDER, shared_data_path

INSTANCES = Path(__file__).parents[2] / "instances"
SMALL = INSTANCES / "hybrid-deadline" / "small-01.json"


def as_json(family, instance) -> str:
    return dumps_strict(family.instance_to_dict(instance))


# --------------------------------------------------------------------------- files


def test_file_source_identity_ignores_the_path_and_follows_the_content(tmp_path):
    moved = tmp_path / "elsewhere.json"
    shutil.copy(SMALL, moved)
    original, copy = file_source(SMALL), file_source(moved)
    assert original.path == str(SMALL) and copy.path == str(moved)
    assert original.identity() == copy.identity()
    assert json.loads(copy.identity())["sha256"] == sha256_file(SMALL)
    # Another process computes the same text.
    code = ("from hybridsched.experiments.sources import file_source; "
            f"print(file_source({str(moved)!r}).identity())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert other == original.identity()
    document = json.loads(moved.read_text())
    document["name"] = "renamed"
    moved.write_text(json.dumps(document))
    assert file_source(moved).identity() != original.identity()


def test_file_source_loads_and_labels(tmp_path):
    source = file_source(SMALL)
    assert source.kind == "file" and source.family == "hybrid-deadline"
    assert source.label() == "small-01.json"
    family, instance = source.load()
    assert family.name == "hybrid-deadline" and instance.n_tasks > 0


def test_file_source_refuses_a_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"family": "hybrid-deadline", "format": "hybridsched-instance"}')
    with pytest.raises(InputError, match="bad.json"):
        file_source(bad)
    with pytest.raises(InputError, match="no such file"):
        file_source(tmp_path / "missing.json")


def test_a_file_whose_family_changed_is_refused_at_load(tmp_path):
    path = tmp_path / "x.json"
    shutil.copy(SMALL, path)
    source = file_source(path)
    shutil.copy(INSTANCES / "bot-sites" / "gmo-table2-inconsistent.json", path)
    with pytest.raises(InputError, match="x.json: field family"):
        source.load()


def test_load_cached_returns_the_same_object():
    source = generator_source("hybrid-deadline", {"tasks": 7}, 11)
    first = load_cached(source)
    assert load_cached(source) is first
    assert load_cached(InstanceSource(**vars(source))) is first  # equal sources share it


# --------------------------------------------------------------------------- generators


def test_hybrid_deadline_generator_source_equals_a_direct_call():
    from hybridsched.hybrid_deadline.generator import generate

    source = generator_source("hybrid-deadline", {"tasks": 10, "alpha": "mixed"}, 3)
    assert source.label() == "hybrid-deadline tasks=10 alpha=mixed seed=3"
    family, instance = source.load()
    assert instance.name == "hd-t10-amixed-s3"
    direct = generate(10, "mixed", 3, name=instance.name)
    assert as_json(family, instance) == as_json(family, direct)
    other = generator_source("hybrid-deadline", {"tasks": 10, "alpha": 2, "pms": 3}, 3)
    assert other.load()[1].name == "hd-t10-a2-pms3-s3"


def test_bot_sites_generator_source_equals_a_direct_call():
    from hybridsched.bot_sites.generator import generate

    options = {"sites": 3, "bots": 4, "tasks_per_bot": "2:5", "procs_per_site": [1, 3],
               "scenario": "LoLo", "consistent": True, "dependency": 0.0}
    family, instance = generator_source("bot-sites", options, 5).load()
    direct = generate(sites=3, bots=4, tasks_per_bot=(2, 5), procs_per_site=(1, 3),
                      scenario="LoLo", consistent=True, dependency=0.0, seed=5,
                      name=instance.name)
    assert as_json(family, instance) == as_json(family, direct)
    assert instance.name.startswith("bs-LoLo-c-3s-4b") and instance.name.endswith("-s5")


def test_bot_sites_preset_ignores_the_seed():
    source = generator_source("bot-sites", {"preset": "gmo-table2-inconsistent"}, 4)
    assert source.seed is None
    assert source.load()[1].name == "gmo-table2-inconsistent"


def test_generator_identity_is_canonical():
    def identity(options, seed=1):
        return generator_source("bot-sites", options, seed).identity()

    assert identity({"tasks_per_bot": 5}) == identity({"tasks_per_bot": "5:5"}) \
        == identity({"tasks_per_bot": [5, 5]})
    assert identity({}) == identity({"sites": 10, "scenario": "HiHi"})  # defaults
    assert identity({"tightness": 1}) == identity({"tightness": 1.0})
    assert identity({}) != identity({}, seed=2)
    assert identity({"sites": 3}) != identity({"sites": 4})
    hd = generator_source("hybrid-deadline", {}, 0).identity()
    assert json.loads(hd) == {"kind": "generator", "family": "hybrid-deadline", "seed": 0,
                              "options": {"tasks": 30, "alpha": "mixed", "pms": None,
                                          "local_share": 0.5}}


def test_generator_names_differ_by_option():
    names = {generator_source("bot-sites", {"sites": 2, "bots": 2, "tasks_per_bot": "1:2",
                                            "procs_per_site": "1:2", **extra}, 0).load()[1].name
             for extra in ({}, {"dependency": 0.5}, {"communication": True},
                           {"tightness": 0.25}, {"private_share": 0.0})}
    assert len(names) == 5


@pytest.mark.parametrize(("family", "options", "option", "words"), [
    ("hybrid-deadline", {"taks": 3}, "taks", "did you mean 'tasks'"),
    ("hybrid-deadline", {"tasks": -3}, "tasks", "greater than or equal to 0"),
    ("hybrid-deadline", {"tasks": 10**8}, "tasks", "less than or equal"),
    ("hybrid-deadline", {"tasks": 2.0}, "tasks", "valid integer"),
    ("hybrid-deadline", {"alpha": 7}, "alpha", "'mixed'"),
    ("hybrid-deadline", {"alpha": True}, "alpha", "'mixed'"),
    ("hybrid-deadline", {"alpha": 2.0}, "alpha", "'mixed'"),
    ("hybrid-deadline", {"local_share": 0}, "local_share", "greater than 0"),
    ("hybrid-deadline", {"local_share": float("nan")}, "local_share", "finite"),
    ("hybrid-deadline", {"local_share": "0.5"}, "local_share", "valid number"),
    ("hybrid-deadline", {"pms": 16}, "pms", "less than or equal to 15"),
    ("bot-sites", {"tasks_per_bot": "5:2"}, "tasks_per_bot", "1 <= A <= B"),
    ("bot-sites", {"tasks_per_bot": "a:b"}, "tasks_per_bot", "integers"),
    ("bot-sites", {"procs_per_site": [1, 2, 3]}, "procs_per_site", "range"),
    ("bot-sites", {"scenario": "HiMid"}, "scenario", "'LoLo'"),
    ("bot-sites", {"consistent": 1}, "consistent", "valid boolean"),
    ("bot-sites", {"preset": "nope"}, "preset", "unknown preset"),
    ("bot-sites", {"preset": "gmo-table2-inconsistent", "sites": 3}, "sites", "preset"),
    ("bot-sites", {"sites": 10**5, "bots": 10**5}, "bots", "(site, BoT) pairs"),
    ("bot-sites", {"bots": 1000, "tasks_per_bot": "1:100000"}, "tasks_per_bot", "tasks"),
])
def test_bad_generator_options_are_named(family, options, option, words):
    with pytest.raises(OptionError) as caught:
        check_generator_options(family, options)
    assert caught.value.option == option
    assert str(caught.value).startswith(f"{option}: ") and words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_generator_family_and_importer():
    assert GENERATOR_FAMILIES == {"hybrid-deadline": "hybrid-deadline",
                                  "bot-sites": "bot-sites", "malleable": "malleable",
                                  "gang": "gang", "pull": "pull"}
    assert IMPORTERS == {"etc": "bot-sites", "swf": "hybrid-deadline", "fta": "pull"}
    with pytest.raises(InputError, match="no generator for family 'nope'"):
        check_generator_options("nope", {})
    with pytest.raises(InputError, match="unknown importer 'xls'"):
        check_importer_options("xls", {})
    with pytest.raises(OptionError, match="seed: must be an integer"):
        generator_source("hybrid-deadline", {}, -1)


def test_a_source_with_bad_options_names_them_at_load():
    source = InstanceSource("generator", "hybrid-deadline", options=(("tasks", -1),), seed=0)
    with pytest.raises(InputError, match="generator hybrid-deadline: option tasks: "):
        source.load()


def test_option_errors_survive_pickling():
    error = pickle.loads(pickle.dumps(OptionError("tasks", "too many")))
    assert (error.option, error.reason, str(error)) == ("tasks", "too many", "tasks: too many")


def test_sources_pickle_small():
    source = generator_source("bot-sites", {"sites": 3}, 2)
    assert pickle.loads(pickle.dumps(source)) == source
    assert len(pickle.dumps(source)) < 500


# --------------------------------------------------------------------------- importers


def test_importer_options_are_checked():
    check_importer_options("swf", {"alpha": 2, "grouping": "window", "window_s": 60})
    for options, option in (({"alpha": 0}, "alpha"), ({"grouping": "day"}, "grouping"),
                            ({"limit": 0}, "limit"), ({"window": 3}, "window")):
        with pytest.raises(OptionError) as caught:
            check_importer_options("swf", options)
        assert caught.value.option == option
    with pytest.raises(OptionError, match="x: unknown option"):
        check_importer_options("etc", {"x": 1})


def test_swf_import_source(tmp_path):
    trace = tmp_path / "tiny.swf"
    trace.write_text("; Computer: Tiny\n" + "".join(
        f"{n} {60 * n} 0 {1800 * n} 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n" for n in range(1, 5)))
    source = import_source("swf", trace, {"alpha": 2, "limit": 3})
    assert source.label() == "tiny.swf (swf alpha=2.0 limit=3)"
    family, instance = source.load()
    assert family.name == "hybrid-deadline" and instance.n_tasks == 3
    assert instance.name == "tiny-a2-l3"
    assert source.identity() != import_source("swf", trace, {"alpha": 3}).identity()
    with pytest.raises(InputError, match="no such file"):
        import_source("swf", tmp_path / "missing.swf")


def test_etc_import_source(tmp_path):
    path = tmp_path / "tiny.0"
    path.write_text("2 2 0\n1.5\n2\n3\n4\n")
    source = import_source("etc", path)
    assert source.label() == "tiny.0 (etc)"
    family, instance = source.load()
    assert family.name == "bot-sites" and instance.n_bots == 2 and instance.name == "tiny.0"


def test_braun_import_source():
    folder = shared_data_path(BRAUN_FOLDER)
    if folder is None:
        pytest.skip("Braun ETC instances not found: set HYBRIDSCHED_DATA to a folder holding "
                    f"{BRAUN_FOLDER}/ (or keep ../shared/data)")
    source = import_source("etc", folder / "u_c_hihi.0")
    assert source.label() == "u_c_hihi.0 (etc)"
    family, instance = source.load()
    assert family.name == "bot-sites"
    assert (instance.n_bots, instance.n_sites) == (512, 16)


# --------------------------------------------------------------------------- plugins

ECHO = '''
from pathlib import Path
from hybridsched.heuristics.hybrid_deadline.cdf import cdf
from hybridsched.registry import register_method

with open(Path(__file__).with_suffix(".log"), "a") as log:
    log.write("imported\\n")


@register_method("hybrid-deadline", "echo", description="CDF under another name")
def echo(instance, *, seed=None, time_limit=None):
    return cdf(instance)
'''


def test_plugin_registers_a_method_once(tmp_path, scratch_registry):
    plugin = tmp_path / "echo.py"
    plugin.write_text(ECHO)
    import_plugins([str(plugin)])
    import_plugins([str(plugin)])
    assert (tmp_path / "echo.log").read_text() == "imported\n"
    assert "echo" in registry.methods("hybrid-deadline")
    family, instance = file_source(SMALL).load()
    result = registry.run_method("hybrid-deadline", "echo", instance)
    assert result.status.has_solution
    assert family.check(instance, result.solution) == []


def test_plugin_that_raises_names_the_file(tmp_path, scratch_registry):
    plugin = tmp_path / "broken.py"
    plugin.write_text("import math\nraise RuntimeError('no licence for the solver')\n")
    with pytest.raises(InputError) as caught:
        import_plugins([str(plugin)])
    assert str(caught.value) == (f"{plugin}: plugin failed to import: "
                                 "RuntimeError: no licence for the solver")
    plugin.write_text("def broken(:\n")
    with pytest.raises(InputError, match=rf"{plugin.name}:1: plugin failed to import: "
                                         "SyntaxError"):
        import_plugins([str(plugin)])
    with pytest.raises(InputError, match="missing.py: no such plugin file"):
        import_plugins([str(tmp_path / "missing.py")])


def test_a_tree_option_is_spec_relative_checked_up_front_and_keyed_by_content(tmp_path):
    from hybridsched.experiments.spec import load_spec

    tree = (Path(__file__).parents[2] / "examples" / "trees" / "paper.toml").read_text()
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tree.toml").write_text(tree)
        (tmp_path / folder / "spec.toml").write_text(
            '[[instances]]\ngenerator = "malleable"\noptions = { jobs = 2, tree = "tree.toml" }'
            '\n[[methods]]\nname = "tree"\n')
    (a,) = load_spec(tmp_path / "a" / "spec.toml").sources
    (b,) = load_spec(tmp_path / "b" / "spec.toml").sources
    assert dict(a.options)["tree"] == str(tmp_path / "a" / "tree.toml")  # the spec's folder
    assert a.identity() == b.identity()  # the same platform elsewhere: the same runs
    (tmp_path / "b" / "tree.toml").write_text(tree.replace("fanout = [", "fanout = [2, "))
    assert a.identity() != b.identity()
    (tmp_path / "a" / "tree.toml").unlink()
    with pytest.raises(InputError, match="tree.toml: no such file"):
        a.load()  # a run whose tree went away fails with the file's name


def test_gang_generator_sources_take_the_workload_readings():
    from typing import get_args

    from hybridsched.experiments.source_options import GangOptions
    from hybridsched.gang.generator import READINGS

    plain = generator_source("gang", {"jobs": 20}, seed=1).load()[1]
    per_job = generator_source("gang", {"jobs": 20, "instructions": "per-job"}, seed=1)
    loaded = per_job.load()[1]
    assert loaded.name.endswith("-per-job-s1") and "instructions=per-job" in per_job.label()
    assert loaded.instructions * loaded.parallelism == pytest.approx(plain.instructions)
    with pytest.raises(OptionError, match="instructions"):
        generator_source("gang", {"jobs": 20, "instructions": "per-unit"}, seed=1)
    # The source's choices are the generator's, in the same order (the default first).
    for option, values in READINGS.items():
        assert get_args(GangOptions.model_fields[option].annotation) == values


def test_sources_cut_from_one_swf_trace_parse_it_once(tmp_path, monkeypatch):
    import hybridsched.io.swf as swf_module
    from hybridsched.experiments import file_cache
    from hybridsched.experiments.sources import import_source

    path = tmp_path / "t.swf"
    path.write_text("; header\n" + "".join(
        f"{n} {10 * n} -1 {600 * n} 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n" for n in range(1, 7)))
    calls = []
    real = swf_module.read_swf
    monkeypatch.setattr(swf_module, "read_swf", lambda p: calls.append(p) or real(p))
    file_cache._read_swf.cache_clear()
    windows = [import_source("swf", path, {"skip": k, "limit": 2}).load()[1].task_ids
               for k in (0, 2, 4)]
    assert windows == [("r1", "r2"), ("r3", "r4"), ("r5", "r6")] and len(calls) == 1
    path.write_text(path.read_text() + "7 70 -1 4200 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n")
    assert import_source("swf", path, {"skip": 6}).load()[1].task_ids == ("r7",)
    assert len(calls) == 2  # a changed file is read again
