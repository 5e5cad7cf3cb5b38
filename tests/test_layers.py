"""The layers import one way: components only present and collect (STYLE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parent.parent / "bot"
VIEWS = BOT / "views"
COGS = BOT / "cogs"


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports by name (``import x.y`` and ``from x.y import z``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_components_reach_neither_the_storage_nor_the_flow_layer() -> None:
    """No view imports bot.storage (its errors go through the services and flow) or bot.flow
    (reached as ``bot.flow`` at run time)."""
    reaching = {
        f"{path.name}: {module}"
        for path in sorted(VIEWS.glob("*.py"))
        for module in _imported_modules(path)
        if module.split(".")[:2] in (["bot", "storage"], ["bot", "flow"])
    }
    assert reaching == set()


def test_commands_reach_not_the_storage_layer() -> None:
    """No cog imports bot.storage: cogs parse, call a service or the flow, and reply; storage
    errors are the flow's and the error handler's to deal with."""
    reaching = {
        f"{path.name}: {module}"
        for path in sorted(COGS.glob("*.py"))
        for module in _imported_modules(path)
        if module.split(".")[:2] == ["bot", "storage"]
    }
    assert reaching == set()


def test_the_error_handler_reaches_not_the_flow_layer() -> None:
    """bot/errors.py and its locked refusals (bot/locked_refusals.py), which the views' guard
    calls, import no bot.flow module, not even inside a function (an import cycle hidden there
    would let the views reach the flow unseen); what they read of a thread's lock is in
    bot/thread_locks.py, which needs only discord and bot/my_permissions.py (my permissions in
    a channel, which the flow reads too), as does bot/unreachable.py."""
    modules = (
        "errors.py",
        "locked_refusals.py",
        "thread_locks.py",
        "unreachable.py",
        "my_permissions.py",
    )
    reaching = {
        f"{path.name}: {module}"
        for path in (BOT / name for name in modules)
        for module in _imported_modules(path)
        if module.split(".")[:2] == ["bot", "flow"]
    }
    assert reaching == set()


def test_the_holds_read_when_a_turn_began_from_the_service() -> None:
    """The holds (bot/holds.py and the modules it composes) ask the games service when a turn
    began, not the flow (``bot.flow``)."""
    modules = ("holds.py", "hold_keeping.py", "thread_holds.py", "outage_holds.py")
    reaching = {
        f"{name}: {node.attr}"
        for name in modules
        for node in ast.walk(ast.parse((BOT / name).read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "vanished"
        and node.attr == "turn_began"
    }
    assert reaching == set()


def test_discords_thread_codes_are_named_once() -> None:
    """Discord's JSON codes for a locked or archived thread (160005, 50083) are named in one
    module, bot/thread_locks.py, which the error handler and the flow both import."""
    naming = {
        f"{path.relative_to(BOT)}: {node.targets[0].id}"
        for path in BOT.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and node.value.value in (160005, 50083)
    }
    assert naming == {"thread_locks.py: THREAD_LOCKED", "thread_locks.py: THREAD_ARCHIVED"}


def test_no_module_imports_another_modules_private_name() -> None:
    """No engine, renderer, bot or benchmark module imports another module's private name
    (``_squares``): what one module lends another is public, with a docstring. gettext's ``_``
    is the one exception; tests may import private names."""
    root = BOT.parent
    importing = {
        f"{path.relative_to(root)}: {node.module}.{alias.name}"
        for top in ("engine", "renderer", "bot", "benchmarks")
        for path in sorted((root / top).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__") and alias.name != "_"
    }
    assert importing == set()
