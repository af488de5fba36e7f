"""Reproduce a paper's claims into a result store and a record (issue 34).

    python scripts/reproduce.py --paper 004            # one paper
    python scripts/reproduce.py --paper all            # the five, one after another

Each paper's claims, readings and instances are in ``examples/reproduction/<paper>.toml``.
The runs go to ``results/reproduction/<paper>/store`` (a campaign result store: every run
with its code version and library versions), the verdicts to
``results/reproduction/<paper>/summary.json`` (with the commit), from which
``scripts/publish_numbers.py`` renders the table of ``docs/reproduction.md``. Runs already in
a store are not run again. Exit 2 on a bad file, 130 on Ctrl-C (nothing is written then).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT / "examples" / "reproduction"


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see 'python scripts/reproduce.py --help')\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", required=True, nargs="+",
                        help="paper ids (000-004) or 'all'")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "reproduction",
                        help="folder of the stores and records (default: results/reproduction)")
    parser.add_argument("--file", type=Path, default=None,
                        help="a reproduction file to use instead of the paper's own (one paper)")
    parser.add_argument("--cap", type=int, default=None,
                        help="seeds at most per comparison (default: the file's seeds.cap)")
    parser.add_argument("--mode", default="auto", choices=["auto", "serial", "local"],
                        help="where runs execute (as hybridsched campaign --mode)")
    args = parser.parse_args(argv)
    from hybridsched.errors import InputError
    from hybridsched.interrupt import handling_sigint
    from hybridsched.stdio import owned_stdout

    ids = sorted(p.stem for p in PAPERS.glob("*.toml")) if args.paper == ["all"] else args.paper
    if args.file is not None and len(ids) != 1:
        parser.error("argument --file: goes with one --paper")
    if args.cap is not None and args.cap < 2:
        parser.error(f"argument --cap: must be at least 2, got {args.cap}")
    try:
        with owned_stdout("discard"), handling_sigint():  # HiGHS's banner is not ours to print
            _run(ids, args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: nothing recorded for the paper in progress", file=sys.stderr)
        return 130
    return 0


def _run(ids: list[str], args: argparse.Namespace) -> None:
    """Reproduce each paper of ``ids`` in turn, one line of summary each on standard error."""
    from hybridsched.errors import InputError
    from hybridsched.experiments.reproduction import reproduce
    from hybridsched.experiments.reproduction_spec import load_paper

    for paper_id in ids:
        path = args.file or PAPERS / f"{paper_id}.toml"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in PAPERS.glob("*.toml")))
            raise InputError(f"--paper {paper_id}: no file {path} (known: {known})")
        paper = load_paper(path)
        started = time.perf_counter()
        record = reproduce(paper, args.out / paper_id, cap=args.cap, mode=args.mode,
                           progress=lambda line: print(line, file=sys.stderr), folder=ROOT)
        best = record["best_joint"]
        print(f"paper {paper_id}: {record['runs']} runs, literal readings reproduce "
              f"{record['literal']['reproduced']} of {len(record['claims'])} claims, best "
              f"joint set ({', '.join(best['departures']) or 'literal'}) "
              f"{best['reproduced']}; {time.perf_counter() - started:.0f} s; "
              f"{args.out / paper_id / 'summary.json'}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
