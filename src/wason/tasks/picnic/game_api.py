"""Static Picnic through the guess-the-rule game API (the reference's library and HTTP shape).

``create`` draws a rule of the level from the default (distinct) pool with a seed; the game is the library's: no
turn limit, no examples handed out after a wrong guess, the code judge. The player-facing ``system_message``
texts are the reference's (``api_init_message.txt``, ``api_more_examples_message.txt``,
``gm_short_messages.txt``). A request larger than what is left is capped and says so, where the reference refused
it and still counted a turn (``base.py:214-228``). ``total_examples_available`` says whether examples are
left: 1 while any is, 0 once none is (:data:`AVAILABLE_SHOWN`). The reference reported the count at creation, i.e.
the rule's size, and the exact count left is the rule's size less the examples shown: 18 of the 76 categories have a
size no other has, so guessing the rule from the count alone won 68% of L1 games (136 of 200), 38% of L2 and 31%
of L3 at the first guess; capped at 1 it wins 3.5%, 4% and 4.5%, what one fixed guess wins (``docs/picnic.md``).
The reference's web app does not read the field.

The summary is the reference's (``base.py:336-385``): ``domain`` ``natural_language``, ``game_gen_type``
``static``, ``game_class_name`` ``StaticGoingOnAPicnic``; its ``system_message`` the "Welcome back..." text
(``api_resume_message.txt``) with every example shown so far, in the order shown (the reference joined sets, in
no order), or once over ``Game is over. You {status}. The rule was {rule}.`` with the rule object as Python
prints it (``base.py:357``); ``rule`` the reference's object (``{"type", "rule", "category"|"categories"}``,
``base.py:294-321``, its categories a list as its saved games hold them).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import GameApi, Item, RunSettings
from wason.core.guess_rule import short_messages
from wason.tasks.picnic.catalog import LEVELS, derive_seed, draw_rule
from wason.tasks.picnic.config import PicnicRunConfig, make_item
from wason.tasks.picnic.game import MAX_REQUEST, GiveUp, Guess, More, PicnicObservation
from wason.tasks.picnic.protocol import exceeded_line, join_items, load_text


def short(source: str) -> str:
    """One short message of ``gm_short_messages.txt`` by the source its header names first (e.g. ``base.py:205``)."""
    return short_messages("wason.tasks.picnic")[source]


LAST_TURN = "base.py:162,192,354"
MORE_REFUSED = "base.py:228"
CORRECT = "base.py:205"
WRONG_OVER = "base.py:207"
WRONG_GO_ON = "base.py:209"
GAVE_UP = "llm_gameplay.py:341"
RESUME_OVER = "base.py:357"
RULE_TYPES = {"single": "category", "pair": "pair", "triplet": "triplet"}
"""The reference's ``type`` of a rule of each kind (``base.py:297-321``)."""


AVAILABLE_SHOWN = 1
"""The most ``total_examples_available`` says: whether any example is left, not how many (the count names the
rule). A request larger than what is left is capped and says so, as before."""


def _give_up_text(text: str) -> bool:
    return " ".join(text.lower().replace(".", " ").replace("!", " ").split()) in ("give up", "i give up")


class PicnicGameApi(GameApi):
    """The reference's game API for Static Picnic (``game_name = "static_picnic"``)."""

    game_name = "static_picnic"
    levels = LEVELS
    class_name = "StaticGoingOnAPicnic"
    domain = "natural_language"
    game_gen_type = "static"

    def create(self, difficulty: str, num_init_examples: int, seed: int | None) -> tuple[RunSettings, Item]:
        self.check_create(difficulty, num_init_examples, MAX_REQUEST)
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        level = next(lv for lv in LEVELS if lv == difficulty)
        config = PicnicRunConfig(
            level=[level],
            init_examples=num_init_examples,
            examples_each_turn=False,
            player="human",
        )
        rule = draw_rule(level, config.pool, derive_seed("picnic-api-rule", seed))
        item = make_item(rule, None, num_init_examples, derive_seed("picnic-api-examples", seed), 0)
        item["provenance"] = {"generator": "wason-picnic-api", "seed": seed, "pool": config.pool}
        return config, (f"api|{level}|{seed}", item)

    def more(self, n: int) -> Any:
        return More(self.check_more(n, MAX_REQUEST))

    def guess(self, text: str) -> Any:
        if _give_up_text(text):
            return GiveUp()
        return Guess(text)

    def view(self, observation: Any, done: bool) -> dict[str, Any]:
        obs: PicnicObservation = observation
        out: dict[str, Any] = {
            "positive_examples": list(obs.positives),
            "negative_examples": list(obs.negatives),
            "total_examples_available": min(obs.remaining, AVAILABLE_SHOWN),
            "guess_result": None,
        }
        values = {
            "positives_string": join_items(obs.positives),
            "negatives_string": join_items(obs.negatives),
        }
        if obs.kind == "start":
            message = load_text("api_init_message.txt").format(**values)
        elif obs.kind == "examples":
            if not obs.positives:
                message = short(MORE_REFUSED).format(n=obs.requested, available_count=0)
            else:
                message = load_text("api_more_examples_message.txt").format(**values)
                if obs.capped:
                    message = exceeded_line(len(obs.positives)) + message
        elif obs.kind == "wrong_guess":
            out["guess_result"] = False
            message = short(WRONG_GO_ON)
        elif obs.kind == "format_error":
            message = f"Your move could not be read ({obs.reason}). What would you like to do next?"
        else:
            message = self._ended(obs, out)
            return {"system_message": message, **out}
        if obs.remaining <= 0:
            message += short(LAST_TURN)
        return {"system_message": message, **out}

    @staticmethod
    def _ended(obs: PicnicObservation, out: dict[str, Any]) -> str:
        rule = obs.rule or ""
        if obs.end_reason == "correct":
            out["guess_result"] = True
            return short(CORRECT)
        if obs.guess_right is False:
            out["guess_result"] = False
            return short(WRONG_OVER).format(rule=rule)
        return short(GAVE_UP).format(rule=rule)

    def rule_object(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The reference's rule: ``{"type": "category", "rule": text, "category": c}`` for one category, else
        ``{"type": "pair" | "triplet", "rule": text, "categories": [...]}`` (``base.py:294-321``)."""
        rule = item["rule"]
        categories = [str(c) for c in rule["categories"]]
        out: dict[str, Any] = {"type": RULE_TYPES[str(rule["kind"])], "rule": str(rule["text"])}
        if len(categories) == 1:
            out["category"] = categories[0]
        else:
            out["categories"] = categories
        return out

    def resume_message(self, history: Sequence[tuple[Any, Any]], status: str, rule: Any) -> str:
        if status != "ongoing":
            return short(RESUME_OVER).format(status=status, rule=rule)
        observations: list[PicnicObservation] = [obs for _, obs in history]
        positives = [x for obs in observations for x in obs.positives]
        negatives = [x for obs in observations for x in obs.negatives]
        message = load_text("api_resume_message.txt").format(
            positives_string=join_items(positives), negatives_string=join_items(negatives)
        )
        if observations and observations[-1].remaining <= 0:
            message += short(LAST_TURN)
        return message
