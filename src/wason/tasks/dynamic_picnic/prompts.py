"""The published Dynamic Picnic prompts, filled byte for byte, and the few texts this package adds.

Every published text is package data copied from the reference (``data/*.txt``; PROMPTS.md describes each).
Placeholders are filled by plain replacement of ``{name}`` for the names each template has, so literal braces
elsewhere (the validator's ``{"validations": ...}``) stay as written. Texts added here (the negative writer, the
game master's lines for delivered examples) are marked as ours in ``docs/dynamic-picnic.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, partial

from wason.core import ChatMessage
from wason.core.guess_rule import package_text

RULE_TYPES = ("attribute_based", "categorical", "logical", "relational", "semantic")


text = partial(package_text, "wason.tasks.dynamic_picnic")
"""A published text from the package data, exactly as stored."""


def fill(template: str, **values: object) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced (one pass, so a value is never re-filled)."""
    out = template
    marks = {f"{{{k}}}": f"\x00{i}\x00" for i, k in enumerate(values)}
    for mark, token in marks.items():
        if mark not in out:
            raise ValueError(f"the template has no placeholder {mark}")
        out = out.replace(mark, token)
    for i, value in enumerate(values.values()):
        out = out.replace(f"\x00{i}\x00", str(value))
    return out


@cache
def short_messages() -> dict[str, str]:
    """The one-line status strings of ``gm_short_messages.txt``, keyed by the source named in their header
    (``base.py:220``)."""
    out: dict[str, str] = {}
    key: str | None = None
    lines: list[str] = []
    for line in [*text("gm_short_messages.txt").split("\n"), "=== end"]:
        if line.startswith("=== "):
            if key is not None:
                out[key] = "\n".join(lines).rstrip("\n")
            key, lines = line[4:].split(" ", 1)[0], []
        else:
            lines.append(line)
    return out


def short(key: str, **values: object) -> str:
    return fill(short_messages()[key], **values)


# -- the game master: writing, validating and judging ----------------------------------------------------
def _joined(items: Iterable[str]) -> str:
    # base.py:384-396 joins the lowercased sets with ", " or writes "none"
    values = [i.lower() for i in items]
    return ", ".join(values) if values else "none"


# Ours: the reference never writes items that do not fit. The same text as the published writer, asking for
# items that do not satisfy the rule.
NEGATIVE_WRITER = (
    'You are an assistant helping to generate examples for a game called "Guess the Rule Games.".\n\n'
    "The secret rule is: {rule}\n\n"
    "Here are the examples that have already been provided by the game master: {existing_generated}.\n"
    "Here are the examples that the player has already guessed: {existing_guesses}.\n\n"
    "Your task is to provide {num_examples} new and unique examples of ordinary items that do NOT satisfy the "
    "secret rule.\n\n"
    "- Only provide the items in a simple, comma-separated list.\n"
    "- Do not mention the secret rule.\n"
    "- Do not repeat any examples already provided by the game master or guessed by the player.\n"
    "- Do not provide any additional explanation or text.\n\n"
    "Format:\n\n"
    "[item1], [item2], ..., [item{num_examples}]"
)


def example_writer(
    rule: str, existing: Sequence[str], guesses: Sequence[str], n: int, *, fits: bool = True
) -> list[ChatMessage]:
    """The published example writer (``example_generator.txt``, the only message, role user), or with ``fits``
    off ours for items that do not fit."""
    prompt = fill(
        text("example_generator.txt") if fits else NEGATIVE_WRITER,
        rule=rule,
        existing_generated=_joined(existing),
        existing_guesses=_joined(guesses),
        num_examples=n,
    )
    return [ChatMessage(role="user", content=prompt)]


def example_judge(rule: str, item: str) -> list[ChatMessage]:
    """The published example judge (system + user), used as each validator's vote on one item."""
    return [
        ChatMessage(role="system", content=text("judge_example_system.txt")),
        ChatMessage(role="user", content=fill(text("judge_example.txt"), rule=rule, example_guess=item)),
    ]


def rule_judge(rule: str, guess: str) -> list[ChatMessage]:
    """The published rule-guess judge (system + user)."""
    return [
        ChatMessage(role="system", content=text("judge_rule_system.txt")),
        ChatMessage(role="user", content=fill(text("judge_rule.txt"), rule=rule, rule_guess=guess)),
    ]


def guess_classifier(user_input: str) -> list[ChatMessage]:
    """The published classifier of a player's input (example / actual / give up); kept for reproduction,
    not used by the game (the protocol reads the player's reply by code)."""
    return [ChatMessage(role="user", content=fill(text("classify_guess.txt"), user_input=user_input))]


# -- writing rules -----------------------------------------------------------------------------------------
def existing_rules_text(existing: Sequence[str]) -> str:
    """``{existing_rules_text}``: empty with no rules yet, else the published text with ``- rule`` lines."""
    if not existing:
        return ""
    bulleted = "\n".join(f"- {rule}" for rule in existing)
    return fill(text("rule_generator_existing_rules_text.txt"), existing_rules_bulleted=bulleted)


def rule_writer(rule_type: str, existing: Sequence[str], *, simple: bool = True) -> list[ChatMessage]:
    """The published rule writer: the system message and ``rule_generator[_L1]_<type>.txt`` (``simple``: the L1
    variants, the set active in the last committed generator)."""
    if rule_type not in RULE_TYPES:
        raise ValueError(f"rule_type: unknown type {rule_type!r}; choose one of: {', '.join(RULE_TYPES)}")
    name = f"rule_generator_{'L1_' if simple else ''}{rule_type}.txt"
    return [
        ChatMessage(role="system", content=text("rule_generator_system.txt")),
        ChatMessage(role="user", content=fill(text(name), existing_rules_text=existing_rules_text(existing))),
    ]


def level_classifier(rule: str) -> list[ChatMessage]:
    """The published level classifier, sent as the only message with role system."""
    return [ChatMessage(role="system", content=fill(text("rule_level_classifier.txt"), rule=rule))]


# -- the player ---------------------------------------------------------------------------------------------
def examples_text(items: Sequence[str]) -> str:
    """The harness's list: each item in double quotes, joined by `` and ``."""
    return " and ".join(f'"{item}"' for item in items)


def initial_message(items: Sequence[str]) -> str:
    return fill(text("experiment_initial_message.txt"), examples_text=examples_text(items))


def player_turn(items: Sequence[str], history: Sequence[tuple[str, str]], *, final: bool) -> str:
    """The published player prompt of one turn: ``history`` is (speaker, text) pairs, speaker ``Game Master``
    or ``Player``; ``final`` picks the last-turn prompt."""
    name = "experiment_player_final_turn.txt" if final else "experiment_player_turn.txt"
    conversation = "\n".join(f"{who}: {said}" for who, said in history)
    return fill(text(name), examples_text=examples_text(items), conversation_history=conversation)


# -- the game API's player-facing messages ------------------------------------------------------------------
def api_init(items: Sequence[str]) -> str:
    return fill(text("api_init_message.txt"), generated_examples_str=", ".join(items))


def api_more(items: Sequence[str]) -> str:
    return fill(text("api_more_examples_message.txt"), generated_examples_str=", ".join(items))


def api_resume(conversation: Sequence[tuple[str, str]]) -> str:
    lines = "\n".join(f"{who}: {said}" for who, said in conversation)
    return fill(text("api_resume_message.txt"), current_conversation=lines)


# Ours: the reference's rule writer gives no code; a rule about letters, length or spelling is played only with
# a predicate in the word language, which the game master is asked for here (and the sandbox parses).
PREDICATE_WRITER = (
    "Here is a rule of a guessing game about which items can be brought to a picnic:\n\n"
    "{rule}\n\n"
    "If the rule can be decided from the letters of an item's name, write it as one Python lambda over the "
    "item's name w (lower case; it may contain spaces), using only: len, indexing and slicing, in, comparisons, "
    "and/or/not, arithmetic, str methods (startswith, endswith, count, find, isalpha, replace, split, ...), "
    "sum/all/any/min/max/sorted/set/list over the characters, ord, range and zip. If only part of the rule is "
    'about letters (for example "a noun that starts with P"), write the predicate for that part.\n\n'
    "Reply with exactly two lines:\n"
    "PREDICATE: lambda w: ...   (or PREDICATE: NONE)\n"
    "WHOLE: yes   (if the predicate decides the whole rule; otherwise WHOLE: no)"
)


def predicate_writer(rule: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=fill(PREDICATE_WRITER, rule=rule))]


# -- the experiment harness's other texts (kept for reproduction; the validated game does not send them) -------
def harness_game_master(secret_rule: str) -> list[ChatMessage]:
    """The harness's one game-master chat (``experiment_gm_system.txt``), replaced here by the oracle."""
    return [
        ChatMessage(role="system", content=fill(text("experiment_gm_system.txt"), secret_rule=secret_rule))
    ]


def harness_example_writer(secret_rule: str, n: int) -> list[ChatMessage]:
    """What the harness asked of the player's own model for its first examples (a defect fixed here)."""
    prompt = fill(text("experiment_example_generator.txt"), secret_rule=secret_rule, num_examples=n)
    return [ChatMessage(role="user", content=prompt)]


def harness_example_validator(secret_rule: str, examples: Sequence[str]) -> list[ChatMessage]:
    """The harness's validator of those examples; ``{"validations": ...}`` in it is literal text."""
    prompt = fill(
        text("experiment_example_validator.txt"), secret_rule=secret_rule, examples=", ".join(examples)
    )
    return [ChatMessage(role="user", content=prompt)]
