"""A person in the lab: at the terminal (:class:`LabHumanPlayer`) and in the browser (:func:`web_form`,
:func:`web_action`).

Both read the same short syntax. A request is a list of steps separated by ``;`` (or by new lines in the
browser): ``OPERATION OBJECT`` or ``OPERATION ACTOR TARGET`` (also ``OPERATION(ACTOR, TARGET)``), ``reset OBJECT``,
``create TYPE``. A prediction of one test experiment is ``obj.prop=value, obj.prop=value`` for what changes, or
``-`` (or nothing) when nothing does. Only syntactically valid requests are sent: the game judges the names, and
a typo at the terminal costs no turn. Predictions are checked against the test experiment's objects before they
are sent, so a misspelt property does not use up an answer.

Why the lab keeps its own terminal player instead of the generic one of its declared moves
(:class:`wason.core.moves.TerminalPlayer`): its test is answered one experiment at a time, each prediction
checked against that experiment's objects as soon as it is typed (only the wrong one is asked again, with the
experiment's table shown before it), then a theory of any number of lines (an empty line ends it) and a report.
The generic player asks a move's fields one line each and checks them together, so a typo in the eighth
prediction would have all of them typed again, and a theory could hold one law only.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence

from wason.core.family import FormField, FormMove, WebForm, form_value
from wason.core.game import Move, PlayerLeft
from wason.tasks.lab.game import (
    MAX_TEXT,
    Answer,
    Finish,
    LabAction,
    LabConfig,
    LabObservation,
    Request,
    Step,
    TrialView,
)
from wason.tasks.lab.laws import Value, format_value
from wason.tasks.lab.protocol import (
    MAX_STEPS,
    describe_lab,
    format_values,
    render,
    render_results,
    render_trials,
)
from wason.tasks.lab.theory import MAX_LAWS, Signature, law_count, line_problems

MAX_LINE = 10_000
"""Characters of one typed line (or one form field) read."""
MAX_THEORY_LINES = 100
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,79}")

LAB_HELP = """\
Find out how each operation changes the objects it is done to, then predict new experiments.
  OP OBJ              do operation OP to object OBJ, e.g.  splorficate zorple-1
  OP ACTOR TARGET     an operation on two objects: done by ACTOR to TARGET
  reset OBJ           put OBJ back as it was at the start (free)
  create TYPE         a fresh object of TYPE (when the lab allows it)
  A; B; C             several steps in one turn, run in order
  done                no more experiments: the test begins
  help                this text
  quit                leave: the game ends here (an unfinished game, counted as failed) and the hidden
                      laws are shown; it cannot be resumed
A request the lab refuses (an unknown name, the wrong number of objects) uses up its turn."""

TEST_HELP = """\
The test: for each experiment below, type what you expect to change, as  obj.prop=value, obj.prop=value
(true/false for a yes/no property), or  -  when you expect nothing to change. Numbers within {tolerance:g}% count
as right. Then your theory (optional), one law a line, e.g.
  on OPERATION(a): a.PROPERTY = a.PROPERTY * 2 if a.FLAG
  on OPERATION(a, b): b.PROPERTY = b.PROPERTY + a.PROPERTY
ended by an empty line (a law that cannot be read is asked again, the others are kept), and a one-line report
in your own words (optional)."""


# -- reading -----------------------------------------------------------------------------------------------
def _name(text: str, what: str) -> str:
    if not _NAME.fullmatch(text):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"{what}: {shown!r} is not a name (letters, digits, - and _)")
    return text


def parse_step(text: str, k: int = 1) -> Step:
    """One step: ``OP OBJ``, ``OP ACTOR TARGET``, ``OP(ACTOR, TARGET)``, ``reset OBJ`` or ``create TYPE``."""
    where = f"step {k}"
    words = text.replace("(", " ").replace(")", " ").replace(",", " ").split()
    if not words:
        raise ValueError(f"{where} is empty")
    if len(words) > 3:
        raise ValueError(f"{where}: an operation takes one or two objects, not {len(words) - 1}")
    head = _name(words[0], f"{where}: the operation")
    rest = tuple(_name(w, f"{where}: an object") for w in words[1:])
    if head.lower() == "reset":
        if len(rest) != 1:
            raise ValueError(f"{where}: reset takes one object, e.g.  reset zorple-1")
        return Step("reset", objects=rest)
    if head.lower() == "create":
        if len(rest) != 1:
            raise ValueError(f"{where}: create takes one type, e.g.  create zorple")
        return Step("create", type=rest[0])
    if not rest:
        raise ValueError(f"{where}: name the object(s) after {head}, e.g.  {head} OBJECT")
    return Step("experiment", op=head, objects=rest)


def parse_steps(text: str, per_turn: int | None = None) -> tuple[Step, ...]:
    """A request: steps separated by ``;`` or new lines (at most ``per_turn`` when given)."""
    if len(text) > MAX_LINE:
        raise ValueError(f"more than {MAX_LINE} characters")
    parts = [p.strip() for p in re.split(r"[;\n]", text) if p.strip()]
    if not parts:
        raise ValueError("no steps")
    limit = per_turn if per_turn is not None else MAX_STEPS
    if len(parts) > limit:
        raise ValueError(f"{len(parts)} steps; at most {limit} a turn")
    return tuple(parse_step(p, k) for k, p in enumerate(parts, start=1))


def _value(text: str, where: str) -> Value:
    word = text.strip().lower()
    if word in ("true", "yes"):
        return True
    if word in ("false", "no"):
        return False
    try:
        number = float(word[:40]) if len(word) <= 40 else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ValueError(f"{where}: {text.strip()[:40]!r} is not a number, true or false")
    return number


def parse_prediction(text: str, trial: TrialView | None = None) -> dict[str, dict[str, Value]]:
    """What a person expects a test experiment to change: ``obj.prop=value, ...``, or ``-`` / nothing for
    "nothing changes" (``{}``). With ``trial``, the names and kinds of value are checked against its objects."""
    if len(text) > MAX_LINE:
        raise ValueError(f"more than {MAX_LINE} characters")
    body = text.strip()
    if body in ("", "-", "{}") or body.lower() in ("nothing", "none"):
        return {}
    objects = {o.name: o for o in trial.objects} if trial is not None else None
    out: dict[str, dict[str, Value]] = {}
    for part in (p.strip() for p in re.split(r"[,;]", body)):
        if not part:
            continue
        lhs, eq, rhs = part.partition("=")
        name, dot, prop = lhs.strip().rpartition(".")
        if not eq or not dot:
            raise ValueError(f"{part[:40]!r}: write obj.prop=value, or - for nothing changes")
        _name(name, f"{part[:40]!r}: the object")
        _name(prop, f"{part[:40]!r}: the property")
        value = _value(rhs, f"{name}.{prop}")
        if objects is not None:
            if name not in objects:
                raise ValueError(f"{name!r} is not an object of this experiment ({', '.join(objects)})")
            values = objects[name].values
            if prop not in values:
                raise ValueError(f"{name} has no property {prop!r} ({', '.join(values)})")
            if isinstance(values[prop], bool) != isinstance(value, bool):
                kind = "true or false" if isinstance(values[prop], bool) else "a number"
                raise ValueError(f"{name}.{prop} is {kind}")
        if prop in out.get(name, {}):
            raise ValueError(f"{name}.{prop} is named twice")
        out.setdefault(name, {})[prop] = value
    return out


def answer_reply(answer: Answer) -> str:
    """An answer as the protocol's JSON (what a model would have written for it)."""
    return json.dumps(
        {"predictions": list(answer.predictions), "theory": answer.theory, "report": answer.report}
    )


def _trial_text(k: int, trial: TrialView) -> str:
    return render_trials([trial])[0].replace("1. ", f"{k}. ", 1)


def observed_signature(observation: LabObservation) -> Signature:
    """What ``observation`` shows of the domain's shape: the kinds of the properties of the objects in it and,
    where it lists them (at the start), the operations' numbers of objects (else operations are not checked)."""
    kinds: dict[str, str] = {}
    for o in (*observation.objects, *(x for t in observation.trials for x in t.objects)):
        for prop, value in o.values.items():
            kinds.setdefault(prop, "boolean" if isinstance(value, bool) else "number")
    arities = dict(observation.operations) if observation.operations else None
    return Signature(kinds, arities)


def theory_problem(text: str, signature: Signature) -> str | None:
    """Why a theory typed in the web form cannot be sent, naming each line at fault (None: every law reads and
    fits the lab). Each line is checked on its own, so one typo never costs the other laws."""
    problems = line_problems(text, signature)
    if not problems:
        return None
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more lines" if len(problems) > 3 else "")
    return f"{shown} (nothing was sent: correct the line{'s' if len(problems) > 1 else ''}, the rest is kept)"


# -- the terminal ------------------------------------------------------------------------------------------
class LabHumanPlayer:
    """A person at the terminal: shows the lab and each report, reads requests and the test's answer. Each law of
    the theory is checked as it is typed against ``signature`` (None: what the start of the game shows, or for a
    game resumed after it, the test)."""

    def __init__(
        self,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        config: LabConfig | None = None,
        signature: Signature | None = None,
    ) -> None:
        self.read = read
        self.write = write
        self.config = config if config is not None else LabConfig()
        self.signature = signature

    async def _line(self, prompt: str = "> ") -> str:
        try:
            line = await asyncio.to_thread(self.read, prompt)
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc
        line = line[:MAX_LINE].strip()
        if line.lower() in ("quit", "exit"):
            raise PlayerLeft("left the game")
        return line

    def _show(self, obs: LabObservation) -> None:
        if obs.kind == "start":
            self.write(describe_lab(obs))
            self.write(LAB_HELP)
        elif obs.kind in ("test", "test_invalid"):
            if obs.message:
                self.write(f"Refused: {obs.message}.")
            if obs.results:
                self.write("\n".join(["Results:", *render_results(obs.results)]))
            self._test_help()
        else:
            self.write(render(obs, self.config))

    def _test_help(self) -> None:
        self.write(TEST_HELP.format(tolerance=self.config.tolerance * 100))

    async def act(self, observation: LabObservation) -> Move[LabAction]:
        self._show(observation)
        if observation.kind == "start" and self.signature is None:
            self.signature = observed_signature(observation)
        if observation.kind in ("test", "test_invalid"):
            return await self._answer(observation.trials, self.signature or observed_signature(observation))
        while True:
            line = await self._line()
            word = line.lower()
            if not line:
                continue
            if word in ("help", "h", "?"):
                self.write(LAB_HELP)
                continue
            if word == "done":
                return Move(action=Finish(), reply=line)
            try:
                steps = parse_steps(line, self.config.per_turn)
            except ValueError as exc:
                self.write(f"{exc}. Type help for the commands.")
                continue
            return Move(action=Request(steps), reply=line)

    async def _answer(self, trials: Sequence[TrialView], signature: Signature) -> Move[LabAction]:
        predictions: list[dict[str, dict[str, Value]] | None] = []
        for k, trial in enumerate(trials, start=1):
            self.write(_trial_text(k, trial))
            while True:
                line = await self._line(f"{k}> ")
                if line.lower() in ("help", "?"):
                    self._test_help()
                    continue
                try:
                    predictions.append(parse_prediction(line, trial))
                    break
                except ValueError as exc:
                    self.write(f"{exc}. Again, or - for nothing changes:")
        laws = await self._theory(signature)
        self.write("A one-line report of what you found (optional):")
        report = await self._line("report> ")
        answer = Answer(tuple(predictions), "\n".join(laws), report[:MAX_TEXT])
        return Move(action=answer, reply=answer_reply(answer))

    async def _theory(self, signature: Signature) -> list[str]:
        """The theory's lines, each checked as it is typed: a law that cannot be read (or names what the lab
        does not have) is said with its reason and asked again, the lines before it kept, as a prediction is."""
        self.write("Your theory, one law a line; an empty line ends it (or type nothing for none):")
        laws: list[str] = []
        count = 0
        while len(laws) < MAX_THEORY_LINES and count < MAX_LAWS:
            line = await self._line("law> ")
            if not line:
                break
            if line.lower() in ("help", "?"):
                self._test_help()
                continue
            n = law_count(line)
            if n == 0:  # a comment: nothing to check, nothing to keep
                continue
            if count + n > MAX_LAWS or len("\n".join([*laws, line])) > MAX_TEXT:
                self.write(
                    f"That would take the theory over {MAX_LAWS} laws or {MAX_TEXT} characters, the most it "
                    "holds: type a shorter line, or an empty line to end the theory:"
                )
                continue
            problems = line_problems(line, signature, first_line=len(laws) + 1)
            if problems:
                self.write(f"{'; '.join(problems)}. Type that law again (an empty line ends the theory):")
                continue
            laws.append(line)
            count += n
        if count >= MAX_LAWS:
            self.write(f"The theory holds its most, {MAX_LAWS} laws.")
        return laws


# -- the browser -------------------------------------------------------------------------------------------
WEB_INTRO = """\
You are a scientist in a lab no one has seen before: find out by experiment how each operation changes the \
objects it is done to. Each turn, send up to {per_turn} steps, one a line: OPERATION OBJECT, or OPERATION ACTOR \
TARGET for an operation by one object on another; reset OBJECT puts it back as it was at the start (free){create}. \
You have {budget} experiments over at most {turns} turns; a request the lab refuses uses up its turn. Press Done \
when you know enough: then you predict what new experiments do, and may write down your theory."""

WEB_TEST = """\
The test: for each experiment, write what you expect to change as obj.prop=value, obj.prop=value (true or false \
for a yes/no property), or - when nothing changes. Numbers within {tolerance:g}% count as right. The theory \
(optional) is one law a line, e.g. on OPERATION(a): a.PROPERTY = a.PROPERTY * 2 if a.FLAG; a line that cannot \
be read is pointed out before anything is sent, the other lines kept."""


def _example_steps(observation: LabObservation) -> str:
    """An example request with the lab's own names: at the start an operation on the first objects, later the
    first experiment of the last request."""
    if observation.kind == "start" and observation.operations and observation.objects:
        op, arity = observation.operations[0]
        names = [o.name for o in observation.objects[:arity]]
        if len(names) == arity:
            return " ".join([op, *names])
    for r in observation.results:
        if r.object is None:
            try:
                step = parse_step(r.step)
            except ValueError:
                continue
            if step.kind == "experiment":
                return " ".join([step.op, *step.objects])
    return "OPERATION OBJECT"


def _example_law(observation: LabObservation) -> str:
    """An example law in the lab's own names, readable as it stands: the first test experiment's operation on
    a number of its first object, times 10 (a factor the grammar never draws, so it hints at nothing)."""
    for trial in observation.trials:
        first = trial.objects[0] if trial.objects else None
        number = next(
            (k for k, v in (first.values if first else {}).items() if not isinstance(v, bool)), None
        )
        if number is not None:
            params = "a, b" if len(trial.objects) == 2 else "a"
            return f"on {trial.op}({params}): a.{number} = a.{number} * 10"
    return "on OPERATION(a): a.PROPERTY = a.PROPERTY * 10"


def web_form(config: LabConfig, observation: LabObservation, turn: int) -> WebForm:
    """The lab's web form: Run (steps) and Done while experimenting; the test's Answer (a table: a prediction
    per experiment; the theory, a report) after; nothing once the game is over. No free-text reply: a person
    is never asked for the JSON a model writes."""
    kind = observation.kind
    if kind == "ended":
        return WebForm(prompt=render(observation, config), moves=())
    if kind in ("test", "test_invalid"):
        lines = []
        if observation.message:
            what = "Your answer could not be read" if kind == "test_invalid" else "Refused"
            lines.append(f"{what}: {observation.message}.")
        if observation.results:
            lines += ["Results:", *render_results(observation.results)]
        lines.append(WEB_TEST.format(tolerance=config.tolerance * 100))
        # the test as a table: a row per experiment, its objects as they are before it, the prediction's input
        fields = [
            FormField(
                f"test{k}",
                f"{k}. {t.op}({', '.join(o.name for o in t.objects)})",
                placeholder="-",
                cells=("; ".join(f"{o.name}: {format_values(o.values)}" for o in t.objects),),
            )
            for k, t in enumerate(observation.trials, start=1)
        ]
        fields += [
            FormField(
                "theory", "Your theory (optional)", kind="textarea", placeholder=_example_law(observation)
            ),
            FormField("report", "Report (optional)", placeholder="what you found, in a line"),
        ]
        hint = "- for nothing changes"
        if observation.trials and observation.trials[0].objects and observation.trials[0].objects[0].values:
            first = observation.trials[0].objects[0]
            prop, value = next(iter(first.values.items()))
            hint = f"e.g. {first.name}.{prop}={format_value(value)}; {hint}"
        columns = ("Experiment", "The objects before it", "What changes (your prediction)")
        answer = FormMove("answer", "Answer", tuple(fields), hint, columns)
        return WebForm(prompt="\n".join(lines), moves=(answer,))
    if kind == "start":
        create = "; create TYPE makes a fresh object" if config.allow_create else ""
        intro = WEB_INTRO.format(
            per_turn=config.per_turn, create=create, budget=config.budget, turns=config.max_turns
        )
        prompt = f"{intro}\n\n{describe_lab(observation)}"
    else:
        prompt = render(observation, config)
    steps = FormField(
        "steps",
        f"Steps (up to {config.per_turn}, one a line)",
        kind="textarea",
        placeholder=_example_steps(observation),
    )
    create = ", create TYPE" if config.allow_create else ""
    run = FormMove("run", "Run", (steps,), f"OPERATION OBJECT [TARGET], reset OBJECT{create}")
    done = FormMove("done", "Done", hint="no more experiments: the test begins")
    return WebForm(prompt=prompt, moves=(run, done))


def web_action(
    observation: LabObservation, move: str, values: Mapping[str, str], signature: Signature | None = None
) -> LabAction:
    """The action of a move sent from :func:`web_form` (the free-text reply is the family's), each line of the
    theory checked against ``signature`` (None: what ``observation`` shows). A ValueError names the field at
    fault (for the theory each line at fault): nothing is played, the page keeps what was typed."""
    testing = observation.kind in ("test", "test_invalid")
    if (
        observation.kind == "ended"
        or (move in ("run", "done") and testing)
        or (move == "answer" and not testing)
    ):
        raise ValueError(f"{move!r} is not open now")
    if move == "run":
        try:
            return Request(parse_steps(form_value(values, "steps")))
        except ValueError as exc:
            message = str(exc)
            raise ValueError(message if message.startswith("steps:") else f"steps: {message}") from None
    if move == "done":
        return Finish()
    if move == "answer":
        predictions: list[dict[str, dict[str, Value]] | None] = []
        for k, trial in enumerate(observation.trials, start=1):
            try:
                predictions.append(parse_prediction(str(values.get(f"test{k}", "")), trial))
            except ValueError as exc:
                raise ValueError(f"test{k}: {exc}") from None
        theory, report = (str(values.get(name, "")).strip() for name in ("theory", "report"))
        for name, text in (("theory", theory), ("report", report)):
            if len(text) > MAX_TEXT:
                raise ValueError(f"{name}: more than {MAX_TEXT} characters")
        if len(theory.splitlines()) > MAX_THEORY_LINES:
            raise ValueError(f"theory: more than {MAX_THEORY_LINES} lines")
        problem = theory_problem(theory, signature or observed_signature(observation)) if theory else None
        if problem is not None:
            raise ValueError(f"theory: {problem}")
        return Answer(tuple(predictions), theory, report)
    raise ValueError(f"{move!r} is not a move of this game")


__all__ = [
    "LAB_HELP",
    "LabHumanPlayer",
    "answer_reply",
    "observed_signature",
    "parse_prediction",
    "parse_step",
    "parse_steps",
    "theory_problem",
    "web_action",
    "web_form",
]
