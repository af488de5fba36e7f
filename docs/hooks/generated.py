"""MkDocs hook: tables made from the code at build time, so that the guides cannot go stale.

A page asks for a table with an HTML comment on a line of its own::

    <!-- hook:methods gang -->          the registry's methods, their options and defaults
    <!-- hook:schema gang -->           the fields of the family's instance files
    <!-- hook:solution-schema gang -->  the fields of its solution files
    <!-- hook:objectives gang -->       the objectives a run can report
    <!-- hook:families all -->          every family, its objective and its methods' names
    <!-- hook:benchmarks benchmarks --> each script of a folder: its docstring, as a section
    <!-- hook:cli hybridsched -->       every command: its help, usage, arguments, options
    <!-- hook:docstring hybridsched.heuristics.gang.cplmt -->  a module's docstring

A module's docstring is read from its source (``ast``, nothing imported) and
rewritten as Markdown by ``griffe_rst.to_markdown``, as the API reference
renders it; its section titles become bold lines, so that they stay out of
the page's table of contents. The family guides quote the modules that hold
a paper's readings and the exact models this way: the page says what the code
says.

Each marker is replaced by Markdown built from the same Python objects the
command line reads (``hybridsched methods FAMILY --options``, ``hybridsched
schema FAMILY``). An unknown kind, or a family that does not exist, stops the
build with a message naming the page: a marker that silently stayed a comment
would be a stale page. (``<!-- generated:NAME -->`` blocks are another matter:
tables that scripts write into the Markdown itself, left as they are.)
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

#: ``<!-- hook:KIND ARGUMENT -->``; the kind and argument are checked when expanded.
#: The marker's indentation is kept on every line it becomes (inside an admonition, say).
MARKER = re.compile(r"^(?P<indent>[ \t]*)<!--\s*hook:(?P<kind>[\w-]+)(?:\s+(?P<arg>[^\s>]+))?"
                    r"\s*-->", re.MULTILINE)


class MarkerError(PluginError):
    """A marker this hook cannot expand (unknown kind, missing or unknown argument)."""


def _cell(text: Any) -> str:
    """``text`` made safe for one cell of a Markdown table."""
    return str(text).replace("|", r"\|").replace("\n", " ")


def methods_markdown(family: str) -> str:
    """The methods of ``family``: a summary table, then each method's options and defaults."""
    from hybridsched.registry import method_defaults, methods, shown_default

    found = methods(family)
    lines = ["| method | kind | what it does | options (default) |", "| --- | --- | --- | --- |"]
    for method in found.values():
        defaults = method_defaults(method.func)
        options = ", ".join(f"`{key}={shown_default(value)}`" for key, value in defaults.items())
        lines.append(f"| `{method.name}` | {'exact' if method.exact else 'heuristic'} | "
                     f"{_cell(method.description)} | {_cell(options) or '-'} |")
    notes = [(method.name, key, note) for method in found.values()
             for key, note in method.option_notes]
    if notes:  # the paper's words behind a reading, as `methods --options` prints them
        lines += ["", "The paper's words behind an option's default:", ""]
        lines += [f"- `{name}` `{key}`: {note}" for name, key, note in notes]
    return "\n".join(lines) + "\n"


def objectives_markdown(family: str) -> str:
    """The objective a run of ``family`` reports, and the ones ``--objective`` may choose."""
    from hybridsched.catalogue import get_family

    fam = get_family(family)
    text = f"Objective reported by default: {fam.objective_name}."
    if fam.objectives:
        text += " Selectable with `--objective`: " + ", ".join(f"`{o}`" for o in fam.objectives)
        text += "."
    return text + "\n"


def families_markdown(which: str) -> str:
    """Every family (``which`` is ``all``): its default objective and its methods by name.

    For the page ``families/index.md``: a family with a guide beside it links to it (a
    plug-in's family, installed where the site is built, is listed without a link).
    """
    from hybridsched.catalogue import family_names, get_family
    from hybridsched.errors import InputError
    from hybridsched.registry import methods

    if which != "all":
        raise InputError(f"expected 'all', got {which!r}")
    lines = ["| family | objective | methods |", "| --- | --- | --- |"]
    for name in family_names():
        names = ", ".join(f"`{m}`" for m in methods(name))
        guide = Path(__file__).resolve().parents[1] / "families" / f"{name}.md"
        shown = f"[{name}]({name}.md)" if guide.exists() else f"`{name}`"
        lines.append(f"| {shown} | {_cell(get_family(name).objective_name)} | {names} |")
    return "\n".join(lines) + "\n"


def _type(spec: dict[str, Any]) -> str:
    """A JSON Schema property's type in a few words (``number``, ``array of JobDoc``...)."""
    if "$ref" in spec:
        return spec["$ref"].rsplit("/", 1)[-1]
    if "const" in spec:
        return f"`{spec['const']!r}`".replace("'", '"')
    if "enum" in spec:
        return " \\| ".join(f'`"{v}"`' if isinstance(v, str) else f"`{v}`" for v in spec["enum"])
    for key in ("anyOf", "oneOf"):
        if key in spec:
            return " or ".join(_type(option) for option in spec[key])
    kind = spec.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = spec.get("items")
        if isinstance(items, dict) and items:
            return f"array of {_type(items)}"
        if "prefixItems" in spec:
            return "[" + ", ".join(_type(i) for i in spec["prefixItems"]) + "]"
        return "array"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"object of {_type(spec['additionalProperties'])}"
    return kind


#: JSON Schema keywords turned into a constraint, and how they read.
_CONSTRAINTS = (("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"),
                ("exclusiveMaximum", "< {}"), ("minLength", "length >= {}"),
                ("maxLength", "length <= {}"), ("minItems", ">= {} items"),
                ("maxItems", "<= {} items"), ("pattern", "matches `{}`"))


def _constraints(spec: dict[str, Any]) -> Iterator[str]:
    for key, template in _CONSTRAINTS:
        if key in spec:
            value = spec[key]
            yield template.format(f"{value:g}" if isinstance(value, float) else value)
    for key in ("anyOf", "oneOf"):
        for option in spec.get(key, []):
            yield from _constraints(option)
    if isinstance(spec.get("items"), dict):
        inner = list(_constraints(spec["items"]))
        if inner:
            yield "each " + ", ".join(inner)


def _object_table(name: str, spec: dict[str, Any]) -> list[str]:
    lines = [f"**`{name}`**" + (f": {spec['description'].strip()}" if spec.get("description")
                                 else ""), ""]
    properties = spec.get("properties", {})
    if not properties:
        return [*lines, "No fixed fields.", ""]
    required = set(spec.get("required", []))
    lines += ["| field | type | required / default | constraints |",
              "| --- | --- | --- | --- |"]
    for field, prop in properties.items():
        need = "required" if field in required else (
            f"default `{json.dumps(prop['default'])}`" if "default" in prop else "optional")
        extra = "; ".join(_constraints(prop))
        if prop.get("description"):
            extra = "; ".join(filter(None, [prop["description"].strip(), extra]))
        lines.append(f"| `{field}` | {_cell(_type(prop))} | {_cell(need)} | "
                     f"{_cell(extra) or '-'} |")
    if spec.get("additionalProperties") is False:
        lines.append("")
        lines.append("No other field is accepted.")
    return [*lines, ""]


def schema_markdown(family: str, *, solution: bool = False) -> str:
    """Field tables of ``family``'s instance (or solution) files, from its pydantic models."""
    from hybridsched.catalogue import schema_model

    schema = schema_model(family, solution=solution).model_json_schema()
    definitions = schema.get("$defs", {})
    lines = _object_table(schema.get("title", "document"), schema)
    for name, spec in definitions.items():
        lines += _object_table(name, spec)
    return "\n".join(lines)


def _to_markdown() -> Callable[[str], str]:
    """``griffe_rst.to_markdown``, from beside this file (hooks are loaded by path)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from griffe_rst import to_markdown

    return to_markdown


#: A numpy-style section title and its underline.
SECTION = re.compile(r"^(?P<title>\S.*)\n-{3,}[ \t]*$", re.MULTILINE)


def docstring_markdown(module: str) -> str:
    """The docstring of ``module`` (a dotted name) as Markdown, its sections as bold lines."""
    from hybridsched.errors import InputError

    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        spec = None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise InputError(f"no Python module {module!r}")
    text = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8")))
    if not text:
        raise InputError(f"module {module!r} has no docstring")
    return SECTION.sub(lambda m: f"**{m['title'].strip()}**", _to_markdown()(text)) + "\n"


def benchmarks_markdown(folder: str) -> str:
    """The scripts of ``folder`` (from the repository's root): a table, then each docstring.

    Each script gets a section under a heading of its name; ``_*.py`` helpers are left out.
    """
    from hybridsched.errors import InputError

    root = Path(__file__).resolve().parents[2]
    scripts = sorted(p for p in (root / folder).glob("*.py") if not p.name.startswith("_"))
    if not scripts:
        raise InputError(f"no Python scripts in {folder!r}")
    table = ["| script | what it measures |", "| --- | --- |"]
    sections = []
    for script in scripts:
        text = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
        if not text:
            raise InputError(f"{folder}/{script.name} has no docstring")
        summary, _, body = text.partition("\n")
        table.append(f"| [`{script.name}`](#{script.stem.replace('_', '-')}) | "
                     f"{_cell(summary.strip())} |")
        sections += [f"### {script.name} {{#{script.stem.replace('_', '-')}}}", "",
                     f"**{summary.strip()}**", "", _to_markdown()(body.strip()), ""]
    return "\n".join([*table, "", *sections])


def _text(text: str) -> str:
    """Help text as Markdown: ``<`` escaped (metavars such as ``<path>`` are not tags)."""
    return text.replace("\b\n", "").replace("<", "&lt;")


def _command_sections(command: Any, ctx: Any, level: int) -> Iterator[str]:
    """One command's section (heading, help, usage, arguments and options), then its own."""
    yield f"{'#' * level} {ctx.command_path}"
    yield ""
    if command.help:
        yield _text(command.help.strip())
        yield ""
    yield "```text"
    yield ctx.get_usage()
    yield "```"
    yield ""
    records = [p.get_help_record(ctx) for p in command.get_params(ctx)]
    records = [r for r in records if r is not None]
    if records:
        yield "| argument or option | description |"
        yield "| --- | --- |"
        for names, help_text in records:
            yield f"| `{_cell(names)}` | {_cell(_text(help_text)) or '-'} |"
        yield ""
    sub = getattr(command, "commands", None)
    if sub:
        for name in command.list_commands(ctx):
            child = command.get_command(ctx, name)
            yield from _command_sections(child, type(ctx)(child, info_name=name, parent=ctx),
                                         level + 1)


def cli_markdown(prog: str) -> str:
    """The command line's reference, from the typer application as ``--help`` reads it.

    Each command's help, usage and the help record of every argument and option
    (what ``hybridsched COMMAND --help`` prints, default and range included), in
    the order ``--help`` lists them; the exit codes (every command's epilog) once.
    """
    import typer.main

    from hybridsched.cli import app
    from hybridsched.cli.clickcompat import Context

    root = typer.main.get_command(app)
    ctx = Context(root, info_name=prog)
    lines = list(_command_sections(root, ctx, 2))
    if root.epilog:  # after the program's own help: heading, blank, help, blank
        at = 4 if root.help else 2
        lines[at:at] = [_text(root.epilog), ""]
    return "\n".join(lines) + "\n"


#: Marker kind -> the function that expands it (from a family's name; ``docstring``: a module's).
GENERATORS: dict[str, Callable[[str], str]] = {
    "methods": methods_markdown,
    "benchmarks": benchmarks_markdown,
    "cli": cli_markdown,
    "docstring": docstring_markdown,
    "families": families_markdown,
    "objectives": objectives_markdown,
    "schema": schema_markdown,
    "solution-schema": lambda family: schema_markdown(family, solution=True),
}


def expand(markdown: str, where: str = "page") -> str:
    """``markdown`` with every ``hook:`` marker replaced; a bad marker raises MarkerError."""
    from hybridsched.errors import InputError

    def replace(match: re.Match[str]) -> str:
        kind, arg = match["kind"], match["arg"]
        generator = GENERATORS.get(kind)
        if generator is None:
            raise MarkerError(f"{where}: unknown marker 'hook:{kind}' (known: "
                              f"{', '.join(sorted(GENERATORS))})")
        if not arg:
            raise MarkerError(f"{where}: marker 'hook:{kind}' needs an argument (a family or "
                              "a module)")
        try:
            text = generator(arg)
        except InputError as exc:
            raise MarkerError(f"{where}: marker 'hook:{kind} {arg}': {exc}") from exc
        indent = match["indent"]
        return "\n".join(indent + line if line else "" for line in text.rstrip("\n").split("\n"))

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """MkDocs event: expand the page's markers."""
    return expand(markdown, page.file.src_uri)
