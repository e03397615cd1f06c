#!/usr/bin/env bash
# MPI ranks against threads (issue 14): `mpirun -np 2 stampede --cores 1` against
# `stampede --cores 2`, the same -c and keep-alive, on the same target (one nginx worker,
# unpinned: the generators and the target share the machine alike), alternated round by round.
# Prints each round's requests/s and the median of each and their ratio (target: within 5%).
#   bench/mpi.sh [ROUNDS=5] [SECONDS=3]
# MPIRUN_ARGS adds options to mpirun (e.g. "--bind-to none": mpirun binds each rank to a core
# by default, while the threads of --cores 2 float).
# Needs nginx and Open MPI's mpirun, and build/stampede-mpi beside build/stampede.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
ROUNDS=${1:-5}
SECS=${2:-3}
CONNS=${CONNS:-20}
command -v mpirun >/dev/null || { echo "mpi.sh: mpirun not found (Debian: openmpi-bin)" >&2; exit 2; }
[ -x "$(dirname "$STAMPEDE")/stampede-mpi" ] || { echo "mpi.sh: no stampede-mpi beside $STAMPEDE" >&2; exit 2; }
port=$(free_port)
start_nginx 0-1 "$port"
url="http://127.0.0.1:$port/"
rps_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$1"; }

for round in $(seq 1 "$ROUNDS"); do
  mpirun --allow-run-as-root --oversubscribe ${MPIRUN_ARGS:-} -np 2 "$STAMPEDE" -k -c "$CONNS" -t "$SECS" \
    --cores 1 --quiet --json "$url" > "$BENCH_TMP/mpi.json"
  "$STAMPEDE" -k -c "$CONNS" -t "$SECS" --cores 2 --quiet --json "$url" > "$BENCH_TMP/threads.json"
  m=$(rps_of "$BENCH_TMP/mpi.json"); t=$(rps_of "$BENCH_TMP/threads.json")
  echo "mpi $m" >> "$out"; echo "threads $t" >> "$out"
  printf 'round %d: mpirun -np 2 --cores 1 %8d req/s   --cores 2 %8d req/s\n' "$round" "$m" "$t"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
mpi = [float(v) for k, v in rows if k == "mpi"]
threads = [float(v) for k, v in rows if k == "threads"]
ratios = [m / t for m, t in zip(mpi, threads)]
print(f"median: mpirun -np 2 --cores 1 {statistics.median(mpi):.0f} req/s, --cores 2 "
      f"{statistics.median(threads):.0f} req/s; per-round ratios "
      f"{' '.join(f'{r:.3f}' for r in ratios)}, median {statistics.median(ratios):.3f}")
PY
