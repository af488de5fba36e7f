"""A release installs anywhere (issue 33): sdist and wheel, the bundled library, release files.

The slow part builds the sdist and, from it, the wheel (``python -m build
--no-isolation``: offline, with this environment's setuptools) from a copy of
the sources, so the checkout gets no build/ or dist/; it checks both with
``twine check`` and installs the wheel with ``pip --target`` into a scratch
folder that the command line then runs from, in another folder, with only that
folder on ``PYTHONPATH`` in front of this environment's dependencies: as a
user's fresh environment would have it. The fast part checks the lookup of
the bundled copy on a package laid out as an install lays it out, the
``instances`` command, and the release files (one version, the license, the
citation).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from hybridsched.experiments.library import LIBRARY_VARIABLE, examples_root, library_root
from hybridsched.version import __version__

ROOT = Path(__file__).resolve().parents[1]

#: What the sources of a release are: the package, its build files, the bundled folders.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "CHANGELOG.md",
           "CITATION.cff", "hybridsched", "instances", "examples")

LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist",
                                  "bundled")

QUICK_START = "hybrid-deadline/small-01"


def run(*args: object, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def user_env(site: Path) -> dict[str, str]:
    """This environment with ``site`` first on the path and no library variable."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    for name in (LIBRARY_VARIABLE, "HYBRIDSCHED_DEBUG"):
        env.pop(name, None)
    return env


def copy_sources(target: Path) -> Path:
    target.mkdir(parents=True)
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=LEFT_OUT)
        else:
            shutil.copy2(source, target / name)
    return target


# -- the built release (slow: a build and an install, about half a minute) -----------------


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel built from it, from a copy of the sources."""
    source = copy_sources(tmp_path_factory.mktemp("release") / "src")
    out = source.parent / "dist"
    done = run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source,
               cwd=source.parent)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = {"sdist": sorted(out.glob("*.tar.gz")), "wheel": sorted(out.glob("*.whl"))}
    assert [len(v) for v in found.values()] == [1, 1], found
    return {kind: paths[0] for kind, paths in found.items()}


@pytest.fixture(scope="module")
def installed(dists, tmp_path_factory) -> Path:
    """The folder ``pip install --target`` put the wheel in (dependencies: this environment)."""
    site = tmp_path_factory.mktemp("site")
    done = run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
               "--disable-pip-version-check", "--target", site, dists["wheel"], cwd=site)
    assert done.returncode == 0, done.stderr
    return site


@pytest.mark.slow
def test_sdist_and_wheel_pass_twine_check(dists):
    done = run(sys.executable, "-m", "twine", "check", "--strict", dists["sdist"],
               dists["wheel"], cwd=dists["wheel"].parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout
    assert dists["wheel"].name == f"hybridsched-{__version__}-py3-none-any.whl"


@pytest.mark.slow
def test_sdist_holds_the_library_examples_and_release_files(dists):
    with tarfile.open(dists["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for name in ("LICENSE", "CHANGELOG.md", "CITATION.cff", "README.md", "setup.py",
                 "instances/README.md", "instances/hybrid-deadline/small-01.json",
                 "examples/campaigns/hybrid-deadline-gaps.toml",
                 "examples/plugin/pyproject.toml"):
        assert name in names, name
    library = {f"instances/{p.relative_to(ROOT / 'instances')}"
               for p in (ROOT / "instances").rglob("*.json")}
    assert library <= names, sorted(library - names)[:5]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.slow
def test_wheel_carries_the_library_examples_license_and_version(dists):
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"hybridsched-{__version__}.dist-info/METADATA").decode()
    bundled = "hybridsched/bundled/"
    library = {f"{bundled}instances/{p.relative_to(ROOT / 'instances')}"
               for p in (ROOT / "instances").rglob("*.json")}
    assert library <= names, sorted(library - names)[:5]
    assert f"{bundled}examples/campaigns/hybrid-deadline-gaps.toml" in names
    assert f"hybridsched-{__version__}.dist-info/licenses/LICENSE" in names
    assert not [n for n in names if n.startswith(("instances/", "examples/"))]  # no top level
    assert f"\nVersion: {__version__}\n" in metadata
    assert "\nLicense-Expression: BSD-3-Clause\n" in metadata


@pytest.mark.slow
def test_installed_wheel_lists_locates_and_solves_outside_any_checkout(installed, tmp_path):
    env = user_env(installed)
    bundled = installed / "hybridsched" / "bundled"
    version = run(sys.executable, "-m", "hybridsched", "--version", cwd=tmp_path, env=env)
    assert version.stdout.strip() == f"hybridsched {__version__}", version.stderr

    listed = run(sys.executable, "-m", "hybridsched", "instances", "list", cwd=tmp_path,
                 env=env)
    assert listed.returncode == 0, listed.stderr
    row = next(line.split() for line in listed.stdout.splitlines()
               if line.startswith(QUICK_START + " "))
    assert row == [QUICK_START, "small", "cost", "0.525", "certified"]
    assert str(bundled / "instances") in listed.stderr  # the installed copy, not the checkout

    located = run(sys.executable, "-m", "hybridsched", "instances", "path", QUICK_START,
                  cwd=tmp_path, env=env)
    path = Path(located.stdout.strip())
    assert path == bundled / "instances" / f"{QUICK_START}.json", located.stderr

    compared = run(sys.executable, "-m", "hybridsched", "compare", path,
                   "--methods", "cdf,exact", "--json", cwd=tmp_path, env=env)
    assert compared.returncode == 0, compared.stderr
    rows = {r["method"]: r for r in json.loads(compared.stdout)}
    assert rows["exact"]["status"] == "optimal" and rows["exact"]["objective"] == 0.525
    assert rows["cdf"]["reference_kind"] == "optimum (recorded)"
    assert rows["cdf"]["produced_by"]["hybridsched"].startswith(f"{__version__}+")

    spec = run(sys.executable, "-m", "hybridsched", "instances", "path",
               "examples/campaigns/hybrid-deadline-gaps.toml", cwd=tmp_path, env=env)
    assert Path(spec.stdout.strip()).parent == bundled / "examples" / "campaigns"
    assert sorted(os.listdir(tmp_path)) == []  # nothing written where the user stood


# -- the lookup of the bundled copy (fast: a package laid out as pip installs it) -----------


LOOKUP = """
from hybridsched.errors import InputError
from hybridsched.experiments.library import examples_root, library_root
for find in (library_root, examples_root):
    try:
        print(find())
    except InputError as exc:
        print("error:", exc)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The package copied as an install holds it, outside the checkout, with no bundle yet."""
    site = tmp_path_factory.mktemp("lookup")
    shutil.copytree(ROOT / "hybridsched", site / "hybridsched", ignore=LEFT_OUT)
    return site


def lookup(site: Path, cwd: Path, **variables: str) -> list[str]:
    done = run(sys.executable, "-c", LOOKUP, cwd=cwd, env={**user_env(site), **variables},
               timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_an_install_finds_its_bundled_copy_and_the_variable_wins(site, tmp_path):
    assert lookup(site, tmp_path)[0].startswith("error: no benchmark library: this installation")
    bundled = site / "hybridsched" / "bundled"
    (bundled / "instances" / "gang").mkdir(parents=True)
    (bundled / "examples").mkdir()
    try:
        shutil.copy2(ROOT / "instances" / "gang" / "small-10.json", bundled / "instances" / "gang")
        assert lookup(site, tmp_path) == [str(bundled / "instances"), str(bundled / "examples")]
        other = tmp_path / "mine"
        other.mkdir()
        assert lookup(site, tmp_path, **{LIBRARY_VARIABLE: str(other)})[0] == str(other)
    finally:
        shutil.rmtree(bundled)


def test_a_checkout_reads_its_own_folders(monkeypatch):
    monkeypatch.delenv(LIBRARY_VARIABLE, raising=False)
    assert library_root() == ROOT / "instances"
    assert examples_root() == ROOT / "examples"


# -- the instances command (in the checkout: the same code reads the bundled copy) ----------


def test_instances_list_shows_tiers_and_best_known_values(cli, monkeypatch):
    monkeypatch.delenv(LIBRARY_VARIABLE, raising=False)
    code, out, _ = cli("instances", "list", "gang", "--tier", "small", "--json")
    assert code == 0
    document = json.loads(out)
    assert document["library"] == str(ROOT / "instances")
    rows = {row["name"]: row for row in document["instances"]}
    assert set(rows) == {f"gang/small-{n}" for n in (10, 12, 15, 20)}
    assert rows["gang/small-10"]["best_known"] == 7
    assert rows["gang/small-10"]["verdict"] == "certified"
    code, out, _ = cli("instances", "list", "pull", "--tier", "large")
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["bounded", "bounded"]


def test_instances_path_prints_a_file_the_next_command_reads(cli, monkeypatch):
    monkeypatch.delenv(LIBRARY_VARIABLE, raising=False)
    code, out, _ = cli("instances", "path", QUICK_START)
    assert code == 0 and out.strip() == str(ROOT / "instances" / f"{QUICK_START}.json")
    code, out, _ = cli("instances", "path", "examples/soft/small.toml")
    assert code == 0 and out.strip() == str(ROOT / "examples" / "soft" / "small.toml")


@pytest.mark.parametrize(("argv", "fragment"), [
    (["path", "hybrid-deadline/smal-01"], "did you mean 'hybrid-deadline/small-01'?"),
    (["path", "../pyproject.toml"], "no library file '../pyproject.toml'"),
    (["path", "examples/soft/smal.toml"], "did you mean 'examples/soft/small.toml'?"),
    (["list", "gnag"], "did you mean 'gang'?"),
    (["list", "--tier", "huge"], "--tier: must be one of tiny, small, medium, large"),
    (["copy", "DEST", "pul"], "did you mean 'pull'?"),
])
def test_instances_bad_names_are_one_line_with_a_suggestion(cli, tmp_path, monkeypatch, argv,
                                                            fragment):
    monkeypatch.delenv(LIBRARY_VARIABLE, raising=False)
    code, out, err = cli("instances", *[str(tmp_path / a) if a == "DEST" else a for a in argv])
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and fragment in err, err
    assert not (tmp_path / "DEST").exists()


def test_instances_copy_keeps_the_layout_and_overwrites_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.delenv(LIBRARY_VARIABLE, raising=False)
    dest = tmp_path / "work"
    code, _, err = cli("instances", "copy", dest, "hybrid-deadline", "--examples")
    assert code == 0, err
    assert (dest / "instances" / "hybrid-deadline" / "small-01.json").read_bytes() == (
        ROOT / "instances" / "hybrid-deadline" / "small-01.json").read_bytes()
    assert not (dest / "instances" / "gang").exists()
    # The example campaign's relative path to the library holds in the copy.
    spec = (dest / "examples" / "campaigns" / "hybrid-deadline-gaps.toml").read_text()
    pattern = re.search(r'"(\.\./\.\./instances/hybrid-deadline/\*\.json)"', spec)
    assert pattern and list((dest / "examples" / "campaigns").glob(pattern.group(1)))
    edited = dest / "instances" / "hybrid-deadline" / "small-01.json"
    edited.write_text("{}")
    code, _, err = cli("instances", "copy", dest, "hybrid-deadline")
    assert code == 2 and "already exists; nothing copied" in err
    assert edited.read_text() == "{}"


# -- release files ------------------------------------------------------------------------


def test_the_version_is_written_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "hybridsched.version.__version__"}
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["version"] == __version__
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog,
                     re.MULTILINE)


def test_license_and_citation_say_what_pyproject_says():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, the hybridsched developers" in text
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "BSD-3-Clause"
    assert citation["authors"] == [{"name": "The hybridsched developers"}]
    assert citation["date-released"] == "2026-11-28"
    assert all(citation[key] for key in ("title", "message", "abstract"))
    references = citation["references"]
    assert len(references) == 5
    assert all(r["type"] and r["title"] and r["authors"] and r["year"] for r in references)
