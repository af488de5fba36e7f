"""Griffe extension: the reStructuredText habits of our docstrings, read as Markdown.

The package's docstrings are numpy style, written for readers of the source:
Sphinx roles (``:func:`~hybridsched.registry.run_method```), definition
lists (a term line, its definition indented below it: every paper reading is
documented so) and ``::`` before a literal block. mkdocstrings renders
docstrings as Markdown, where these would run together into one paragraph or
show their markup. Before parsing, this extension rewrites them outside the
sections griffe parses itself (Parameters, Returns, ...):

* a role becomes a cross-reference that links where the target is documented
  on the site and is plain code elsewhere (autorefs' optional references);
* a definition list becomes a Markdown one (the ``def_list`` extension);
* ``text::`` becomes ``text:`` (the indented block after it is already code);
* a bullet list gets the blank line Markdown needs before it;
* a simple table (columns between lines of ``====``) becomes a Markdown table;
* a section titled ``Example`` is read as numpy's ``Examples``.

Loaded by mkdocstrings (``extensions`` in mkdocs.yml); :func:`to_markdown` is
the whole conversion, tested in ``tests/test_docs.py``.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

#: ``:role:`target``` or ``:role:`~a.b.target``` or ``:role:`title <target>```.
ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj|const):`(?P<body>[^`]+)`")

#: Sections griffe's numpy parser reads itself: left as they are (roles aside).
NUMPY_SECTIONS = {"deprecated", "parameters", "other parameters", "type parameters", "returns",
                  "yields", "receives", "raises", "warns", "examples", "attributes",
                  "functions", "methods", "classes", "type aliases", "modules"}

ITEM = re.compile(r"\s*(?:[*+-]|\d+[.)])\s")
TABLE_RULE = re.compile(r"\s*=+(?: +=+)+\s*$")
FENCE = re.compile(r"\s*(```|~~~)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_dashes(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) == {"-"}


def _role(match: re.Match[str]) -> str:
    body = match["body"].strip()
    title_target = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", body)
    if title_target:
        title, target = title_target["title"], title_target["target"]
    else:
        target = body.lstrip("~")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target.lstrip(".")
    return (f'<autoref identifier="{target.lstrip(".")}" optional>'
            f"<code>{title}</code></autoref>")


def roles(text: str) -> str:
    """Sphinx roles in ``text`` as optional autorefs cross-references."""
    return ROLE.sub(_role, text)


def _table(lines: list[str], i: int, out: list[str]) -> int:
    """Write the simple table whose top rule is ``lines[i]``; return the index after it."""
    rule = lines[i]
    spans = [m.span() for m in re.finditer(r"=+", rule)]
    rows, rules, j = [], 1, i + 1
    while j < len(lines) and rules < 3:
        if TABLE_RULE.match(lines[j]):
            rules += 1
        elif lines[j].strip():
            cells = [lines[j][a:(spans[n + 1][0] if n + 1 < len(spans) else None)].strip()
                     for n, (a, _) in enumerate(spans)]
            rows.append("| " + " | ".join(cells) + " |")
        j += 1
    if out and out[-1].strip():
        out.append("")
    out += [roles(rows[0]), "| " + " | ".join("---" for _ in spans) + " |",
            *(roles(r) for r in rows[1:]), ""]
    return j


def _starts_definition(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` is a term whose definition is indented on the next line."""
    line = lines[i]
    if not line.strip() or ITEM.match(line) or line.rstrip().endswith("::"):
        return False
    if i + 1 >= len(lines) or not lines[i + 1].strip() or _is_dashes(lines[i + 1]):
        return False
    return _indent(lines[i + 1]) >= _indent(line) + 2


def _definition(lines: list[str], i: int, out: list[str]) -> int:
    """Write the definition list item starting at ``lines[i]``; return the next line's index."""
    base = _indent(lines[i])
    pad = " " * base
    if out and out[-1].strip():
        out.append("")
    term, body = lines[i], []
    # A column layout (``makespan``    text, continued under the text): term and text split.
    column = re.match(r"(\s*\S.*?)\s{2,}(\S.*)$", term)
    if column and _indent(lines[i + 1]) == len(term) - len(column[2]):
        term, body = column[1], [" " * _indent(lines[i + 1]) + column[2]]
    out.append(term)
    j = i + 1
    while j < len(lines):
        line = lines[j]
        if line.strip() and _indent(line) <= base:
            break
        if not line.strip():  # a blank line: the definition goes on if indented text follows
            k = j
            while k < len(lines) and not lines[k].strip():
                k += 1
            if k == len(lines) or _indent(lines[k]) <= base:
                break
        body.append(line)
        j += 1
    depth = min(_indent(b) for b in body if b.strip())
    for n, line in enumerate(body):
        text = line[depth:] if line.strip() else ""
        out.append(pad + (":   " if n == 0 else "    ") + text if text else "")
    out.append("")
    return j


def to_markdown(text: str) -> str:
    """A docstring's reStructuredText habits rewritten as Markdown (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    in_numpy = fenced = False
    literal_above: int | None = None  # indent of a ``::`` line whose block follows
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            fenced = not fenced
        if fenced or FENCE.match(line):
            out.append(line)
            i += 1
            continue
        if literal_above is not None:
            if not line.strip() or _indent(line) > literal_above:
                out.append(line)
                i += 1
                continue
            literal_above = None
        if line.strip() and i + 1 < len(lines) and _is_dashes(lines[i + 1]):
            title = line.strip()
            if title.lower() == "example":
                title = "Examples"
            in_numpy = title.lower() in NUMPY_SECTIONS
            out += [title, "-" * len(title)]
            i += 2
            continue
        if in_numpy:
            out.append(roles(line))
            i += 1
            continue
        if line.rstrip().endswith("::"):
            literal_above = _indent(line)
            stripped = line.rstrip()[:-2].rstrip()
            out.append(roles(stripped) + ":" if stripped.strip() else "")
            i += 1
            continue
        if TABLE_RULE.match(line):
            i = _table(lines, i, out)
            continue
        if _starts_definition(lines, i):
            start = len(out)
            i = _definition(lines, i, out)
            out[start:] = [roles(x) for x in out[start:]]
            continue
        if ITEM.match(line) and out and out[-1].strip() and not ITEM.match(out[-1]) \
                and _indent(out[-1]) <= _indent(line):
            out.append("")
        out.append(roles(line))
        i += 1
    return "\n".join(out)


class RstHabits(Extension):
    """Rewrite each docstring as it is loaded (:func:`to_markdown`)."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Griffe event: an object was created; its docstring is parsed later, on rendering."""
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
