"""Every measured number of the docs, rewritten from the result files that hold it (issue 33).

    python scripts/publish_numbers.py                  # rewrite every block from results/
    python scripts/publish_numbers.py --run gang-small # measure again first, then rewrite all
    python scripts/publish_numbers.py --check          # exit 1 when a page differs
    python scripts/publish_numbers.py --list           # blocks, commands, files, last run time

A generated block of a Markdown page (``docs/**/*.md`` and ``README.md``) sits
between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``. Every NAME
is registered here (:data:`BLOCKS`, defined per family in ``scripts/published/``)
with the command that (re)produces its result files under ``results/``
(committed) and a renderer from those files to Markdown; the block ends with a
source line naming both. ``tests/test_published_numbers.py`` renders every
block again from the committed files and checks that the pages say the same.

``--run NAME`` clears the block's scratch folders (a campaign store would
resume instead of measuring again), runs its command from the checkout's root,
and records the wall time in ``results/publish-runs.json``; blocks that read
the same files show the new numbers too. A failed command restores the files
it overwrote and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from published import (  # noqa: E402
    ROOT,
    Block,
    bot_sites,
    gang,
    guide,
    hybrid_deadline,
    malleable,
    pull,
    reproduction,
)

#: Every generated block, by name.
BLOCKS: dict[str, Block] = {block.name: block for module in
                            (guide, hybrid_deadline, bot_sites, malleable, gang, pull,
                                          reproduction)
                            for block in module.BLOCKS}

START = re.compile(r"<!-- generated:([^ ]+) -->")
END = re.compile(r"<!-- /generated:([^ ]+) -->")
#: The marker style before issue 33 (``<!-- NAME:start -->``): not read here.
LEGACY = re.compile(r"<!-- ([\w-]+):(?:start|end) -->")
#: Blocks in that style that another script writes and its own test checks (not measured
#: numbers): name -> the script. Any other block in that style is a stale copy.
OTHER_WRITERS = {"tour": "scripts/readme_tour.py (commands' output; tests/test_readme_tour.py)"}
RUNS = ROOT / "results" / "publish-runs.json"


@dataclass(frozen=True)
class Found:
    """A generated block found in a page: its name, where its body lies, its first line."""

    name: str
    body_start: int
    body_end: int
    line: int


class MarkerError(ValueError):
    """A page's markers do not pair up (one line naming the page and line)."""


class UsageError(Exception):
    """Bad input: an unknown block, a page's markers, a missing result file (exit 2)."""


def pages() -> list[Path]:
    """The pages that may hold blocks: ``docs/**/*.md``, then ``README.md``."""
    return sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def find_blocks(text: str, page: Path | str = "page") -> list[Found]:
    """The generated blocks of ``text``, in order.

    Raises
    ------
    MarkerError
        An end without its start, a start without its end, or a block inside another.
    """
    found, position = [], 0
    while True:
        start = START.search(text, position)
        end = END.search(text, position)
        if end is not None and (start is None or end.start() < start.start()):
            raise MarkerError(f"{page}:{_line(text, end.start())}: {end.group(0)} without "
                              "its start marker")
        if start is None:
            return found
        name, line = start.group(1), _line(text, start.start())
        end = END.search(text, start.end())
        inner = START.search(text, start.end())
        if end is None or end.group(1) != name or (inner and inner.start() < end.start()):
            raise MarkerError(f"{page}:{line}: {start.group(0)} has no "
                              f"<!-- /generated:{name} --> before the next marker")
        found.append(Found(name, start.end(), end.start(), line))
        position = end.end()


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def rewrite(text: str, bodies: dict[str, str], page: Path | str = "page") -> str:
    """``text`` with each block named in ``bodies`` holding that body (others unchanged)."""
    out, position = [], 0
    for block in find_blocks(text, page):
        if block.name in bodies:
            out += [text[position:block.body_start], f"\n\n{bodies[block.name]}\n\n"]
            position = block.body_end
    return "".join(out) + text[position:]


def body(text: str, block: Found) -> str:
    """A found block's body as the page holds it, without the surrounding blank lines."""
    return text[block.body_start:block.body_end].strip()


def publish(check: bool = False, only: set[str] | None = None) -> list[str]:
    """Rewrite (or with ``check``, compare) the pages' blocks; the pages that differ.

    ``only`` limits it to the blocks of those names (the others are left as they are).

    Raises
    ------
    UsageError
        A block that is not registered, markers that do not pair up, a missing result file.
    """
    rendered: dict[str, str] = {}
    changed = []
    for page in pages():
        if not page.exists():
            continue
        text = page.read_text()
        try:
            found = find_blocks(text, page.relative_to(ROOT))
        except MarkerError as error:
            raise UsageError(str(error)) from None
        if only is not None:
            found = [block for block in found if block.name in only]
        for block in found:
            if block.name not in BLOCKS:
                raise UsageError(f"{page.relative_to(ROOT)}:{block.line}: block {block.name!r}"
                                 " is not registered in scripts/publish_numbers.py")
            if block.name not in rendered:
                missing = [p for p in BLOCKS[block.name].paths() if not p.exists()]
                if missing:
                    raise UsageError(f"block {block.name}: {missing[0].relative_to(ROOT)} is "
                                     f"missing: run python scripts/publish_numbers.py --run "
                                     f"{block.name}")
                rendered[block.name] = BLOCKS[block.name].markdown()
        new = rewrite(text, {b.name: rendered[b.name] for b in found}, page)
        if new != text:
            changed.append(str(page.relative_to(ROOT)))
            if not check:
                page.write_text(new)
    return changed


def run_block(block: Block) -> float:
    """Run ``block``'s command afresh; its wall time in seconds.

    Raises
    ------
    SystemExit
        The command failed: the result files it overwrote are restored.
    """
    for folder in block.scratch:
        shutil.rmtree(ROOT / folder, ignore_errors=True)
    backup = Path(tempfile.mkdtemp(prefix="publish-"))
    saved = {}
    for index, path in enumerate(block.paths()):
        if path.exists():
            saved[path] = backup / str(index)
            (shutil.copytree if path.is_dir() else shutil.copy2)(path, saved[path])
        path.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # `python` and `hybridsched` in a command are this interpreter's, whatever PATH says.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    print(f"{block.name}: {block.command}", file=sys.stderr, flush=True)
    began = time.perf_counter()
    done = subprocess.run(block.command, shell=True, cwd=ROOT, env=env, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        for path, copy in saved.items():
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
            (shutil.copytree if copy.is_dir() else shutil.copy2)(copy, path)
        shutil.rmtree(backup, ignore_errors=True)
        raise SystemExit(f"{block.name}: the command exited {done.returncode}; the result "
                         "files are as before")
    shutil.rmtree(backup, ignore_errors=True)
    _record_run(block.name, seconds)
    return seconds


def _record_run(name: str, seconds: float) -> None:
    from hybridsched.provenance import provenance

    runs = json.loads(RUNS.read_text()) if RUNS.exists() else {}
    runs[name] = {"wall_s": round(seconds, 1), "date": time.strftime("%Y-%m-%d"),
                  "cores": os.cpu_count(), "load_after": round(os.getloadavg()[0], 2),
                  "hybridsched": provenance()["hybridsched"]}
    RUNS.write_text(json.dumps(dict(sorted(runs.items())), indent=1) + "\n")


def listing() -> str:
    """One paragraph per block: where it is published, its command, files and last run."""
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else {}
    where: dict[str, list[str]] = {}
    for page in pages():
        if page.exists():
            for block in find_blocks(page.read_text(), page):
                where.setdefault(block.name, []).append(f"{page.relative_to(ROOT)}:{block.line}")
    lines = []
    for name, block in BLOCKS.items():
        last = runs.get(name)
        lines += [f"{name}  ({', '.join(where.get(name, ['not published']))})",
                  f"  command: {block.command}",
                  f"  results: {', '.join(block.results)}",
                  "  last run: " + (f"{last['wall_s']:g} s on {last['cores']} cores, "
                                    f"{last['date']}" if last else "not recorded")]
    return "\n".join(lines)


def _names(values: Iterable[str]) -> list[str]:
    names = [n.strip() for value in values for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in BLOCKS]
    if unknown:
        raise UsageError(f"--run: unknown block {unknown[0]!r} (known: {', '.join(BLOCKS)})")
    return names


def main() -> int:
    try:
        return _main()
    except UsageError as error:
        print(f"publish_numbers.py: {error}", file=sys.stderr)
        return 2


def _main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", default=[], metavar="NAME[,NAME]",
                        help="measure these blocks again before rewriting (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing; exit 1 when a page differs from its results")
    parser.add_argument("--list", action="store_true", help="list the blocks and exit")
    args = parser.parse_args()
    if args.list:
        print(listing())
        return 0
    if args.check and args.run:
        raise UsageError("give --check or --run, not both")
    for name in _names(args.run):
        print(f"{name}: {run_block(BLOCKS[name]):.0f} s", file=sys.stderr)
    changed = publish(check=args.check)
    for page in changed:
        print(f"{page}: {'differs from its results' if args.check else 'rewritten'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
