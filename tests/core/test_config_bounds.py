"""Every size a user can set is bounded where its field is declared (issue 35), and the largest values are safe.

Two checks over every registered family:

- **declared**: every number, list and free string of its run configuration (and of the shared ``RunSettings``
  and ``GenerationParams``) carries an upper bound in its pydantic field (``Le``/``Lt``/``MaxLen`` in
  ``FieldInfo.metadata``), floats refuse infinities and NaN, and list entries are bounded too. So the command
  line, sweeps, ``/api/sessions`` and the web forms, which all build the configuration, refuse the same values.
- **largest**: a game starts (``wason.core.session.start``, what ``POST /api/sessions`` does) with each size
  field at its largest allowed value, one at a time with the others at their defaults, then all at once, in a
  child process with an address-space limit and a hang guard. "Largest allowed" is found by validation alone:
  the bound on the field, or less where a bound across fields (rules x trials) refuses more.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types
import pytest
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from wason.core import registry
from wason.core.family import Family, RunSettings
from wason.models.base import GenerationParams

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = [f.name for f in registry.families()]

# Fields whose bound is checked by a validator rather than declared (a dict's size is its JSON text's).
CHECKED_BY_VALIDATOR = {"extra_body", "json_schema"}

# What makes a field matter: ``n`` draws rules only in a generated split, and so on.
CONTEXT: dict[str, dict[str, dict[str, Any]]] = {
    "wilt": {"n": {"split": "generated", "seed": 1}},
    "lists": {"n": {"split": "generated", "seed": 1}},
    # the AIW family of the default has 81 variations; this one has thousands
    "aiw": {"n": {"variations": "generated", "seed": 1, "families": ["exaggerated.bs"]}},
    # L1 has only 61 balanced rules; L3 has thousands
    "code-functions": {"n": {"level": "L3"}, "ids": {"split": "published"}},
    "lab": {"n": {"difficulty": "hard"}},
    # the items that fit shown first cannot outnumber those a rule needs
    "dynamic-picnic": {"init_examples": {"min_positives": 20}},
}

# The entry a list of names or ids is filled with where its default has none (a rule playable without a model).
ENTRY: dict[str, dict[str, Any]] = {
    "aiw": {"families": "AIW"},
    "dynamic-picnic": {"ids": 2, "types": "attribute_based", "kinds": "lexical"},
}

# Fields whose largest value needs a model, a file or another run: not started here.
SKIP: dict[str, str] = {
    "tests_from": "needs a finished WILT run to take tests from",
    "dynamic-picnic.n": "the rules the game master writes need a model",
}

# Cases too slow for the default run: a generated split at the command line's largest draws every rule of the
# WILT generator (about 9,500, about a minute) or 500 list rules (about 40 s). The default run starts them at the
# bound a request over HTTP keeps (``RunSettings.served_bounds``: 200 and 15), what ``wason serve`` allows.
SLOW: set[tuple[str, str]] = {("wilt", "n"), ("lists", "n")}


# -- declared bounds ---------------------------------------------------------------------------------------
def _unwrap(annotation: Any) -> Any:
    """``X | None`` -> X."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _bounds(metadata: list[Any]) -> tuple[float | None, float | None, int | None, bool]:
    """(lower, upper, max length, finite) declared in a field's (or an entry's) metadata."""
    low = high = length = None
    finite = False
    for m in metadata:
        if isinstance(m, annotated_types.Ge | annotated_types.Gt):
            low = m.ge if isinstance(m, annotated_types.Ge) else m.gt
        if isinstance(m, annotated_types.Le | annotated_types.Lt):
            high = m.le if isinstance(m, annotated_types.Le) else m.lt
        if isinstance(m, annotated_types.MaxLen):
            length = m.max_length
        if getattr(m, "allow_inf_nan", True) is False:
            finite = True
    return low, high, length, finite


def _entry(annotation: Any) -> tuple[Any, list[Any]]:
    """A list's entry type and its own metadata (``list[Annotated[int, Field(le=...)]]``)."""
    inner = (typing.get_args(annotation) or (Any,))[0]  # tuple[X, ...] too
    if typing.get_origin(inner) is typing.Annotated:
        base, *extra = typing.get_args(inner)
        metadata = [m for e in extra for m in (e.metadata if isinstance(e, FieldInfo) else [e])]
        return base, metadata
    return inner, []


def _user_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    internal = getattr(model, "internal_fields", frozenset())
    return {n: f for n, f in model.model_fields.items() if n not in internal and n != "task"}


def _unbounded(model: type[BaseModel]) -> list[str]:
    """The fields a user can set that declare no upper bound (or let floats be infinite or NaN)."""
    bad = []
    for name, info in _user_fields(model).items():
        kind = _unwrap(info.annotation)
        _, high, length, finite = _bounds(info.metadata)
        where = f"{model.__name__}.{name}"
        if kind in (int, float) and high is None:
            bad.append(f"{where}: no upper bound")
        if kind is float and not finite:
            bad.append(f"{where}: allows inf and nan")
        if kind is str and length is None:
            bad.append(f"{where}: no max_length")
        if typing.get_origin(kind) in (list, tuple):
            if length is None:
                bad.append(f"{where}: no max_length")
            entry, entry_meta = _entry(kind)
            _, entry_high, entry_length, _ = _bounds(entry_meta)
            if entry is int and entry_high is None:
                bad.append(f"{where}: entries have no upper bound")
            if entry is str and entry_length is None:
                bad.append(f"{where}: entries have no max_length")
        if typing.get_origin(kind) is dict and name not in CHECKED_BY_VALIDATOR:
            bad.append(f"{where}: a dict with no bound")
    return bad


@pytest.mark.parametrize("name", FAMILIES)
def test_every_size_a_user_sets_is_bounded_in_its_field(name: str) -> None:
    assert _unbounded(registry.get(name).config_type) == []


def test_the_shared_settings_and_generation_params_are_bounded() -> None:
    assert _unbounded(RunSettings) == []
    assert _unbounded(GenerationParams) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("extra_body", {"x": "y" * 200_000}), ("json_schema", {"type": "string", "x": "y" * 200_000})],
)
def test_dicts_of_generation_params_are_bounded_by_their_json(field: str, value: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match=field):
        GenerationParams(**{field: value})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, 86_401.0])
def test_a_timeout_is_finite_and_positive(value: float) -> None:
    with pytest.raises(ValidationError, match="timeout"):
        RunSettings(timeout=value)


# -- the largest values ------------------------------------------------------------------------------------
def _valid(family: Family[Any], fields: dict[str, Any]) -> bool:
    try:
        family.config_type.model_validate({**fields, "player": "session", "model": None})
    except (ValidationError, ValueError):
        return False
    return True


def _largest_number(family: Family[Any], base: dict[str, Any], name: str, low: float, high: float) -> Any:
    """The largest value of a number field that validates with ``base``: its bound, or less where a bound
    across fields refuses it (found by bisection, on validation only)."""
    kind = _unwrap(family.config_type.model_fields[name].annotation)
    if _valid(family, {**base, name: high}):
        return high
    if kind is float:
        return None  # a float's bound is its own; nothing across fields limits one
    lo, hi = int(low), int(high)
    if not _valid(family, {**base, name: lo}):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _valid(family, {**base, name: mid}) else (lo, mid)
    return lo


def _largest_list(family: Family[Any], base: dict[str, Any], name: str, info: FieldInfo) -> Any:
    """The longest valid list: the default's first entry (or the lowest allowed) repeated, else distinct entries
    from the highest allowed down, else the default itself."""
    _, _, length, _ = _bounds(info.metadata)
    assert length is not None
    entry, entry_meta = _entry(_unwrap(info.annotation))
    default = info.get_default(call_default_factory=True) or []
    elow, ehigh, _, _ = _bounds(entry_meta)
    candidates: list[list[Any]] = []
    first = ENTRY.get(family.name, {}).get(name) or (default[0] if default else None)
    if first is None and entry is int:
        first = elow
    if first is not None:
        candidates.append([first] * length)
    if entry is int and ehigh is not None:
        candidates.append([int(ehigh) - i for i in range(length)])
    candidates.append(list(default))
    for values in candidates:
        if values and _valid(family, {**base, name: values}):
            return values
    return None


def _size_fields(family: Family[Any]) -> dict[str, FieldInfo]:
    """The family's own fields that are sizes: numbers and lists (not names, choices or switches)."""
    shared = set(RunSettings.model_fields)
    out = {}
    for name, info in _user_fields(family.config_type).items():
        kind = _unwrap(info.annotation)
        if name in shared or name.endswith("seed"):
            continue  # seeds choose, they do not size
        if kind in (int, float) or typing.get_origin(kind) is list:
            out[name] = info
    return out


def _largest(family: Family[Any], base: dict[str, Any], name: str, info: FieldInfo) -> Any:
    kind = _unwrap(info.annotation)
    if typing.get_origin(kind) is list:
        return _largest_list(family, base, name, info)
    low, high, _, _ = _bounds(info.metadata)
    assert high is not None
    if any(isinstance(m, annotated_types.Lt) for m in info.metadata):  # the largest value below the bound
        high = high - 1 if kind is int else math.nextafter(high, -math.inf)
    return _largest_number(family, base, name, low if low is not None else 0, high)


def cases(family: Family[Any], *, slow: bool) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """``(label, fields)`` of the games to start: each size field at its largest allowed value, then all of them
    at once (each in turn, as large as the ones before it allow); and the fields skipped, with why."""
    out: list[tuple[str, dict[str, Any]]] = []
    skipped = []
    together: dict[str, Any] = {}
    context = CONTEXT.get(family.name, {})
    for name, info in _size_fields(family).items():
        reason = SKIP.get(name) or SKIP.get(f"{family.name}.{name}")
        if reason:
            skipped.append(f"{name}: {reason}")
            continue
        base = dict(context.get(name, {}))
        if ((family.name, name) in SLOW) != slow:
            served = getattr(family.config_type, "served_bounds", {}).get(name)
            if not slow and served is not None:  # the default run: the largest a request may ask for
                out.append((f"{name}={served} (served)", {**base, name: served}))
            continue
        value = _largest(family, base, name, info)
        if value is None:
            skipped.append(f"{name}: no valid value at all with {base}")
            continue
        out.append((f"{name}={_short(value)}", {**base, name: value}))
        # all at once: this field as large as the ones before it allow, in its context when that fits
        for extra in (base, {}):
            if _valid(family, {**together, **extra}):
                value = _largest(family, {**together, **extra}, name, info)
                if value is not None:
                    together.update({**extra, name: value})
                break
    if together and not slow:
        out.append(("all at once: " + ", ".join(f"{k}={_short(v)}" for k, v in together.items()), together))
    return out, skipped


def _short(value: Any) -> str:
    if not isinstance(value, list):
        return str(value)
    return f"[{value[0]} x{len(value)}]" if len(set(map(str, value))) == 1 else f"[{value[0]}..{value[-1]}]"


# Run in a fresh interpreter: start a default game first (so everything a game imports is loaded), then limit
# the address space to what that took plus HEADROOM_MB and start the game of each case. An unbounded size fails
# there with a MemoryError within seconds (the attacker's trials grew 80 MB/s); the bounded ones measured here
# need at most about 170 MB more than that (WILT's generated split at its largest: a thread pool and 100 MB of
# tables), so 300 MB leaves room without hiding a field that drew a million items.
HEADROOM_MB = 300
CHILD = """
import json, os, resource, sys, tempfile, time
from wason.core import registry, session
from wason.store import Store

def vm_kb(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key))

job = json.loads(sys.argv[1])
family = registry.get(job["family"])
store = Store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "bounds.db"))
session.start(store, family.name, {}, seed=0)
limit = (vm_kb("VmSize") + job["headroom_mb"] * 1024) * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
for label, fields in job["cases"]:
    begun = time.perf_counter()
    try:
        # the last item where the family draws one alone: a generated split draws every rule before it
        config = family.config_type.model_validate({**fields, "player": "session", "model": None})
        count = family.item_count(config)
        session.start(store, family.name, fields, index=None if count is None else count - 1, seed=0)
        outcome = "started"
    except ValueError as exc:  # a one-line refusal (an id the family has not), never a crash
        outcome = "refused: " + str(exc).splitlines()[0]
    print(json.dumps({"case": label, "outcome": outcome, "seconds": round(time.perf_counter() - begun, 2),
                      "peak_mb": vm_kb("VmHWM") // 1024}), flush=True)
"""

# A hang detector, not a speed check: the slowest case measured takes about 25 s on a busy 2-core machine.
HANG_GUARD_SECONDS = 600


def _start_in_child(name: str, todo: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])),
        # one malloc arena per process: thread arenas reserve 64 MB of address space each, which would count
        # against the limit without being used
        "MALLOC_ARENA_MAX": "1",
    }
    job = {"family": name, "cases": todo, "headroom_mb": HEADROOM_MB}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(job)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def _check_largest(name: str, *, slow: bool) -> None:
    family = registry.get(name)
    todo, skipped = cases(family, slow=slow)
    if not todo:
        pytest.skip(f"no {'slow ' if slow else ''}case for {name}; skipped: {skipped}")
    results = _start_in_child(name, todo)
    assert [r["case"] for r in results] == [label for label, _ in todo]
    for r in results:
        print(f"{name}: {r['case']}: {r['outcome']} in {r['seconds']} s, peak {r['peak_mb']} MB")
    for reason in skipped:
        print(f"{name}: skipped {reason}")
    # a refusal is a clean answer, but the largest values are meant to be playable
    assert all(r["outcome"] == "started" for r in results), results


@pytest.mark.parametrize("name", FAMILIES)
def test_a_game_starts_at_every_largest_size(name: str) -> None:
    _check_largest(name, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted({f for f, _ in SLOW}) or ["none"])
def test_a_game_starts_at_the_slow_largest_sizes(name: str) -> None:
    if name == "none":
        pytest.skip("no slow case")
    _check_largest(name, slow=True)


def test_the_cases_cover_the_sizes_users_asked_about() -> None:
    """The holes of issue 35 are among the cases (so the walk above cannot silently skip them)."""
    labels = {
        name: [label.split("=")[0] for label, _ in cases(registry.get(name), slow=False)[0]]
        for name in FAMILIES
    }
    assert {"trials", "max_tests"} <= set(labels["wilt"])
    assert {"tests_per_round", "quiz_size", "trials"} <= set(labels["lists"])
    assert {"init_examples", "n"} <= set(labels["code-functions"])
    assert "n" in labels["picnic"]


# Configurations whose items a session draws one at a time in another way than the default's.
COUNTED: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in FAMILIES),
    ("lists", {"split": "generated", "seed": 3, "n": 4, "trials": 2}),
    ("lists", {"split": "second", "trials": 2}),
    ("picnic", {"draw": "all", "n": 2, "max_turns": [3, 5], "level": ["L3", "L1"]}),
    ("lab", {"n": 3, "trials": 2}),
]


@pytest.mark.parametrize(("name", "fields"), COUNTED)
def test_a_family_that_counts_its_items_draws_each_alone_as_in_the_list(
    name: str, fields: dict[str, Any]
) -> None:
    """``item_count`` and ``item_at`` agree with ``items`` (sessions draw one item with them)."""
    family = registry.get(name)
    config = family.config_type.model_validate({**fields, "player": "session", "model": None})
    count = family.item_count(config)
    if count is None:
        pytest.skip(f"{name} draws all its items for a session")
    items = family.items(config)
    assert count == len(items)
    for index in sorted({0, 1, len(items) // 2, len(items) - 1} & set(range(len(items)))):
        assert family.item_at(config, index) == items[index]
