#!/usr/bin/env bash
# The whole suite: once on the embedded defaults, then (CI=true or CODEOPT_TEST_SERVICES=1)
# again on the real PostgreSQL, Redis and a Redis-brokered Celery worker on loopback.
#
#   scripts/test.sh                  every test
#   scripts/test.sh DOMAIN           that domain's tests first (tests/DOMAIN: foundation,
#                                    execution, lm, problems, rewards, runs, scoring,
#                                    training, timing, evaluations, judges, integrations,
#                                    workers, site), then, if they pass, the rest
#   scripts/test.sh [pytest args]    pytest's own selection (a file, -k, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export SECRET_KEY="${SECRET_KEY:-test-only-secret-key}"
# Connections kept by asgiref's worker threads would outlive the test database otherwise.
export DB_CONN_MAX_AGE=0
unset DEBUG DATABASE_URL REDIS_URL CELERY_BROKER_URL
want_services="${CODEOPT_TEST_SERVICES:-0}"
# Three pytest-xdist workers, a test file each at a time (its module fixtures built once); each
# worker has backends of its own (tests/support/parallel.py). Three, not two, on 2 cores: a
# test often waits on a process it started, and a third worker fills that wait (pass 1
# 435 s against 475 s with two, docs/benchmarks.md). CODEOPT_TEST_WORKERS=0: one process.
workers="${CODEOPT_TEST_WORKERS:-3}"
# One torch (OpenMP) thread per process: the test workers, their Celery workers and the
# sandboxed programs share 2 cores, and idle OpenMP threads spin on them (20 warm-start
# steps of the tiny model beside a busy process: 2.32 s of CPU with torch's default 2
# threads, 0.80 s with one; benchmarks/torch_threads.py, docs/benchmarks.md)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
# The named base model is converted once (about a minute) into the folder `make demo` uses
# too, shared by both passes and every worker (lm/base_models.py).
export CODEOPT_MODEL_CACHE="${CODEOPT_MODEL_CACHE:-$PWD/var/models}"
domain=""
if [[ $# -gt 0 && "$1" != -* && "$1" != */* && -d "tests/$1" ]]; then
  domain="$1"
  shift
fi
parallel=()
# (-p: the plugin must run before Django reads its settings; `python -m` puts tests/ in reach)
[[ "$workers" != "0" ]] && parallel=(-n "$workers" --dist loadfile -p tests.support.parallel)
[[ "${CI:-}" == "true" ]] && want_services=1

# One pass of pytest: with a domain, its folder first, then (if it passed) every other folder.
suite() {
  if [[ -n "$domain" ]]; then
    echo "-- tests/$domain first"
    $PY -m pytest "${parallel[@]}" "tests/$domain" "$@"
    echo "-- the rest"
    $PY -m pytest "${parallel[@]}" tests --ignore="tests/$domain" "$@"
  else
    $PY -m pytest "${parallel[@]}" "$@"
  fi
}

$PY -m ruff check .
echo "== pass 1: embedded defaults (SQLite, filesystem broker, in-process channel layer)"
CODEOPT_TEST_SERVICES=0 CODEOPT_VAR_DIR="$PWD/var/test-embedded" suite "$@"

if [[ "$want_services" == "1" ]]; then
  echo "== pass 2: PostgreSQL, Redis channel layer, Redis broker"
  CODEOPT_TEST_SERVICES=1 \
  CODEOPT_VAR_DIR="$PWD/var/test-services" \
  DATABASE_URL="${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/codeopt}" \
  REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}" \
  CELERY_BROKER_URL="${TEST_BROKER_URL:-redis://127.0.0.1:6379/1}" \
    suite "$@"
fi
