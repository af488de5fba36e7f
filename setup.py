"""One build step besides pyproject.toml: the wheel carries the benchmark library and examples.

``instances/`` and ``examples/`` stay at the top of the checkout (tests,
scripts, docs and the campaign specs' relative paths use them there); a wheel
gets a copy of both in ``hybridsched/bundled/``, found at run time by
:func:`hybridsched.experiments.library.shipped_folder`. The sdist carries them
at the top, as in the checkout (MANIFEST.in), so a wheel built from it is the
same. Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: Top-level folders copied into the wheel, under hybridsched/bundled/.
BUNDLED = ("instances", "examples")

#: What a working copy may hold that a release must not: caches, builds, locks.
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info", "build", "dist",
                                  "_lock", ".ipynb_checkpoints")


class BuildPyWithBundle(build_py):
    """``build_py``, then a copy of :data:`BUNDLED` into the built package."""

    def run(self) -> None:
        """Build the package, then copy the library and examples beside its modules."""
        super().run()
        if self.editable_mode:
            return  # an editable install reads the checkout's own folders
        target = Path(self.build_lib) / "hybridsched" / "bundled"
        for name in BUNDLED:
            source = Path(name)
            if not source.is_dir():
                # A release without its library would install and then fail at first use.
                raise SystemExit(f"error: {source.resolve()}: missing; a hybridsched build "
                                 f"needs the {name}/ folder of the checkout or sdist")
            shutil.rmtree(target / name, ignore_errors=True)  # no file of an older build
            shutil.copytree(source, target / name, ignore=LEFT_OUT)


setup(cmdclass={"build_py": BuildPyWithBundle})
