"""A notebook's session against a running `make demo`, using only the client
(integrations/notebook.py; docs/notebook.md): the two demo runs' config differences and
curves, then an evaluation of the first run's latest checkpoint, waited for and printed as a
DataFrame of pτ with intervals.

    .venv/bin/python scripts/notebook_demo.py --server http://127.0.0.1:8000 --token TOKEN
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from integrations.notebook import Codeopt  # noqa: E402


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--n", type=int, default=2, help="Samples per problem.")
    args = parser.parse_args(argv)
    co = Codeopt(args.server, args.token)
    pd.set_option("display.width", 160)

    runs = co.runs()
    trained = runs[runs["config.steps"].notna()] if "config.steps" in runs else runs
    first, second = trained.id.iloc[0], trained.id.iloc[1]
    print("runs:\n", runs[["id", "name", "status", "last_step"]].head(6).to_string(), "\n")
    print("config keys that differ:\n", co.compare_configs([first, second]).to_string(), "\n")
    key = "rewards/mean"
    curves = pd.DataFrame({f"#{run}": co.history(run, [key]).get(key) for run in (first, second)})
    print("rewards/mean by step:\n", curves.tail(5).to_string(), "\n")

    evaluation = co.evaluate(run=int(first), n=args.n, complexity=False)
    co.wait(evaluation, timeout=1800)
    table = co.evaluations(run=int(first))
    columns = [c for c in table.columns if c.startswith("p") and c[1:2].isdigit()]
    result = table[table.id == evaluation][["id", "name", *sorted(columns)]]
    print("pτ with 95% intervals:\n", result.to_string())
    return result


if __name__ == "__main__":
    main()
