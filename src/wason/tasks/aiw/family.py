"""AIW as a task family: run configuration (variations x prompt types x trials), items, game, protocol, reports
and plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from wason.core.family import (
    MAX_EPISODES,
    MAX_SEED,
    ActionCodec,
    EpisodeContext,
    Family,
    FormField,
    Item,
    Name,
    RunSettings,
    WebForm,
    check_episodes,
    form_value,
)
from wason.core.game import Game, TextProtocol
from wason.core.moves import Command, form_moves
from wason.tasks.aiw.game import AiwGame, Reply
from wason.tasks.aiw.prompt_types import PROMPT_TYPES

MAX_GENERATED = 100
"""The most generated variations per family: drawing 100 of each of the 63 families that have so many takes
about 1.7 s."""

MAX_NAMES = 1_000
"""The most names in a list of families or prompt types."""


class AiwRunConfig(RunSettings):
    """Everything that defines an AIW run: which items, how many trials each, and how the model is asked.

    Items are (variation, prompt type) pairs, each played ``trials`` times. ``published`` variations are the
    distinct (family, slots) instances of the published records of the chosen families (default: the paper's
    AIW variations 1-6); ``generated`` draws ``n`` fresh variations per family with ``seed``.
    """

    item_fields: ClassVar[frozenset[str] | None] = frozenset({"families", "variations", "n"})
    # shown while a game of the run is not over. The seed too: it draws a generated variation's numbers, which its
    # question shows (and its name holds), and nothing else; the answer is hidden until the end
    public_fields: ClassVar[frozenset[str]] = frozenset({"prompt_types", "trials", "self_verify", "seed"})
    # how a model is asked (the prompt's instructions, follow-ups): a person reads the problem alone
    model_only: ClassVar[frozenset[str]] = frozenset({"prompt_types", "self_verify"})
    audit_module: ClassVar[str | None] = "wason.tasks.aiw.audit"

    label_fields: ClassVar[tuple[str, ...]] = ("variations",)
    task: Literal["aiw"] = "aiw"
    families: list[Name] | None = Field(
        default=None,
        max_length=MAX_NAMES,
        description="family or group names, comma-separated (default: AIW variations 1-6)",
    )
    prompt_types: list[Name] = Field(
        default_factory=lambda: ["STANDARD"],
        max_length=MAX_NAMES,
        description="prompt types, comma-separated (default STANDARD)",
    )
    variations: Literal["published", "generated"] = Field(
        default="published", description="which variations (default published)"
    )
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, description="seed of generated variations")
    n: int | None = Field(default=None, ge=1, le=MAX_GENERATED, description="generated variations per family")
    trials: int = Field(default=30, ge=1, le=MAX_EPISODES, description="trials per (variation, prompt type)")
    self_verify: Literal["review", "double-check"] | None = Field(
        default=None,
        description="after the answer, ask the model to review and improve it (multi-turn, records 110-112)",
    )

    @model_validator(mode="after")
    def _check(self) -> AiwRunConfig:
        from wason.tasks.aiw import FAMILIES, PROMPT_TYPES

        unknown = [p for p in self.prompt_types if p not in PROMPT_TYPES]
        if unknown or not self.prompt_types:
            raise ValueError(f"unknown prompt type(s) {unknown}; choose from: {', '.join(PROMPT_TYPES)}")
        groups = {f.group for f in FAMILIES.values()}
        bad = [f for f in self.families or [] if f not in FAMILIES and f not in groups]
        if bad:
            raise ValueError(f"unknown AIW family {bad[0]!r}; see docs/aiw.md for the families")
        if self.variations == "generated" and (self.seed is None or self.n is None):
            raise ValueError("generated variations need --seed S and --n K (K >= 1)")
        if self.variations == "generated":
            variations = len(self._family_names()) * int(self.n or 0)
        else:
            variations = len(self.variations_list())
        check_episodes(variations * len(self.prompt_types) * self.trials, "trials")
        return self

    def _family_names(self) -> list[str]:
        from wason.tasks.aiw import FAMILIES

        chosen = self.families or ["aiw.bs", "aiw.sb"]
        return [name for name, f in FAMILIES.items() if name in chosen or f.group in chosen]

    def variations_list(self) -> list[tuple[str, str, dict[str, Any]]]:
        """``(variation name, family, slots)`` in a stable order."""
        from wason.tasks.aiw import ORIGINAL_VARIATIONS, generate_variations, published_items

        if self.variations == "generated":
            return [
                (v.name, v.family, dict(v.slots))
                for family in self._family_names()
                for v in generate_variations(family, seed=int(self.seed or 0), n=int(self.n or 0))
            ]
        if self.families is None:
            return [
                (f"AIW variation {k}", fam, dict(slots)) for k, (fam, slots) in ORIGINAL_VARIATIONS.items()
            ]
        names = set(self._family_names())
        seen: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
        for item in published_items():
            if item.family not in names:
                continue
            key = (item.family, repr(sorted(item.slots.items())))
            label = item.variation or f"{item.family} " + ", ".join(f"{k}={v}" for k, v in item.slots.items())
            seen.setdefault(key, (label, item.family, dict(item.slots)))
        return list(seen.values())

    def items(self) -> list[Item]:
        """One episode per (variation, prompt type, trial); items carry the prompt and the right answer."""
        from wason.tasks.aiw import expected_answer, render
        from wason.tasks.aiw.followups import FOLLOWUPS, first_message

        followups = list(FOLLOWUPS[self.self_verify]) if self.self_verify else []
        out = []
        for name, family, slots in self.variations_list():
            for prompt_type in self.prompt_types:
                prompt = render(family, slots, prompt_type)
                if followups:  # the published conversations open without the instruction's final period
                    prompt = first_message(prompt, as_published=True)
                expected = expected_answer(family, slots, prompt_type)
                for trial in range(1, self.trials + 1):
                    item = {
                        "variation": name,
                        "family": family,
                        "slots": slots,
                        "prompt_type": prompt_type,
                        "trial": trial,
                        "prompt": prompt,
                        "expected": expected,
                        "followups": followups,
                    }
                    if PROMPT_TYPES[prompt_type].continuation:
                        item["continuation"] = True  # a base model's continuation: read its first answer
                    out.append((f"{name}|{prompt_type}|{trial}", item))
        return out


class AiwFamily(Family[AiwRunConfig]):
    """ "Alice has N brothers and M sisters...": variations, prompt types, many trials, robustness."""

    name = "aiw"
    title = "AIW"
    summary = "Alice in Wonderland problems: variations x prompt types x trials, correct rates, robustness"
    config_type = AiwRunConfig
    reports = ("wason.tasks.aiw.report", "wason.tasks.aiw.plots")

    action_writer = "wason.tasks.aiw.protocol"
    action_codec = ActionCodec(Reply)

    def game(self, config: AiwRunConfig, item: Mapping[str, Any], context: EpisodeContext) -> Game[Any, Any]:
        return AiwGame(
            item["prompt"],
            item["expected"],
            tuple(item.get("followups", ())),
            continuation=bool(item.get("continuation")),
        )

    def protocol(self, config: AiwRunConfig, item: Mapping[str, Any]) -> TextProtocol[Any, Any]:
        from wason.tasks.aiw.protocol import AiwProtocol

        expected = item.get("expected")
        return AiwProtocol(
            item["prompt"],
            expected=str(expected) if expected is not None else None,
            continuation=bool(item.get("continuation")),
        )

    def sample_key(self, config: AiwRunConfig, item: Mapping[str, Any]) -> str:
        # trials of one item must be independent samples: the trial is part of the sample key
        return f"{item['variation']}|{item['prompt_type']}|{item['trial']}|{item['prompt']}"

    def sample_actions(self, config: AiwRunConfig, item: Mapping[str, Any]) -> list[Any] | None:
        # AIW has no solver: the script states the right answer, once for the question and once per follow-up
        reply = Reply(f"### Answer: {item['expected']}")
        return [reply] * (1 + len(item.get("followups", ())))

    def web_form(self, config: AiwRunConfig, item: Mapping[str, Any], observation: Any, turn: int) -> WebForm:
        # a person reads the problem without the instructions wrapped around it for a model
        kind = PROMPT_TYPES.get(str(item.get("prompt_type")))
        problem = str(item["prompt"])
        if kind is not None and problem.startswith(kind.prefix) and problem.endswith(kind.suffix):
            problem = problem[len(kind.prefix) : len(problem) - len(kind.suffix)].strip()
        prompt = f"{problem}\n\nAnswer with a number." if turn == 0 else ""
        return WebForm(prompt=prompt, moves=form_moves(self.moves(config, item, observation)))

    def ending(self, item: Mapping[str, Any], metrics: Mapping[str, Any] | None) -> list[str]:
        lines = [f"The answer was {item.get('expected')}."]
        if metrics is not None and metrics.get("answer") is not None:
            verdict = "right" if metrics.get("correct") else "wrong"
            lines.append(f"You answered {metrics['answer']}: {verdict}.")
        return lines

    def moves(self, config: AiwRunConfig, item: Mapping[str, Any], observation: Any) -> Sequence[Command]:
        return (
            Command(
                name="answer",
                label="Answer",
                # the answer as the prompt asks for it, so the game reads it as it reads a model's
                make=lambda values: Reply(f"### Answer: {_answer(values, item)}"),
                fields=(FormField("answer", "Your answer", placeholder="42"),),
                syntax="answer NUMBER",
                hint="your answer",
                action="Reply",
            ),
        )

    def public(self, item: Mapping[str, Any]) -> list[str]:
        # the question and how it is asked; the right answer is not shown before the end
        return ["variation", "prompt_type", "trial", "prompt", "followups"]

    def describe(self, config: AiwRunConfig, n_episodes: int, n_todo: int, who: str) -> str:
        shape = (
            f"{len(config.variations_list())} {config.variations} variations x {len(config.prompt_types)} prompt"
            f" type(s) x {config.trials} trials"
        )
        return f"AIW, {shape} = {n_episodes} episodes ({n_todo} to play) with {who}"


def _answer(values: Mapping[str, str], item: Mapping[str, Any]) -> str:
    """A person's answer, refused before it is played when the question wants a number and it is none."""
    text = form_value(values, "answer")
    if str(item.get("expected", "")).lstrip("-").isdigit() and not text.lstrip("-").isdigit():
        raise ValueError(f"answer: a whole number, not {text[:20]!r}")
    return text


FAMILY = AiwFamily()
