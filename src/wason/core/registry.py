"""The registry of task families, keyed by name.

Families come from four places, all explicit: the built-in packages listed by :mod:`wason.tasks`, the entry
point group ``wason.tasks`` of other installed packages (a research group's own game, no fork needed),
:func:`register` calls (tests, notebooks), and files: ``wason eval ./mygame.py`` loads one (:func:`load_target`),
and every process loads the files ``$WASON_FAMILIES`` lists. Nothing is registered as a side effect of importing
a module, and a family is imported only when it is first asked for, so ``wason runs`` does not load every game.

A plugin declares, in its ``pyproject.toml``::

    [project.entry-points."wason.tasks"]
    mygame = "mypackage.mygame:FAMILY"

where ``FAMILY`` is a :class:`~wason.core.family.Family` instance whose ``name`` is ``mygame``. What the command
line shows of a family it does not run (its one-line help, the help of its own command) comes from its
:class:`Card`, read without importing the family: :data:`wason.tasks.CARDS` for the built-in ones, and for a
plugin the optional entry point of the same name in the group ``wason.cards``, which names a mapping in a module
that imports nothing heavy::

    [project.entry-points."wason.cards"]
    mygame = "mypackage.card:CARD"   # CARD = {"title": ..., "summary": ..., "commands": ..., "playable": ...}

A plugin without a card is listed by name only until it is used.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.tasks import BUILTIN

if TYPE_CHECKING:
    from wason.core.family import Family

ENTRY_POINT_GROUP = "wason.tasks"
CARD_GROUP = "wason.cards"
FILES_VARIABLE = "WASON_FAMILIES"
"""The environment variable naming family files (``a.py:FAMILY``, separated by ``os.pathsep``) every process
loads: how ``wason show`` finds again a family that ``wason eval ./a.py`` played from a file."""


class UnknownFamily(ValueError):
    """A family name nobody registered; the message lists the known ones."""


class FamilyLoadError(ValueError):
    """A registered family could not be loaded (its module fails to import, or it is not a Family)."""


@dataclass(frozen=True)
class Card:
    """What the command line shows of a family without importing it: its :class:`~wason.core.family.Family`'s
    ``title``, ``summary`` (its line in ``wason eval --help``), ``commands`` (the help of ``wason NAME``, empty
    when it has no commands of its own) and ``playable``."""

    title: str = ""
    summary: str = ""
    commands: str = ""
    playable: bool = False


_registered: dict[str, Family[Any]] = {}
_broken: dict[str, str] = {}
_bad_cards: dict[str, str] = {}
_scanned: tuple[tuple[str, ...], dict[str, Any], dict[str, Any]] | None = None
_files_read: str | None = None  # the value of $WASON_FAMILIES last loaded


def _builtin() -> dict[str, str]:
    return dict(BUILTIN)


def _plugins() -> dict[str, Any]:
    """The installed packages' entry points of the group, by name: read once per process, and again only when
    ``sys.path`` changes. Reading them scans every installed distribution (7-10 ms here), and the server asks
    for the families on every page; a plugin installed while a process runs is found by the next process."""
    return dict(_scan()[1])


def _scan() -> tuple[tuple[str, ...], dict[str, Any], dict[str, Any]]:
    global _scanned
    where = tuple(sys.path)
    if _scanned is None or _scanned[0] != where:
        found = entry_points()
        _scanned = (
            where,
            {ep.name: ep for ep in found.select(group=ENTRY_POINT_GROUP)},
            {ep.name: ep for ep in found.select(group=CARD_GROUP)},
        )
    return _scanned


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
    _bad_cards.pop(name, None)


def names() -> list[str]:
    """Every family name, built-in first, then plugins, then explicit registrations; nothing is imported but the
    files of ``$WASON_FAMILIES``."""
    _env_files()
    out = list(_builtin())
    for name in [*_plugins(), *_registered]:
        if name not in out:
            out.append(name)
    return out


def get(name: str) -> Family[Any]:
    """The family registered as ``name``, imported on first use."""
    from wason.core.family import Family

    _env_files()
    if name in _registered:
        return _registered[name]
    target: str | None = _builtin().get(name)
    plugin = None if target is not None else _plugins().get(name)
    if target is None and plugin is None:
        raise UnknownFamily(
            f"unknown task family {name!r}; known: {', '.join(names())} (a family played from a file is found "
            f"again with {FILES_VARIABLE}=FILE.py)"
        )
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


def card(name: str) -> Card | None:
    """What the command line shows of the family ``name`` without importing it: the family's own attributes
    when it is loaded or registered, :data:`wason.tasks.CARDS` for a built-in one, a plugin's ``wason.cards``
    entry point; None for a plugin without a card, or whose card is broken (see :func:`bad_cards`)."""
    if name in _registered:
        family = _registered[name]
        return Card(family.title, family.summary, family.commands, family.playable)
    if name in _builtin():
        from wason.tasks import CARDS

        return Card(**CARDS[name])
    entry = _scan()[2].get(name)
    if entry is None or name not in _plugins():
        return None
    if name in _bad_cards:
        return None
    try:
        return _read_card(entry.load())
    except Exception as exc:  # the plugin's own bug: one line, and its family is shown by name only
        _bad_cards[name] = (
            f"task family {name!r}: its card ({entry.value}) cannot be read: {type(exc).__name__}: {exc}"
        )
        return None


def declared_card(name: str) -> Card | None:
    """The card declared for the family ``name`` beside its code, whether or not the family is loaded:
    :data:`wason.tasks.CARDS` for a built-in one, a plugin's ``wason.cards`` entry point; None without one.
    :func:`wason.testing.check_family` holds it to the family's own attributes. Raises what reading a broken
    card raises."""
    if name in _builtin():
        from wason.tasks import CARDS

        return Card(**CARDS[name])
    entry = _scan()[2].get(name)
    return None if entry is None else _read_card(entry.load())


def _read_card(found: Any) -> Card:
    if not isinstance(found, Mapping):
        raise TypeError(f"a card is a mapping, not {type(found).__name__}")
    known = [f.name for f in fields(Card)]
    for key, value in found.items():
        if key not in known:
            raise ValueError(f"{key!r} is not a card's field ({', '.join(known)})")
        kind = bool if key == "playable" else str
        if not isinstance(value, kind):
            raise TypeError(f"its {key} is not a {kind.__name__}")
    return Card(**found)


def cards() -> dict[str, Card | None]:
    """:func:`card` of every family name, in :func:`names`' order; nothing is imported but cards."""
    return {name: card(name) for name in names()}


def command_lines() -> dict[str, str]:
    """The help line of each family's own command (``wason NAME ...``, its ``Family.commands``), in order, from
    the cards: without importing a family (a plugin without a card is left out until it is loaded)."""
    return {name: found.commands for name, found in cards().items() if found is not None and found.commands}


def bad_cards() -> dict[str, str]:
    """Plugins whose card could not be read, with the reason (after :func:`card` tried them)."""
    return dict(_bad_cards)


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


def is_target(text: str) -> bool:
    """Whether ``text`` names where a family is defined (a file ``path.py`` or ``path.py:ATTRIBUTE``, or a module
    ``package.module:ATTRIBUTE``) rather than a family's name, which never holds ``:`` or ends in ``.py``."""
    return text.endswith(".py") or ":" in text


def _file_targets(value: str) -> list[str]:
    """The entries of ``$WASON_FAMILIES``: targets of :func:`load_target` separated by ``os.pathsep``, where on
    POSIX ``:`` also ends a file or module's name before its attribute (``a.py:GAME:b.py:pkg.mod:FAMILY`` is
    ``a.py:GAME``, ``b.py`` and ``pkg.mod:FAMILY``)."""
    out: list[str] = []
    for part in filter(None, value.split(os.pathsep)):
        if out and os.pathsep == ":" and part.isidentifier() and ":" not in out[-1]:
            out[-1] += f":{part}"
        else:
            out.append(part)
    return out


def load_target(target: str) -> Family[Any]:
    """The family defined at ``target``, registered under its name, as ``inspect eval file.py`` runs a task from a
    file: ``path.py`` (its ``FAMILY``), ``path.py:ATTRIBUTE``, or ``package.module:ATTRIBUTE`` (an importable
    module, e.g. ``wason.examples.hello:FAMILY``). A file is imported as the module of its name, its folder put
    first on ``sys.path``, so another process (a page worker, a session finished elsewhere) imports it the same
    way. Raises :class:`FamilyLoadError` in one line (no such file, a module of that name already imported from
    elsewhere, an import that fails, no family there)."""

    where, _, attr = target.rpartition(":")
    if not (where and attr.isidentifier()):
        where, attr = target, "FAMILY"
    if not where.endswith(".py"):
        return _registered_target(where, attr, _import(where, target))
    path = Path(where).expanduser().resolve()
    if not path.is_file():
        raise FamilyLoadError(f"{where}: no such file")
    module = path.stem
    if not module.isidentifier():
        raise FamilyLoadError(f"{where}: the file's name must be a Python module name (letters, digits, _)")
    known = sys.modules.get(module)
    if known is not None and Path(getattr(known, "__file__", "") or "").resolve() != path:
        raise FamilyLoadError(
            f"{where}: a module named {module!r} is already imported from elsewhere; rename the file"
        )
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return _registered_target(where, attr, _import(module, where))


def _import(module: str, where: str) -> Any:
    try:
        return importlib.import_module(module)
    except Exception as exc:  # the file's own bug: say which file, in one line
        raise FamilyLoadError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc


def _registered_target(where: str, attr: str, module: Any) -> Family[Any]:
    from wason.core.family import Family

    loaded = getattr(module, attr, None)
    if loaded is None:
        raise FamilyLoadError(f"{where} defines no {attr} (name the family: {where}:ATTRIBUTE)")
    if not isinstance(loaded, Family):
        raise FamilyLoadError(f"{where}:{attr} is not a wason.core.Family instance")
    try:
        family: Family[Any] = register(loaded, replace=_registered.get(loaded.name) is loaded)
    except ValueError as exc:  # another family of that name is registered
        raise FamilyLoadError(f"{where}: {exc}") from exc
    return family


def _env_files() -> None:
    """Load the family files ``$WASON_FAMILIES`` names, once per value; a file that fails is one broken family
    (until the variable changes)."""
    global _files_read
    value = os.environ.get(FILES_VARIABLE, "")
    if value == _files_read:
        return
    _files_read = value
    for key in [k for k in _broken if k.startswith(f"${FILES_VARIABLE}: ")]:
        del _broken[key]
    for target in _file_targets(value):
        try:
            load_target(target)
        except (FamilyLoadError, ValueError) as exc:
            _broken[f"${FILES_VARIABLE}: {target}"] = f"{FILES_VARIABLE}: {exc}"


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
