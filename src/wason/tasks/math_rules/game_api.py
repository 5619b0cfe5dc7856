"""The math game through the guess-the-rule game API (the reference's ``MathGuessTheRuleGame`` shape).

``system_message`` texts are the reference's (``api_init_message.txt``, ``api_more_examples_message.txt``,
``gm_short_messages.txt``). Differences, each a fix: the game has a rule drawn from the grammar with a seed (the
reference asked a model to write Python and exec'd it); a guess is judged by code when it contains
``lambda v, i: ...`` (words alone are judged by the LLM judge when the game has one, else they are a wrong guess
whose message says how to write the expression); a judged guess's ``guess_result`` is a real boolean; there is no
turn limit (as in the reference's API) and no quiz.

The summary: ``domain`` ``math``, ``game_gen_type`` ``dynamic``, ``game_class_name`` ``MathGuessTheRuleGame``
(the reference's, ``math_game/base.py:178-182``). The reference's summary of this game fails (it calls a method
the class does not have and reads a ``rule`` it never sets, ``base.py:192-216``), so two things are ours, in the
shape of its dynamic picnic game, whose history is a conversation like this game's: ``system_message`` is
:data:`RESUME` with the conversation so far (``Assistant:`` lines for what the game said, ``User:`` lines for
the guesses) or, once over, :data:`RESUME_OVER`; ``rule`` is ``{"rule_str": text, "rule_code": code}``, the
two fields the reference's saved games hold (``base.py:246-247``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import GameApi, Item, RunSettings
from wason.core.guess_rule import short_messages
from wason.tasks.math_rules.config import MathRunConfig, make_item
from wason.tasks.math_rules.expression import find_expression
from wason.tasks.math_rules.game import MAX_MORE, MAX_TURNS, GiveUp, Guess, MathObservation, More
from wason.tasks.math_rules.protocol import INCORRECT, format_sequences, load_text, parse_guess_reply

API_MAX_TURNS = MAX_TURNS
NO_EXPRESSION = (
    "(Only a guess written as a Python expression, e.g. lambda v, i: v + 3 where v is the current value and i "
    "its index, can be checked.)"
)
_GIVE_UP = re.compile(r"^\W*give\s+up\W*$", re.IGNORECASE)
RESUME = (
    "Welcome back to the game 'Find Principle Behind Math Sequence'.\n\n"
    "Here is the conversation from before:\n"
    "{conversation}\n\n"
    "What would you like to do next?"
)
"""Ours (the reference has none for this game): the summary's text while the game is ongoing."""
RESUME_OVER = 'Game is over. You {status}. The rule was "{rule_str}".\nCheck your stats in the top panel.'
"""Ours, as the dynamic picnic game's (``dynamic_picnic/base.py:53``): the summary's text once the game is over."""


class MathGameApi(GameApi):
    """Create, more, guess and view for the math game (``game_name`` ``math``)."""

    game_name = "math"
    class_name = "MathGuessTheRuleGame"
    domain = "math"
    game_gen_type = "dynamic"

    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        self.check_create(difficulty, num_init_examples, MAX_MORE)
        drawn = seed if seed is not None else random.SystemRandom().randrange(2**31)
        config = MathRunConfig(
            level=difficulty,  # type: ignore[arg-type]
            n=1,
            seed=drawn,
            init_examples=num_init_examples,
            max_turns=API_MAX_TURNS,
            refill=False,
            judges=["expression"],
            ask_expression=False,
            quiz_size=0,
        )
        return config, make_item(difficulty, drawn, 1, num_init_examples)

    def more(self, n: int) -> More:
        return More(self.check_more(n, MAX_MORE))

    def guess(self, text: str) -> Guess | GiveUp:
        if not isinstance(text, str) or not text.strip():
            raise ValueError("guess must be non-empty text")
        if _GIVE_UP.match(text):
            return GiveUp()
        parsed = parse_guess_reply(text)
        if isinstance(parsed, Guess | GiveUp):
            return parsed
        body = text.strip()
        return Guess(text=body, expression=find_expression(body))

    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        obs = observation if isinstance(observation, MathObservation) else MathObservation(**observation)
        messages = short_messages("wason.tasks.math_rules")
        result: bool | None = None
        if obs.kind in ("start", "examples"):
            name = "api_init_message.txt" if obs.kind == "start" else "api_more_examples_message.txt"
            text = load_text(name).format(generated_examples=format_sequences(obs.sequences))
        elif obs.kind == "wrong":
            result = False
            text = INCORRECT + (f"\n{NO_EXPRESSION}" if obs.reason else "")
        elif obs.kind == "ended":
            if obs.end_reason == "won":
                result = True
                text = messages["base.py:389"]
            elif obs.end_reason == "gave_up":
                text = messages["base.py:387"].format(rule_str=obs.rule)
            else:
                result = False if obs.end_reason == "wrong" else None
                text = f"The game is over: no turns left. The actual rule was: {obs.rule}"
        else:
            text = obs.reason or ""
        view: dict[str, Any] = {"system_message": text, "guess_result": result}
        if obs.sequences:  # every sequence obeys the rule: the game's positive examples
            view["positive_examples"] = [list(s) for s in obs.sequences]
        return view

    def rule_object(self, item: Mapping[str, Any]) -> dict[str, str]:
        return {"rule_str": str(item["rule"]["text"]), "rule_code": str(item["rule"]["code"])}

    def resume_message(self, history: Sequence[tuple[Any, Any]], status: str, rule: Any) -> str:
        if status != "ongoing":
            return RESUME_OVER.replace("{status}", status).replace("{rule_str}", str(rule["rule_str"]))
        lines: list[str] = []
        for action, observation in history:
            if isinstance(action, Guess | GiveUp):
                said = action.text if isinstance(action, Guess) else "give up"
                lines.append(f"User: {said}")
            lines.append(f"Assistant: {self.view(observation, False)['system_message']}")
        return RESUME.replace("{conversation}", "\n".join(lines))
