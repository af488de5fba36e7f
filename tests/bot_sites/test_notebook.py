"""The bot-sites notebook runs top to bottom at small size and is stored without outputs."""

import json
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "bot_sites.ipynb"


def test_stored_without_outputs():
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in cells if c["cell_type"] == "code")


def test_runs_at_small_size(monkeypatch):
    monkeypatch.setenv("HYBRIDSCHED_NB_SIZE", "small")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2
