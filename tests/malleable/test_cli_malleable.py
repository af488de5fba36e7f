"""``generate malleable``, ``simulate malleable`` and ``tree`` on the command line.

Good runs write files that ``validate`` accepts; every bad input ends with exit code 2
and one line on standard error, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "trees" / "paper.toml"
OTHER_FAMILY = sorted((ROOT / "instances" / "bot-sites").glob("*.json"))[0]


def test_generate_simulate_flat_b_then_validate(tmp_path: Path, cli) -> None:
    inst, sched = tmp_path / "F.json", tmp_path / "S.json"
    code, _, err = cli("generate", "malleable", "--jobs", "30", "--mix", "small", "--seed", "3",
                       "-o", inst)
    assert code == 0, err
    document = json.loads(inst.read_text())
    assert document["family"] == "malleable" and len(document["jobs"]) == 30
    assert all(60 <= j["size"] <= 120 for j in document["jobs"])
    code, out, err = cli("simulate", "malleable", inst, "--scheduler", "flat", "--policy", "B",
                         "-o", sched, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["method"] == "flat" and summary["policy"] == "B"
    assert summary["status"] == "feasible"
    code, out, err = cli("validate", inst, sched)
    assert code == 0 and "valid" in out, (out, err)


def test_simulate_generated_with_save_instance_then_validate(tmp_path: Path, cli) -> None:
    inst, sched = tmp_path / "I.json", tmp_path / "S.json"
    code, out, err = cli("simulate", "malleable", "--jobs", "30", "--save-instance", inst,
                         "-o", sched)
    assert code == 0, err
    assert "cost" in out and "penalised_a" in out
    assert len(json.loads(inst.read_text())["jobs"]) == 30
    assert cli("validate", inst, sched)[0] == 0


@pytest.mark.parametrize("scheduler", ["tree", "round-robin"])
def test_same_seed_gives_byte_identical_schedules(tmp_path: Path, cli,
                                                   scheduler: str) -> None:
    runs = []
    for k in range(2):
        path = tmp_path / f"s{k}.json"
        code, _, err = cli("simulate", "malleable", "--jobs", "25", "--seed", "11",
                           "--scheduler", scheduler, "-o", path)
        assert code == 0, err
        runs.append(path.read_bytes())
    assert runs[0] == runs[1]
    other = tmp_path / "other.json"
    assert cli("simulate", "malleable", "--jobs", "25", "--seed", "12", "--scheduler",
               scheduler, "-o", other)[0] == 0
    assert other.read_bytes() != runs[0]


def test_generate_is_deterministic(tmp_path: Path, cli) -> None:
    for name in ("a.json", "b.json"):
        assert cli("generate", "malleable", "--jobs", "20", "--seed", "5",
                   "--serial-fraction", "0.3", "-o", tmp_path / name)[0] == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_the_paper_tree(tmp_path: Path, cli) -> None:
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    code, _, err = cli("generate", "malleable", "--jobs", "20", "--tree", PAPER, "-o", inst)
    assert code == 0, err
    document = json.loads(inst.read_text())
    assert [r["id"] for r in document["resources"]] == ["dedicated-1", "allocated-1",
                                                        "allocated-2", "cloud-1"]
    assert len(document["tree"]["edges"]) == 6
    assert cli("simulate", "malleable", inst, "-o", sched)[0] == 0
    assert cli("validate", inst, sched)[0] == 0
    code, out, err = cli("simulate", "malleable", "--jobs", "20", "--tree", PAPER, "--json")
    assert code == 0 and json.loads(out)["status"] == "feasible", err


def test_tree_draws_a_png(tmp_path: Path, cli) -> None:
    png = tmp_path / "x.png"
    code, out, err = cli("tree", PAPER, "-o", png)
    assert code == 0, err
    assert "3 agents" in out and "4 local schedulers" in out and "depth 2" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tree_without_output_only_prints(cli) -> None:
    code, out, _ = cli("tree", PAPER)
    assert code == 0 and "4 local schedulers" in out


# -- bad input ------------------------------------------------------------------------------

def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def instance(tmp: Path) -> Path:
    from hybridsched.malleable import files, generator

    return write(tmp, "good.json", json.dumps(files.instance_to_dict(
        generator.generate(5, "small", seed=1))))


def negative_size(document: dict) -> dict:
    document["jobs"][0]["size"] = -document["jobs"][0]["size"]
    return document


BAD_TOML = 'name = "t"\nfanout = [2\n'
GOOD_TOML = 'fanout = [2]\n[[leaves]]\ntype = "dedicated"\ncpus = 8\n'

BAD: dict[str, tuple[Callable[[Path], list], str]] = {
    "missing instance file": (lambda t: ["simulate", "malleable", t / "nope.json"],
                              "nope.json"),
    "malformed JSON": (lambda t: ["simulate", "malleable", write(t, "m.json", '{"jobs": [')],
                       "m.json"),
    "empty file": (lambda t: ["simulate", "malleable", write(t, "e.json", "")], "e.json"),
    "instance of another family": (lambda t: ["simulate", "malleable", OTHER_FAMILY],
                                   "bot-sites"),
    "bad job in the instance": (lambda t: ["simulate", "malleable", write(
        t, "b.json", json.dumps(negative_size(json.loads(instance(t).read_text()))))],
        "jobs.0.size"),
    "--jobs -1": (lambda t: ["simulate", "malleable", "--jobs", "-1"], "--jobs"),
    "--jobs -1 in generate": (lambda t: ["generate", "malleable", "--jobs", "-1", "-o",
                                         t / "x.json"], "--jobs"),
    "--jobs too many": (lambda t: ["generate", "malleable", "--jobs", "10000001", "-o",
                                   t / "x.json"], "--jobs"),
    "--jobs text": (lambda t: ["simulate", "malleable", "--jobs", "ten"], "--jobs"),
    "--mix huge": (lambda t: ["simulate", "malleable", "--mix", "huge"], "--mix"),
    "--mix huge in generate": (lambda t: ["generate", "malleable", "--mix", "huge", "-o",
                                          t / "x.json"], "--mix"),
    "--policy C": (lambda t: ["simulate", "malleable", "--policy", "C"], "--policy"),
    "--scheduler nope": (lambda t: ["simulate", "malleable", "--scheduler", "nope"],
                         "--scheduler"),
    "--serial-fraction 1": (lambda t: ["simulate", "malleable", "--serial-fraction", "1"],
                            "--serial-fraction"),
    "--serial-fraction nan": (lambda t: ["simulate", "malleable", "--serial-fraction", "nan"],
                              "--serial-fraction"),
    "--serial-fraction -0.5": (lambda t: ["generate", "malleable", "--serial-fraction",
                                          "-0.5", "-o", t / "x.json"], "--serial-fraction"),
    "--serial-fraction inf": (lambda t: ["generate", "malleable", "--serial-fraction", "inf",
                                         "-o", t / "x.json"], "--serial-fraction"),
    "instance file and --jobs": (lambda t: ["simulate", "malleable", instance(t), "--jobs",
                                            "3"], "--jobs"),
    "instance file and --mix": (lambda t: ["simulate", "malleable", instance(t), "--mix",
                                           "big"], "--mix"),
    "instance file and --tree": (lambda t: ["simulate", "malleable", instance(t), "--tree",
                                            PAPER], "--tree"),
    "-o into a missing folder": (lambda t: ["simulate", "malleable", "--jobs", "3", "-o",
                                            t / "no" / "s.json"], "-o"),
    "generate -o into a missing folder": (lambda t: ["generate", "malleable", "--jobs", "3",
                                                     "-o", t / "no" / "i.json"], "-o"),
    "--save-instance into a missing folder": (lambda t: [
        "simulate", "malleable", "--jobs", "3", "--save-instance", t / "no" / "i.json"],
        "--save-instance"),
    "-o equal to --save-instance": (lambda t: ["simulate", "malleable", "--jobs", "3", "-o",
                                               t / "s.json", "--save-instance", t / "s.json"],
                                    "same file"),
    "-o over the instance": (lambda t: ["simulate", "malleable", instance(t), "-o",
                                        t / "good.json"], "-o"),
    "tree: TOML syntax": (lambda t: ["tree", write(t, "s.toml", BAD_TOML)], "s.toml:2"),
    "tree: unknown key": (lambda t: ["tree", write(t, "k.toml", "colour = 1\n" + GOOD_TOML)],
                          "colour"),
    "tree: fanout 0": (lambda t: ["tree", write(t, "z.toml", GOOD_TOML.replace("[2]", "[0]"))],
                       "fanout"),
    "tree: too many leaves": (lambda t: ["tree", write(t, "m.toml", GOOD_TOML.replace(
        "[2]", "[1000, 1000]"))], "leaves"),
    "tree: bad leaf": (lambda t: ["tree", write(t, "l.toml", GOOD_TOML.replace(
        "cpus = 8", "cpus = 0"))], "leaves[0]"),
    "tree: GraphML cycle": (lambda t: ["tree", write(t, "c.graphml", CYCLE_GRAPHML)],
                            "cycle"),
    "tree: broken XML": (lambda t: ["tree", write(t, "b.graphml", "<graphml><graph")],
                         "b.graphml"),
    "tree: missing file": (lambda t: ["tree", t / "gone.toml"], "gone.toml"),
    "tree x.txt": (lambda t: ["tree", write(t, "x.txt", "fanout = [2]\n")], ".txt"),
    "tree -o out.unknownext": (lambda t: ["tree", PAPER, "-o", t / "out.unknownext"], "-o"),
    "tree -o into a missing folder": (lambda t: ["tree", PAPER, "-o", t / "no" / "x.png"],
                                      "-o"),
    "generate --tree TOML syntax": (lambda t: ["generate", "malleable", "--tree", write(
        t, "g.toml", BAD_TOML), "-o", t / "x.json"], "g.toml:2"),
    "generate --tree bad leaf": (lambda t: ["generate", "malleable", "--tree", write(
        t, "g.toml", GOOD_TOML.replace('"dedicated"', '"gpu"')), "-o", t / "x.json"],
        "leaves[0]"),
    "generate --tree missing": (lambda t: ["generate", "malleable", "--tree",
                                           t / "gone.toml", "-o", t / "x.json"], "gone.toml"),
    "generate --tree x.txt": (lambda t: ["generate", "malleable", "--tree", write(
        t, "x.txt", ""), "-o", t / "x.json"], ".txt"),
    "simulate --tree GraphML cycle": (lambda t: ["simulate", "malleable", "--tree", write(
        t, "c.graphml", CYCLE_GRAPHML)], "cycle"),
}

CYCLE_GRAPHML = """<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="type" attr.type="string"/>
  <key id="d1" for="node" attr.name="cpus" attr.type="long"/>
  <graph edgedefault="directed">
    <node id="root"/>
    <node id="a"/>
    <node id="ded"><data key="d0">dedicated</data><data key="d1">4</data></node>
    <edge source="root" target="a"/>
    <edge source="a" target="ded"/>
    <edge source="a" target="root"/>
  </graph>
</graphml>
"""


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_and_exit_code_2(case: str, tmp_path: Path, cli) -> None:
    make, fragment = BAD[case]
    code, out, err = cli(*make(tmp_path))
    assert code == 2, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0], lines[0]


def test_nothing_is_written_after_bad_input(tmp_path: Path, cli) -> None:
    target = tmp_path / "x.json"
    assert cli("generate", "malleable", "--tree", write(tmp_path, "g.toml", BAD_TOML), "-o",
               target)[0] == 2
    assert not target.exists()
