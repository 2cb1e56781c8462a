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
  # The worker's warm shutdown would wait for the 5-minute replay: SIGQUIT ends it at once
  # (Celery's cold shutdown); the replay's run is marked stopped by the next `make demo`.
  kill -QUIT "${pids[@]:1}" 2>/dev/null || true
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 25); do
    alive=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break; sleep 0.2
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop INT TERM EXIT

$PY -m daphne -b 127.0.0.1 -p "$PORT" --access-log var/access.log codeopt_site.asgi:application &
pids+=($!)
$PY -m celery -A codeopt_site worker --loglevel warning --queues default,timing,judge --pool threads \
  --concurrency 3 --hostname "main@%h" &
pids+=($!)
# One training worker, as on a machine with one GPU: the demo's two runs train one after the other.
$PY -m celery -A codeopt_site worker --loglevel warning --queues gpu --pool threads \
  --concurrency 1 --hostname "gpu@%h" &
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
# A small dataset build, so the Dataset, Problems and Calibration pages show measured data.
$PY manage.py build_dataset --queue --problems big-sum count-inversions sort-numbers \
  --set slow_target_s=0.3 --set repeats=2
echo "  dataset     : a build of 3 pack problems is queued: ${URL}/dataset/"
# When it is done, the offline simulator scores the built-in reward configurations on it.
(
  for _ in $(seq 1 240); do
    sleep 5
    status=$($PY manage.py shell -v 0 -c "from problems.models import DatasetBuild as B; b = B.objects.first(); print(b.status if b else '')" 2>/dev/null | tail -n 1 || true)
    if [[ $status == done ]]; then
      $PY manage.py simulate_rewards >var/simulate_rewards.log 2>&1 || true
      # the tiny model learns on those problems (queue gpu), scored on the timing queue: the
      # paper's recipe, then standard RLVR from the same warm start (15 minutes each)
      ids=()
      for recipe in paper:demo_train rlvr:demo_train_rlvr; do
        out=$($PY manage.py train "scripts/${recipe#*:}.toml" --user demo \
          --name "demo-${recipe%%:*}" --queue 2>>var/train.log || true)
        echo "$out" >>var/train.log
        [[ $out =~ ^run\ ([0-9]+) ]] && ids+=("${BASH_REMATCH[1]}")
      done
      (IFS=,; echo "  compare     : ${URL}/runs/compare/?ids=${ids[*]}")
      break
    fi
    [[ $status == failed ]] && break
  done
) &
helpers+=($!)
echo "  judges      : the labelled example pairs, judged: ${URL}/judges/"
echo "  rewards     : the reward simulator runs when the build is done: ${URL}/rewards/"
echo "  training    : then two tiny-model GRPO runs, paper vs RLVR (15 min each): ${URL}/training/"
echo "  running     : server and worker are up; Ctrl-C stops both."
wait -n "${pids[@]}"
