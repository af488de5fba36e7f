"""The documentation site: its hooks (fast) and the strict build itself (slow).

``mkdocs build --strict`` fails on a broken link or anchor, a missing API name or
a stale marker; the build test runs it as CI does and checks the pages the site is
for. The hooks that generate tables from the code are tested without a build.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
pytest.importorskip("griffe", reason="the docs extra is not installed (pip install -e '.[docs]')")

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "docs" / "hooks"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", HOOKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generated = _load("generated")
griffe_rst = _load("griffe_rst")


def _command_paths(command, path):
    """Every command path of the application, as the reference titles them."""
    yield path
    for name, child in getattr(command, "commands", {}).items():
        yield from _command_paths(child, f"{path} {name}")


# --- the marker hook -------------------------------------------------------------------------


def test_marker_is_replaced_and_the_rest_kept():
    page = "# Gang\n\n<!-- hook:methods gang -->\n\nAfter.\n"
    out = generated.expand(page)
    assert "<!-- hook:" not in out
    assert out.startswith("# Gang\n\n| method | kind |")
    assert out.endswith("\n\nAfter.\n")


def test_methods_table_lists_every_registered_method_with_its_options():
    from hybridsched.registry import method_defaults, methods

    table = generated.methods_markdown("gang")
    for name, method in methods("gang").items():
        assert f"| `{name}` |" in table
        for option in method_defaults(method.func):
            assert f"`{option}=" in table


def test_schema_table_lists_every_field_of_the_files():
    from hybridsched.catalogue import schema_model

    for solution in (False, True):
        schema = schema_model("pull", solution=solution).model_json_schema()
        text = generated.schema_markdown("pull", solution=solution)
        objects = [schema, *schema.get("$defs", {}).values()]
        for spec in objects:
            for field in spec.get("properties", {}):
                assert f"| `{field}` |" in text


def test_marker_inside_an_admonition_keeps_its_indentation():
    out = generated.expand('??? note "Files"\n\n    <!-- hook:schema gang -->\n')
    body = out.split("\n")[2:]
    assert body and all(line.startswith("    ") or not line for line in body)


def test_unknown_marker_fails_loudly():
    with pytest.raises(generated.MarkerError, match="unknown marker 'hook:nonsense'"):
        generated.expand("<!-- hook:nonsense gang -->", "families/gang.md")


def test_marker_without_argument_or_with_an_unknown_family_fails():
    with pytest.raises(generated.MarkerError, match="needs an argument"):
        generated.expand("<!-- hook:methods -->")
    with pytest.raises(generated.MarkerError, match="no-such-family"):
        generated.expand("<!-- hook:methods no-such-family -->")
    with pytest.raises(generated.MarkerError, match="no Python module"):
        generated.expand("<!-- hook:docstring hybridsched.no_such_module -->")


def test_scripts_own_generated_blocks_are_left_alone():
    page = "<!-- generated:paper-scale-gaps -->\n| a |\n<!-- /generated:paper-scale-gaps -->\n"
    assert generated.expand(page) == page


def test_docstring_marker_quotes_the_module_with_sections_as_bold_lines():
    text = generated.docstring_markdown("hybridsched.heuristics.gang.cplmt")
    assert text.startswith("CPLMT: cloud parallel scheduling")
    assert "\n:   Eq. 22" in text  # a reading became a definition list
    assert not re.search(r"^-{3,}$", text, re.MULTILINE)


def test_cli_reference_lists_every_command_and_option():
    import typer.main

    from hybridsched.cli import app

    root = typer.main.get_command(app)
    text = generated.cli_markdown("hybridsched")
    headings = set(re.findall(r"^#+ (hybridsched.*)$", text, re.MULTILINE))
    assert headings == set(_command_paths(root, "hybridsched"))
    assert "| `--time-limit <float>` |" in text
    assert "Exit codes: 0 success" in text


def test_benchmarks_are_listed_from_their_docstrings():
    text = generated.benchmarks_markdown("benchmarks")
    for script in (ROOT / "benchmarks").glob("bench_*.py"):
        assert f"### {script.name} " in text


# --- docstrings as Markdown ------------------------------------------------------------------


def test_roles_become_optional_cross_references():
    out = griffe_rst.to_markdown("See :func:`~hybridsched.registry.run_method` and :mod:`.sim`.")
    assert ('<autoref identifier="hybridsched.registry.run_method" optional>'
            "<code>run_method</code></autoref>") in out
    assert '<autoref identifier="sim" optional><code>sim</code></autoref>' in out


def test_definition_lists_tables_and_literal_blocks():
    text = ("Readings:\n\n``fit`` = ``\"edf\"``\n    The literal one.\n    Two lines.\n"
            "``scan``\n    Which cores.\n\nAfter::\n\n    code\n\n"
            "====  ====\nname  size\n====  ====\na     1\n====  ====\n")
    out = griffe_rst.to_markdown(text)
    assert "``fit`` = ``\"edf\"``\n:   The literal one.\n    Two lines." in out
    assert "\n\n``scan``\n:   Which cores." in out
    assert "After:\n\n    code" in out
    assert "| name | size |\n| --- | --- |\n| a | 1 |" in out


def test_column_layout_splits_term_and_definition():
    out = griffe_rst.to_markdown("``cost``    the price\n            of every result.\n")
    assert out.startswith("``cost``\n:   the price\n    of every result.")


def test_numpy_sections_are_left_to_griffe():
    text = ("Summary.\n\nParameters\n----------\nx : int\n    The value.\n\n"
            "Example\n-------\n>>> 1\n")
    out = griffe_rst.to_markdown(text)
    assert "x : int\n    The value." in out
    assert "Examples\n--------\n>>> 1" in out


# --- the notebooks hook ----------------------------------------------------------------------


def test_every_notebook_becomes_a_page():
    notebooks = _load("notebooks")
    files = notebooks.notebook_files(ROOT, {"site_dir": "/tmp/site", "use_directory_urls": True})
    assert sorted(f.src_uri for f in files) == sorted(
        f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb"))
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f.src_uri in nav for f in files)  # and each has its place in the nav


# --- the build -------------------------------------------------------------------------------


@pytest.mark.slow
def test_site_builds_in_strict_mode(tmp_path):
    """The whole site, notebooks executed, as CI builds it (about two minutes on 2 cores)."""
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]

    import typer.main

    from hybridsched.cli import app

    cli = (site / "reference" / "cli" / "index.html").read_text()
    for path in _command_paths(typer.main.get_command(app), "hybridsched"):
        assert f'id="{path.replace(" ", "-")}"' in cli, path
    api = (site / "reference" / "api" / "core" / "index.html").read_text()
    assert 'id="hybridsched.registry"' in api and 'id="hybridsched.registry.run_method"' in api
    for family in ("hybrid-deadline", "bot-sites", "gang", "malleable", "pull"):
        page = (site / "families" / family / "index.html").read_text()
        assert "hook:" not in page and "<table>" in page, family
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        page = (site / "notebooks" / notebook.stem / "index.html").read_text()
        assert "data:image/png" in page, notebook.name  # executed: its figures are there
    library = (site / "library" / "index.html").read_text()
    assert "The benchmark library" in library and "small-01.json" in library
