"""The README's ten-minute tour: runs its commands and writes what they print.

    python scripts/readme_tour.py            # rewrite the tour block of each page
    python scripts/readme_tour.py --check    # exit 1 if a page shows other output

The pages are README.md and docs/getting-started.md, which show the same block.
The commands run in a temporary folder holding links to the checkout's ``instances/`` and
``examples/``, so the files they write (a schedule, a result store, a report) never land in
the checkout. ``tests/test_readme_tour.py`` runs the same check. What a command prints is
compared with the README's copy after :func:`normalise`, which masks what changes from run
to run and machine to machine (times), and nothing else.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The pages that show the tour: the README, and the documentation's getting-started page.
PAGES = (README, ROOT / "docs" / "getting-started.md")
START, END = "<!-- tour:start -->", "<!-- tour:end -->"


@dataclass(frozen=True)
class Step:
    """One step of the tour: what it shows, the command, and whether to print its output."""

    title: str
    text: str
    command: str
    show_output: bool = True


STEPS = (
    Step("Solve an instance with a heuristic",
         "`cdf+ra` is the hybrid-deadline paper's heuristic (CDF, then RA). "
         "`-o` writes the schedule; `--json` would print one JSON document instead.",
         "hybridsched solve instances/hybrid-deadline/small-01.json --method cdf+ra -o sol.json"),
    Step("Check it with the family's checker",
         "Exit 0 means valid and 1 means invalid, with each violation named.",
         "hybridsched validate instances/hybrid-deadline/small-01.json sol.json"),
    Step("Compare every method with the proven optimum",
         "The instance records its proven optimum, which is the reference for the gap. "
         "The `bound` method adds a lower bound with a proof, for instances too large to solve.",
         "hybridsched compare instances/hybrid-deadline/small-01.json"),
    Step("Certify the optimum with two independent backends",
         "HiGHS and CP-SAT each solve the instance. Each one's schedule is checked, and each "
         "one's bound must meet the other's schedule.",
         "hybridsched certify instances/hybrid-deadline/small-01.json"),
    Step("Rank the methods on a tier of the benchmark library",
         "`bench` also writes the leaderboard as CSV and a performance profile "
         "(`bench-gang/profile.png`).",
         "hybridsched bench gang --tier small -o bench-gang"),
    Step("Run a campaign, then read it",
         "A campaign is a TOML spec of instances times methods. Its result store is Parquet and "
         "resumes where it stopped. Without `--serial` it starts a local Dask cluster when the "
         "runs are long enough to gain from one.",
         "hybridsched campaign examples/campaigns/tour.toml -o results/tour --serial"),
    Step("",
         "Each method is paired with a baseline on the same instances, with a 95% interval.",
         "hybridsched effects results/tour --baseline ffd"),
    Step("",
         "The report has tables and plots, in Markdown and HTML.",
         "hybridsched report results/tour -o report/tour", show_output=False),
)

#: A duration as the human tables print it: a number followed by `s`, or in a `time` column.
_DURATION = re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)? ?s\b")
#: A row of ``solve``'s key-value table whose key is a time in seconds (``runtime_s``).
_SECONDS_ROW = re.compile(r"^(\s*\w+_s\s+)[<\d.e-]+")


def normalise(output: str) -> str:
    """Mask the times in ``output``: the only part of the tour that changes between runs.

    A duration printed with its unit (``1.2 s``) becomes ``<t> s``; in a table whose header
    names a time column (``time (s)``), that column's cells become ``<t>``; so does the value of
    a key-value row whose key is in seconds (``runtime_s  0.0006``). Trailing spaces
    go, since table widths follow the widest time.
    """
    lines = [_SECONDS_ROW.sub(r"\1<t>", _DURATION.sub("<t> s", line)).rstrip()
             for line in output.splitlines()]
    return "\n".join(_mask_time_columns(lines)).strip()


def _mask_time_columns(lines: list[str]) -> list[str]:
    """Replace the cells of every column headed ``... time ...`` with ``<t>``."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for line in lines:
        if "time (s)" in line:
            # a header: each time column spans from its title's start to the next title's
            starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", line)]
            titles = re.findall(r"\S+(?: \S+)*", line)
            spans = [(s, starts[i + 1] if i + 1 < len(starts) else 10**6)
                     for i, (s, t) in enumerate(zip(starts, titles, strict=True)) if "time" in t]
            out.append(re.sub(r" {2,}", "  ", line))
            continue
        if not line.strip():
            spans = []
        for start, stop in reversed(spans):
            cell = line[start:stop]
            if cell.strip():
                line = line[:start] + re.sub(r"\S+", "<t>", cell, count=1) + line[stop:]
        out.append(re.sub(r" {2,}", "  ", line))
    return out


def run(step: Step, workdir: Path) -> str:
    """What ``step``'s command prints on standard output, run in ``workdir``."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    done = subprocess.run(shlex.split(step.command), cwd=workdir, env=env, text=True,
                          capture_output=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"tour step failed ({done.returncode}): {step.command}\n{done.stderr}")
    return done.stdout


def workspace() -> tempfile.TemporaryDirectory:
    """A temporary folder that sees the checkout's instances and examples."""
    folder = tempfile.TemporaryDirectory(prefix="hybridsched-tour-")
    for name in ("instances", "examples"):
        (Path(folder.name) / name).symlink_to(ROOT / name)
    return folder


def render(outputs: list[str]) -> str:
    """The tour block of the README: each step's text, command and output."""
    parts, number = [], 0
    for step, output in zip(STEPS, outputs, strict=True):
        if step.title:
            number += 1
            parts.append(f"**{number}. {step.title}.** {step.text}")
        else:
            parts.append(step.text)
        printed = "\n".join(line.rstrip() for line in output.rstrip().splitlines())
        shown = f"$ {step.command}\n{printed}" if step.show_output and printed \
            else f"$ {step.command}"
        parts.append(f"```console\n{shown}\n```")
    parts.append(
        f"**{number + 1}. Open a notebook.** Each paper has a notebook that draws its figures "
        "from a campaign. `notebooks/reproduction.ipynb` sets every claim against the paper's "
        "figure.\n"
        "\n```bash\njupyter lab notebooks/hybrid_deadline.ipynb\n```")
    return "\n\n".join(parts)


def tour_outputs() -> list[str]:
    """Run every step of the tour, in order, in one fresh workspace."""
    with workspace() as folder:
        return [run(step, Path(folder)) for step in STEPS]


def shown_block(text: str, name: str = "README.md") -> str:
    """A page's tour block, between its markers."""
    if START not in text or END not in text:
        raise SystemExit(f"{name} has no {START} ... {END} block")
    return text.split(START, 1)[1].split(END, 1)[0].strip()


def main(argv: list[str] | None = None) -> int:
    """Write the pages' tour block, or with ``--check`` compare them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the README's block with fresh output; exit 1 if it differs")
    args = parser.parse_args(argv)
    block = render(tour_outputs())
    stale = []
    for page in PAGES:
        text = page.read_text()
        shown = shown_block(text, page.name)
        if args.check:
            if normalise(shown) != normalise(block):
                stale.append(page.relative_to(ROOT))
            continue
        head, rest = text.split(START, 1)
        page.write_text(f"{head}{START}\n{block}\n{END}{rest.split(END, 1)[1]}")
        print(f"wrote the tour into {page.relative_to(ROOT)}")
    if args.check:
        print(f"tour differs from the commands in: {', '.join(map(str, stale))}" if stale
              else "the tour is current")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
