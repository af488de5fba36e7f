"""Adversarial corpus of ``campaign`` and ``report``: bad specs, stores, options and paths.

Each case must end with exit code 2 and exactly one line on standard error
that starts with ``error:`` and names the file, line, key or option, never a
traceback, and must leave no output behind: the folders and files named by
``-o`` and ``--csv`` are as they were before the command (absent, or a store
untouched). Campaign cases run with ``--serial`` (in this process); two run in
the default mode, where a bad spec must be refused before a cluster starts.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from corpus import assert_one_error_line, write

from .conftest import INSTANCES

HD_FILE = INSTANCES / "hybrid-deadline" / "small-01.json"
HD = '[[instances]]\ngenerator = "hybrid-deadline"\noptions = { tasks = 5 }\n'
CDF = '[[methods]]\nname = "cdf"\n'
TRACE = """# event_id component_id node_id platform_id node_name type start stop reason
1 0 n1 0 a 1 0 40000 0
2 0 n2 0 b 1 0 -1 0
"""
TREE = (INSTANCES.parent / "examples" / "trees" / "hundred-leaves.toml").read_text()
SWF = "1 0 0 600 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n"

Argv = Callable[[Path], list]


# --------------------------------------------------------------------------- helpers


def spec(text: str, files: dict[str, str | bytes] | None = None, *, options: tuple = ()
         ) -> Argv:
    """A ``campaign --serial`` call on a spec of ``text`` (with side ``files``)."""
    def argv(tmp: Path) -> list:
        for name, content in (files or {}).items():
            write(tmp, name, content)
        path = tmp / "spec.toml"
        path.write_text(text)
        return ["campaign", path, "-o", tmp / "out", "--serial", *options]
    return argv


def generator(family: str, options: str, method: str, method_options: str = "") -> Argv:
    """A campaign of one generator (inline options) and one method."""
    text = (f'[[instances]]\ngenerator = "{family}"\noptions = {{ {options} }}\n'
            f'[[methods]]\nname = "{method}"\n')
    return spec(text + (f"options = {{ {method_options} }}\n" if method_options else ""))


def plugin(code: str | bytes, name: str = "plugin.py") -> Argv:
    return spec(f'[campaign]\nplugins = ["{name}"]\n' + HD + CDF, {name: code})


def imported(importer: str, content: str | bytes, name: str, method: str,
             options: str = "") -> Argv:
    text = (f'[[instances]]\nimporter = "{importer}"\nfiles = ["{name}"]\n'
            + (f"options = {{ {options} }}\n" if options else "")
            + f'[[methods]]\nname = "{method}"\n')
    return spec(text, {name: content})


def good(tmp: Path) -> Path:
    """A spec file that loads."""
    path = tmp / "good.toml"
    path.write_text('[campaign]\nname = "good"\n' + HD + CDF)
    return path


def read_only(tmp: Path) -> Path:
    """A folder nobody may write in (``/sys`` for root, whom permissions do not stop)."""
    if os.geteuid() != 0:
        folder = tmp / "read-only"
        folder.mkdir(exist_ok=True)
        folder.chmod(0o555)
        return folder
    if not os.path.isdir("/sys") or os.access("/sys", os.W_OK) and _writable("/sys"):
        pytest.skip("no read-only folder for root on this system")
    return Path("/sys")


def _writable(folder: str) -> bool:
    try:
        os.close(os.open(os.path.join(folder, ".hybridsched-test"), os.O_CREAT | os.O_WRONLY))
    except OSError:
        return False
    os.unlink(os.path.join(folder, ".hybridsched-test"))
    return True


def campaign(*options: object, spec_of: Callable[[Path], Path] = good) -> Argv:
    """A ``campaign`` call of a good spec with ``options`` (``{tmp}`` paths filled in)."""
    def argv(tmp: Path) -> list:
        filled = [tmp / str(o)[5:] if str(o).startswith("{tmp}") else o for o in options]
        return ["campaign", spec_of(tmp), *filled]
    return argv


# --------------------------------------------------------------------------- stores


@pytest.fixture(scope="module")
def good_store(tmp_path_factory) -> Path:
    """A result store of a small serial campaign named "good" (copied by each case)."""
    from hybridsched.experiments.campaign import run_campaign

    folder = tmp_path_factory.mktemp("store")
    path = folder / "good.toml"
    path.write_text('[campaign]\nname = "good"\nrecord = ["solution"]\n'
                    + HD + 'seeds = [0, 1]\n'
                    + CDF + '[[methods]]\nname = "ffd"\n')
    run_campaign(path, folder / "results", mode="serial")
    return folder / "results"


STORE: list[Path] = []  # filled by the autouse fixture below, read by the builders


HELD: list = []  # lock files held by a case (another campaign writing), closed after it


@pytest.fixture(autouse=True)
def _store_path(good_store):
    STORE[:] = [good_store]
    yield
    while HELD:
        HELD.pop().close()


def _locked(folder: Path) -> None:
    """Another campaign is writing into ``folder``: hold its lock."""
    import fcntl

    handle = (folder / "_lock").open("a")
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    HELD.append(handle)


def store(tmp: Path, damage: Callable[[Path], object] = lambda folder: None) -> Path:
    """A copy of the good store in ``tmp/store``, damaged by ``damage(folder)``."""
    folder = tmp / "store"
    if not folder.exists():
        shutil.copytree(STORE[0], folder)
        damage(folder)
    return folder


def part_of(folder: Path) -> Path:
    (part,) = folder.glob("part-*.parquet")
    return part


def rewrite_part(change: Callable[[pa.Table], pa.Table]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        part = part_of(folder)
        table = change(pq.read_table(part))
        part.unlink()
        pq.write_table(table, part)
    return damage


def set_column(name: str, values: Callable[[int], list], type_: pa.DataType | None = None
               ) -> Callable[[Path], None]:
    def change(table: pa.Table) -> pa.Table:
        index = table.schema.get_field_index(name)
        array = pa.array(values(table.num_rows), type=type_ or table.schema.field(name).type)
        return table.set_column(index, name, array)
    return rewrite_part(change)


def first_row(name: str, value: object) -> Callable[[Path], None]:
    """Damage: ``value`` in column ``name`` of the part's first row."""
    def change(table: pa.Table) -> pa.Table:
        column = table.column(name).to_pylist()
        column[0] = value
        index = table.schema.get_field_index(name)
        return table.set_column(index, name, pa.array(column, type=table.schema.field(name).type))
    return rewrite_part(change)


def write_file(name: str, content: str | bytes) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return damage


def make_folder(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        path = folder / name
        if path.exists():
            path.unlink()
        path.mkdir()
    return damage


def journal(*lines: str | dict) -> Callable[[Path], None]:
    """A journal left by a killed writer, holding ``lines`` (dicts: a valid row changed)."""
    def damage(folder: Path) -> None:
        row = pq.read_table(part_of(folder)).slice(0, 1).to_pylist()[0]
        text = ""
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps({**row, "key": "new", **line})
            text += line + "\n"
        (folder / "_journal-dead.jsonl").write_text(text)
    return damage


def report(damage: Callable[[Path], object] = lambda folder: None, *options: object) -> Argv:
    """``report`` of a damaged copy of the good store."""
    def argv(tmp: Path) -> list:
        return ["report", store(tmp, damage), "-o", tmp / "rep", *options]
    return argv


def resume(damage: Callable[[Path], object]) -> Argv:
    """The good campaign run again into a damaged copy of its store."""
    def argv(tmp: Path) -> list:
        folder = store(tmp, damage)
        path = tmp / "good.toml"
        path.write_text('[campaign]\nname = "good"\nrecord = ["solution"]\n' + HD
                        + 'seeds = [0, 1]\n' + CDF + '[[methods]]\nname = "ffd"\n')
        return ["campaign", path, "-o", folder, "--serial"]
    return argv


def _bytes(tmp: Path, name: str, content: bytes) -> Path:
    path = tmp / name
    path.write_bytes(content)
    return path


def _mkdir(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    return path


def _link(link: Path, target: Path) -> Path:
    link.symlink_to(target, target_is_directory=True)
    return link


def _copy_spec(tmp: Path) -> Path:
    """A spec over a copy of an instance file (``i.json``)."""
    shutil.copy(HD_FILE, tmp / "i.json")
    path = tmp / "files.toml"
    path.write_text('[[instances]]\nfiles = ["i.json"]\n' + CDF)
    return path


def _named(tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(f'[campaign]\nname = "{name}"\n' + HD + CDF)
    return path


def _other_store(tmp: Path) -> Path:
    folder = tmp / "other"
    if not folder.exists():
        shutil.copytree(STORE[0], folder)
    return folder


def _only_spec(folder: Path) -> None:
    """The store of a campaign interrupted before its first run: marker and spec only."""
    part_of(folder).unlink()


def _truncate(folder: Path) -> None:
    part = part_of(folder)
    part.write_bytes(part.read_bytes()[:300])


# --------------------------------------------------------------------------- the corpus

BOTS = '[[instances]]\ngenerator = "bot-sites"\n'

SPEC_CASES: list[tuple[str, Argv, str]] = [
    # malformed TOML and unreadable specs
    ("toml syntax", spec("[campaign]\ntime_limit = = 3\n" + HD + CDF), "spec.toml:2: invalid TOML"),
    ("toml unterminated string", spec(HD + CDF + 'label = "cdf\n'), "spec.toml:6: invalid TOML"),
    ("toml unclosed array", spec(HD + "seeds = [1,\n" + CDF), "invalid TOML"),
    ("toml duplicate key", spec(HD + CDF + 'name = "ffd"\n'), "invalid TOML"),
    ("toml binary", spec("\x00\x01\x02garbage"), "spec.toml"),
    ("spec not UTF-8", lambda tmp: ["campaign", _bytes(tmp, "s.toml", b"\xff\xfe[x]"),
                                    "-o", tmp / "out", "--serial"], "s.toml"),
    ("spec missing", lambda tmp: ["campaign", tmp / "none.toml", "-o", tmp / "out",
                                  "--serial"], "none.toml"),
    ("spec is a folder", lambda tmp: ["campaign", tmp, "-o", tmp / "out", "--serial"],
     "is a folder"),
    ("empty spec", spec(""), "no [[instances]]"),
    ("instances as a table", spec('[instances]\ngenerator = "hybrid-deadline"\n' + CDF),
     "write [[instances]]"),
    ("campaign as an array", spec("[[campaign]]\nname = \"x\"\n" + HD + CDF), "campaign"),
    # unknown keys
    ("unknown top-level key", spec("campaing = 1\n" + HD + CDF), "campaing: unknown key"),
    ("unknown campaign key", spec('[campaign]\nnmae = "x"\n' + HD + CDF),
     "campaign.nmae: unknown key (did you mean 'name'?"),
    ("unknown instances key", spec(HD + "seed = [1]\n" + CDF), "instances[0].seed: unknown key"),
    ("unknown methods key", spec(HD + CDF + "tim_limit = 3\n"),
     "methods[0].tim_limit: unknown key"),
    ("unknown seed range key", spec(HD + "seeds = { stop = 3, stpe = 1 }\n" + CDF),
     "instances[0].seeds.stpe"),
    # wrong types
    ("name a number", spec("[campaign]\nname = 5\n" + HD + CDF), "campaign.name"),
    ("empty name", spec('[campaign]\nname = ""\n' + HD + CDF), "campaign.name"),
    ("time limit a string", spec('[campaign]\ntime_limit = "30"\n' + HD + CDF),
     "campaign.time_limit"),
    ("time limit negative", spec("[campaign]\ntime_limit = -1\n" + HD + CDF),
     "campaign.time_limit"),
    ("time limit nan", spec("[campaign]\ntime_limit = nan\n" + HD + CDF), "campaign.time_limit"),
    ("method time limit inf", spec(HD + CDF + "time_limit = inf\n"), "methods[0].time_limit"),
    ("time limit a date", spec(HD + CDF + "time_limit = 1979-05-27\n"),
     "methods[0].time_limit"),
    ("replications zero", spec("[campaign]\nreplications = 0\n" + HD + CDF),
     "campaign.replications"),
    ("replications bool", spec(HD + CDF + "replications = true\n"), "methods[0].replications"),
    ("replications float", spec(HD + CDF + "replications = 1.5\n"), "methods[0].replications"),
    ("record a string", spec('[campaign]\nrecord = "solution"\n' + HD + CDF), "campaign.record"),
    ("record unknown", spec('[campaign]\nrecord = ["gantt"]\n' + HD + CDF), "campaign.record[0]"),
    ("plugins a string", spec('[campaign]\nplugins = "p.py"\n' + HD + CDF), "campaign.plugins"),
    ("files a string", spec('[[instances]]\nfiles = "a.json"\n' + CDF), "instances[0].files"),
    ("generator a number", spec("[[instances]]\ngenerator = 5\n" + CDF),
     "instances[0].generator"),
    ("method name a number", spec(HD + "[[methods]]\nname = 3\n"), "methods[0].name"),
    ("method options a number", spec(HD + CDF + "options = 3\n"), "methods[0].options"),
    ("generator options a list", spec('[[instances]]\ngenerator = "hybrid-deadline"\n'
                                      "options = [1, 2]\n" + CDF), "instances[0].options"),
    ("seeds a string", spec(HD + 'seeds = "0..3"\n' + CDF), "instances[0].seeds"),
    ("seed a float", spec(HD + "seeds = [0, 1.5]\n" + CDF), "instances[0].seeds[1]"),
    ("seed negative", spec(HD + CDF + "seeds = [-1]\n"), "methods[0].seeds[0]"),
    ("seed huge", spec(HD + "seeds = [9223372036854775807, 18446744073709551615]\n" + CDF),
     "instances[0].seeds"),
    ("option a table", spec('[[instances]]\ngenerator = "hybrid-deadline"\n'
                            "options = { tasks = { a = 1 } }\n" + CDF), "options.tasks"),
    ("method option nan", spec(HD + CDF + '[[methods]]\nname = "ffd"\noptions = { x = nan }\n'),
     "methods[1].options.x"),
    ("empty label", spec(HD + CDF + 'label = ""\n'), "methods[0].label"),
    ("name of two lines", spec('[campaign]\nname = "a\\nb"\n' + HD + CDF),
     "campaign.name: expected one line"),
    ("label with a tab", spec(HD + CDF + 'label = "a\\tb"\n'), "methods[0].label"),
    # unknown families, methods and options
    ("unknown generator", spec('[[instances]]\ngenerator = "nope"\n' + CDF),
     "instances[0].generator: unknown family 'nope'"),
    ("unknown method family", spec(HD + CDF + 'family = "nope"\n'), "methods[0].family"),
    ("unknown method", spec(HD + '[[methods]]\nname = "cdff"\n'),
     "methods[0].name: unknown method 'cdff'"),
    ("method of another family", spec(HD + '[[methods]]\nname = "gmo"\n'),
     "method 'gmo' of bot-sites matches no instance"),
    ("family without instances", spec(HD + CDF + '[[methods]]\nname = "gmo"\n'
                                      'family = "bot-sites"\n'), "methods[1].family"),
    ("unknown method option", spec(HD + '[[methods]]\nname = "ffd"\noptions = { x = 1 }\n'),
     "methods[0].options.x"),
    ("objective on hybrid-deadline", spec(HD + CDF + 'options = { objective = "cost" }\n'),
     "methods[0].options.objective"),
    ("unknown objective", generator("bot-sites", "sites = 2", "gmo", 'objective = "speed"'),
     "methods[0].options.objective"),
    ("malleable policy", generator("malleable", "jobs = 3", "tree", 'policy = "Z"'),
     "methods[0].options.policy: option --policy: must be A or B"),
    ("malleable policy a number", generator("malleable", "jobs = 3", "flat", "policy = 2"),
     "methods[0].options.policy"),
    ("promethee weights", generator("pull", "units = 10", "promethee", 'weights = "1,1,1"'),
     "methods[0].options.weights"),
    ("promethee q above p", generator("pull", "units = 10", "promethee",
                                      'preference = "level", q = 2.0, p = 1.0'),
     "methods[0].options"),
    ("promethee window zero", generator("pull", "units = 10", "promethee", "window = 0.0"),
     "methods[0].options.window"),
    ("promethee unknown preference", generator("pull", "units = 10", "promethee",
                                               'preference = "cubic"'),
     "methods[0].options.preference"),
    ("fcfs takes no option", generator("pull", "units = 10", "fcfs", "window = 0.5"),
     "methods[0].options.window"),
    ("unknown importer", spec('[[instances]]\nimporter = "xls"\nfiles = ["a"]\n' + CDF),
     "instances[0].importer: unknown importer 'xls'"),
    ("importer option", imported("etc", "2 2 0\n1\n2\n3\n4\n", "a.0", "gmo", "alpha = 1.0"),
     "instances[0].options.alpha"),
    # empty and contradictory grids
    ("no instances", spec("[campaign]\nname = \"x\"\n" + CDF), "no [[instances]]"),
    ("no methods", spec(HD), "no [[methods]]"),
    ("empty option grid", spec('[[instances]]\ngenerator = "hybrid-deadline"\n'
                               "options = { tasks = [] }\n" + CDF), "empty grid"),
    ("empty method grid", spec(HD + CDF + "[methods.options]\nx = []\n"), "empty grid"),
    ("empty seeds", spec(HD + "seeds = []\n" + CDF), "instances[0].seeds: empty grid"),
    ("empty seed range", spec(HD + CDF + "seeds = { start = 5, stop = 5 }\n"),
     "methods[0].seeds: empty range"),
    ("duplicate seed", spec(HD + "seeds = [1, 2, 1]\n" + CDF), "instances[0].seeds[2]"),
    ("value twice in a grid", spec('[[instances]]\ngenerator = "hybrid-deadline"\n'
                                   "options = { tasks = [5, 6, 5] }\n" + CDF),
     "instances[0].options.tasks[2]: 5 given twice"),
    ("method value twice in a grid", generator("malleable", "jobs = 2", "tree",
                                               'policy = ["A", "A"]'),
     "methods[0].options.policy[1]: 'A' given twice"),
    ("generator and files", spec(HD + 'files = ["a.json"]\n' + CDF), "instances[0].files"),
    ("neither generator nor files", spec("[[instances]]\n" + CDF), "instances[0]"),
    ("importer without files", spec('[[instances]]\nimporter = "etc"\n' + CDF),
     "instances[0].importer"),
    ("empty files", spec("[[instances]]\nfiles = []\n" + CDF), "instances[0].files: empty"),
    ("seeds for files", spec(f'[[instances]]\nfiles = ["{HD_FILE}"]\nseeds = [1]\n' + CDF),
     "instances[0].seeds"),
    ("options for files", spec(f'[[instances]]\nfiles = ["{HD_FILE}"]\n'
                               "options = { tasks = 1 }\n" + CDF), "instances[0].options"),
    ("preset and options", spec(BOTS + 'options = { preset = "gmo-table2-inconsistent", '
                                       "sites = 3 }\n" + '[[methods]]\nname = "gmo"\n'),
     "instances[0].options.sites"),
    ("preset and seeds", spec(BOTS + 'seeds = [1, 2]\noptions = { preset = '
                                     '"gmo-table2-inconsistent" }\n[[methods]]\nname = "gmo"\n'),
     "instances[0].seeds"),
    ("family without method", spec(HD + BOTS + CDF), "no method runs on the bot-sites"),
    ("duplicate label", spec(HD + CDF + '[[methods]]\nname = "ffd"\nlabel = "cdf"\n'),
     "duplicate label 'cdf'"),
    ("too many runs", spec(HD + "seeds = { stop = 100000 }\n" + CDF
                           + "seeds = { stop = 1000 }\n"), "more than the limit"),
    ("too many instances", spec(HD + "seeds = { stop = 100000000 }\n" + CDF),
     "instances[0]: expands to"),
    # generators with bad options
    ("hd tasks negative", generator("hybrid-deadline", "tasks = -3", "cdf"),
     "instances[0].options.tasks"),
    ("hd tasks too many", generator("hybrid-deadline", "tasks = 100000000", "cdf"),
     "instances[0].options.tasks"),
    ("hd alpha", generator("hybrid-deadline", "alpha = 7", "cdf"), "instances[0].options.alpha"),
    ("hd local share zero", generator("hybrid-deadline", "local_share = 0.0", "cdf"),
     "instances[0].options.local_share"),
    ("hd pms", generator("hybrid-deadline", "pms = 16", "cdf"), "instances[0].options.pms"),
    ("bot-sites no site", generator("bot-sites", "sites = 0", "gmo"),
     "instances[0].options.sites"),
    ("bot-sites reversed range", generator("bot-sites", 'tasks_per_bot = "5:1"', "gmo"),
     "instances[0].options.tasks_per_bot"),
    ("bot-sites scenario", generator("bot-sites", 'scenario = "HiMid"', "gmo"),
     "instances[0].options.scenario"),
    ("bot-sites preset", generator("bot-sites", 'preset = "nope"', "gmo"),
     "instances[0].options.preset: unknown preset"),
    ("bot-sites too many pairs", generator("bot-sites", "sites = 100000, bots = 1000", "gmo"),
     "instances[0].options.bots"),
    ("malleable jobs negative", generator("malleable", "jobs = -1", "tree"),
     "instances[0].options.jobs"),
    ("malleable mix", generator("malleable", 'mix = "huge"', "tree"), "instances[0].options.mix"),
    ("malleable serial fraction one", generator("malleable", "serial_fraction = 1.0", "tree"),
     "instances[0].options.serial_fraction"),
    ("malleable tree missing", generator("malleable", 'jobs = 3, tree = "nope.toml"', "tree"),
     "instances[0].options.tree: "),
    ("malleable tree a folder", spec('[[instances]]\ngenerator = "malleable"\n'
                                     'options = { jobs = 3, tree = "trees" }\n'
                                     '[[methods]]\nname = "tree"\n', {"trees/x.toml": ""}),
     "trees: is a folder"),
    ("malleable tree malformed", spec('[[instances]]\ngenerator = "malleable"\n'
                                      'options = { jobs = 3, tree = "t.toml" }\n'
                                      '[[methods]]\nname = "tree"\n', {"t.toml": "fanout = \n"}),
     "t.toml:1: invalid TOML"),
    ("malleable tree invalid", spec('[[instances]]\ngenerator = "malleable"\n'
                                    'options = { jobs = 3, tree = "t.toml" }\n'
                                    '[[methods]]\nname = "tree"\n', {"t.toml": "fanout = [0]\n"}),
     "t.toml:1: fanout[0]"),
    ("malleable tree format", spec('[[instances]]\ngenerator = "malleable"\n'
                                   'options = { jobs = 3, tree = ["t.txt"] }\n'
                                   '[[methods]]\nname = "tree"\n', {"t.txt": "x"}),
     "instances[0].options.tree[0]"),
    ("malleable too many pairs", spec('[[instances]]\ngenerator = "malleable"\n'
                                      'options = { jobs = 1000000, tree = "t.toml" }\n'
                                      '[[methods]]\nname = "tree"\n', {"t.toml": TREE}),
     "instances[0].options.jobs: 1000000 jobs x 100 resources exceeds"),
    ("gang too many pairs", generator("gang", "jobs = 1000000, vms = 100000", "fifo"),
     "instances[0].options.vms"),
    ("gang rate zero", generator("gang", "rate = 0.0", "fifo"), "instances[0].options.rate"),
    ("gang rate too low", generator("gang", "jobs = 10, rate = 1e-300", "fifo"),
     "instances[0].options.rate: 1e-300 jobs per time unit is too low"),
    ("gang scenario", generator("gang", 'scenario = "table3"', "fifo"),
     "instances[0].options.scenario"),
    ("pull dci unknown", generator("pull", 'dci = "mars"', "fcfs"), "instances[0].options.dci"),
    ("pull dci twice", generator("pull", 'dci = "idg,idg"', "fcfs"),
     "instances[0].options.dci: idg, idg names a DCI twice"),
    ("pull capacity", generator("pull", "capacity = 1e300", "fcfs"),
     "instances[0].options.capacity"),
    ("pull units", generator("pull", "units = 100000000", "fcfs"), "instances[0].options.units"),
    ("pull behaviour", generator("pull", 'behaviour = "lazy"', "fcfs"),
     "instances[0].options.behaviour"),
    # files named by the spec
    ("glob without match", spec('[[instances]]\nfiles = ["nothing/*.json"]\n' + CDF),
     "instances[0].files[0]: no file matches"),
    ("missing file", spec(f'[[instances]]\nfiles = ["{HD_FILE}", "gone.json"]\n' + CDF),
     "instances[0].files[1]: no such file"),
    ("malformed instance file", spec('[[instances]]\nfiles = ["a.json"]\n' + CDF,
                                     {"a.json": "{"}), "a.json:1:2: malformed JSON"),
    ("invalid instance file", spec('[[instances]]\nfiles = ["a.json"]\n' + CDF,
                                   {"a.json": json.dumps({"format": "x"})}), "a.json"),
    ("etc garbage", imported("etc", "hello\n", "a.0", "gmo"), "a.0:1: header"),
    ("etc empty", imported("etc", "", "a.0", "gmo"), "a.0: empty file"),
    ("swf garbage", imported("swf", "hello world\n", "a.swf", "cdf"),
     "a.swf:1: malformed SWF record"),
    ("swf gzip garbage", imported("swf", gzip.compress(b"x y\n"), "a.swf.gz", "cdf"), "a.swf.gz"),
    ("swf no usable record", imported("swf", SWF.replace(" 600 ", " -1 "), "a.swf", "cdf"),
     "a.swf"),
    ("fta garbage", imported("fta", "hello\n", "a.txt", "fcfs"),
     "a.txt:1: expected at least 8 columns"),
    ("fta empty", imported("fta", "", "a.txt", "fcfs"), "a.txt: no availability event"),
    ("fta offset past the trace", imported("fta", TRACE.replace(" -1 ", " 9000 "), "a.txt",
                                           "fcfs", "offset = 1e7"),
     "a.txt: no host is available after the offset"),
    ("fta option", imported("fta", TRACE, "a.txt", "fcfs", 'dci = "mars"'),
     "instances[0].options.dci"),
    ("data folder not at the start", spec('[[instances]]\nimporter = "etc"\n'
                                          'files = ["x/{data}/a.0"]\n[[methods]]\nname = "gmo"\n'),
     "instances[0].files[0]: '{data}' may only start a path"),
    # plugins
    ("plugin missing", spec('[campaign]\nplugins = ["nope.py"]\n' + HD + CDF),
     "nope.py: no such plugin file"),
    ("plugin a folder", spec('[campaign]\nplugins = ["p"]\n' + HD + CDF, {"p/x.py": ""}),
     "p: is a folder, not a plugin file"),
    ("plugin syntax error", plugin("def f(:\n"), "plugin.py:1: plugin failed to import"),
    ("plugin null bytes", plugin(b"x = 1\x00\n"), "plugin.py: plugin failed to import"),
    ("plugin import error", plugin("import hybridsched_no_such_module\n"),
     "plugin.py: plugin failed to import: ModuleNotFoundError"),
    ("plugin raises", plugin("raise RuntimeError('boom')\n"), "RuntimeError: boom"),
    ("plugin exits 0", plugin("import sys\nsys.exit(0)\n"),
     "plugin.py: plugin exited while being imported (SystemExit: 0)"),
    ("plugin exits 3", plugin("raise SystemExit(3)\n"), "plugin.py: plugin exited"),
    ("plugin raises KeyboardInterrupt", plugin("raise KeyboardInterrupt\n"),
     "plugin.py: plugin failed to import: KeyboardInterrupt"),
    ("plugin raises GeneratorExit", plugin("raise GeneratorExit\n"),
     "plugin.py: plugin failed to import: GeneratorExit"),
    ("plugin hides a built-in method", plugin(
        "from hybridsched.registry import register_method\n"
        "register_method('hybrid-deadline', 'cdf')(lambda i, *, seed=0, time_limit=None: i)\n"),
     "plugin registers method 'cdf' of family 'hybrid-deadline', which exists already"),
    ("plugin not a Python file", plugin("x = 1\n", name="plugin.txt"),
     "plugin.txt: cannot be imported"),
]

CAMPAIGN_OPTION_CASES: list[tuple[str, Argv, str]] = [
    ("workers zero", campaign("-o", "{tmp}out", "--workers", "0"), "'--workers'"),
    ("workers negative", campaign("-o", "{tmp}out", "--workers", "-1"), "'--workers'"),
    ("workers huge", campaign("-o", "{tmp}out", "--workers", "100000"), "'--workers'"),
    ("workers not a number", campaign("-o", "{tmp}out", "--workers", "two"), "'--workers'"),
    ("serial with workers", campaign("-o", "{tmp}out", "--serial", "--workers", "2"),
     "'--serial'"),
    ("serial with scheduler", campaign("-o", "{tmp}out", "--serial", "--scheduler",
                                       "tcp://127.0.0.1:8786"), "'--serial'"),
    ("scheduler with workers", campaign("-o", "{tmp}out", "--scheduler", "tcp://127.0.0.1:8786",
                                        "--workers", "2"), "'--workers'"),
    ("scheduler not an address", campaign("-o", "{tmp}out", "--scheduler", "foo"),
     "'foo' is not a Dask scheduler address"),
    ("scheduler empty", campaign("-o", "{tmp}out", "--scheduler", ""),
     "is not a Dask scheduler address"),
    ("scheduler http", campaign("-o", "{tmp}out", "--scheduler", "http://host:8786"),
     "is not a Dask scheduler address"),
    ("scheduler port zero", campaign("-o", "{tmp}out", "--scheduler", "tcp://host:0"),
     "is not a Dask scheduler address"),
    ("scheduler port huge", campaign("-o", "{tmp}out", "--scheduler", "tcp://host:99999"),
     "is not a Dask scheduler address"),
    ("scheduler unreachable", campaign("-o", "{tmp}out", "--scheduler", "tcp://127.0.0.1:1"),
     "--scheduler tcp://127.0.0.1:1: no Dask scheduler answers there"),
    ("scheduler unknown host", campaign("-o", "{tmp}out", "--scheduler",
                                        "no-such-host.invalid:8786"),
     "no Dask scheduler answers there"),
    ("campaign without output", campaign("--serial"), "'-o'"),
    ("campaign output a file", lambda tmp: ["campaign", good(tmp), "-o", good(tmp), "--serial"],
     "is a file, not a folder"),
    ("campaign output read-only", lambda tmp: ["campaign", good(tmp), "-o", read_only(tmp) / "out",
                                      "--serial"], "cannot write in this folder"),
    ("output not a store", lambda tmp: ["campaign", good(tmp), "-o", tmp, "--serial"],
     "not a result store and not empty"),
    ("csv a folder", campaign("-o", "{tmp}out", "--serial", "--csv", "{tmp}"), "is a folder"),
    ("csv in a missing folder", campaign("-o", "{tmp}out", "--serial", "--csv",
                                         "{tmp}no/all.csv"), "does not exist"),
    ("csv read-only", lambda tmp: ["campaign", good(tmp), "-o", tmp / "out", "--serial",
                                   "--csv", read_only(tmp) / "all.csv"], "cannot write"),
    ("csv over the spec", lambda tmp: ["campaign", good(tmp), "-o", tmp / "out", "--serial",
                                       "--csv", good(tmp)], "is an input file"),
    ("csv over an instance file", lambda tmp: [
        "campaign", _copy_spec(tmp), "-o", tmp / "out", "--serial", "--csv", tmp / "i.json"],
     "is an input file"),
    ("csv inside the store", campaign("-o", "{tmp}out", "--serial", "--csv",
                                      "{tmp}out/all.csv"), "is inside the result store"),
    ("csv inside another store", lambda tmp: [
        "campaign", good(tmp), "-o", tmp / "out", "--serial", "--csv", store(tmp) / "a.csv"],
     "is inside the result store"),
    ("store inside another store", lambda tmp: [
        "campaign", good(tmp), "-o", store(tmp) / "nested", "--serial"],
     "is inside the result store"),
]

RESUME_CASES: list[tuple[str, Argv, str]] = [
    ("another campaign's store", lambda tmp: [
        "campaign", _named(tmp, "other"), "-o", store(tmp), "--serial"],
     "holds campaign 'good', not 'other'"),
    ("another campaign's empty store", lambda tmp: [
        "campaign", _named(tmp, "other"), "-o", store(tmp, _only_spec), "--serial"],
     "holds campaign 'good', not 'other'"),
    ("store another campaign is writing", resume(_locked),
     "another campaign is writing into this result store"),
    ("store with a truncated part", resume(_truncate), "not a readable Parquet file"),
    ("store with a foreign part", resume(write_file("part-x.parquet", b"")), "part-x.parquet"),
    ("store with a part of another schema", resume(lambda f: pq.write_table(
        pa.table({"a": [1, 2]}), f / "part-x.parquet")), "not a part of a result store"),
    ("store with a badly typed journal row", resume(journal({"seed": "one"})),
     "_journal-dead.jsonl:1: field seed: expected an integer"),
    ("store with a journal row without key", resume(journal({"key": None})),
     "_journal-dead.jsonl:1: field key"),
    ("store with a garbage marker", resume(write_file("_store.json", "{")),
     "_store.json: not the marker of a result store"),
    ("store with a part folder", resume(make_folder("part-x.parquet")),
     "part-x.parquet: is a folder"),
    ("store with a bad merge record", resume(rewrite_part(lambda t: t.replace_schema_metadata(
        {b"hybridsched.replaces": b"[1"}))), "damaged metadata hybridsched.replaces"),
]

REPORT_CASES: list[tuple[str, Argv, str]] = [
    ("results missing", lambda tmp: ["report", tmp / "none", "-o", tmp / "rep"],
     "none: no such folder"),
    ("results a file", lambda tmp: ["report", good(tmp), "-o", tmp / "rep"],
     "good.toml: is a file, not a result store"),
    ("results an empty folder", lambda tmp: ["report", _mkdir(tmp / "empty"), "-o", tmp / "rep"],
     "empty: not a result store"),
    ("results a folder of other files", lambda tmp: ["report", good(tmp).parent, "-o",
                                                     tmp / "rep"], "not a result store"),
    ("marker garbage", report(write_file("_store.json", "garbage")),
     "_store.json: not the marker of a result store"),
    ("marker of another tool", report(write_file("_store.json", '{"format": "x"}')),
     "_store.json: not the marker of a result store"),
    ("marker of a newer version", report(write_file(
        "_store.json", '{"format": "hybridsched-results", "version": 99}')),
     "result store version 99"),
    ("marker a list", report(write_file("_store.json", "[1]")), "_store.json"),
    ("marker a folder", report(make_folder("_store.json")), "not a result store"),
    ("part truncated", report(_truncate), "not a readable Parquet file"),
    ("part empty", report(lambda f: part_of(f).write_bytes(b"")), "not a readable Parquet file"),
    ("part garbage", report(lambda f: part_of(f).write_text("hello")),
     "not a readable Parquet file"),
    ("part of another schema", report(lambda f: pq.write_table(
        pa.table({"a": [1, 2]}), f / "part-x.parquet")), "part-x.parquet: not a part"),
    ("part with a key of another type", report(lambda f: pq.write_table(
        pa.table({"key": [1], "family": ["x"], "instance_hash": ["h"], "method": ["m"],
                  "status": ["ok"]}), f / "part-x.parquet")), "column 'key' holds int64"),
    ("part with a string objective", report(set_column("objective", lambda n: ["x"] * n,
                                                       pa.string())),
     "column 'objective' holds string"),
    ("part without key", report(rewrite_part(lambda t: t.drop(["key"]))), "no column 'key'"),
    ("part a folder", report(make_folder("part-x.parquet")), "is a folder"),
    ("part with a bad merge record", report(rewrite_part(lambda t: t.replace_schema_metadata(
        {b"hybridsched.replaces": b"{}"}))), "damaged metadata"),
    ("part with an empty key", report(first_row("key", None)), "row 0: column key: empty"),
    ("part with an empty family", report(first_row("family", "")), "row 0: column family"),
    ("part with a negative run time", report(first_row("runtime_s", -1.0)),
     "row 0: column runtime_s: expected a finite number >= 0"),
    ("part with an infinite run time", report(first_row("runtime_s", float("inf"))),
     "column runtime_s"),
    ("part with a negative seed", report(first_row("seed", -1)), "column seed"),
    ("part with metrics not JSON", report(first_row("metrics", "{nope")),
     "row 0: column metrics: expected a JSON object"),
    ("part with metrics a list", report(first_row("metrics", "[1, 2]")), "column metrics"),
    ("journal with a malformed line", report(journal("{nope", {})),
     "_journal-dead.jsonl:1: malformed JSON"),
    ("journal with a list line", report(journal("[1, 2]")),
     "_journal-dead.jsonl:1: expected one run as a JSON object"),
    ("journal with an empty line", report(journal({}, "")), "_journal-dead.jsonl:2"),
    ("journal with a badly typed seed", report(journal({"seed": "x"})),
     "_journal-dead.jsonl:1: field seed: expected an integer"),
    ("journal with a float seed", report(journal({"seed": 1.5})), "field seed"),
    ("journal with a string objective", report(journal({"objective": "low"})),
     "field objective: expected a number"),
    ("journal with a huge size", report(journal({"instance_size": 2**70})),
     "field instance_size"),
    ("journal with an infinite run time", report(journal('{"key": "x", "family": "f", '
                                                         '"instance_hash": "h", "method": "m", '
                                                         '"status": "feasible", '
                                                         '"runtime_s": Infinity}')),
     "_journal-dead.jsonl:1: field runtime_s"),
    ("journal without key", report(journal({"key": 7})), "field key"),
    ("journal without method", report(journal({"method": None})), "field method: empty"),
    ("journal metrics not an object", report(journal({"metrics": "3"})), "field metrics"),
    ("journal not UTF-8", report(write_file("_journal-x.jsonl", b"\xff\xfe{}\n")),
     "_journal-x.jsonl:1: not UTF-8"),
    ("journal a folder", report(make_folder("_journal-x.jsonl")), "_journal-x.jsonl"),
    ("output the store", lambda tmp: ["report", store(tmp), "-o", store(tmp)],
     "is the result store"),
    ("output inside the store", lambda tmp: ["report", store(tmp), "-o", store(tmp) / "rep"],
     "is inside the result store"),
    ("output holds the store", lambda tmp: ["report", store(tmp), "-o", tmp],
     "holds the result store"),
    ("output into the store by a link", lambda tmp: [
        "report", store(tmp), "-o", _link(tmp / "link", store(tmp)) / "rep"],
     "is inside the result store"),
    ("output inside another store", lambda tmp: [
        "report", store(tmp), "-o", _other_store(tmp) / "rep"], "is inside the result store"),
    ("output another store", lambda tmp: [
        "report", store(tmp), "-o", _other_store(tmp)], "is the result store"),
    ("output a file", lambda tmp: ["report", store(tmp), "-o", good(tmp)],
     "is a file, not a folder"),
    ("output read-only", lambda tmp: ["report", store(tmp), "-o", read_only(tmp) / "rep"],
     "cannot write in this folder"),
    ("no output", lambda tmp: ["report", store(tmp)], "'-o'"),
]


CASES = SPEC_CASES + CAMPAIGN_OPTION_CASES + RESUME_CASES + REPORT_CASES


def _outputs(argv: list) -> list[Path]:
    """The paths after ``-o`` and ``--csv``."""
    return [Path(argv[k + 1]) for k, a in enumerate(argv[:-1]) if a in ("-o", "--csv")]


def _snapshot(path: Path) -> object:
    """What ``path`` holds (``None``: nothing), to compare before and after a command."""
    if not path.exists():
        return None
    if path.is_file():
        return path.stat().st_size, path.stat().st_mtime_ns
    if str(path).startswith("/sys"):
        return "system"
    return sorted((str(p.relative_to(path)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in path.rglob("*") if p.is_file() and p.name != "_lock")


@pytest.mark.parametrize(("argv", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, cli, argv, fragment):
    args = argv(tmp_path)
    before = {path: _snapshot(path) for path in _outputs(args)}
    code, out, err = cli(*args)
    assert_one_error_line(code, out, err, fragment)
    for path, was in before.items():  # nothing written, made or changed
        assert _snapshot(path) == was, path


def test_the_corpus_is_large_and_covers_both_commands():
    assert len(SPEC_CASES + CAMPAIGN_OPTION_CASES + RESUME_CASES) >= 100
    assert len(REPORT_CASES) >= 40
    assert len({case[0] for case in CASES}) == len(CASES)  # one id per case


# --------------------------------------------------------------------------- the default mode


@pytest.mark.parametrize("argv", [
    spec(HD + '[[methods]]\nname = "cdff"\n'),
    generator("malleable", 'jobs = 3, tree = "nope.toml"', "tree"),
], ids=["unknown method", "missing tree file"])
def test_the_default_mode_refuses_a_bad_spec_before_a_cluster_starts(tmp_path, cli,
                                                                       monkeypatch, argv):
    from hybridsched.experiments import engine

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started for a bad spec")

    monkeypatch.setattr(engine, "execute", no_cluster)
    args = [a for a in argv(tmp_path) if a != "--serial"]
    code, out, err = cli(*args)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- recoveries


def test_a_cut_journal_line_is_dropped_with_a_warning(tmp_path, cli):
    folder = store(tmp_path, journal({"key": "whole"}))
    with (folder / "_journal-dead.jsonl").open("a") as handle:
        handle.write('{"key": "cut", "fam')  # the driver was killed while writing it
    code, _, err = cli("report", folder, "-o", tmp_path / "rep")
    assert code == 0, err
    assert "warning: " in err and "_journal-dead.jsonl:2: dropped a run cut short" in err
    from hybridsched.experiments.store_read import load_results

    assert "whole" in set(load_results(folder)["key"]) and "cut" not in set(
        load_results(folder)["key"])


def test_a_killed_campaign_leftovers_do_not_stop_report_or_resume(tmp_path, cli):
    folder = store(tmp_path)
    (folder / ".part-x.parquet.tmp").write_bytes(b"PAR1 half")     # a part being written
    (folder / ".hybridsched-probe-x").write_bytes(b"")               # an output probe
    (folder / "_lock").write_text("stale")                            # nobody holds it
    assert cli("report", folder, "-o", tmp_path / "rep")[0] == 0
    code, out, err = cli(*resume(lambda f: None)(tmp_path))
    assert code == 0 and "4 already stored, 0 run" in out, err


def test_the_same_campaign_grown_is_a_resume(tmp_path, cli):
    folder = store(tmp_path)
    grown = tmp_path / "grown.toml"
    grown.write_text('[campaign]\nname = "good"\nrecord = ["solution"]\n' + HD
                     + 'seeds = [0, 1, 2]\n' + CDF + '[[methods]]\nname = "ffd"\n')
    code, out, err = cli("campaign", grown, "-o", folder, "--serial")
    assert code == 0 and "4 already stored, 2 run" in out, err


def test_a_real_ctrl_c_during_a_plugin_import_is_an_interrupt(tmp_path):
    from hybridsched.experiments.plugins import import_plugins

    path = tmp_path / "slow.py"
    path.write_text("import signal\nsignal.raise_signal(signal.SIGINT)\n")
    # Python's own disposition, whatever an earlier test in this worker left (a Dask
    # cluster's process, a library): the test is about what the import makes of it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            import_plugins([str(path)])
    finally:
        signal.signal(signal.SIGINT, previous)


# --------------------------------------------------------------------------- round trip


def test_what_a_campaign_writes_report_and_resume_read(tmp_path, cli):
    """Every family's generator at small and odd sizes, seeds, failing runs, schedules:
    the store a campaign writes is read whole by ``report``, by ``load_results`` and by a
    resume, which runs nothing."""
    from .conftest import FAULTY

    (tmp_path / "tree.toml").write_text((Path(__file__).parents[2] / "examples" / "trees"
                                         / "hundred-leaves.toml").read_text())
    (tmp_path / "trace.txt").write_text(TRACE)
    text = f"""[campaign]
name = "round-trip"
time_limit = 5.0
record = ["solution"]
plugins = ["{FAULTY}"]
[[instances]]
generator = "hybrid-deadline"
seeds = [0, 9223372036854775807]
options = {{ tasks = [0, 1, 7], alpha = [1, "mixed"] }}
[[instances]]
generator = "bot-sites"
options = {{ sites = 1, bots = 1, tasks_per_bot = "1:3", procs_per_site = "1:2" }}
[[instances]]
generator = "malleable"
options = {{ jobs = [0, 3], tree = "tree.toml" }}
[[instances]]
generator = "gang"
options = {{ jobs = [0, 5], vms = 1 }}
[[instances]]
generator = "pull"
options = {{ units = [0, 3], dci = "cloud", capacity = 500.0 }}
[[instances]]
importer = "fta"
files = ["trace.txt"]
options = {{ units = 2, offset = [0.0, 30000.0] }}
[[methods]]
name = "cdf"
[[methods]]
name = "test-raise"
[[methods]]
name = "gmo"
options = {{ objective = ["makespan", "cost"] }}
[[methods]]
name = "round-robin"
[[methods]]
name = "fifo"
[[methods]]
name = "fcfs"
"""
    path = tmp_path / "round-trip.toml"
    path.write_text(text)
    out = tmp_path / "out"
    code, stdout, err = cli("campaign", path, "-o", out, "--serial", "--json",
                            "--csv", tmp_path / "all.csv")
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["ran"] == summary["planned"] > 30 and "failed" in summary["statuses"]
    code, _, err = cli("report", out, "-o", tmp_path / "rep", "--gantt")
    assert code == 0 and "warning" not in err, err
    assert (tmp_path / "rep" / "report.html").stat().st_size > 0
    from hybridsched.experiments.store_read import load_results

    table = load_results(out)
    assert len(table) == summary["planned"] and table["key"].is_unique
    code, stdout, err = cli("campaign", path, "-o", out, "--serial", "--json")
    assert code == 0 and json.loads(stdout)["ran"] == 0, err
