"""The package's layering (ARCHITECTURE.md) holds: imports run downward only, no circles.

Read from the source with ``ast``: every ``import`` counts, also those inside
functions (a lazy import is still a dependency a reader must follow), and the
names a package exports lazily (its ``_EXPORTS`` table) count as imports of
the package. Nothing is imported to check this.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hybridsched"

FAMILIES = ("bot_sites", "gang", "hybrid_deadline", "malleable", "pull")

#: The floors from the ground up; a module may import modules of its floor or below.
FLOORS = ("ground", "domain", "algorithms", "registration", "plots", "experiments", "interface")

#: Ground modules: the contract, the catalogue and registry (which find plug-ins through
#: entry points and import none), results, and process-wide services.
GROUND = {"errors", "family", "catalogue", "registry", "result", "interrupt", "budget", "version",
          "stdio", "progress", "provenance", "readings", "lazy", "backends"}

#: Every family's folder holds these modules (ARCHITECTURE.md, "one shape for every family").
FAMILY_FILES = {"__init__.py", "instance.py", "solution.py", "schema.py", "files.py",
                "checker.py", "generator.py", "family.py", "methods.py", "adapters.py"}

#: Above this many lines a module says at its top why it is long.
LONG_MODULE = 550
LONG_REASON = re.compile(r"[Ww]hy this module is long")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def floor_of(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "interface"  # the package's public names re-export every floor
    head = parts[0]
    if head in GROUND and len(parts) == 1:
        return "ground"
    if head in ("cli", "__main__"):
        return "interface"
    if head in ("experiments", "plots"):
        return head
    if head in ("sim", "heuristics", "models"):
        return "algorithms"
    if head in FAMILIES and len(parts) > 1 and parts[1] in ("methods", "adapters"):
        return "registration"
    if head in (*FAMILIES, "io", "storage"):
        return "domain"
    raise AssertionError(f"{module}: on no floor; place it in FLOORS (tests/test_architecture.py)")


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


KNOWN = modules()


def resolve(base: str, name: str) -> str:
    """``base.name`` when that is a module of the package, else ``base``."""
    candidate = f"{base}.{name}"
    return candidate if candidate in KNOWN else base


def imports_of(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for every import in ``path``."""
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names
                      if alias.name.startswith("hybridsched")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if source.startswith("hybridsched"):
                for alias in node.names:
                    found.append((resolve(source, alias.name), [alias.name], node.lineno))
        elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "_EXPORTS"
                for target in node.targets) and isinstance(node.value, ast.Dict):
            found += [(value.value, [], node.lineno) for value in node.value.values
                      if isinstance(value, ast.Constant)]
    return [(target, names, line) for target, names, line in found
            if target != module and target in KNOWN]


GRAPH = {module: imports_of(module, path) for module, path in KNOWN.items()}


def test_every_module_has_a_floor():
    assert {module: floor_of(module) for module in KNOWN}


def test_imports_run_downward_only():
    upward = [f"{KNOWN[module].relative_to(PACKAGE.parent)}:{line}: {module} "
              f"({floor_of(module)}) imports {target} ({floor_of(target)})"
              for module, found in GRAPH.items() for target, _, line in found
              if FLOORS.index(floor_of(target)) > FLOORS.index(floor_of(module))]
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def test_no_import_circles():
    circles = strongly_connected({m: {t for t, _, _ in found} for m, found in GRAPH.items()})
    named = [" -> ".join(sorted(circle)) for circle in circles if len(circle) > 1]
    assert not named, "import circles:\n" + "\n".join(named)


def test_the_contract_imports_only_errors():
    assert {target for target, _, _ in GRAPH["hybridsched.family"]} <= {"hybridsched.errors"}


def test_the_catalogue_and_registry_import_no_family():
    for module in ("hybridsched.catalogue", "hybridsched.registry"):
        assert {floor_of(t) for t, _, _ in GRAPH[module]} <= {"ground"}, module


def test_no_private_name_crosses_modules():
    private = [f"{module} takes {name} from {target}"
               for module, found in GRAPH.items() for target, names, _ in found
               for name in names if name.startswith("_") and not name.startswith("__")]
    assert not private, "\n".join(private)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_folder_has_the_same_files(family):
    present = {path.name for path in (PACKAGE / family).glob("*.py")}
    assert present >= FAMILY_FILES, sorted(FAMILY_FILES - present)


def test_long_modules_say_why():
    long = [f"{path.relative_to(PACKAGE.parent)}: {lines} lines"
            for path in KNOWN.values()
            if (lines := len(path.read_text().splitlines())) > LONG_MODULE
            and not LONG_REASON.search(path.read_text()[:3000])]
    assert not long, "modules above ~500 lines with no reason at their top:\n" + "\n".join(long)


def test_the_check_sees_an_upward_import(tmp_path):
    """The check can fail: a domain module importing a heuristic is upward."""
    source = tmp_path / "checker.py"
    source.write_text("from hybridsched.heuristics import cdf\n")
    found = imports_of("hybridsched.gang.checker", source)
    assert found == [("hybridsched.heuristics.cdf", ["cdf"], 1)]
    assert FLOORS.index(floor_of(found[0][0])) > FLOORS.index(floor_of("hybridsched.gang.checker"))
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}, {"c"}]


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components (iterative), in order of completion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components
