"""Notebooks run top to bottom at small size (stored without outputs).

Each notebook asserts its own key claims in its cells (the hybrid-deadline one, say, that every
method rents VMs at every alpha), so a silently degenerate output fails here as an error.
"""

import ast
import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
RUN_HERE = ["hybrid_deadline.ipynb", "overview.ipynb", "malleable.ipynb", "gang.ipynb",
            "pull.ipynb", "reproduction.ipynb"]
#: Notebooks run by a test of their own family.
RUN_ELSEWHERE = {"bot_sites.ipynb": "tests/bot_sites/test_notebook.py"}
SIZES = {"small", "medium", "full"}


def _execute(name: str, monkeypatch) -> list[dict]:
    monkeypatch.setenv("HYBRIDSCHED_NB_SIZE", "small")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _code(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


@pytest.mark.parametrize("name", RUN_HERE)
def test_notebook_runs_at_small_size(name, monkeypatch):
    outputs = _execute(name, monkeypatch)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    if name == "hybrid_deadline.ipynb":
        # The closing Gantt chart is a hybrid schedule: local PMs and rented VMs.
        text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
        rented = re.search(r"the rest on (\d+) rented VMs", text)
        assert rented and int(rented.group(1)) > 0, text


def test_every_notebook_is_run_by_a_test():
    stored = {path.name for path in NOTEBOOKS.glob("*.ipynb")}
    assert stored == set(RUN_HERE) | set(RUN_ELSEWHERE)
    for name, test in RUN_ELSEWHERE.items():
        assert name in (NOTEBOOKS.parent / test).read_text()


def test_every_notebook_knows_every_size():
    """Each reads HYBRIDSCHED_NB_SIZE, defaults to medium and sizes every setting for all three.

    Checked on the source: a dict keyed by a size that lacks another would only fail at
    that size, which the tests do not run.
    """
    for path in NOTEBOOKS.glob("*.ipynb"):
        code = _code(path)
        assert any('os.environ.get("HYBRIDSCHED_NB_SIZE", "medium")' in c for c in code), path.name
        for source in code:
            lines = [line for line in source.splitlines() if not line.startswith(("%", "!"))]
            for node in ast.walk(ast.parse("\n".join(lines))):
                if isinstance(node, ast.Dict):
                    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                    if keys & SIZES:
                        assert keys == SIZES, (path.name, ast.unparse(node)[:80])


def test_notebooks_readme_names_every_notebook_and_the_commands():
    readme = (NOTEBOOKS / "README.md").read_text()
    for path in NOTEBOOKS.glob("*.ipynb"):
        assert f"`{path.name}`" in readme, path.name
    for command in ('pip install -e ".[notebooks]"', "jupyter lab notebooks/",
                    "jupyter execute notebooks/*.ipynb"):
        assert command in readme, command


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        assert all(not c.get("outputs") and c.get("execution_count") is None
                   for c in cells if c["cell_type"] == "code"), path.name
        assert os.path.getsize(path) < 200_000
