"""The lab's text protocol: the instructions, the lab assistant's reports, and the reader of the player's JSON.

Not a published protocol (the authors planned the experiment and published no prompt; ``docs/lab.md`` shows the
texts). The system message explains the task, the request format, the test and the law language; the first
user message shows the lab (:meth:`LabProtocol.first_message`); every later one is the lab assistant's report.
A reply is read from its last JSON object (reasoning may come before it):

* ``{"experiments": [["splorficate", "zorple-1"], ["wuzzle", "zorple-2", "blick-1"], ["reset", "zorple-1"],
  ["create", "zorple"]]}`` - each step a list: an operation and its objects (actor first), or ``reset`` and an
  object, or ``create`` and a type; a step may also be written ``{"op": ..., "objects": [...]}``;
* ``{"done": true}`` - no more experiments, begin the test;
* ``{"predictions": [...], "theory": "...", "report": "..."}`` - the test's answer: one entry per test
  experiment, ``{object: {property: new value}}`` for what the player expects to change (``{}``: nothing).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from wason.core.game import Malformed
from wason.tasks.lab.game import (
    Answer,
    Finish,
    LabAction,
    LabConfig,
    LabObservation,
    ObjectView,
    Request,
    Step,
    StepResult,
    TrialView,
)
from wason.tasks.lab.laws import Value, format_value

MAX_REPLY_CHARS = 100_000
"""Longer replies are read from their first 100,000 characters."""
MAX_STEPS = 100
MAX_NAME = 80

SYSTEM_PROMPT = """\
You are a scientist investigating a newly discovered domain. Nothing about it is in any book: its types of \
object, their properties and the operations that can be done to them have made-up names, and you must find out \
by experiment how each operation changes the objects it is applied to.

The lab holds objects of a few types. Each object has boolean properties (true or false) and number properties. \
An operation is done to one object, or by one object (the actor) to another (the target). A lab assistant runs \
the experiments you ask for, in order, and reports every property that changed, from what to what, or that \
nothing changed. Objects keep their new values: later experiments start from them. The assistant takes no \
initiative.

Each turn, request up to {per_turn} steps. A step is an experiment (an operation and its objects, actor first), \
"reset" and an object (it goes back to how it was at the start; free){create}. You may run {budget} experiments \
in all, over at most {max_turns} turns. A request with a mistake in it (an unknown name, the wrong number of \
objects, an object used twice, too many steps) is refused whole and uses up the turn.

End every reply with one JSON object, for example:
{{"experiments": [["{op1}", "{obj1}"], ["reset", "{obj1}"]]}}
When you know enough, reply {{"done": true}} instead. The experiments also end when the budget runs out.

Then comes the test: experiments on fresh objects, whose outcomes you predict. Answer with one JSON object:
{{"predictions": [{{"{new}": {{"{prop}": {value}}}}}, {{}}], "theory": "...", "report": "..."}}
with one entry per test experiment, in order, naming only the properties you expect to change and their new \
values ({{}} when you expect nothing to change). Numbers within {tolerance:g}% count as right.
"theory" states the laws you found, one per line, in this form:
on OPERATION(a): a.PROPERTY = EXPRESSION
on OPERATION(a, b): b.PROPERTY = EXPRESSION if CONDITION
where a is the object (or the actor) and b the target; an expression uses numbers, true, false, a.PROPERTY, \
b.PROPERTY, + - * /, comparisons (< <= > >= == !=), and, or, not and parentheses; "if CONDITION" is optional. \
Laws of one operation apply in the order written. For example:
on {op1}(a): a.{prop} = a.{prop} * 2 if a.{flag}
"report" is a short account of the domain in your own words. Both are optional; the predictions are scored."""


EXAMPLE_NAMES = {
    "op1": "splorficate",
    "obj1": "zorple-1",
    "new": "new-zorple-1",
    "prop": "zibblosity",
    "flag": "quizzleplistic",
}
"""The seed's running example's names, used in the system prompt's examples."""


class LabProtocol:
    """The lab's text protocol for one episode (``config``: the episode's budget and limits)."""

    name = "lab"

    def __init__(self, config: LabConfig) -> None:
        self.config = config

    def system_prompt(self) -> str:
        create = ', or "create" and a type (a fresh object of that type)' if self.config.allow_create else ""
        return SYSTEM_PROMPT.format(
            per_turn=self.config.per_turn,
            budget=self.config.budget,
            max_turns=self.config.max_turns,
            create=create,
            tolerance=self.config.tolerance * 100,
            value=14,
            **EXAMPLE_NAMES,
        )

    def first_message(self, observation: LabObservation) -> str:
        return describe_lab(observation)

    def parse(self, reply: str) -> LabAction | Malformed:
        return parse_reply(reply)

    def feedback(self, observation: LabObservation) -> str:
        return render(observation, self.config)


# -- rendering ----------------------------------------------------------------------------------------------
def format_values(values: dict[str, Value]) -> str:
    """An object's properties as the player reads them: ``prop=value, prop=value``."""
    return ", ".join(f"{k}={format_value(v)}" for k, v in values.items())


def _object_line(o: ObjectView) -> str:
    return f"{o.name} ({o.type}): {format_values(o.values)}"


def describe_lab(obs: LabObservation) -> str:
    """The lab as the player first sees it: its objects by type, and the operations with their arity."""
    types: dict[str, list[ObjectView]] = {}
    for o in obs.objects:
        types.setdefault(o.type, []).append(o)
    lines = ["The lab holds these objects:"]
    for type_name, objects in types.items():
        props = ", ".join(objects[0].values)
        lines.append(f"- {len(objects)} of type {type_name} (properties: {props})")
        lines += [f"  {_object_line(o)}" for o in objects]
    lines.append("Operations:")
    for name, arity in obs.operations:
        how = f"{name}(X): done to one object" if arity == 1 else f"{name}(X, Y): done by X to Y"
        lines.append(f"- {how}")
    lines.append(
        f"You have {obs.experiments_left} experiments and {obs.turns_left} turns. What do you want to try first?"
    )
    return "\n".join(lines)


def render_results(results: Sequence[StepResult]) -> list[str]:
    lines = []
    for k, r in enumerate(results, start=1):
        if r.object is not None:
            lines.append(f"{k}. {r.step}: {_object_line(r.object)}")
        elif not r.changes:
            lines.append(f"{k}. {r.step}: nothing changed")
        else:
            parts = [
                f"{c.object}.{c.prop} {format_value(c.before)} -> {format_value(c.after)}" for c in r.changes
            ]
            lines.append(f"{k}. {r.step}: " + "; ".join(parts))
    return lines


def render_trials(trials: Sequence[TrialView]) -> list[str]:
    lines = []
    for k, t in enumerate(trials, start=1):
        names = ", ".join(o.name for o in t.objects)
        objects = "; ".join(_object_line(o) for o in t.objects)
        lines.append(f"{k}. {t.op}({names}) where {objects}")
    return lines


def _left(obs: LabObservation) -> str:
    return f"Experiments left: {obs.experiments_left}. Turns left: {obs.turns_left}."


TEST_INTRO = (
    "The experiments are over. The test: predict what each experiment below does to its fresh objects. Answer "
    'with one JSON object {"predictions": [...], "theory": "...", "report": "..."}, one prediction per '
    "experiment in order, each naming only the properties you expect to change with their new values ({} for "
    '"nothing changes").'
)


def render(obs: LabObservation, config: LabConfig) -> str:
    """The lab assistant's report after an action."""
    if obs.kind == "start":
        return describe_lab(obs)
    if obs.kind == "results":
        return "\n".join(["Results:", *render_results(obs.results), _left(obs)])
    if obs.kind == "invalid":
        return f"Refused: {obs.message}. Nothing was run; the turn is used. {_left(obs)}"
    if obs.kind == "test":
        lines = []
        if obs.message:
            lines.append(f"Refused: {obs.message}. Nothing was run.")
        if obs.results:
            lines += ["Results:", *render_results(obs.results)]
        lines += [TEST_INTRO, *render_trials(obs.trials)]
        return "\n".join(lines)
    if obs.kind == "test_invalid":
        tries = f"{obs.attempts_left} more {'try' if obs.attempts_left == 1 else 'tries'}"
        return (
            f"Your answer could not be read: {obs.message}. Answer again ({tries}) with one JSON object "
            '{"predictions": [...], "theory": "...", "report": "..."}, one prediction per test experiment.'
        )
    score = obs.score if obs.score is not None else 0.0
    return f"The test is over: {score:.0%} of the experiments predicted right."


# -- reading replies ----------------------------------------------------------------------------------------
def last_json_object(text: str, attempts: int = 2000) -> Any | None:
    """The last complete top-level JSON object in ``text``, or None: at most ``attempts`` tries to decode at a
    ``{`` outside an object already read, so a hostile reply full of braces stays cheap."""
    decoder = json.JSONDecoder()
    found = None
    pos = text.find("{")
    tries = 0
    while pos >= 0 and tries < attempts:
        tries += 1
        try:
            value, stop = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        if isinstance(value, dict):
            found = value
        pos = text.find("{", stop)
    return found


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a name (text)")
    if len(value) > MAX_NAME:
        raise ValueError(f"{what} is longer than {MAX_NAME} characters")
    return value.strip()


def read_step(value: Any, k: int) -> Step:
    """One step of a request, as a list ``[op, object...]``, ``["reset", object]``, ``["create", type]``, or
    ``{"op": ..., "objects": [...]}``."""
    where = f"step {k}"
    if isinstance(value, dict):
        if "reset" in value:
            return Step("reset", objects=(_name(value["reset"], where),))
        if "create" in value:
            return Step("create", type=_name(value["create"], where))
        objects = value.get("objects", [])
        if isinstance(objects, str):
            objects = [objects]
        if not isinstance(objects, list):
            raise ValueError(f"{where}: objects must be a list of names")
        value = [value.get("op"), *objects]
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: a list like [operation, object] or [operation, actor, target]")
    if len(value) > 4:
        raise ValueError(f"{where}: too many names")
    head = _name(value[0], f"{where}: the operation")
    rest = tuple(_name(v, f"{where}: an object") for v in value[1:])
    if head == "reset":
        return Step("reset", objects=rest)
    if head == "create":
        if len(rest) != 1:
            raise ValueError(f'{where}: ["create", type]')
        return Step("create", type=rest[0])
    return Step("experiment", op=head, objects=rest)


def _number(value: Any, where: str) -> Value:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        out = float(value)
        if not math.isfinite(out):
            raise ValueError(f"{where}: not a finite number")
        return out
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "false"):
            return text == "true"
        try:
            out = float(text[:40])
        except ValueError:
            pass
        else:
            if math.isfinite(out):
                return out
    raise ValueError(f"{where}: a number, true or false")


def read_answer(data: dict[str, Any]) -> Answer:
    preds = data.get("predictions")
    if not isinstance(preds, list):
        raise ValueError('"predictions" must be a list, one entry per test experiment')
    if len(preds) > 1000:
        raise ValueError('"predictions" has more than 1000 entries')
    out: list[dict[str, dict[str, Value]] | None] = []
    for k, p in enumerate(preds, start=1):
        if p is None:
            out.append(None)
            continue
        if not isinstance(p, dict):
            raise ValueError(f"prediction {k}: an object {{object: {{property: value}}}}")
        entry: dict[str, dict[str, Value]] = {}
        for name, values in list(p.items())[:10]:
            if not isinstance(values, dict):
                raise ValueError(f"prediction {k}: {str(name)[:40]!r} needs {{property: value}}")
            entry[_name(name, f"prediction {k}")] = {
                _name(prop, f"prediction {k}"): _number(
                    v, f"prediction {k}: {str(name)[:40]}.{str(prop)[:40]}"
                )
                for prop, v in list(values.items())[:20]
            }
        out.append(entry)
    theory = data.get("theory") or ""
    report = data.get("report") or ""
    if isinstance(theory, list):
        theory = "\n".join(str(t) for t in theory[:100])
    if not isinstance(theory, str) or not isinstance(report, str):
        raise ValueError('"theory" and "report" must be text')
    return Answer(tuple(out), theory[:20_000], report[:20_000])


def _step_list(step: Step) -> list[str]:
    """A step as :func:`read_step` reads it: ``[op, object...]``, ``["reset", object]``, ``["create", type]``."""
    if step.kind == "experiment":
        return [step.op, *step.objects]
    if step.kind == "create":
        return ["create", step.type]
    return ["reset", *step.objects]


def write_action(action: LabAction) -> str:
    """An action as the reply that makes it under this protocol (its JSON object: ``{"experiments": [...]}``,
    ``{"done": true}``, ``{"predictions": [...], "theory": ..., "report": ...}``): what a player that writes no
    text (the solver) would have sent; :func:`parse_reply` reads it back as the same action."""
    if isinstance(action, Request):
        return json.dumps({"experiments": [_step_list(s) for s in action.steps]})
    if isinstance(action, Finish):
        return json.dumps({"done": True})
    answer: dict[str, Any] = {"predictions": list(action.predictions)}
    if action.theory:
        answer["theory"] = action.theory
    if action.report:
        answer["report"] = action.report
    return json.dumps(answer)


def parse_reply(reply: str) -> LabAction | Malformed:
    """Read a reply as a request, the end of the experiments, or the test's answer."""
    if not isinstance(reply, str):
        return Malformed(f"a reply must be text, not {type(reply).__name__}")
    data = last_json_object(reply[:MAX_REPLY_CHARS])
    if data is None:
        return Malformed('no JSON object found; end your reply with one, e.g. {"experiments": [...]}')
    try:
        if "predictions" in data:
            return read_answer(data)
        if data.get("done") is True:
            return Finish()
        if "experiments" in data:
            steps = data["experiments"]
            if not isinstance(steps, list):
                raise ValueError('"experiments" must be a list of steps')
            if len(steps) > MAX_STEPS:
                raise ValueError(f"more than {MAX_STEPS} steps")
            return Request(tuple(read_step(s, k) for k, s in enumerate(steps, start=1)))
    except ValueError as exc:
        return Malformed(str(exc))
    keys = ", ".join(str(k)[:20] for k in list(data)[:5]) or "none"
    return Malformed(f'the JSON object needs "experiments", "done" or "predictions" (it has: {keys})')
