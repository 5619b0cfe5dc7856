"""``wason lab ...``: look at a generated domain, check many of them, and judge a theory against one."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from wason.core.family import command_text
from wason.tasks.lab.drawing import generate, identifiability_problems
from wason.tasks.lab.laws import format_value
from wason.tasks.lab.world import PRESETS, Domain

MAX_THEORY_FILE = 100_000


def _domain_flags(p: Any) -> None:
    p.add_argument("--difficulty", choices=list(PRESETS), default="easy")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (wason eval lab --seed)")
    p.add_argument("--index", type=int, default=1, help="the game of the run (1..n)")
    p.add_argument("--noise", type=float, default=None, help="measurement noise (standard deviation)")


def add_commands(parser: Any) -> None:
    sub = parser.add_subparsers(dest="family_command", required=True, parser_class=type(parser))
    show = sub.add_parser("domain", help="show a generated domain with its hidden laws (game INDEX of a run)")
    _domain_flags(show)
    show.add_argument("--json", action="store_true", help="the domain as JSON")
    check = sub.add_parser(
        "check",
        help="generate many domains and check each: same seed same bytes, JSON round trip, laws readable, "
        "identifiable within the budget, and (--solve) identified by the solver",
    )
    check.add_argument("--difficulty", choices=list(PRESETS), default="easy")
    check.add_argument("--n", type=int, default=1000, help="domains (default 1000)")
    check.add_argument("--seed", type=int, default=0)
    check.add_argument(
        "--solve", action="store_true", help="also play the solver on each and count identified"
    )
    judge = sub.add_parser("theory", help="judge a theory in the law language against a domain")
    judge.add_argument("file", help="the theory, one law per line ('-' for standard input)")
    _domain_flags(judge)


def _domain(args: Any) -> Domain:
    params = PRESETS[args.difficulty]
    if args.noise is not None:
        if not 0 <= args.noise <= 100:
            raise ValueError("--noise: a standard deviation from 0 to 100")
        params = params.model_copy(update={"noise": args.noise})
    if args.index < 1:
        raise ValueError("--index: games are numbered from 1")
    return generate(params, f"{args.seed}|{args.index}")


def run_command(args: Any, write: Callable[[str], None]) -> int:
    if args.family_command == "domain":
        domain = _domain(args)
        if args.json:
            write(json.dumps(domain.to_json(), indent=2))
            return 0
        write(describe_domain(domain))
        return 0
    if args.family_command == "check":
        return _check(args, write)
    return _theory(args, write)


def describe_domain(domain: Domain) -> str:
    lines = [
        f"domain {domain.seed!r} (generator version {domain.version}; {domain.rejected} draws rejected before it)",
        "types:",
    ]
    for t in domain.types:
        lines.append(f"  {t.name}: booleans {', '.join(t.booleans) or '-'}; numbers {', '.join(t.numbers)}")
    lines.append("operations: " + ", ".join(f"{o.name}/{o.arity}" for o in domain.operations))
    lines.append("objects:")
    for name, type_name, values in domain.objects:
        shown = ", ".join(f"{k}={format_value(v)}" for k, v in values)
        lines.append(f"  {name} ({type_name}): {shown}")
    lines.append("hidden laws:")
    lines += [f"  {text}" for text in domain.law_text()]
    if domain.noise:
        lines.append(f"measurement noise: sd {domain.noise:g}")
    return "\n".join(lines)


def _check(args: Any, write: Callable[[str], None]) -> int:
    from wason.tasks.lab.laws import format_theory
    from wason.tasks.lab.theory import read_theory

    if not 1 <= args.n <= 100_000:
        raise ValueError("--n: between 1 and 100000")
    params = PRESETS[args.difficulty]
    problems: Counter[str] = Counter()
    examples: dict[str, str] = {}
    rejected = 0
    identified = 0
    for k in range(1, args.n + 1):
        seed = f"{args.seed}|{k}"
        domain = generate(params, seed)
        rejected += domain.rejected
        found = []
        if generate(params, seed).canonical() != domain.canonical():
            found.append("not the same from the same seed")
        if Domain.from_json(json.loads(domain.canonical())).canonical() != domain.canonical():
            found.append("JSON round trip differs")
        try:
            if read_theory(format_theory(domain.laws), domain) != domain.laws:
                found.append("laws do not read back as themselves")
        except ValueError as exc:
            found.append(f"laws unreadable: {exc}")
        found += [f"not identifiable: {p}" for p in identifiability_problems(domain)]
        if args.solve:
            if _solved(domain):
                identified += 1
            else:
                found.append("the solver did not identify it")
        for p in found:
            key = p.split(":")[0]
            problems[key] += 1
            examples.setdefault(key, f"{seed}: {p}")
    write(
        f"{args.n} {args.difficulty} domains (seeds {args.seed}|1..{args.seed}|{args.n}): {rejected} draws rejected"
    )
    if args.solve:
        write(f"identified by the solver within the budget: {identified}/{args.n}")
    if not problems:
        write("all valid" + (" and identified" if args.solve else " and identifiable"))
        return 0
    for key, count in problems.most_common():
        write(f"{count} with: {examples[key]}")
    return 1


def _solved(domain: Domain) -> bool:
    """Whether the solver, playing a game on ``domain``, ends with a theory equivalent to its laws."""
    import asyncio

    from wason.tasks.lab.game import LabConfig, LabGame
    from wason.tasks.lab.solver import LabSolverPlayer
    from wason.tasks.lab.world import BUDGETS, difficulty_of

    budget = BUDGETS[difficulty_of(domain.params)]
    config = LabConfig(budget=budget, max_turns=budget + 10, curve=False, seed=domain.seed)
    game = LabGame(domain, config)
    player = LabSolverPlayer(domain, config, design="information", seed=domain.seed)

    async def play() -> None:
        obs = game.start()
        while not game.done:
            move = await player.act(obs)
            obs = game.step(move.action)

    asyncio.run(play())
    return bool(game.outcome().metrics.get("theory_equivalent"))


def _theory(args: Any, write: Callable[[str], None]) -> int:
    from wason.tasks.lab.theory import equivalence, probe_set, read_theory

    text = command_text(args.file, MAX_THEORY_FILE)
    domain = _domain(args)
    theory = read_theory(text, domain)
    verdict = equivalence(theory, domain.laws, domain, probe_set(domain))
    if verdict.equivalent:
        write(f"equivalent to the hidden laws on all {verdict.total} probe experiments")
        return 0
    write(f"not equivalent: agrees on {verdict.agree} of {verdict.total} probe experiments")
    if verdict.counterexample is not None:
        write("first disagreement: " + json.dumps(verdict.counterexample)[:2000])
    return 1
