"""Runs of any family: create, play concurrently, resume, solver baselines."""

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
    llm_player_factory,
    load_config,
    make_client,
    make_oracle_client,
    run_baseline,
    solve_run,
    solver_player_factory,
    stored_config,
)
from wason.store.db import RunBusy

__all__ = [
    "Lease",
    "LeaseLost",
    "PlayerFactory",
    "RunBusy",
    "baselines_of",
    "check_constrain",
    "create_run",
    "execute_run",
    "family_of",
    "hold_run",
    "llm_player_factory",
    "load_config",
    "make_client",
    "make_oracle_client",
    "run_baseline",
    "solve_run",
    "solver_player_factory",
    "stored_config",
]
