"""``reviewapp/answers`` flows one way: inputs → validation → the stored JSON → the write, view models on top.

Every module of the package has a layer and imports only its own layer and
those below it, so nothing lower calls back up. The read model's sync sits
between the stores and the write: it reads the app's log (``log``) and runs
the re-settling (``resettle``) on each poll, and the write re-indexes
through it after committing. Imports are read from the source with ``ast``:
no Django, milliseconds, and an import inside a function counts as much as
one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = "reviewapp.answers"

# Lowest first. A new module of reviewapp/answers must be placed here (test_every_module_has_a_layer).
LAYERS: list[tuple[str, frozenset[str]]] = [
    # What was entered, and the raw_answer text rules: plain data, no database.
    ("inputs", frozenset({f"{ANSWERS}.inputs", f"{ANSWERS}.evidence"})),
    # The rules an answer must pass (and the date it is only warned about).
    ("validation", frozenset({f"{ANSWERS}.uploads", f"{ANSWERS}.validation", f"{ANSWERS}.dates"})),
    # The JSON accounted stores (the item's channel_context, the conversation's marks), the app's log of
    # it read back, and earlier answers read for suggestions.
    (
        "stores",
        frozenset(
            {f"{ANSWERS}.channel_context", f"{ANSWERS}.conversation", f"{ANSWERS}.log", f"{ANSWERS}.suggestions"}
        ),
    ),
    # The sync's upkeep of the conversation marks, and the one-off mend of rows written under an old rule.
    ("upkeep", frozenset({f"{ANSWERS}.resettle", f"{ANSWERS}.context_fix"})),
    # The read model: reads the log, runs the upkeep; the write indexes through it.
    ("read model", frozenset({"reviewapp.readmodel.sync", "reviewapp.readmodel.bulk"})),
    # The write: one answer (with a resend's new item or upload), or one for several items.
    # (unread: an upload written as accounted writes one it does not extract, and the fix of old ones.)
    ("write", frozenset({f"{ANSWERS}.unread", f"{ANSWERS}.resend", f"{ANSWERS}.writing", f"{ANSWERS}.bulk"})),
    # What the screens show.
    (
        "view models",
        frozenset(
            {
                f"{ANSWERS}.view_models.preview",
                f"{ANSWERS}.view_models.panel",
                f"{ANSWERS}.view_models.outcome",
                f"{ANSWERS}.view_models.unread",
            }
        ),
    ),
]
LAYER_OF = {module: rank for rank, (_, modules) in enumerate(LAYERS) for module in modules}
PACKAGES = frozenset({ANSWERS, f"{ANSWERS}.view_models"})


def module_path(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def imported(tree: ast.Module) -> list[tuple[str, bool]]:
    """Every ``reviewapp`` module ``tree`` imports at run time, and whether the import sits inside a function.

    ``from reviewapp.answers import evidence`` names the module ``reviewapp.answers.evidence``; imports
    under ``if TYPE_CHECKING:`` are for type hints only and left out.
    """
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, in_function) for alias in node.names if alias.name.startswith("reviewapp"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reviewapp"):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.append((child if child in LAYER_OF else node.module, in_function))
        inside = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child_node in ast.iter_child_nodes(node):
            visit(child_node, inside)

    visit(tree, False)
    return found


def parsed(module: str, source: str | None = None) -> list[tuple[str, bool]]:
    text = module_path(module).read_text(encoding="utf-8") if source is None else source
    return imported(ast.parse(text))


def upward_imports(module: str, imports: list[tuple[str, bool]]) -> list[str]:
    """``module`` importing a module of a higher layer, written as ``importer (layer) -> imported (layer)``."""
    own = LAYER_OF[module]
    return [
        f"{module} ({LAYERS[own][0]}) -> {name} ({LAYERS[LAYER_OF[name]][0]})"
        for name, _ in imports
        if name in LAYER_OF and LAYER_OF[name] > own
    ]


def edges() -> dict[str, set[str]]:
    """Each layered module → the layered modules it imports."""
    return {module: {name for name, _ in parsed(module) if name in LAYER_OF} for module in LAYER_OF}


def test_every_module_of_the_package_has_a_layer() -> None:
    on_disk = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "reviewapp" / "answers").rglob("*.py")
        if path.name != "__init__.py"
    }
    assert on_disk == {module for module in LAYER_OF if module.startswith(ANSWERS)}


def test_no_module_imports_a_higher_layer() -> None:
    graph = edges()
    # The reading sees the imports that are there (so an empty reading cannot pass):
    assert f"{ANSWERS}.channel_context" in graph[f"{ANSWERS}.writing"]
    assert "reviewapp.readmodel.sync" in graph[f"{ANSWERS}.writing"]
    assert f"{ANSWERS}.log" in graph["reviewapp.readmodel.sync"]
    assert f"{ANSWERS}.view_models.panel" in graph[f"{ANSWERS}.view_models.outcome"]
    assert [line for module in LAYER_OF for line in upward_imports(module, parsed(module))] == []


def test_the_check_names_an_import_back_up() -> None:
    source = "from reviewapp.web.view_models.panel import AnswerPanel\nfrom reviewapp import sync\n"
    assert upward_imports(f"{ANSWERS}.channel_context", parsed(f"{ANSWERS}.channel_context", source)) == [
        f"{ANSWERS}.channel_context (stores) -> {ANSWERS}.view_models.panel (view models)",
        f"{ANSWERS}.channel_context (stores) -> reviewapp.readmodel.sync (read model)",
    ]


def test_the_modules_import_one_another_without_a_cycle() -> None:
    # sync and sync_bulk are one read model (each pass of one calls the other): one node here.
    one = {"reviewapp.readmodel.bulk": "reviewapp.readmodel.sync"}
    graph: dict[str, set[str]] = {}
    for module, targets in edges().items():
        node = one.get(module, module)
        graph.setdefault(node, set()).update(one.get(target, target) for target in targets)
    graph = {module: targets - {module} for module, targets in graph.items()}
    order: list[str] = []
    while graph:
        ready = sorted(module for module, targets in graph.items() if not targets - set(order))
        assert ready, f"an import cycle among {sorted(graph)}"
        order.extend(ready)
        for module in ready:
            del graph[module]
    assert order.index(f"{ANSWERS}.log") < order.index("reviewapp.readmodel.sync") < order.index(f"{ANSWERS}.writing")


def test_the_answers_package_is_imported_at_the_top_of_every_module() -> None:
    """A late import of the package (inside a function) is how a cycle hides; none is left."""
    late = []
    for path in sorted((ROOT / "reviewapp").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for name, in_function in parsed(module, path.read_text(encoding="utf-8")):
            inside_answers = module.startswith(ANSWERS) and name.startswith("reviewapp")
            if in_function and (name.startswith(ANSWERS) or inside_answers):
                late.append(f"{module} -> {name}")
    assert late == []
    # The modules that imported it late before (to dodge the sync and item page cycles) import it now:
    assert (f"{ANSWERS}.log", False) in parsed("reviewapp.readmodel.sync")
    assert (f"{ANSWERS}.resettle", False) in parsed("reviewapp.readmodel.sync")
    assert (f"{ANSWERS}.log", False) in parsed("reviewapp.items.history")
