"""Every generated block of the docs equals its rendering from the committed result files.

``scripts/publish_numbers.py`` registers each block (``<!-- generated:NAME -->``
... ``<!-- /generated:NAME -->`` in ``docs/**/*.md`` and ``README.md``) with the
command that writes its files under ``results/`` and a renderer. A number
edited by hand in a block, a result file measured again without publishing,
a renderer changed without publishing, or a block without its registration
fails here (issue 33).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    name = "publish_numbers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


PUBLISH = _script()


def _published() -> list[tuple[Path, object, str]]:
    """Every (page, block found, page text) of the docs."""
    found = []
    for page in PUBLISH.pages():
        if page.exists():
            text = page.read_text()
            found += [(page, block, text) for block in PUBLISH.find_blocks(text, page)]
    return found


@pytest.mark.parametrize("name", sorted(PUBLISH.BLOCKS))
def test_the_published_block_is_the_rendering_of_its_results(name):
    block = PUBLISH.BLOCKS[name]
    places = [(page, found, text) for page, found, text in _published() if found.name == name]
    assert places, f"block {name} is registered but no page shows it"
    expected = block.markdown().strip()
    for page, found, text in places:
        assert PUBLISH.body(text, found) == expected, (
            f"{page.relative_to(ROOT)}:{found.line}: block {name} differs from its results: "
            "run python scripts/publish_numbers.py")


@pytest.mark.parametrize("name", sorted(PUBLISH.BLOCKS))
def test_the_block_s_result_files_exist_under_results_and_its_command_writes_them(name):
    block = PUBLISH.BLOCKS[name]
    for relative, path in zip(block.results, block.paths(), strict=True):
        assert relative.startswith("results/"), relative
        assert path.exists(), f"{relative} is missing: python scripts/publish_numbers.py " \
                              f"--run {name}"
        if path.is_dir():  # a campaign's result store
            assert (path / "_store.json").exists(), f"{relative} is not a result store"
        # The command beside the block names what it writes (the file or a folder of it
        # below results/).
        folders = [str(parent) for parent in Path(relative).parents
                   if len(parent.parts) > 1]
        assert relative in block.command or any(f in block.command for f in folders), (
            f"the command of block {name} does not name {relative} or its folder")
    for folder in block.scratch:
        assert not Path(folder).is_absolute() and ".." not in Path(folder).parts


def test_every_marker_of_the_docs_is_registered_and_paired():
    names = [found.name for _, found, _ in _published()]  # find_blocks raises on bad pairs
    assert names, "no generated block in the docs"
    unknown = sorted(set(names) - set(PUBLISH.BLOCKS))
    assert not unknown, f"blocks not registered in scripts/publish_numbers.py: {unknown}"


def test_no_page_keeps_a_block_in_the_old_marker_style_that_nothing_checks():
    # <!-- NAME:start --> blocks are only those another script writes and tests (the tour).
    for page in PUBLISH.pages():
        if page.exists():
            text = page.read_text()
            for match in PUBLISH.LEGACY.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                assert match.group(1) in PUBLISH.OTHER_WRITERS, (
                    f"{page.relative_to(ROOT)}:{line}: {match.group(0)} is the marker style "
                    "before issue 33, which nothing checks: use <!-- generated:NAME --> (or "
                    "delete a stale copy of a block that moved to docs/)")


def test_every_table_of_the_results_pages_is_generated():
    # Measured numbers in docs/results/ live in generated blocks: a table typed by hand there
    # is the stale kind of number issue 33 removed.
    pages = sorted((ROOT / "docs" / "results").glob("*.md"))
    assert pages
    for page in pages:
        text = page.read_text()
        inside = [(b.body_start, b.body_end) for b in PUBLISH.find_blocks(text, page)]
        offset = 0
        for number, line in enumerate(text.splitlines(keepends=True), 1):
            if line.startswith("|"):
                assert any(a <= offset < b for a, b in inside), (
                    f"{page.relative_to(ROOT)}:{number}: a table outside a generated block")
            offset += len(line)


def test_rewrite_replaces_only_the_named_blocks_bodies():
    text = ("intro\n<!-- generated:a -->\nold a\n<!-- /generated:a -->\nmiddle\n"
            "<!-- generated:b -->\nold b\n<!-- /generated:b -->\nend\n")
    new = PUBLISH.rewrite(text, {"a": "| new | a |"})
    assert new == text.replace("\nold a\n", "\n\n| new | a |\n\n")
    assert [PUBLISH.body(new, f) for f in PUBLISH.find_blocks(new)] == ["| new | a |", "old b"]
    assert PUBLISH.rewrite(new, {"a": "| new | a |"}) == new  # publishing twice changes nothing


@pytest.mark.parametrize("text, line, says", [
    ("<!-- generated:a -->\nbody\n", 2, "has no <!-- /generated:a -->"),
    ("body\n<!-- /generated:a -->\n", 3, "without its start marker"),
    ("<!-- generated:a -->\n<!-- generated:b -->\n<!-- /generated:b -->\n"
     "<!-- /generated:a -->\n", 2, "has no <!-- /generated:a -->"),
    ("<!-- generated:a -->\nx\n<!-- /generated:b -->\n", 2, "has no <!-- /generated:a -->"),
])
def test_markers_that_do_not_pair_up_are_refused_with_their_line(text, line, says):
    with pytest.raises(PUBLISH.MarkerError, match=says) as error:
        PUBLISH.find_blocks("line one\n" + text, "page.md")
    assert str(error.value).startswith(f"page.md:{line}: ")
