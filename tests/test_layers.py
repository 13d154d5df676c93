"""The code's layout: every module has a layer, and imports point one way, down.

Lowest first: the renderer (``clarifications``), plain building blocks
(``reviewapp.core``), accounted's tables, the app's own tables, the answer
rules (inputs → validation → the stored JSON and the app's log → what each
sync pass records), the read model, the screens' domain (the write, the
inbox, one item, the overview, the previews), the web layer, and on top the
entry points (settings, URLs, admin, management commands, development tools).

Imports are read from the source with ``ast`` (no Django, milliseconds): an
import inside a function counts as much as one at the top, and only imports
under ``if TYPE_CHECKING:`` are left out. Besides the direction the test
holds five more rules, each checked to fail on a made-up module below: no
import cycle, no private name used across modules, no late import outside
the AppConfig module, nothing below ``web`` imports ``django.http``,
``django.forms`` or ``django_htmx``, and nothing loads a migration at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("clarifications", "reviewapp", "devtools")
ANSWERS = "reviewapp.answers"

# Lowest first: (name, the modules it holds; a name ending in "." holds that package's every module).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("renderer", ("clarifications", "clarifications.")),
    ("core", ("reviewapp.core", "reviewapp.core.")),
    ("accounted's tables", ("reviewapp.bookkeeping", "reviewapp.bookkeeping.")),
    ("the app's tables", ("reviewapp.models",)),
    # What was entered, and the raw_answer text rules: plain data, no database.
    ("answer inputs", (f"{ANSWERS}.inputs", f"{ANSWERS}.evidence")),
    # The rules an answer must pass (and the date it is only warned about).
    ("answer rules", (f"{ANSWERS}.uploads", f"{ANSWERS}.validation", f"{ANSWERS}.dates")),
    # The JSON accounted stores, the app's log of it read back, earlier answers read for suggestions, and the
    # rows an upload adds (an item and document accounted has not read).
    (
        "answer stores",
        (
            f"{ANSWERS}.channel_context",
            f"{ANSWERS}.conversation",
            f"{ANSWERS}.log",
            f"{ANSWERS}.suggestions",
            f"{ANSWERS}.unread",
        ),
    ),
    # What each sync pass records besides the read model: the conversation marks, the overview's events.
    ("pass upkeep", (f"{ANSWERS}.resettle", "reviewapp.overview.events")),
    ("read model", ("reviewapp.readmodel", "reviewapp.readmodel.")),
    # The screens' domain: the write (which re-indexes through the read model) and the data fixes, the inbox,
    # one item, the overview, the previews. They may use one another; the cycle rule keeps that one-way.
    (
        "domain",
        (
            ANSWERS,
            f"{ANSWERS}.resend",
            f"{ANSWERS}.writing",
            f"{ANSWERS}.bulk",
            f"{ANSWERS}.context_fix",
            "reviewapp.inbox",
            "reviewapp.inbox.",
            "reviewapp.items",
            "reviewapp.items.",
            "reviewapp.overview",
            "reviewapp.overview.",
            "reviewapp.previews",
            "reviewapp.previews.",
        ),
    ),
    ("web", ("reviewapp.web", "reviewapp.web.")),
    (
        "entry points",
        (
            "reviewapp",
            "reviewapp.settings",
            "reviewapp.urls",
            "reviewapp.wsgi",
            "reviewapp.apps",
            "reviewapp.admin",
            "reviewapp.management",
            "reviewapp.management.",
            "reviewapp.dev",
            "reviewapp.dev.",
            "devtools",
            "devtools.",
        ),
    ),
]
# The only module whose functions may import (AppConfig.ready and the signal handlers it connects).
APP_CONFIG = "reviewapp.apps"
# The read model is used through its package (and its replication mode's module, whose setup and
# drain the management command and /healthz call): its other modules are its own business.
SURFACES = ("reviewapp.readmodel",)
PUBLIC_MODULES = frozenset({"reviewapp.readmodel.replication"})
WEB_ONLY = ("django.http", "django.forms", "django_htmx")


def layer_of(module: str) -> int | None:
    """The rank of ``module``'s layer; an exact name wins over a package prefix (``reviewapp.answers.bulk``)."""
    best: tuple[int, int] | None = None  # (length of the matching pattern, rank)
    for rank, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            matches = module.startswith(pattern) if pattern.endswith(".") else module == pattern
            if matches and (best is None or len(pattern) > best[0]):
                best = (len(pattern), rank)
    return None if best is None else best[1]


def layer_name(module: str) -> str:
    rank = layer_of(module)
    return "no layer" if rank is None else LAYERS[rank][0]


def modules_on_disk() -> dict[str, Path]:
    found = {}
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


@dataclass(frozen=True)
class Import:
    module: str  # the module imported (for ``from a import b``: a.b when that is a module, else a)
    name: str | None  # the name taken from it, when not a module
    late: bool  # inside a function
    line: int


def imports_of(module: str, source: str, known: set[str], *, is_package: bool = False) -> Iterator[Import]:
    """Every import in ``source`` (``module``'s text), relative ones resolved, TYPE_CHECKING left out."""

    def resolve(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.split(".")
        base = parts if is_package else parts[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])

    def visit(node: ast.AST, late: bool) -> Iterator[Import]:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, None, late, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                yield (
                    Import(child, None, late, node.lineno)
                    if child in known
                    else Import(base, alias.name, late, node.lineno)
                )
        inside = late or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child_node in ast.iter_child_nodes(node):
            yield from visit(child_node, inside)

    yield from visit(ast.parse(source), False)


def private_uses(module: str, source: str, known: set[str]) -> Iterator[str]:
    """``_name`` of another module: imported by name, or read as ``alias._name``."""
    tree = ast.parse(source)
    aliases = {}
    for found in imports_of(module, source, known):
        name = found.name or ""
        if found.module in known and found.module != module and name.startswith("_") and not name.startswith("__"):
            yield f"{module}:{found.line} takes {name} from {found.module}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                if child in known:
                    aliases[alias.asname or alias.name] = child
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            yield f"{module}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}"


def target_module(name: str, known: set[str]) -> str | None:
    """The project module an imported name lives in (``reviewapp.core.states.X`` → ``reviewapp.core.states``)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def problems(sources: dict[str, str], packages: set[str] | None = None) -> dict[str, list[str]]:
    """Every broken rule among ``sources`` (module → its text), by rule."""
    known = set(sources)
    packages = packages or set()
    found: dict[str, list[str]] = {
        "no layer": [],
        "upward": [],
        "cycle": [],
        "private": [],
        "late": [],
        "web below web": [],
        "migration": [],
        "surface": [],
    }
    graph: dict[str, set[str]] = {module: set() for module in sources}
    web = layer_of("reviewapp.web")
    for module, source in sources.items():
        rank = layer_of(module)
        if rank is None:
            found["no layer"].append(module)
        for imp in imports_of(module, source, known, is_package=module in packages):
            if imp.module.startswith("reviewapp.migrations") or (imp.name or "").startswith("migrations"):
                found["migration"].append(f"{module}:{imp.line} imports {imp.module}")
            full = f"{imp.module}.{imp.name}" if imp.name else imp.module
            if rank is not None and rank < web and full.startswith(WEB_ONLY):
                found["web below web"].append(f"{module}:{imp.line} imports {full}")
            target = target_module(imp.module, known)
            if target is None or target == module:
                continue
            if imp.late and module != APP_CONFIG:
                found["late"].append(f"{module}:{imp.line} imports {target} inside a function")
            graph[module].add(target)
            other = layer_of(target)
            if rank is not None and other is not None and other > rank:
                found["upward"].append(f"{module} ({layer_name(module)}) -> {target} ({layer_name(target)})")
            for surface in SURFACES:
                if target.startswith(surface + ".") and not module.startswith(surface) and target not in PUBLIC_MODULES:
                    found["surface"].append(f"{module} imports {target}, not the package {surface}")
        if "import_module" in source and "migrations" in source:
            found["migration"].append(f"{module} loads a module by name, with 'migrations' in its text")
        found["private"].extend(private_uses(module, source, known))
    found["cycle"] = cycles(graph)
    return found


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """The strongly connected groups of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[str] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == node:
                    break
            if len(group) > 1:
                groups.append(" <-> ".join(sorted(group)))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def the_project() -> tuple[dict[str, str], set[str]]:
    on_disk = modules_on_disk()
    sources = {module: path.read_text(encoding="utf-8") for module, path in on_disk.items()}
    packages = {module for module, path in on_disk.items() if path.name == "__init__.py"}
    return sources, packages


def test_the_project_keeps_every_rule() -> None:
    sources, packages = the_project()
    found = problems(sources, packages)
    assert found == {rule: [] for rule in found}


def test_the_reading_sees_the_imports_that_are_there() -> None:
    # So an empty reading cannot pass the test above.
    sources, _ = the_project()
    known = set(sources)
    writing = {imp.module for imp in imports_of(f"{ANSWERS}.writing", sources[f"{ANSWERS}.writing"], known)}
    assert "reviewapp.readmodel" in writing
    assert f"{ANSWERS}.channel_context" in writing
    assert len(sources) > 100


def test_few_modules_lie_flat_in_reviewapp() -> None:
    flat = sorted(path.name for path in (ROOT / "reviewapp").glob("*.py"))
    assert len(flat) <= 12, flat


# --- The checks fail on each kind of violation ------------------------------------------------------------

BASE = {
    "reviewapp": "",
    "reviewapp.core": "",
    "reviewapp.core.text": "import re\n",
    "reviewapp.models": "from reviewapp.core import text\n",
    "reviewapp.readmodel": "from reviewapp.readmodel.passes import poll\n",
    "reviewapp.readmodel.passes": "from reviewapp.models import x\ndef poll(): ...\n",
    "reviewapp.web": "",
    "reviewapp.web.views": "from django.http import HttpResponse\nfrom reviewapp import readmodel\n",
    "reviewapp.apps": "def ready():\n    from reviewapp.core import text\n",
}
PACKAGES = {"reviewapp", "reviewapp.core", "reviewapp.readmodel", "reviewapp.web"}


def broken(**changed: str) -> dict[str, list[str]]:
    sources = {**BASE, **{name.replace("__", "."): text for name, text in changed.items()}}
    return {rule: lines for rule, lines in problems(sources, PACKAGES).items() if lines}


def test_the_made_up_project_keeps_every_rule() -> None:
    assert broken() == {}


@pytest.mark.parametrize(
    ("changed", "rule", "line"),
    [
        (
            {"reviewapp__models": "from reviewapp.web import views\n"},
            "upward",
            "reviewapp.models (the app's tables) -> reviewapp.web.views (web)",
        ),
        ({"reviewapp__stray": "x = 1\n"}, "no layer", "reviewapp.stray"),
        (
            {
                "reviewapp__core__text": "from reviewapp.core import dates\n",
                "reviewapp__core__dates": "from reviewapp.core import text\n",
            },
            "cycle",
            "reviewapp.core.dates <-> reviewapp.core.text",
        ),
        (
            {"reviewapp__models": "from reviewapp.core.text import _squash\n"},
            "private",
            "reviewapp.models:1 takes _squash from reviewapp.core.text",
        ),
        (
            {"reviewapp__models": "from reviewapp.core import text\ntext._squash('a')\n"},
            "private",
            "reviewapp.models:2 reads reviewapp.core.text._squash",
        ),
        (
            {"reviewapp__models": "def f():\n    from reviewapp.core import text\n"},
            "late",
            "reviewapp.models:2 imports reviewapp.core.text inside a function",
        ),
        (
            {"reviewapp__models": "from django.http import QueryDict\n"},
            "web below web",
            "reviewapp.models:1 imports django.http.QueryDict",
        ),
        (
            {"reviewapp__core__text": "from django import forms\n"},
            "web below web",
            "reviewapp.core.text:1 imports django.forms",
        ),
        (
            {"reviewapp__models": "import importlib\nm = importlib.import_module('reviewapp.migrations.0002_x')\n"},
            "migration",
            "reviewapp.models loads a module by name, with 'migrations' in its text",
        ),
        (
            {"reviewapp__web__views": "from reviewapp.readmodel.passes import poll\n"},
            "surface",
            "reviewapp.web.views imports reviewapp.readmodel.passes, not the package reviewapp.readmodel",
        ),
    ],
)
def test_each_kind_of_violation_is_named(changed: dict[str, str], rule: str, line: str) -> None:
    found = broken(**changed)
    assert line in found.get(rule, []), found
