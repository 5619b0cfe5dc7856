"""The registry of task families, keyed by name.

Families come from three places, all explicit: the built-in packages listed by :mod:`wason.tasks`, the entry
point group ``wason.tasks`` of other installed packages (a research group's own game, no fork needed), and
:func:`register` calls (tests, notebooks). Nothing is registered as a side effect of importing a module, and a
family is imported only when it is first asked for, so ``wason runs`` does not load every game.

A plugin declares, in its ``pyproject.toml``::

    [project.entry-points."wason.tasks"]
    mygame = "mypackage.mygame:FAMILY"

where ``FAMILY`` is a :class:`~wason.core.family.Family` instance whose ``name`` is ``mygame``.
"""

from __future__ import annotations

import importlib
import sys
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from wason.tasks import BUILTIN, COMMANDS

if TYPE_CHECKING:
    from wason.core.family import Family

ENTRY_POINT_GROUP = "wason.tasks"


class UnknownFamily(ValueError):
    """A family name nobody registered; the message lists the known ones."""


class FamilyLoadError(ValueError):
    """A registered family could not be loaded (its module fails to import, or it is not a Family)."""


_registered: dict[str, Family[Any]] = {}
_broken: dict[str, str] = {}
_scanned: tuple[tuple[str, ...], dict[str, Any]] | None = None


def _builtin() -> dict[str, str]:
    return dict(BUILTIN)


def _plugins() -> dict[str, Any]:
    """The installed packages' entry points of the group, by name: read once per process, and again only when
    ``sys.path`` changes. Reading them scans every installed distribution (7-10 ms here), and the server asks
    for the families on every page; a plugin installed while a process runs is found by the next process."""
    global _scanned
    where = tuple(sys.path)
    if _scanned is None or _scanned[0] != where:
        _scanned = (where, {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)})
    return dict(_scanned[1])


def register(family: Family[Any], *, replace: bool = False) -> Family[Any]:
    """Make ``family`` known under its name; registering another family under a taken name is an error."""
    name = family.name
    known = _registered.get(name)
    if known is not None and known is not family and not replace:
        raise ValueError(f"a task family named {name!r} is already registered")
    _registered[name] = family
    return family


def unregister(name: str) -> None:
    """Forget a family registered with :func:`register` (tests use it to clean up)."""
    _registered.pop(name, None)
    _broken.pop(name, None)


def names() -> list[str]:
    """Every family name, built-in first, then plugins, then explicit registrations; nothing is imported."""
    out = list(_builtin())
    for name in [*_plugins(), *_registered]:
        if name not in out:
            out.append(name)
    return out


def get(name: str) -> Family[Any]:
    """The family registered as ``name``, imported on first use."""
    from wason.core.family import Family

    if name in _registered:
        return _registered[name]
    target: str | None = _builtin().get(name)
    plugin = None if target is not None else _plugins().get(name)
    if target is None and plugin is None:
        raise UnknownFamily(f"unknown task family {name!r}; known: {', '.join(names())}")
    where = target if target is not None else str(plugin.value)  # type: ignore[union-attr]
    if name in _broken:
        raise FamilyLoadError(_broken[name])
    try:
        loaded = _load(target) if target is not None else plugin.load()  # type: ignore[union-attr]
    except Exception as exc:  # a plugin's own bug: say which plugin, in one line
        _broken[name] = f"task family {name!r} ({where}) cannot be loaded: {type(exc).__name__}: {exc}"
        raise FamilyLoadError(_broken[name]) from exc
    if not isinstance(loaded, Family):
        _broken[name] = f"task family {name!r}: {where} is not a wason.core.Family instance"
        raise FamilyLoadError(_broken[name])
    if loaded.name != name:
        _broken[name] = f"task family {name!r}: {where} is named {loaded.name!r}"
        raise FamilyLoadError(_broken[name])
    family: Family[Any] = loaded
    _registered[name] = family
    return family


def families() -> list[Family[Any]]:
    """Every family that loads; the others are listed by :func:`broken` (a broken plugin must not stop the
    rest of wason from working)."""
    out = []
    for n in names():
        try:
            out.append(get(n))
        except FamilyLoadError:
            continue
    return out


def explicit() -> dict[str, str] | None:
    """The families known only by :func:`register` (or registered over a built-in or a plugin), each as the
    ``module:attribute`` another process imports it from; None when one of them cannot be found so (defined in
    ``__main__`` or inside a function). A process that builds pages for a server registers these too."""
    out: dict[str, str] = {}
    plugins = _plugins()
    for name, family in _registered.items():
        target = _builtin().get(name) or (str(plugins[name].value) if name in plugins else None)
        if target is not None:
            try:
                if _load(target) is family:
                    continue
            except Exception:  # a broken plugin: the object registered in its place is what counts
                pass
        module = importlib.import_module(type(family).__module__)
        if module.__name__ == "__main__":
            return None
        attr = next((a for a, v in vars(module).items() if v is family), None)
        if attr is None:
            return None
        out[name] = f"{module.__name__}:{attr}"
    return out


def only_builtin() -> bool:
    """Whether every family known is the built-in one of its name: no plugin is installed and nothing was
    registered beside or over a built-in family. What :mod:`wason.tasks` says of the families then holds
    without importing any of them (``wason --help``)."""
    builtin = _builtin()
    if names() != list(builtin):
        return False
    for name, family in _registered.items():
        module, _, attr = builtin[name].partition(":")
        if getattr(sys.modules.get(module), attr, None) is not family:
            return False
    return True


def command_lines() -> dict[str, str] | None:
    """The help line of each family's own command (``wason NAME ...``, its ``Family.commands``), in order, without
    importing a family: :mod:`wason.tasks`' table when :func:`only_builtin`; None otherwise (the families must be
    loaded to say)."""
    if not only_builtin():
        return None

    return dict(COMMANDS)


def register_from(targets: dict[str, str]) -> None:
    """Register the families :func:`explicit` found in another process (``name: "module:attribute"``)."""
    from wason.core.family import Family

    for name, target in targets.items():
        family = _load(target)
        if not isinstance(family, Family) or family.name != name:
            raise FamilyLoadError(f"task family {name!r}: {target} is not that family")
        register(family, replace=True)


def broken() -> dict[str, str]:
    """Families that failed to load, with the reason (after :func:`families` or :func:`get` tried them)."""
    return dict(_broken)


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
