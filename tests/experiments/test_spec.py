"""Campaign specs: expansion of valid specs, one-line errors with key path and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hybridsched.errors import InputError
from hybridsched.experiments.campaign_model import MAX_RUNS, Campaign, MethodEntry
from hybridsched.experiments.sources import InstanceSource, file_source, generator_source
from hybridsched.experiments.spec import campaign_from_parts, load_spec
from hybridsched.io.toml_lines import key_lines, line_of

INSTANCES = Path(__file__).parents[2] / "instances"
HD_GLOB = str(INSTANCES / "hybrid-deadline" / "*.json")
HD = '[[instances]]\ngenerator = "hybrid-deadline"\n'
CDF = '[[methods]]\nname = "cdf"\n'


def write(folder: Path, text: str, name: str = "spec.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- valid specs


def test_grids_globs_and_method_grids_expand(tmp_path):
    spec = write(tmp_path, f"""
[campaign]
name = "mixed"
description = "both families"
time_limit = 5
replications = 2
record = ["solution"]

[[instances]]
generator = "hybrid-deadline"
seeds = {{ start = 0, stop = 3 }}
[instances.options]
tasks = [10, 20]
alpha = ["mixed", 2]
local_share = 0.4

[[instances]]
files = ["{HD_GLOB}"]

[[instances]]
files = ["{INSTANCES / 'bot-sites'}/*.json"]

[[methods]]
name = "cdf+ra"

[[methods]]
name = "gmo"
options = {{ objective = ["makespan", "cost"] }}

[[methods]]
name = "exact"
family = "bot-sites"
time_limit = 30
seeds = [1, 4]
replications = 1
[methods.options]
objective = ["makespan", "cost"]
""")
    campaign = load_spec(spec)
    assert isinstance(campaign, Campaign)
    assert (campaign.name, campaign.description) == ("mixed", "both families")
    assert campaign.record == frozenset({"solution"}) and campaign.plugins == ()
    assert campaign.spec_path == str(spec.resolve()) and campaign.spec_text == spec.read_text()
    generated = [s for s in campaign.sources if s.kind == "generator"]
    files = [s for s in campaign.sources if s.kind == "file"]
    assert len(generated) == 12 and len({s.identity() for s in generated}) == 12
    assert sorted({s.seed for s in generated}) == [0, 1, 2]
    assert all(dict(s.options)["local_share"] == 0.4 for s in generated)
    hd_names = [Path(s.path).name for s in files if s.family == "hybrid-deadline"]
    assert hd_names == [f"small-{k:02}.json" for k in range(1, 13)]
    assert sum(s.family == "hybrid-deadline" for s in files) == 12
    assert sum(s.family == "bot-sites" for s in files) == 3
    labels = {(m.family, m.label): m for m in campaign.methods}
    assert sorted(labels) == [
        ("bot-sites", "exact[objective=cost]"), ("bot-sites", "exact[objective=makespan]"),
        ("bot-sites", "gmo[objective=cost]"), ("bot-sites", "gmo[objective=makespan]"),
        ("hybrid-deadline", "cdf+ra")]
    cost = labels["bot-sites", "exact[objective=cost]"]
    assert cost.options_dict() == {"objective": "cost"}
    assert (cost.time_limit, cost.seeds, cost.replications) == (30.0, (1, 4), 1)
    gmo = labels["bot-sites", "gmo[objective=makespan]"]
    assert (gmo.time_limit, gmo.seeds, gmo.replications) == (5.0, (0,), 2)


def test_defaults_relative_paths_and_labels(tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    relative = os.path.relpath(INSTANCES / "hybrid-deadline", folder)
    spec = write(folder, f"""
[[instances]]
files = ["{relative}/small-0[12].json", "{relative}/small-01.json"]

[[methods]]
name = "cdf"
label = "closest deadline"
[[methods]]
name = "ffd"
options = {{ }}
""", name="gaps.toml")
    campaign = load_spec(spec)
    assert campaign.name == "gaps" and campaign.description == "" and campaign.record == set()
    assert [s.label() for s in campaign.sources] == ["small-01.json", "small-02.json"]
    assert [(m.label, m.time_limit, m.seeds, m.replications) for m in campaign.methods] == [
        ("closest deadline", 60.0, (0,), 1), ("ffd", 60.0, (0,), 1)]


def test_user_label_gets_the_grid_suffix(tmp_path):
    spec = write(tmp_path, '[[instances]]\ngenerator = "bot-sites"\n[[methods]]\nname = "gmo"'
                           '\nlabel = "G"\noptions = { objective = ["cost", "makespan"] }\n')
    assert [m.label for m in load_spec(spec).methods] == ["G[objective=cost]",
                                                           "G[objective=makespan]"]


def test_data_folder_and_importer_grid(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "etc").mkdir(parents=True)
    for name in ("a.0", "b.0"):
        (data / "etc" / name).write_text("2 2 0\n1\n2\n3\n4\n")
    (data / "trace.swf").write_text("".join(
        f"{n} 0 0 600 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n" for n in range(1, 4)))
    monkeypatch.setenv("HYBRIDSCHED_DATA", str(data))
    spec = write(tmp_path, """
[[instances]]
importer = "etc"
files = ["{data}/etc/*.0"]
[[instances]]
importer = "swf"
files = ["{data}/trace.swf"]
options = { alpha = [1, 2.5], limit = 2 }
[[methods]]
name = "g-min-min"
[[methods]]
name = "cdf"
""")
    campaign = load_spec(spec)
    assert [s.label() for s in campaign.sources] == [
        "a.0 (etc)", "b.0 (etc)", "trace.swf (swf alpha=1.0 limit=2)",
        "trace.swf (swf alpha=2.5 limit=2)"]
    assert campaign.sources[0].path == str(data / "etc" / "a.0")
    assert campaign.sources[3].load()[1].n_tasks == 2


def test_generators_are_not_called_while_validating(tmp_path, monkeypatch):
    import hybridsched.hybrid_deadline.generator as generator

    def refuse(*args, **kwargs):
        raise AssertionError("a generator ran during validation")

    monkeypatch.setattr(generator, "generate", refuse)
    spec = write(tmp_path, HD + "seeds = { stop = 50 }\noptions = { tasks = [5, 6] }\n" + CDF)
    assert len(load_spec(spec).sources) == 100


def test_preset_makes_one_instance(tmp_path):
    spec = write(tmp_path, '[[instances]]\ngenerator = "bot-sites"\n'
                           'options = { preset = "gmo-table2-inconsistent" }\n'
                           '[[methods]]\nname = "gmo"\n')
    (source,) = load_spec(spec).sources
    assert source.seed is None and source.load()[1].name == "gmo-table2-inconsistent"


def test_plugin_methods_can_be_used(tmp_path, scratch_registry):
    (tmp_path / "plugin.py").write_text(
        "from hybridsched.heuristics.hybrid_deadline.cdf import cdf\n"
        "from hybridsched.registry import register_method\n"
        "register_method('hybrid-deadline', 'echo')(lambda instance, *, seed=None, "
        "time_limit=None: cdf(instance))\n")
    spec = write(tmp_path, '[campaign]\nplugins = ["plugin.py"]\n' + HD +
                 '[[methods]]\nname = "echo"\n')
    campaign = load_spec(spec)
    assert campaign.plugins == (str(tmp_path / "plugin.py"),)
    assert [m.name for m in campaign.methods] == ["echo"]


def test_two_hundred_file_runs_load(tmp_path):
    # How fast: benchmarks/bench_spec_report.py (a wall-clock bound can fail under load).
    for k in range(20):
        (tmp_path / f"i{k:02}.json").write_text(
            (INSTANCES / "hybrid-deadline" / f"small-{k % 12 + 1:02}.json").read_text())
    spec = write(tmp_path, '[[instances]]\nfiles = ["*.json"]\n' + "".join(
        f'[[methods]]\nname = "{m}"\nseeds = {{ stop = 2 }}\n'
        for m in ("cdf", "cdf+ra", "ffd", "ffd+ra", "exact")))
    campaign = load_spec(spec)
    runs = sum(len(m.seeds) for m in campaign.methods) * len(campaign.sources)
    assert runs == 200


def test_key_lines_skip_strings_and_multiline_values():
    text = '''[campaign]
description = """
[[methods]]
name = "not a table"
"""
plugins = [
  "a.py",  # [[instances]]
  "b.py",
]
[[instances]]
generator = "x"
[instances.options]
tasks = [1, 2]
[[instances]]
"files" = ['[x]']
[[methods]]
name = "y"  # trailing [comment]
options.objective = "cost"
'''
    lines = key_lines(text)
    assert lines["campaign.description"] == 2 and lines["campaign.plugins"] == 6
    assert "methods[1]" not in lines and "methods[0]" in lines
    assert lines["instances[0].options.tasks"] == 13
    assert lines["instances[1].files"] == 15
    assert lines["methods[0].name"] == 17 and lines["methods[0].options.objective"] == 18
    assert line_of(lines, "instances[0].options.tasks[1]") == 13
    assert line_of(lines, "campaign.plugins[1]") == 6
    assert line_of(lines, "methods[0].seeds.start") == 16
    assert line_of(lines, "nowhere.at.all") is None


# --------------------------------------------------------------------------- campaign_from_parts


def test_campaign_from_parts_resolves_names():
    sources = [file_source(INSTANCES / "hybrid-deadline" / "small-01.json"),
               generator_source("bot-sites", {"sites": 2}, 0)]
    campaign = campaign_from_parts(sources + sources[:1], ["exact", "cdf", "gmo"],
                                   name="cmp", time_limit=float("inf"))
    assert campaign.sources == tuple(sources)
    assert [(m.family, m.name, m.time_limit) for m in campaign.methods] == [
        ("hybrid-deadline", "exact", None), ("bot-sites", "exact", None),
        ("hybrid-deadline", "cdf", None), ("bot-sites", "gmo", None)]
    entry = MethodEntry("bot-sites", "gmo", "gmo-cost", (("objective", "cost"),), 3.0, (1,), 2)
    mixed = campaign_from_parts(sources[1:], [entry, "gmo"], name="x", time_limit=1)
    assert [(m.label, m.time_limit) for m in mixed.methods] == [("gmo-cost", 3.0), ("gmo", 1.0)]
    every = campaign_from_parts(sources[1:], None, name="all", time_limit=None)
    assert {m.name for m in every.methods} >= {"gmo", "exact", "g-min-min"}


@pytest.mark.parametrize(("methods", "kwargs", "words"), [
    (["nope"], {}, "unknown method 'nope'"),
    (["cdf"], {"options": {"objective": "cost"}}, "not accepted"),
    (["cdf"], {"time_limit": -1}, "time limit"),
    (["cdf"], {"record": ["gantt"]}, "record: unknown value 'gantt'"),
    ([], {}, "no method"),
    (["cdf", MethodEntry("hybrid-deadline", "ffd", "cdf")], {}, "duplicate label 'cdf'"),
])
def test_campaign_from_parts_refuses(methods, kwargs, words):
    sources = [generator_source("hybrid-deadline", {}, 0)]
    with pytest.raises(InputError, match=words):
        campaign_from_parts(sources, methods, name="x", **{"time_limit": 1.0, **kwargs})


def test_campaign_from_parts_needs_a_source():
    with pytest.raises(InputError, match="no instance"):
        campaign_from_parts([], ["cdf"], name="x", time_limit=None)


# --------------------------------------------------------------------------- rejected specs

BOTS = '[[instances]]\ngenerator = "bot-sites"\n'

#: (case, spec text, line or None, key path or "", words of the reason)
REJECTED = [
    ("syntax", "[campaign]\nname = \"x\"\ntime_limit = = 3\n" + HD + CDF, 3, "",
     "invalid TOML"),
    ("table not a table", "campaign = 3\n" + HD + CDF, 1, "campaign", "expected a table"),
    ("instances as a table", "[instances]\ngenerator = \"x\"\n" + CDF, 1, "instances",
     "write [[instances]]"),
    ("unknown top-level key", "campaing = 1\n" + HD + CDF, 1, "campaing", "unknown key"),
    ("unknown campaign key", "[campaign]\nnmae = \"x\"\n" + HD + CDF, 2, "campaign.nmae",
     "did you mean 'name'"),
    ("unknown method key", HD + CDF + "tim_limit = 3\n", 5, "methods[0].tim_limit",
     "did you mean 'time_limit'"),
    ("unknown instances key", HD + "seed = [1]\n" + CDF, 3, "instances[0].seed",
     "did you mean 'seeds'"),
    ("string time limit", "[campaign]\ntime_limit = \"30\"\n" + HD + CDF, 2,
     "campaign.time_limit", "valid number"),
    ("bool replications", HD + CDF + "replications = true\n", 5, "methods[0].replications",
     "valid integer"),
    ("float seed", HD + "seeds = [0, 1.5]\n" + CDF, 3, "instances[0].seeds[1]",
     "valid integer"),
    ("float range stop", HD + CDF + "seeds = { stop = 2.0 }\n", 5, "methods[0].seeds.stop",
     "valid integer"),
    ("nan time limit", "[campaign]\ntime_limit = nan\n" + HD + CDF, 2, "campaign.time_limit",
     "finite"),
    ("inf time limit", HD + CDF + "time_limit = inf\n", 5, "methods[0].time_limit", "finite"),
    ("negative time limit", "[campaign]\ntime_limit = -1\n" + HD + CDF, 2,
     "campaign.time_limit", "greater than or equal to 0"),
    ("zero replications", "[campaign]\nreplications = 0\n" + HD + CDF, 2,
     "campaign.replications", "greater than or equal to 1"),
    ("huge seed", HD + "seeds = [18446744073709551616]\n" + CDF, 3, "instances[0].seeds[0]",
     "too large"),
    ("huge option", HD + "options = { tasks = 18446744073709551616 }\n" + CDF, 3,
     "instances[0].options.tasks", "too large"),
    ("nan option", HD + CDF + "[[methods]]\nname = \"ffd\"\noptions = { x = nan }\n", 7,
     "methods[1].options.x", "finite"),
    ("date value", HD + CDF + "time_limit = 1979-05-27\n", 5, "methods[0].time_limit",
     "valid number"),
    ("unknown generator family", "[[instances]]\ngenerator = \"nope\"\n" + CDF, 2,
     "instances[0].generator", "unknown family 'nope'"),
    ("unknown method family", HD + CDF + "family = \"nope\"\n", 5, "methods[0].family",
     "unknown family 'nope'"),
    ("unknown generator option", HD + "[instances.options]\ntasks = 5\ntaks = 3\n" + CDF, 5,
     "instances[0].options.taks", "unknown option (did you mean 'tasks'"),
    ("negative tasks", HD + "[instances.options]\ntasks = [10, 20, -3]\n" + CDF, 4,
     "instances[0].options.tasks[2]", "greater than or equal to 0"),
    ("alpha 7", HD + "options = { alpha = 7 }\n" + CDF, 3, "instances[0].options.alpha",
     "'mixed'"),
    ("preset and options", BOTS + "options = { preset = \"gmo-table2-inconsistent\", "
     "sites = [2, 3] }\n[[methods]]\nname = \"gmo\"\n", 3, "instances[0].options.sites[0]",
     "a preset fixes every parameter"),
    ("preset and seeds", BOTS + "seeds = [1, 2]\noptions = { preset = "
     "\"gmo-table2-inconsistent\" }\n[[methods]]\nname = \"gmo\"\n", 3, "instances[0].seeds",
     "preset"),
    ("unknown importer", "[[instances]]\nimporter = \"xls\"\nfiles = [\"a\"]\n" + CDF, 2,
     "instances[0].importer", "unknown importer 'xls'"),
    ("importer option", "[[instances]]\nimporter = \"etc\"\nfiles = [\"a\"]\n"
     "options = { alpha = 2 }\n" + CDF, 4, "instances[0].options.alpha", "unknown option"),
    ("importer without files", "[[instances]]\nimporter = \"etc\"\n" + CDF, 2,
     "instances[0].importer", "files"),
    ("generator and files", HD + "files = [\"a.json\"]\n" + CDF, 3, "instances[0].files",
     "not both"),
    ("empty instances table", "[[instances]]\n" + CDF, 1, "instances[0]", "generator"),
    ("seeds for files", f'[[instances]]\nfiles = ["{HD_GLOB}"]\nseeds = [1]\n' + CDF, 3,
     "instances[0].seeds", "generators only"),
    ("options for files", f'[[instances]]\nfiles = ["{HD_GLOB}"]\noptions = {{ tasks = 1 }}\n'
     + CDF, 3, "instances[0].options", "an instance file holds its parameters"),
    ("unknown method", HD + "[[methods]]\nname = \"cdff\"\n", 4, "methods[0].name",
     "unknown method 'cdff'"),
    ("method of another family", HD + "[[methods]]\nname = \"gmo\"\n", 4, "methods[0].name",
     "'gmo' of bot-sites matches no instance"),
    ("unknown method in its family", HD + "[[methods]]\nname = \"gmo\"\n"
     "family = \"hybrid-deadline\"\n", 4, "methods[0].name", "unknown method 'gmo' for family"),
    ("option not accepted", HD + CDF + "[[methods]]\nname = \"ffd\"\n"
     "options = { objectiv = \"cost\" }\n", 7, "methods[1].options.objectiv", "not accepted"),
    ("objective on hybrid-deadline", HD + CDF + "options = { objective = \"cost\" }\n", 5,
     "methods[0].options.objective", "not accepted by family 'hybrid-deadline'"),
    ("bad objective", BOTS + "[[methods]]\nname = \"gmo\"\n[methods.options]\n"
     "objective = [\"cost\", \"energy\"]\n", 6, "methods[0].options.objective[1]",
     "'energy' is not an objective"),
    ("glob without match", "[[instances]]\nfiles = [\"nothing/*.json\"]\n" + CDF, 2,
     "instances[0].files[0]", "no file matches 'nothing/*.json'"),
    ("missing file", f"[[instances]]\nfiles = [\"{HD_GLOB}\", \"gone.json\"]\n" + CDF, 2,
     "instances[0].files[1]", "no such file: 'gone.json'"),
    ("invalid instance file", "[[instances]]\nfiles = [\"bad.json\"]\n" + CDF, 2,
     "instances[0].files[0]", "bad.json: field"),
    ("empty options list", HD + "options = { tasks = [] }\n" + CDF, 3,
     "instances[0].options.tasks", "empty grid"),
    ("empty method options list", HD + CDF + "[methods.options]\nx = []\n", 6,
     "methods[0].options.x", "empty grid"),
    ("empty files", "[[instances]]\nfiles = []\n" + CDF, 2, "instances[0].files",
     "empty list of files"),
    ("unclosed array", HD + "seeds = [1,\n" + CDF, 4, "", "invalid TOML"),
    ("unterminated string", HD + CDF + 'label = """cdf\n', 5, "",
     "invalid TOML: Unterminated string (at the end of the file)"),
    ("empty seeds", HD + "seeds = []\n" + CDF, 3, "instances[0].seeds", "empty grid"),
    ("empty seed range", HD + CDF + "seeds = { start = 5, stop = 5 }\n", 5,
     "methods[0].seeds", "empty range"),
    ("duplicate seed", HD + "seeds = [1, 2, 1]\n" + CDF, 3, "instances[0].seeds[2]",
     "given twice"),
    ("no instances", "[campaign]\nname = \"x\"\n" + CDF, None, "", "no [[instances]]"),
    ("no methods", HD, None, "", "no [[methods]]"),
    ("family without method", HD + BOTS + CDF, 3, "instances[1]",
     "no method runs on the bot-sites instances"),
    ("method without instance", HD + CDF + "[[methods]]\nname = \"gmo\"\n"
     "family = \"bot-sites\"\n", 7, "methods[1].family", "matches no instance"),
    ("duplicate label", HD + CDF + "[[methods]]\nname = \"ffd\"\nlabel = \"cdf\"\n", 7,
     "methods[1].label", "duplicate label 'cdf' in family hybrid-deadline (also methods[0])"),
    ("duplicate method", HD + CDF + CDF, 6, "methods[1].name", "duplicate label 'cdf'"),
    ("unknown record", "[campaign]\nrecord = [\"solution\", \"gantt\"]\n" + HD + CDF, 2,
     "campaign.record[1]", "'solution'"),
    ("missing plugin", "[campaign]\nplugins = [\"nope.py\"]\n" + HD + CDF, 2,
     "campaign.plugins[0]", "nope.py: no such plugin file"),
    ("broken plugin", "[campaign]\nplugins = [\"broken.py\"]\n" + HD + CDF, 2,
     "campaign.plugins[0]", "broken.py: plugin failed to import: ZeroDivisionError"),
    ("too many runs", HD + "seeds = { stop = 100000 }\n[instances.options]\n"
     "tasks = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" + CDF + "seeds = { stop = 100 }\n", None, "",
     "100,000,000 runs, more than the limit of 10,000,000"),
    ("too many instances", HD + "seeds = { stop = 100000000 }\n" + CDF, 1, "instances[0]",
     "more than the limit"),
    ("no data folder", "[[instances]]\nimporter = \"etc\"\nfiles = [\"{data}/nowhere/*.0\"]\n"
     + CDF, 3, "instances[0].files[0]", "no shared data folder holds 'nowhere'"),
]


@pytest.mark.parametrize(("text", "line", "key", "words"),
                         [case[1:] for case in REJECTED], ids=[case[0] for case in REJECTED])
def test_bad_spec_is_one_line_naming_key_and_line(tmp_path, text, line, key, words):
    (tmp_path / "bad.json").write_text('{"family": "hybrid-deadline"}')
    (tmp_path / "broken.py").write_text("x = 1 / 0\n")
    spec = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_spec(spec)
    message = str(caught.value)
    where = str(spec) if line is None else f"{spec}:{line}"
    prefix = f"{where}: {key}: " if key else f"{where}: "
    assert message.startswith(prefix), message
    assert words in message, message
    assert "\n" not in message


def test_max_runs_is_ten_million():
    assert MAX_RUNS == 10**7


def test_unreadable_spec(tmp_path):
    with pytest.raises(InputError, match="missing.toml: no such file"):
        load_spec(tmp_path / "missing.toml")


def test_sources_are_instance_sources(tmp_path):
    spec = write(tmp_path, HD + CDF)
    assert all(isinstance(s, InstanceSource) for s in load_spec(spec).sources)


def test_spec_text_stands_for_a_file_in_its_folder(tmp_path):
    from hybridsched.experiments.spec import load_spec

    (tmp_path / "inst.json").write_text("{}")
    path = tmp_path / "never-written.toml"
    text = ('[[instances]]\ngenerator = "hybrid-deadline"\nseeds = { start = 0, stop = 3 }\n'
            '[instances.options]\ntasks = 5\n[[methods]]\nname = "cdf"\n')
    campaign = load_spec(path, text=text)
    assert len(campaign.sources) == 3 and campaign.name == "never-written"
    assert not path.exists()
    with pytest.raises(InputError, match=r"never-written.toml:2: invalid TOML"):
        load_spec(path, text="[[instances]]\ngenerator = \n")
