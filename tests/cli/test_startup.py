"""Start-up: no heavy import for quick commands; --version, python -m, help texts and order.

Timings live in ``benchmarks/bench_startup.py``; these checks are deterministic.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import contextlib, io, sys
import hybridsched.cli
with contextlib.redirect_stdout(io.StringIO()):
    code = hybridsched.cli.run({argv!r})
assert code == 0, code
print(",".join(sorted({{m.split('.')[0] for m in sys.modules}})))
"""


def loaded_after(argv: list[str]) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], check=True,
                         capture_output=True, text=True).stdout
    return set(out.strip().splitlines()[-1].split(","))


def test_help_imports_nothing_heavy():
    loaded = loaded_after(["--help"])
    assert not {"numpy", "pyomo", "highspy", "matplotlib", "pandas", "networkx",
                "scipy"} & loaded


def test_methods_imports_no_solver_plotting_or_table_library():
    loaded = loaded_after(["methods"])
    assert "hybridsched" in loaded
    assert not {"pyomo", "highspy", "matplotlib", "pandas"} & loaded


def test_version_and_python_dash_m():
    from hybridsched import __version__

    done = subprocess.run([sys.executable, "-m", "hybridsched", "--version"], check=False,
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"hybridsched {__version__}"
    done = subprocess.run([sys.executable, "-m", "hybridsched", "solve", "missing.json",
                           "--method", "cdf"], check=False, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.strip() == "error: missing.json: no such file"


def test_commands_are_listed_in_workflow_order(cli):
    code, out, _ = cli("--help")
    assert code == 0
    order = ["generate", "import-swf", "import-etc", "solve", "validate", "compare",
             "certify", "bench", "pareto", "gantt", "methods", "schema"]
    # A command's name at the start of its line (another's help may use the word).
    positions = [out.index(f"\n  {name} ") for name in order]
    assert positions == sorted(positions)
    assert "Exit codes" in out and "3 internal error" in out


def _commands(group, prefix=""):
    import typer.main

    command = typer.main.get_command(group) if isinstance(group, typer.Typer) else group
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, f"{prefix}{name} ")
    if not getattr(command, "commands", None):
        yield prefix.strip(), command


def test_every_argument_and_option_has_help_text():
    from hybridsched.cli import app

    commands = dict(_commands(app))
    assert {"generate hybrid-deadline", "generate bot-sites", "import-swf", "solve",
            "gantt", "schema"} <= set(commands)
    for name, command in commands.items():
        assert command.help, name
        for param in command.params:
            if param.name != "help":
                assert getattr(param, "help", None), f"{name}: {param.name} has no help"


@pytest.mark.parametrize(("argv", "fragment"), [
    (["import-swf", "--help"], "task|job|window"),
    (["generate", "bot-sites", "--help"], "HiHi|HiLo|LoHi|LoLo"),
    (["generate", "hybrid-deadline", "--help"], "1|2|3|4|mixed"),
])
def test_choices_are_shown_as_choices(cli, argv, fragment):
    code, out, _ = cli(*argv)
    assert code == 0 and fragment in out.replace(" ", "")


def test_validate_help_states_its_exit_codes(cli):
    code, out, _ = cli("validate", "--help")
    text = " ".join(out.split())
    assert code == 0 and "0 valid" in text and "1 invalid" in text and "2 a file" in text


def test_no_arguments_prints_the_help(cli):
    code, out, err = cli()
    assert code == 0 and "Usage" in out + err and "Traceback" not in err
