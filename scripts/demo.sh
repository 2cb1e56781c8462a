#!/usr/bin/env bash
# Start the whole system on embedded defaults: ASGI server, Celery worker, a live demo run.
# Ctrl-C stops everything this script started.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBUG="${DEBUG:-1}"
PORT="${PORT:-8000}"
URL="http://127.0.0.1:${PORT}"
PY=.venv/bin/python

$PY manage.py migrate --noinput
[[ -d problems/packs/core ]] && $PY manage.py import_problems problems/packs/core --format pack
$PY manage.py load_reward_configs
$PY manage.py demo_setup --url "$URL"

pids=()
helpers=()
stop() {
  trap - INT TERM EXIT
  echo; echo "stopping…"
  kill -TERM "${helpers[@]}" 2>/dev/null || true
  # A worker's warm shutdown would wait for the replay or a training run to end: after 5 s
  # it is killed (Celery's cold shutdown, SIGQUIT, fails in the threads pool with a
  # traceback); the next `make demo` marks their runs stopped, a training run resumes.
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 25); do
    alive=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break; sleep 0.2
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
# Ctrl-C or a TERM stops everything and exits here: the report below is for a process that
# ended on its own, not for the ones this stop ended.
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

names=("web server (daphne)" "worker main@ (queues default, timing, judge)" "worker gpu@ (queue gpu)"
  "worker eval@ (queue eval)")
$PY -m daphne -b 127.0.0.1 -p "$PORT" --access-log var/access.log codeopt_site.asgi:application &
pids+=($!)
$PY -m celery -A codeopt_site worker --loglevel warning --queues default,timing,judge --pool threads \
  --concurrency 3 --hostname "main@%h" &
pids+=($!)
# One training worker with two slots: the demo's two runs (the paper's recipe and standard
# RLVR, smollm2-135m-instruct) train side by side, one torch thread each: on 2 cores, torch's
# OpenMP threads spin while they wait, and a second thread per run made each decoding step of
# the real model 5-10x slower beside busy neighbours (docs/benchmarks.md, benchmarks/
# torch_threads.py). The timing jobs that score them share the same cores.
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" $PY -m celery -A codeopt_site worker --loglevel warning --queues gpu --pool threads \
  --concurrency 2 --hostname "gpu@%h" &
pids+=($!)
# Evaluations that generate have a lane of their own: a checkpoint's evaluation starts at
# once, not after both 20-minute runs.
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" $PY -m celery -A codeopt_site worker --loglevel warning --queues eval --pool threads \
  --concurrency 1 --hostname "eval@%h" &
pids+=($!)

for _ in $(seq 1 100); do
  if $PY -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; then break; fi
  sleep 0.2
done
$PY manage.py start_demo_run --url "$URL"
# The Judges page: the labelled example pairs (judges/labelled_pairs.jsonl), judged on the
# `judge` queue by the built-in analyzer (and the LLM judge when JUDGE_LLM_* is set).
$PY manage.py judge --pairs judges/labelled_pairs.jsonl --user demo --name "labelled examples" \
  --queue || true
# Pairs of the built-in pack's problems, one per category, each measured first on its
# problem's generator (instructions and input/output under callgrind, about a minute a pair).
$PY manage.py judge --pairs judges/labelled_pairs_unseen.jsonl --per-category 1 --user demo \
  --name "pack pairs, measured" --queue || true
# The chain: a small dataset build (3 pack problems; retried once if it fails), then the
# offline reward simulation on it and two GRPO runs of the real model, paper vs RLVR, side by
# side (queue gpu, scored on the timing queue, 20 minutes). Each stage is printed here and shown on the
# run list ("Demo"); a stage that cannot run says why and the others go on.
rm -f var/demo-status.json
$PY manage.py demo_chain --url "$URL" > >(tee var/demo-chain.log) 2>&1 &
helpers+=($!)
echo "  judges      : the labelled example pairs, and 7 pack pairs measured then judged:"
echo "                ${URL}/judges/"
echo "  dataset     : a build of 3 pack problems, then the reward simulation and two GRPO"
echo "                runs of smollm2-135m-instruct side by side (paper vs RLVR, 20 min);"
echo "                progress: ${URL}/ (Demo)"
echo "  running     : server and workers are up; Ctrl-C stops them all."
code=0
wait -n "${pids[@]}" || code=$?
# one of the three ended on its own: say which, and what to do, before stopping the others
for i in "${!pids[@]}"; do
  if ! kill -0 "${pids[$i]}" 2>/dev/null; then
    echo "  ${names[$i]} exited (status $code): its output is above; the demo stops." \
      "Run 'make demo' again (its data in var/ is kept)." >&2
  fi
done
exit "$code"
