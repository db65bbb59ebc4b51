#!/usr/bin/env bash
# How long `make test` takes on a fresh clone (issue 29: at most 10 minutes on a 2-core
# machine): clones this checkout's HEAD into a temporary folder, runs `make test` there, prints
# the wall time, each phase (scripts/timed) and the slowest tests, and keeps the clone's
# tests/durations.md as test-artifacts/fresh-clone-durations.md. uv's and npm's caches are
# the machine's, as on a CI machine that keeps them.
#   scripts/fresh-clone-test.sh [RUNS]     # RUNS clones in a row (default 1)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-1}
status=0
for run in $(seq 1 "$runs"); do
  clone=$(mktemp -d /tmp/agentchat-fresh-XXXXXX)
  git clone -q "$here" "$clone/agentchat"
  start=$(date +%s)
  (cd "$clone/agentchat" && make test) > "$clone/make-test.log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  echo "run $run: make test exited $rc after $((took / 60)) min $((took % 60)) s (log: $clone/make-test.log)"
  if [ -f "$clone/agentchat/test-artifacts/phases.tsv" ]; then
    awk -F'\t' '{ printf "  %-12s %7.1f s  exit %s\n", $1, $2, $3 }' \
      "$clone/agentchat/test-artifacts/phases.tsv"
  fi
  mkdir -p "$here/test-artifacts"
  cp "$clone/agentchat/tests/durations.md" "$here/test-artifacts/fresh-clone-durations.md" \
    2>/dev/null || true
  [ "$rc" -eq 0 ] || status=1
done
exit $status
