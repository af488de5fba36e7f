"""The package's layering (ARCHITECTURE.md) holds: imports run downward only, no circles.

One folder per family: a family's domain, models and heuristics import nothing of
another family; models/ and heuristics/ hold one folder per family (named after
it, so no module inside repeats the family) and one shared folder each.

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
#: "shared" holds what every family's algorithms build on (the SimPy layer, the solver
#: drivers, heuristics used by several families); "algorithms" holds one folder per family.
FLOORS = ("ground", "domain", "shared", "algorithms", "registration", "plots", "experiments",
          "interface")

#: The folders of models/ and heuristics/ that belong to no family.
SHARED_FOLDERS = {"models": "solvers", "heuristics": "common"}

#: Name prefixes that stand for a family: a module so named belongs in the family's folder.
FAMILY_PREFIXES = (*FAMILIES, "bnp", "bot", "hybrid", "deadline", "sites")

#: Ground modules: the contract, the catalogue and registry (which find plug-ins through
#: entry points and import none), results, and process-wide services.
GROUND = {"errors", "family", "catalogue", "registry", "result", "interrupt", "budget", "version",
          "stdio", "progress", "provenance", "readings", "lazy", "backends",
          "memory", "bound_proof", "seeding"}

#: Every family's folder holds these modules (ARCHITECTURE.md, "one shape for every family").
FAMILY_FILES = {"__init__.py", "instance.py", "solution.py", "schema.py", "files.py",
                "checker.py", "bounds.py", "generator.py", "family.py", "methods.py",
                "adapters.py"}

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
    if head == "sim" or (head in SHARED_FOLDERS and len(parts) > 1
                         and parts[1] == SHARED_FOLDERS[head]):
        return "shared"
    if head in SHARED_FOLDERS:
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


def family_of(module: str) -> str | None:
    """The family of a module: its domain folder, or its folder in models/ or heuristics/."""
    parts = module.split(".")[1:]
    if parts and parts[0] in FAMILIES:
        return parts[0]
    if len(parts) > 1 and parts[0] in SHARED_FOLDERS and parts[1] in FAMILIES:
        return parts[1]
    return None


def cross_family_imports(module: str, targets: list[str]) -> list[str]:
    """What a family's module imports of another family (domain, models or heuristics)."""
    own = family_of(module)
    return [target for target in targets
            if own is not None and family_of(target) not in (None, own)]


def test_no_family_imports_another_family():
    crossing = [f"{KNOWN[module].relative_to(PACKAGE.parent)}:{line}: {module} imports {target}"
                for module, found in GRAPH.items() for target, _, line in found
                if cross_family_imports(module, [target])]
    assert not crossing, "imports across families:\n" + "\n".join(crossing)


def misplaced(kind: str, relative: Path) -> list[str]:
    """Why a module at ``relative`` inside models/ or heuristics/ (``kind``) is misplaced."""
    shared = SHARED_FOLDERS[kind]
    if relative.parts == ("__init__.py",):
        return []
    found = []
    if len(relative.parts) != 2 or relative.parts[0] not in (*FAMILIES, shared):
        found.append(f"{kind}/{relative}: not in a family's folder nor in {shared}/")
    if relative.stem in FAMILIES or relative.stem.split("_")[0] in FAMILY_PREFIXES:
        found.append(f"{kind}/{relative}: named after a family (its folder says which)")
    return found


def test_models_and_heuristics_are_one_folder_per_family():
    """No loose module, no module named after a family, no folder but families' and shared."""
    found = [reason for kind in SHARED_FOLDERS
             for path in sorted((PACKAGE / kind).rglob("*.py"))
             for reason in misplaced(kind, path.relative_to(PACKAGE / kind))]
    assert not found, "\n".join(found)


def test_the_check_sees_a_misplaced_module():
    assert misplaced("models", Path("gang/cpsat_build.py")) == []
    assert misplaced("models", Path("solvers/highs.py")) == []
    assert misplaced("models", Path("gang_cpsat_build.py"))  # a prefix, not a folder
    assert misplaced("heuristics", Path("gang/gang_baselines.py"))  # the family said twice
    assert misplaced("models", Path("bnp_cuts.py"))
    assert misplaced("heuristics", Path("cdf.py"))  # loose


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_has_the_same_folders(family):
    folders = [PACKAGE / family, PACKAGE / "models" / family, PACKAGE / "heuristics" / family,
               PACKAGE.parent / "tests" / family,
               PACKAGE.parent / "instances" / family.replace("_", "-")]
    assert [str(f.relative_to(PACKAGE.parent)) for f in folders if not f.is_dir()] == []


def test_the_check_sees_a_cross_family_import(tmp_path):
    """The family rule can fail: gang's CP-SAT model importing a bot-sites model or heuristic."""
    source = tmp_path / "cpsat.py"
    source.write_text("from hybridsched.models.bot_sites.dag import blocks\n"
                      "from hybridsched.heuristics.bot_sites import gmo\n"
                      "from hybridsched.bot_sites.instance import Instance\n"
                      "from hybridsched.models.solvers.cpsat import solve\n"
                      "from hybridsched.gang.instance import Instance as GangInstance\n")
    found = [target for target, _, _ in imports_of("hybridsched.models.gang.cpsat", source)]
    assert cross_family_imports("hybridsched.models.gang.cpsat", found) == [
        "hybridsched.models.bot_sites.dag", "hybridsched.heuristics.bot_sites.gmo",
        "hybridsched.bot_sites.instance"]
    # the shared floor, the experiments and the command line may name every family
    assert cross_family_imports("hybridsched.experiments.compare", found) == []
    assert family_of("hybridsched.models.solvers.cpsat") is None


def test_long_modules_say_why():
    long = [f"{path.relative_to(PACKAGE.parent)}: {lines} lines"
            for path in KNOWN.values()
            if (lines := len(path.read_text().splitlines())) > LONG_MODULE
            and not LONG_REASON.search(path.read_text()[:3000])]
    assert not long, "modules above ~500 lines with no reason at their top:\n" + "\n".join(long)


def test_the_check_sees_an_upward_import(tmp_path):
    """The check can fail: a domain module importing a heuristic is upward."""
    source = tmp_path / "checker.py"
    source.write_text("from hybridsched.heuristics.hybrid_deadline import cdf\n")
    found = imports_of("hybridsched.gang.checker", source)
    assert found == [("hybridsched.heuristics.hybrid_deadline.cdf", ["cdf"], 1)]
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
