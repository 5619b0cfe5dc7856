"""The moves a person can make, declared once: the terminal player, the web form and ``wason session`` help.

A family lists the moves open at each point of a game as :class:`Command` objects
(:meth:`wason.core.family.Family.moves`). From that one declaration:

- :class:`TerminalPlayer` reads typed commands (``more 3``, ``guess TEXT``, ``give up``, ``1 2 3``), lists them
  with ``help``, refuses a bad one at no cost (one line, asked again, nothing stored) and shows what the web page
  shows after each move;
- :meth:`Family.web_form <wason.core.family.Family.web_form>` and ``web_move`` build the web page's form from
  it (:func:`form_moves`) and read what it sends with the same ``make``;
- :func:`describe_moves` lists the moves and the action JSON each makes, for ``wason session moves``.

The web form's data (:class:`WebForm`, :class:`FormMove`, :class:`FormField`) is defined here, below the family
contract that returns it (:mod:`wason.core.family` names them too).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from wason.core.game import Move, PlayerLeft

if TYPE_CHECKING:
    from wason.core.family import ActionCodec, PlayIO

__all__ = [
    "Command",
    "FormField",
    "FormMove",
    "TerminalPlayer",
    "WebForm",
    "action_error",
    "describe_moves",
    "form_moves",
    "give_up",
    "read_command",
]

_SPLIT = re.compile(r"[\s,()\[\]]+")

_HELP_WORDS = frozenset({"help", "h", "?"})
_HISTORY_WORDS = frozenset({"history", "hist"})
_QUIT_WORDS = frozenset({"quit", "exit", "q"})


@dataclass(frozen=True)
class FormField:
    """One input of a move in the web page's form.

    Attributes:
        name: the key its value arrives under in :meth:`Family.web_move <wason.core.family.Family.web_move>`.
        label: what the page shows beside it.
        kind: ``text`` (one line), ``number`` (a whole number) or ``textarea`` (several lines; Enter submits,
            Shift+Enter starts a new line).
        placeholder: an example value shown greyed out.
        value: the value the field starts with.
        cells: in a move shown as a table (:attr:`FormMove.columns`), the row's cells between the label (the
            first column) and the input (the last); a field without cells is shown under the table.
    """

    name: str
    label: str
    kind: Literal["text", "number", "textarea"] = "text"
    placeholder: str = ""
    value: str = ""
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class FormMove:
    """One kind of move a person can make on the web page: its fields and its button. With ``columns`` (the
    table's headings: the label's, the cells', the input's) the fields that have cells are rows of a table."""

    name: str
    label: str
    fields: tuple[FormField, ...] = ()
    hint: str = ""
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class WebForm:
    """What the web page offers a person at one point of a game.

    Attributes:
        prompt: what the player reads now, as text (instructions at the start, the game's answer later);
            never the hidden rule before the game ends.
        moves: the moves open now, the first one focused when the page opens.
    """

    prompt: str
    moves: tuple[FormMove, ...]


@dataclass(frozen=True, kw_only=True)
class Command:
    """One move a person can make, declared once for the terminal, the web form and the session help.

    Attributes:
        name: the move's key (the web form's ``move``) and, unless ``words`` says otherwise, the word typed first.
        label: the web page's button.
        make: the field values (text, by field name) -> the action (a dataclass of the family's codec). Raises
            ``ValueError`` naming the field for a value it cannot read; nothing is played then.
        fields: the values the move takes, in the order they are typed.
        syntax: the typed command as ``help`` shows it (``more N``, ``guess TEXT``, ``1 2 3``); by default the
            words and the fields' names in capitals.
        words: what a typed command starts with (``("guess", "g")``, ``("give up",)``); the first is the one
            ``help`` shows. ``("",)``: the command is the values alone (``1 2 3`` for a test).
        hint: one line on what the move does.
        web_hint: the same for the web form, where ``hint`` speaks the terminal's syntax (``e.g. guess x < y``);
            default ``hint``.
        action: the action kind it makes (the ``type`` of its JSON), for the session help.
        ask: at the terminal, ask each field on its own line (``label > ``) instead of reading a command: for a
            move that is the only one open (a predicate to write, a quiz to answer); its ``hint`` is then what the
            person reads (the web page's text is the request a model reads).
        info: a terminal command that only shows something (``make`` returns the text) and plays nothing; the
            web form leaves it out.
        collect: at the terminal, its fields are typed one a line (a list to test, say) and queued; the move is
            made when every field is filled, or earlier by typing one of ``words`` (``run``), with the fields
            filled so far (``make`` then receives only those). Each line is checked when it is queued.
    """

    name: str
    label: str
    make: Callable[[Mapping[str, str]], Any]
    fields: tuple[FormField, ...] = ()
    syntax: str = ""
    words: tuple[str, ...] = ()
    hint: str = ""
    web_hint: str = ""
    action: str = ""
    ask: bool = False
    info: bool = False
    collect: bool = False

    @property
    def typed(self) -> tuple[str, ...]:
        """The words a typed command starts with."""
        return self.words or (self.name.replace("_", " "),)

    @property
    def usage(self) -> str:
        """The typed command as help shows it."""
        if self.syntax:
            return self.syntax
        head = self.typed[0]
        tail = " ".join(f.name.upper() for f in self.fields)
        return f"{head} {tail}".strip()

    def form(self) -> FormMove:
        """The web form's move."""
        return FormMove(self.name, self.label, self.fields, self.web_hint or self.hint)


def give_up(kind: type[Any], **fields: Any) -> Command:
    """The give-up move of the games that have one (the action ``kind(**fields)``): typed ``give up``, a button
    on the web page."""
    return Command(
        name="give_up",
        label="Give up",
        make=lambda values: kind(**fields),
        hint="end the game and see the rule",
        action=kind.__name__,
    )


YES_NO = {
    "y": True,
    "yes": True,
    "true": True,
    "1": True,
    "n": False,
    "no": False,
    "false": False,
    "0": False,
}
"""The answers a yes/no quiz reads (any case)."""


def yes_no_quiz(
    kind: Callable[[tuple[bool, ...]], Any], labels: Sequence[str], what: str, hint: str
) -> Command:
    """The move of a quiz that asks yes or no of each of ``labels`` (a field each); its action is ``kind`` of
    the answers, and an answer it cannot read names its ``what`` and number ("word 2: answer yes or no")."""

    def make(values: Mapping[str, str]) -> Any:
        answers: list[bool] = []
        for i in range(1, len(labels) + 1):
            said = values.get(f"label{i}", "").strip().lower()
            if said not in YES_NO:
                raise ValueError(f"{what} {i}: answer yes or no, not {said[:20]!r}")
            answers.append(YES_NO[said])
        return kind(tuple(answers))

    fields = tuple(
        FormField(f"label{i}", f"{i}. {label}", placeholder="yes / no")
        for i, label in enumerate(labels, start=1)
    )
    return Command(name="quiz", label="Send", make=make, fields=fields, hint=hint, ask=True)


def form_moves(commands: Sequence[Command]) -> tuple[FormMove, ...]:
    """The web form's moves of ``commands``."""
    return tuple(c.form() for c in commands if not c.info)


def read_command(commands: Sequence[Command], line: str) -> tuple[Command, dict[str, str]]:
    """The command a typed line makes and its field values.

    Raises:
        ValueError: a line no command reads, or the wrong number of values, in one line for the person.
    """
    text = " ".join(line.split())
    lowered = text.lower()
    best: tuple[int, Command, str] | None = None
    bare: Command | None = None
    for command in commands:
        if command.collect:  # read line by line by the terminal player
            continue
        for word in command.typed:
            if word == "":
                bare = command
            elif (lowered == word or lowered.startswith(word + " ")) and (
                best is None or len(word) > best[0]
            ):
                best = (len(word), command, _after(line, len(word.split())))
    if best is not None:
        _, command, rest = best
    elif bare is not None:
        try:
            return bare, _values(bare, line.strip(), split=True)
        except ValueError:
            raise ValueError(f"{text[:40]!r} is not a move here; {_choices(commands)}") from None
    else:
        raise ValueError(f"{_first_word(text)!r} is not a move here; {_choices(commands)}")
    return command, _values(command, rest)


def _after(line: str, words: int) -> str:
    """``line`` after its first ``words`` words, as typed (the spaces inside a rule are kept)."""
    parts = line.strip().split(None, words)
    return parts[words].strip() if len(parts) > words else ""


def _values(command: Command, rest: str, *, split: bool = False) -> dict[str, str]:
    """The field values of a typed command: one field takes the rest of the line (but a number typed alone,
    ``split``, is one word), several take one word each."""
    fields = command.fields
    if not fields:
        if rest:
            raise ValueError(f"{command.usage} takes nothing after it")
        return {}
    if len(fields) == 1 and not (split and fields[0].kind == "number"):
        return {fields[0].name: rest or fields[0].value}
    tokens = [t for t in _SPLIT.split(rest) if t]
    if len(tokens) != len(fields):
        names = " ".join(f.name for f in fields)
        raise ValueError(f"{command.usage}: {len(fields)} values ({names}), not {len(tokens)}")
    return {f.name: t for f, t in zip(fields, tokens, strict=True)}


def _first_word(text: str) -> str:
    return text.split(" ", 1)[0][:40]


def _choices(commands: Sequence[Command]) -> str:
    shown = [_usage(c) for c in commands]
    return "type " + ", ".join(shown) + " or help"


def _usage(command: Command) -> str:
    if command.collect:
        return f"{command.fields[0].placeholder if command.fields else 'VALUE'}, {command.typed[0]}"
    if "" in command.typed and len(command.fields) > 1:
        return f"{command.usage} ({len(command.fields)} values)"
    return command.usage


def help_text(commands: Sequence[Command]) -> str:
    """The typed commands open now, one a line, with what each does."""
    rows: list[tuple[str, str]] = []
    for c in commands:
        if c.collect:
            example = c.fields[0].placeholder if c.fields else "VALUE"
            rows.append(
                (example, f"queue one ({len(c.fields)} make a move; {c.hint})" if c.hint else "queue one")
            )
            rows.append((c.typed[0], f"send the queued ones now ({c.label.lower()})"))
        else:
            rows.append((c.usage, c.hint or c.label))
    rows += [("history", "everything shown so far"), ("help", "this text"), ("quit", "leave the game")]
    width = max(len(u) for u, _ in rows) + 2
    return "\n".join(f"  {u.ljust(width)}{h}" for u, h in rows)


class TerminalPlayer:
    """A person at the terminal, playing by the moves a family declares (:meth:`Family.moves`).

    Each turn it shows what the web page shows (``show``: the family's :meth:`Family.web_form` prompt), then
    reads typed commands until one makes an action. ``help`` lists the commands open now, ``history`` shows again
    everything shown so far, ``quit`` (or the end of the input) leaves the game (:class:`PlayerLeft`). A line that
    makes no action costs nothing: one line says why and the next line is read.
    """

    def __init__(
        self,
        moves: Callable[[Any, int], Sequence[Command]],
        show: Callable[[Any, int], str],
        io: PlayIO,
        *,
        turn: Callable[[], int] | None = None,
    ) -> None:
        """
        Args:
            moves: the commands open at an observation after a number of turns.
            show: what the person reads at an observation after a number of turns.
            io: how the person is read and written to.
            turn: the game's turn now (moves the game made by itself count); by default the player counts its
                own moves.
        """
        self._moves = moves
        self._show = show
        self._io = io
        self._turn = turn
        self._played = 0
        self._shown: list[str] = []
        self._queue: list[str] = []

    async def act(self, observation: Any) -> Move[Any]:
        turn = self._turn() if self._turn is not None else self._played
        commands = list(self._moves(observation, turn))
        asked = len(commands) == 1 and commands[0].ask
        # a question asked field by field (a predicate, a quiz) is put in the move's own words: the page's text
        # is the request a model reads, with the reply format it must follow
        text = (
            commands[0].hint + ":" if asked and commands[0].hint else self._show(observation, turn)
        ).strip()
        if text:
            self._shown.append(text)
            self._io.write(text)
        if self._played == 0 and not asked:  # the commands, once (a game gone on with too)
            self._io.write(help_text(commands))
        while True:
            if asked:
                move = await self._ask(commands[0])
            else:
                move = await self._typed(commands)
            if move is not None:
                self._played += 1
                self._queue.clear()  # what was queued for a move not made is dropped with it
                return move

    async def _line(self, prompt: str) -> str:
        try:
            import asyncio  # imported where a person plays, not by every command (issue 39)

            return (await asyncio.to_thread(self._io.read, prompt)).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    async def _typed(self, commands: Sequence[Command]) -> Move[Any] | None:
        # the prompt says which move this is, where the caller knows the game's turn: a person's progress
        line = await self._line(f"move {self._io.turn() + 1}> " if self._io.turn is not None else "> ")
        lowered = line.lower()
        if not line:
            return None
        if lowered in _HELP_WORDS:
            self._io.write(help_text(commands))
            return None
        if lowered in _HISTORY_WORDS:
            self._io.write("\n".join(self._shown) or "Nothing yet.")
            return None
        if lowered in _QUIT_WORDS:
            raise PlayerLeft("gave up")
        collect = next((c for c in commands if c.collect), None)
        if collect is not None:
            queued = self._collect(collect, commands, line)
            if queued is not False:
                return queued if isinstance(queued, Move) else None
        try:
            command, values = read_command(commands, line)
            action = command.make(values)
        except ValueError as exc:
            self._io.write(f"{_one_line(exc)}. Nothing was played.")
            return None
        if command.info:
            self._io.write(str(action))
            return None
        return Move(action=action, reply=line)

    def _collect(self, command: Command, commands: Sequence[Command], line: str) -> Move[Any] | bool | None:
        """A line for a collecting command: queued, or the queue sent; False: the line is another command's."""
        lowered = " ".join(line.lower().split())
        if lowered in command.words:
            if not self._queue:
                self._io.write(
                    f"Nothing queued yet; type {command.fields[0].placeholder or 'a value'} first."
                )
                return None
            return self._send(command, line)
        others = [c for c in commands if c is not command and not c.collect]
        if any(lowered == w or lowered.startswith(w + " ") for c in others for w in c.typed if w):
            return False
        try:
            command.make(self._filled(command, [*self._queue, line]))
        except ValueError as exc:
            self._io.write(f"{_one_line(exc)}. Nothing was played; {_choices(commands)}.")
            return None
        self._queue.append(line)
        if len(self._queue) >= len(command.fields):
            return self._send(command, line)
        word = command.words[0] if command.words else "run"
        self._io.write(f"queued {len(self._queue)} of {len(command.fields)}; '{word}' sends them now")
        return None

    def _send(self, command: Command, line: str) -> Move[Any]:
        queued, self._queue = self._queue, []
        return Move(action=command.make(self._filled(command, queued)), reply="; ".join(queued))

    @staticmethod
    def _filled(command: Command, lines: Sequence[str]) -> dict[str, str]:
        return {f.name: text for f, text in zip(command.fields, lines, strict=False)}

    async def _ask(self, command: Command) -> Move[Any] | None:
        values: dict[str, str] = {}
        for f in command.fields:
            example = f" (e.g. {f.placeholder})" if f.placeholder and len(command.fields) == 1 else ""
            line = await self._line(f"{f.label}{example} > ")
            if line.lower() in _QUIT_WORDS:
                raise PlayerLeft("gave up")
            values[f.name] = line
        try:
            action = command.make(values)
        except ValueError as exc:
            self._io.write(f"{_one_line(exc)}. Nothing was played; once more.")
            return None
        return Move(action=action, reply="; ".join(values.values()))


def _one_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(".")


# -- the session help and its errors ------------------------------------------------------------------------
def describe_moves(commands: Sequence[Command], codec: ActionCodec) -> list[str]:
    """For ``wason session moves``: each move (its typed command and what it does), then the action JSON it
    makes, with the JSON of every other action kind the game reads after them."""
    lines: list[str] = []
    named: set[str] = set()
    for c in commands:
        if c.info:
            continue
        lines.append(f"{_usage(c)}: {c.hint or c.label}")
        if c.action and c.action in codec.kinds:
            named.add(c.action)
            lines.append(f"  {action_shape(codec.kinds[c.action])}")
    others = [k for k in codec.kinds if k not in named and k != "Malformed"]
    if others:
        lines.append("other actions:")
        lines += [f"  {action_shape(codec.kinds[k])}" for k in others]
    return lines


def action_shape(kind: type[Any]) -> str:
    """An action kind's JSON with a type name in place of each value: ``{"type": "More", "n": int}``."""
    parts = [f'"type": "{kind.__name__}"']
    hints = typing.get_type_hints(kind)
    for f in dataclasses.fields(kind):
        optional = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        parts.append(f'"{f.name}"{"?" if optional else ""}: {_type_name(hints.get(f.name, Any))}')
    return "{" + ", ".join(parts) + "}"


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (tuple, list, Sequence):
        inner = [a for a in args if a is not Ellipsis]
        return f"[{_type_name(inner[0]) if inner else 'any'}, ...]"
    if args and origin is not None and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " | ".join(_type_name(a) for a in rest) + " | null"
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in args)
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def action_error(exc: Exception) -> str:
    """A bad action JSON's error in one line naming the field (``FinalGuess.expression: a string, not 3``);
    pydantic's own message spans lines and ends with a link."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            found = errors()
        except Exception:
            found = []
        if found:
            first = found[0]
            loc = ".".join(str(p) for p in first.get("loc", ()) if not str(p).startswith("tagged-union"))
            what = str(first.get("msg", "not valid")).replace("Input should be", "should be")
            given = first.get("input")
            missing = first.get("type") == "missing"
            what = "missing" if missing else what
            shown = "" if missing else f" (given {_short(given)})"
            extra = len(found) - 1
            more = f"; {extra} more error{'s' if extra > 1 else ''}" if extra else ""
            return f"{loc or 'the action'}: {what}{shown}{more}"
    return " ".join(str(exc).split())[:300]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
