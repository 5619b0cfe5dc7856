"""Runs of any family: create, play (:func:`play_run`: pre-flight, clients, resume, baselines), solver
baselines, sweeps."""

from wason.engine.play import Clients, RunObserver, play_baseline, play_run, run_baseline
from wason.engine.runs import (
    Lease,
    LeaseLost,
    PlayerFactory,
    baselines_of,
    check_constrain,
    create_run,
    execute_run,
    family_of,
    hold_run,
    limit_items,
    llm_player_factory,
    load_config,
    make_client,
    make_oracle_client,
    run_items,
    solver_player_factory,
    stored_config,
    wants_baseline,
)
from wason.store.db import RunBusy

__all__ = [
    "Clients",
    "Lease",
    "LeaseLost",
    "PlayerFactory",
    "RunBusy",
    "RunObserver",
    "baselines_of",
    "check_constrain",
    "create_run",
    "execute_run",
    "family_of",
    "hold_run",
    "limit_items",
    "llm_player_factory",
    "load_config",
    "make_client",
    "make_oracle_client",
    "play_baseline",
    "play_run",
    "run_baseline",
    "run_items",
    "solver_player_factory",
    "stored_config",
    "wants_baseline",
]
