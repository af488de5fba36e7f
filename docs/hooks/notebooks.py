"""MkDocs hook: the project's notebooks (``notebooks/*.ipynb``, outside ``docs/``) as pages.

The notebooks stay where the tests run them; this hook adds each one to the
site as ``notebooks/<name>.ipynb`` (so a page links to it as
``notebooks/gang.ipynb``, and the nav lists it the same way), read from the
checkout. It runs before mkdocs-jupyter's own ``on_files`` (a higher
priority), which then turns them into rendered pages; executed at build when
``execute`` is on, with the notebook's folder as working directory (as the
tests run them).

``HYBRIDSCHED_NB_SIZE`` is set to ``small`` unless the environment says
otherwise, so that a build runs them at the size the tests use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

#: Where the notebooks live, relative to the folder of mkdocs.yml.
SOURCE = "notebooks"


def notebook_files(root: Path, config: Any) -> list[File]:
    """A :class:`File` for each notebook of ``root/notebooks``, sorted by name."""
    return [File(f"{SOURCE}/{path.name}", src_dir=str(root), dest_dir=config["site_dir"],
                 use_directory_urls=config["use_directory_urls"])
            for path in sorted((root / SOURCE).glob("*.ipynb"))]


@event_priority(100)  # before mkdocs-jupyter (priority 0) wraps the notebook files
def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    """MkDocs event: add the notebooks; a page of the same name in docs/ is an error."""
    os.environ.setdefault("HYBRIDSCHED_NB_SIZE", "small")
    root = Path(config["config_file_path"]).resolve().parent
    for file in notebook_files(root, config):
        if files.get_file_from_path(file.src_uri) is not None:
            from mkdocs.exceptions import PluginError

            raise PluginError(f"docs/{file.src_uri} hides {SOURCE}/{Path(file.src_uri).name}")
        files.append(file)
    return files
