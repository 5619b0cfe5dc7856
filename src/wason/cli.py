"""The ``wason`` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console

from wason.evaluation import (
    AiwRunConfig,
    ListsRunConfig,
    RunConfig,
    WiltRunConfig,
    create_run,
    execute_run,
    llm_player_factory,
    load_config,
    make_client,
    make_oracle_client,
    run_baseline,
    solver_player_factory,
)
from wason.models.base import GenerationParams, ModelConfigError
from wason.models.client import ModelClient
from wason.sandbox import GuessRejected
from wason.store import Store, StoreError

LOCAL_DEFAULT_MAX_TOKENS = 256


class UserError(Exception):
    """A mistake the user can fix; shown as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line instead of argparse's usage dump.
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _rules(text: str) -> list[int]:
    try:
        return [int(t) for t in text.replace(" ", "").split(",") if t]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected rule ids like 1,5,12, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    from wason.models.spec import DEFAULT_MODEL

    parser = _Parser(prog="wason", description="Measure whether language models can do science.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    store_opts = _Parser(add_help=False)
    store_opts.add_argument(
        "--db", help="store: a SQLite path or SQLAlchemy URL (default $WASON_DB or wason.db)"
    )

    ev = sub.add_parser("eval", parents=[store_opts], help="run a benchmark and print its results table")
    ev.add_argument(
        "task",
        nargs="?",
        choices=["wilt", "aiw", "lists"],
        default="wilt",
        help="task family (default wilt)",
    )
    ev.add_argument(
        "--split",
        help="WILT: lite (default, 10 rules), full (50) or generated (with --seed and --n); lists: pilot "
        "(default), second, all, phase1 or generated",
    )
    ev.add_argument("--ids", type=_rules, help="only these published rule ids, e.g. 1,2,15")
    ev.add_argument("--rules", metavar="FILE", help="your own rules, one per line in the guess language")
    ev.add_argument(
        "--seed",
        type=int,
        help="seed of the generated split (WILT, lists), of variations (AIW) or of generated examples (lists)",
    )
    ev.add_argument("--n", type=int, help="rules in the generated split; AIW: variations per family")
    ev.add_argument(
        "--families", help="AIW: family or group names, comma-separated (default: AIW variations 1-6)"
    )
    ev.add_argument("--prompt-types", default="STANDARD", help="AIW: prompt types, comma-separated")
    ev.add_argument(
        "--variations", choices=["published", "generated"], default="published", help="AIW: which variations"
    )
    ev.add_argument(
        "--trials",
        type=int,
        help="AIW: trials per (variation, prompt type), default 30; lists: episodes per rule with seeds "
        "S, S+1, ... (default 1)",
    )
    ev.add_argument(
        "--examples",
        choices=["published", "generated"],
        help="lists: the published three examples (pilot, phase1) or examples drawn with --seed "
        "(default: published where the split has them)",
    )
    ev.add_argument("--echo", action="store_true", help="lists: show each tested list beside its label")
    ev.add_argument(
        "--labeller",
        choices=["code", "llm"],
        default="code",
        help="lists: who labels test lists: the rule's code (default) or the judge model with the pilot's "
        "analysis prompt (disagreements with the code are recorded)",
    )
    ev.add_argument(
        "--judges",
        default="predicate,quiz,llm",
        help="lists: which judges run, comma-separated: predicate (the model states a Python predicate, "
        "judged by code), quiz (it labels held-out lists), llm (the pilot's judge, 3 votes); default all",
    )
    ev.add_argument("--judge-model", help="lists: model of the LLM judge and labeller (default: --model)")
    ev.add_argument("--judge-base-url", help="lists: endpoint of --judge-model")
    ev.add_argument("--max-rounds", type=int, default=19, help="lists: rounds of five tests (published: 19)")
    ev.add_argument(
        "--quiz-size", type=int, default=10, help="lists: held-out lists in the quiz (default 10)"
    )
    ev.add_argument(
        "--self-verify",
        choices=["review", "double-check"],
        help="AIW: after the answer, ask the model to review and improve it (multi-turn, records 110-112)",
    )
    ev.add_argument(
        "--player",
        choices=["llm", "solver"],
        default="llm",
        help="llm: the model plays through the task's protocol (default); solver: the reference solver",
    )
    ev.add_argument(
        "--model", default=DEFAULT_MODEL, help=f"model spec PROVIDER:MODEL (default {DEFAULT_MODEL})"
    )
    ev.add_argument("--base-url", help="endpoint for OpenAI-compatible or Anthropic providers")
    ev.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    ev.add_argument("--temperature", type=float, help="sampling temperature (default: the model's)")
    ev.add_argument(
        "--max-tokens",
        type=int,
        help=f"max tokens per reply (local model default {LOCAL_DEFAULT_MAX_TOKENS})",
    )
    ev.add_argument("--top-p", type=float, help="nucleus sampling")
    ev.add_argument("--model-seed", type=int, help="sampling seed, where the backend supports it")
    ev.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per model call attempt (default 120)"
    )
    ev.add_argument("--retries", type=int, default=6, help="retries of a failing call (default 6)")
    ev.add_argument("--concurrency", type=int, help="episodes/calls in flight (default: 1 local, 8 remote)")
    ev.add_argument("--max-tests", type=int, default=30, help="tests before the guess (published: 30)")
    ev.add_argument(
        "--format-error-limit",
        type=int,
        default=2,
        help="end an episode after this many consecutive unreadable replies (reference: 2; 0 = never)",
    )
    ev.add_argument("--probe-seed", type=int, default=0, help="seed of the probe set guesses are judged on")
    ev.add_argument(
        "--system-as-user",
        action="store_true",
        help="send the instructions as the first user message (for models that refuse system messages)",
    )
    ev.add_argument("--no-cache", action="store_true", help="do not answer identical requests from the cache")
    ev.add_argument("--resume", type=int, metavar="RUN", help="finish an interrupted run")
    ev.add_argument(
        "--no-baseline",
        action="store_true",
        help="do not also run the solver on the same rules (its row is printed beside the model's)",
    )
    ev.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")

    sub.add_parser("runs", parents=[store_opts], help="list runs").add_argument("--json", action="store_true")

    sh = sub.add_parser("show", parents=[store_opts], help="a run's results table, or one transcript")
    sh.add_argument("run", type=int)
    sh.add_argument("--episode", type=int, metavar="N", help="print episode N's transcript")
    sh.add_argument("--json", action="store_true")
    sh.add_argument("--plots", metavar="DIR", help="AIW: write an answer histogram PNG per cell into DIR")

    pl = sub.add_parser("play", parents=[store_opts], help="play a game yourself in the terminal")
    pl.add_argument("task", choices=["wilt", "lists"])
    pl.add_argument(
        "--split", help="WILT: lite or full (default full); lists: pilot (default), second, all, phase1"
    )
    pl.add_argument(
        "--rules", metavar="FILE", help="play a rule from your own rules file (one rule per line)"
    )
    pl.add_argument("--rule", type=int, help="published rule id (default: drawn with --seed)")
    pl.add_argument("--seed", type=int, help="draw the rule with this seed (default: a random seed, printed)")

    wilt = sub.add_parser("wilt", help="WILT tools")
    wsub = wilt.add_subparsers(dest="wilt_command", required=True, parser_class=_Parser)
    jd = wsub.add_parser("judge", help="compare two rules (lambda or expression in x, y, z) on the probe set")
    jd.add_argument("rule")
    jd.add_argument("guess")
    jd.add_argument("--seed", type=int, default=0, help="probe set seed (default 0)")
    jd.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 160))  # piped output: do not squeeze tables to 80 columns
    try:
        if args.command == "eval":
            return _eval(args, console)
        if args.command == "runs":
            return _runs(args, console)
        if args.command == "show":
            return _show(args, console)
        if args.command == "play":
            return _play(args, console)
        if args.command == "wilt":
            return _judge(args, console)
    except (UserError, ValueError, ModelConfigError, StoreError, GuessRejected) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        print(f"wason: error: {_one_line(reason)}", file=sys.stderr)
        return 2
    raise AssertionError(args.command)  # pragma: no cover - argparse rejects unknown commands


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _params(args: argparse.Namespace) -> GenerationParams:
    max_tokens = args.max_tokens
    if max_tokens is None and args.model.split(":", 1)[0] == "local":
        max_tokens = LOCAL_DEFAULT_MAX_TOKENS
    return GenerationParams(
        temperature=args.temperature, max_tokens=max_tokens, top_p=args.top_p, seed=args.model_seed
    )


def _common(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "player": args.player,
        "model": args.model if args.player == "llm" else None,
        "base_url": args.base_url,
        "params": _params(args),
        "timeout": args.timeout,
        "retries": args.retries,
        "concurrency": args.concurrency,
        "use_cache": not args.no_cache,
        "system_as_user": args.system_as_user,
    }


def _wilt_config(args: argparse.Namespace) -> WiltRunConfig:
    return WiltRunConfig(
        split="file" if args.rules else (args.split or "lite"),
        ids=args.ids,
        rules_file=str(Path(args.rules).resolve()) if args.rules else None,
        seed=args.seed,
        n=args.n,
        max_tests=args.max_tests,
        format_error_limit=args.format_error_limit,
        probe_seed=args.probe_seed,
        **_common(args),
    )


def _aiw_config(args: argparse.Namespace) -> AiwRunConfig:
    if args.player != "llm":
        raise UserError("AIW is played by a model (--player llm)")
    return AiwRunConfig(
        families=[f for f in args.families.split(",") if f] if args.families else None,
        prompt_types=[p for p in args.prompt_types.split(",") if p],
        variations=args.variations,
        seed=args.seed,
        n=args.n,
        trials=30 if args.trials is None else args.trials,
        self_verify=args.self_verify,
        **_common(args),
    )


def _lists_config(args: argparse.Namespace) -> ListsRunConfig:
    if args.rules:
        raise UserError("--rules FILE is for WILT; list rules come from --split")
    judges = [j.strip() for j in args.judges.split(",") if j.strip()]
    if args.player == "solver" and args.judge_model is None:
        # the solver has no model to judge with: the LLM judge runs only on a judge model named for it
        judges = [j for j in judges if j != "llm"]
    return ListsRunConfig(
        split=args.split or "pilot",
        ids=args.ids,
        seed=args.seed,
        n=args.n,
        examples=args.examples,
        trials=1 if args.trials is None else args.trials,
        echo=args.echo,
        labeller=args.labeller,
        judges=judges,
        judge_model=args.judge_model,
        judge_base_url=args.judge_base_url,
        max_rounds=args.max_rounds,
        format_error_limit=args.format_error_limit,
        quiz_size=args.quiz_size,
        probe_seed=args.probe_seed,
        **_common(args),
    )


def _task_config(args: argparse.Namespace) -> RunConfig:
    if args.task == "aiw":
        return _aiw_config(args)
    if args.task == "lists":
        return _lists_config(args)
    return _wilt_config(args)


def _eval(args: argparse.Namespace, console: Console) -> int:
    store = Store(args.db)
    if args.resume is not None:
        config = load_config(store, args.resume)
        if config.player != "llm":
            raise UserError(
                f"run {args.resume} was played by {config.player}; only model runs can be resumed"
            )
        run_id = args.resume
        items: list[tuple[str, dict[str, Any]]] | None = None
    else:
        try:
            config = _task_config(args)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError; keep only the reasons
            errors = getattr(exc, "errors", None)
            if callable(errors):
                raise UserError(
                    "; ".join(
                        f"{'.'.join(map(str, e['loc']))}: {e['msg']}" if e["loc"] else str(e["msg"])
                        for e in errors()
                    )
                ) from None
            raise
        # unknown rule ids and bad rules files fail here, before anything is written; drawing the items once
        # matters for generated rules and examples, which take seconds
        items = config.items()
        run_id = -1
    if config.player == "solver":
        if isinstance(config, AiwRunConfig):
            raise UserError("AIW has no solver; it is played by a model (--player llm)")
        run_id = create_run(store, config, items)
        if not args.json:
            console.print(_header(config, run_id, store, len(store.list_episodes(run_id)), resumed=False))
        judge = make_oracle_client(config, store) if isinstance(config, ListsRunConfig) else None
        asyncio.run(_solve(store, run_id, config, judge))
        return _report(store, [run_id], console, as_json=args.json)
    client = make_client(config, store, api_key=args.api_key)
    oracle: ModelClient | None = None
    if isinstance(config, ListsRunConfig) and (config.labeller == "llm" or "llm" in config.judges):
        # the player's own model judges unless another is named: one client, one loaded local model
        oracle = client if config.judge_model is None else make_oracle_client(config, store)
    state = {"run": run_id}
    try:
        asyncio.run(_eval_async(args, console, store, config, client, state, oracle, items))
    except KeyboardInterrupt:
        if state["run"] >= 0:  # the run marked itself interrupted; say how to finish it
            print(f"wason: interrupted; finish with `wason eval --resume {state['run']}`", file=sys.stderr)
        return 130
    runs = [state["run"]]
    if isinstance(config, WiltRunConfig | ListsRunConfig) and not args.no_baseline:
        runs.append(run_baseline(store, state["run"]))
    return _report(store, runs, console, as_json=args.json)


async def _eval_async(
    args: argparse.Namespace,
    console: Console,
    store: Store,
    config: RunConfig,
    client: ModelClient,
    state: dict[str, int],
    oracle: ModelClient | None = None,
    items: list[tuple[str, dict[str, Any]]] | None = None,
) -> None:
    # One event loop for the check and the run: the HTTP clients are bound to the loop they first ran on.
    try:
        await _preflight(client)
        if oracle is not None and oracle is not client:
            await _preflight(oracle)
        if state["run"] < 0:
            state["run"] = create_run(store, config, items)
        run_id = state["run"]
        concurrency = config.concurrency or client.model.max_concurrency
        n_todo = sum(e.status != "completed" for e in store.list_episodes(run_id))
        if not args.json:
            console.print(_header(config, run_id, store, n_todo, resumed=args.resume is not None))
        await _run_with_progress(
            store, run_id, client, config, concurrency, n_todo, quiet=args.json, oracle=oracle
        )
    finally:
        await client.aclose()
        if oracle is not None and oracle is not client:
            await oracle.aclose()


async def _solve(store: Store, run_id: int, config: RunConfig, oracle: ModelClient | None) -> None:
    try:
        await execute_run(store, run_id, solver_player_factory(config), concurrency=1, oracle=oracle)
    finally:
        if oracle is not None:
            await oracle.aclose()


async def _preflight(client: ModelClient) -> None:
    check = getattr(client.model, "check", None)
    if check is not None:
        await check()


def _header(config: RunConfig, run_id: int, store: Store, n_todo: int, *, resumed: bool) -> str:
    n = len(store.list_episodes(run_id))  # the stored episodes: no need to rebuild a generated split
    p = config.params
    shown = ", ".join(
        f"{k}={v}"
        for k, v in (("temperature", p.temperature), ("max_tokens", p.max_tokens), ("seed", p.seed))
        if v is not None
    )
    verb = "Resuming" if resumed else "Running"
    who = (
        f"{config.model} ({shown or 'model defaults'})" if config.player == "llm" else f"the {config.player}"
    )
    if isinstance(config, AiwRunConfig):
        shape = (
            f"{len(config.variations_list())} {config.variations} variations x {len(config.prompt_types)} prompt"
            f" type(s) x {config.trials} trials"
        )
        return f"{verb} run {run_id}: AIW, {shape} = {n} episodes ({n_todo} to play) with {who}; store {store.url}"
    if isinstance(config, ListsRunConfig):
        return _lists_header(config, verb, run_id, store, n, n_todo, who)
    source = {"file": f"rules of {config.rules_file}", "generated": f"generated split (seed {config.seed})"}
    return (
        f"{verb} run {run_id}: WILT {source.get(config.split, config.split + ' split')} ({n} rules, {n_todo} to play)"
        f" with {who}; {config.max_tests} tests then one guess; store {store.url}"
    )


def _lists_header(
    config: ListsRunConfig, verb: str, run_id: int, store: Store, n: int, n_todo: int, who: str
) -> str:
    rules = (
        f"generated split (seed {config.seed})" if config.split == "generated" else f"{config.split} split"
    )
    examples = config.examples_source()
    if examples == "generated":
        examples += f" with seeds {config.seed or 0}..{(config.seed or 0) + config.trials - 1}"
    judges = ", ".join(f"{j} (primary)" if j == config.game_config(0).primary else j for j in config.judges)
    if "llm" in config.judges:
        judges += f"; LLM judge {config.oracle_model}"
    labels = (
        "code" if config.labeller == "code" else f"LLM ({config.oracle_model}) with code disagreements kept"
    )
    return (
        f"{verb} run {run_id}: lists {rules}, {n // config.trials} rules x {config.trials} trial(s) = {n} episodes "
        f"({n_todo} to play) with {who}; examples {examples}; up to {config.max_rounds} rounds of "
        f"{config.tests_per_round} tests{', echoed' if config.echo else ''}; labels by {labels}; judges: {judges}; "
        f"store {store.url}"
    )


async def _run_with_progress(
    store: Store,
    run_id: int,
    client: ModelClient,
    config: RunConfig,
    concurrency: int,
    n_todo: int,
    *,
    quiet: bool,
    oracle: ModelClient | None = None,
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    factory = llm_player_factory(client, config, run_id)
    with Progress(
        TextColumn("episodes"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        disable=quiet,
        transient=False,
    ) as progress:
        task = progress.add_task("episodes", total=n_todo, note="")
        counts = {"correct": 0, "errored": 0}

        def on_result(result: Any) -> None:
            if result.status == "errored":
                counts["errored"] += 1
            elif result.outcome is not None and result.outcome.success:
                counts["correct"] += 1
            progress.update(task, advance=1, note=f"{counts['correct']} correct, {counts['errored']} errored")

        await execute_run(store, run_id, factory, concurrency=concurrency, on_result=on_result, oracle=oracle)


def _report(store: Store, run_ids: list[int], console: Console, *, as_json: bool) -> int:
    """The first run's episodes, then one table with a row per run (the model's, then its baseline)."""
    from wason.report.tables import episodes_table, show_json, show_table

    run_id = run_ids[0]
    if store.get_run(run_id).task == "lists":
        from wason.report.lists import lists_json, lists_tables

        if as_json:
            data = lists_json(store, run_id)
            data["baselines"] = [lists_json(store, r) for r in run_ids[1:]]
            print(json.dumps(data, indent=2, default=str))
        else:
            for table in lists_tables(store, run_ids):
                console.print(table)
            console.print(f"run id: {run_id}   (details: `wason show {run_id} --episode N`)")
        return 0
    if store.get_run(run_id).task == "aiw":
        from wason.report.aiw import aiw_json, aiw_table

        if as_json:
            print(json.dumps(aiw_json(store, run_id), indent=2, default=str))
        else:
            console.print(aiw_table(store, run_id))
            console.print(f"run id: {run_id}   (details: `wason show {run_id} --episode N`, `--plots DIR`)")
        return 0
    if as_json:
        data = show_json(store, run_id)
        data["baselines"] = [show_json(store, r) for r in run_ids[1:]]
        print(json.dumps(data, indent=2, default=str))
    else:
        console.print(episodes_table(store, run_id))
        console.print(show_table(store, run_ids))
        console.print(f"run id: {run_id}   (details: `wason show {run_id} --episode N`)")
    return 0


def _runs(args: argparse.Namespace, console: Console) -> int:
    from wason.report.tables import runs_json, runs_table

    store = Store(args.db)
    if args.json:
        print(json.dumps(runs_json(store), indent=2))
    else:
        console.print(runs_table(store))
    return 0


def _show(args: argparse.Namespace, console: Console) -> int:
    from wason.report.tables import episode_json, transcript

    store = Store(args.db)
    if args.episode is not None:
        if args.json:
            print(json.dumps(episode_json(store, args.run, args.episode), indent=2, default=str))
        else:
            console.print(transcript(store, args.run, args.episode))
        return 0
    from wason.evaluation import baselines_of

    if args.plots:
        from wason.report.aiw import write_histograms

        if store.get_run(args.run).task != "aiw":
            raise UserError("--plots draws AIW answer histograms; this run is not AIW")
        for path in write_histograms(store, args.run, Path(args.plots)):
            console.print(str(path), markup=False)
    return _report(store, [args.run, *baselines_of(store, args.run)], console, as_json=args.json)


def _pick_rule(args: argparse.Namespace, rules: list[Any], where: str) -> tuple[Any, str]:
    """The rule to play: ``--rule ID``, or one drawn with ``--seed`` (a random seed, shown, by default)."""
    if args.rule is None:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        return random.Random(seed).choice(rules), f"drawn with --seed {seed}"
    if args.seed is not None:
        raise UserError("give either --rule or --seed, not both")
    matches = [r for r in rules if r.id == args.rule]
    if not matches:
        ids = ", ".join(str(r.id) for r in rules)
        raise UserError(f"the {where} has no rule {args.rule} (its rules: {ids})")
    return matches[0], f"rule {args.rule}"


def _play(args: argparse.Namespace, console: Console) -> int:
    if args.task == "lists":
        return _play_lists(args, console)
    args.split = args.split or "full"
    from rich.markup import escape

    from wason.players.human import HumanPlayer
    from wason.tasks.wilt import load_split
    from wason.tasks.wilt.rules import load_rules_file, rule_item

    rules = load_rules_file(args.rules) if args.rules else load_split(args.split)
    where = f"rules file {args.rules}" if args.rules else f"{args.split} split"
    rule, origin = _pick_rule(args, rules, where)
    store = Store(args.db)
    if args.rules:
        config = WiltRunConfig(split="file", rules_file=str(Path(args.rules).resolve()), player="human")
    else:
        config = WiltRunConfig(split=args.split, ids=[rule.id], player="human")
    run_id = create_run(store, config, [rule_item(rule)])
    console.print(f"WILT, {where}, a hidden rule ({origin}). Run {run_id} in {store.url}.", markup=False)
    # markup off: what a person types (or a rule text) may contain square brackets
    player = HumanPlayer(
        max_tests=config.max_tests, write=lambda s: console.print(s, markup=False, highlight=False)
    )
    results = asyncio.run(execute_run(store, run_id, lambda *_: player, concurrency=1))
    result = results[0]
    console.print(f"\nThe rule was: [bold]{escape(rule.text)}[/bold]  ({rule.key})")
    if result.outcome is None:
        console.print(f"Game over: {result.error}", markup=False)
        return 0
    m = result.outcome.metrics
    if m["correct"]:
        console.print(f"Correct, after {m['attempts']} tests.")
    elif m["approximately_correct"]:
        console.print("Not quite: approximately correct (right idea, wrong edge cases).")
    else:
        console.print("Not the rule.")
    verdict = m.get("verdict") or {}
    for point, truth, said in verdict.get("counterexamples", [])[:3]:
        console.print(f"  e.g. {tuple(point)}: the rule says {truth}, your guess says {said}", markup=False)
    if m.get("reduction"):
        curve = m["reduction"]
        console.print(
            f"Your {len(curve)} tests ruled out {curve[-1]:.1%} of {m['hypothesis_space']}'s candidate rules; "
            f"{m['uninformative_tests']} of them ruled out nothing new."
        )
    return 0


def _play_lists(args: argparse.Namespace, console: Console) -> int:
    from wason.players.human import ListsHumanPlayer
    from wason.tasks.lists.rules import load_split

    if args.rules:
        raise UserError("--rules FILE is for WILT; list rules come from --split")
    split = args.split or "pilot"
    rule, origin = _pick_rule(args, load_split(split), f"{split} split")
    store = Store(args.db)
    # a person is scored by code: the predicate and the quiz, no LLM judge
    config = ListsRunConfig(split=split, ids=[rule.id], player="human", judges=["predicate", "quiz"])
    run_id = create_run(store, config)
    console.print(
        f"List rules, {split} split, a hidden rule ({origin}). Run {run_id} in {store.url}.", markup=False
    )
    player = ListsHumanPlayer(
        per_round=config.tests_per_round,
        max_rounds=config.max_rounds,
        quiz=config.quiz_size,
        write=lambda s: console.print(s, markup=False, highlight=False),
    )
    result = asyncio.run(execute_run(store, run_id, lambda *_: player, concurrency=1))[0]
    console.print(f"\nThe rule was: {rule.text}  ({rule.key})", markup=False, highlight=False)
    if result.outcome is None:
        console.print(f"Game over: {result.error}", markup=False)
        return 0
    m = result.outcome.metrics
    judges = m["judges"]
    verdict = m.get("predicate_verdict") or {}
    if judges.get("predicate"):
        console.print(f"Your predicate is the rule (it agrees on all {verdict.get('probes')} probe lists).")
    elif verdict.get("rejection"):
        console.print(f"Your predicate could not be used: {verdict['rejection']}", markup=False)
    elif verdict:
        console.print(f"Your predicate is not the rule (agreement {verdict.get('agreement', 0):.1%}).")
        for ce in (verdict.get("counterexamples") or [])[:3]:
            console.print(
                f"  e.g. {ce['list']}: the rule says {ce['rule']}, yours says {ce['guess']}", markup=False
            )
    if m.get("quiz_accuracy") is not None:
        console.print(f"Quiz: {round(m['quiz_accuracy'] * len(m['quiz']))} of {len(m['quiz'])} right.")
    console.print(f"{m['rounds']} rounds, {m['lists_tested']} lists tested.")
    return 0


def _judge(args: argparse.Namespace, console: Console) -> int:
    from wason.judges import format_verdict, judge

    verdict = judge(args.rule, args.guess, seed=args.seed)
    if args.json:
        print(verdict.model_dump_json(indent=2))
    else:
        print(format_verdict(verdict))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
