"""Notebooks run top to bottom at small size (stored without outputs)."""

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.mark.parametrize("name", ["hybrid_deadline.ipynb", "overview.ipynb", "malleable.ipynb",
                                  "gang.ipynb", "pull.ipynb", "reproduction.ipynb"])
def test_notebook_runs_at_small_size(name, monkeypatch):
    monkeypatch.setenv("HYBRIDSCHED_NB_SIZE", "small")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        assert all(not c.get("outputs") for c in cells if c["cell_type"] == "code"), path.name
        assert os.path.getsize(path) < 200_000
