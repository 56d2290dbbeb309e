#!/usr/bin/env python3
"""The long soak (a benchmark, not a test): many separate `memdag ingest` runs into one store,
some killed with SIGKILL at a random point, and how the store grows.

    python3 tests/bench/soak.py [--runs 1000] [--turns 100] [--kill-rate 0.05] [--every 50]
                                [--seed 1] [--store DIR] [--memdag PATH] [--component PATH]

Each run ingests a file of `--turns` new turns (ids `s<run>-<i>`, so a turn can be found
again). A run picked for killing (`--kill-rate` of them, seeded) gets SIGKILL after a random
delay within the time the last completed run took; a run that exits 0 acknowledged all of its
turns. Every `--every` runs the soak measures the store: its files, its bytes on disk, the
wall time and peak resident memory of a read-only command that opens it (`memdag recent`),
and prints a row. At the end it exports the store and checks that every acknowledged turn is
there, exactly once, and that `memdag verify` finds it intact.

Defaults: the release binary and component of the shared target dir
($CARGO_TARGET_DIR, else ~/.cache/memdag-target); build them with
`cargo build --release -p memdag-host` and `scripts/build-component.sh`.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def target_dir():
    return os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/memdag-target")


def store_size(path):
    files = [e for e in os.scandir(path) if e.is_file() and not e.name.startswith(".")]
    return len(files), sum(e.stat().st_size for e in files)


def timed(cmd, env):
    """Runs `cmd`; returns (wall ms, peak RSS MB, stdout). Fails on a non-zero exit."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = (time.monotonic() - started) * 1000
    # The child's own peak: wait4's rusage, read through resource for the last child.
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, out


def peak_rss_mb(cmd, env):
    """Peak resident memory (MB) of one run of `cmd`, from wait4."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--turns", type=int, default=100)
    p.add_argument("--kill-rate", type=float, default=0.05)
    p.add_argument("--every", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--store")
    p.add_argument("--memdag", default=os.path.join(target_dir(), "release", "memdag"))
    p.add_argument("--component", default=os.path.join(target_dir(), "wasm32-wasip2", "release", "memdag_component.wasm"))
    p.add_argument("--json", action="store_true", help="print the rows as JSON lines too")
    args = p.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="memdag-soak-")
    store = args.store or os.path.join(work, "store")
    if os.path.exists(store):
        raise SystemExit(f"{store} exists: the soak starts from an empty store")
    env = dict(os.environ, MEMDAG_COMPONENT=args.component)
    env.pop("MEMDAG_KEY", None)
    env.pop("MEMDAG_KEY_FILE", None)
    base = [args.memdag, "--store", store]
    words = ["harbour", "ferry", "timetable", "lunch", "deploy", "rollback", "invoice", "garden",
             "review", "meeting", "budget", "flight", "hotel", "recipe", "violin", "dentist"]

    acknowledged = set()
    killed_runs = 0
    last_ms = 1000.0
    rows = []
    print(f"soak: {args.runs} runs of {args.turns} turns, kill -9 in {args.kill_rate:.0%}, store {store}")
    print("| runs | records acknowledged | files | MB on disk | open ms (memdag recent) | peak RSS MB (open) | ingest ms (last run) |")
    print("|---|---|---|---|---|---|---|")
    for run in range(args.runs):
        path = os.path.join(work, "turns.jsonl")
        ids = [f"s{run}-{i}" for i in range(args.turns)]
        with open(path, "w") as f:
            for i, id_ in enumerate(ids):
                text = " ".join(rng.choice(words) for _ in range(30))
                f.write(json.dumps({"id": id_, "thread": f"t{run % 20}", "user": f"u{run % 7}",
                                    "created_at": 1_700_000_000_000 + run * 1000 + i,
                                    "input": f"{id_} {text}", "output": "ok"}) + "\n")
        kill = rng.random() < args.kill_rate
        started = time.monotonic()
        proc = subprocess.Popen(base + ["ingest", path], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill:
            delay = rng.uniform(0, last_ms / 1000)
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                killed_runs += 1
                continue
        rc = proc.wait()
        if rc != 0:
            raise SystemExit(f"run {run}: ingest exited {rc}")
        last_ms = (time.monotonic() - started) * 1000
        acknowledged.update(ids)
        if (run + 1) % args.every == 0 or run + 1 == args.runs:
            files, size = store_size(store)
            read = base + ["recent", "t0", "1"]
            open_ms, _ = timed(read, env)
            rss = peak_rss_mb(read, env)
            row = {"runs": run + 1, "acknowledged": len(acknowledged), "files": files,
                   "mb": round(size / 1e6, 2), "open_ms": round(open_ms), "rss_mb": round(rss, 1),
                   "ingest_ms": round(last_ms)}
            rows.append(row)
            print(f"| {row['runs']} | {row['acknowledged']} | {files} | {row['mb']} | {row['open_ms']} | {row['rss_mb']} | {row['ingest_ms']} |", flush=True)
            if args.json:
                print(json.dumps(row), file=sys.stderr)

    export = os.path.join(work, "all.jsonl")
    timed(base + ["export", "--format", "jsonl", export], env)
    seen = []
    with open(export) as f:
        for line in f:
            line = line.strip()
            if line:
                value = json.loads(line)
                if "id" in value and "item" not in value:
                    seen.append(value["id"])
    missing = acknowledged - set(seen)
    duplicates = len(seen) - len(set(seen))
    from_killed = len(set(seen) - acknowledged)
    verify = subprocess.run(base + ["verify"], env=env, capture_output=True, text=True)
    print(f"\nkilled runs: {killed_runs}; acknowledged turns: {len(acknowledged)}; stored: {len(seen)} "
          f"({from_killed} from killed runs); missing acknowledged: {len(missing)}; duplicated: {duplicates}")
    print(f"memdag verify: {verify.stdout.strip()}")
    ok = not missing and duplicates == 0 and verify.returncode == 0
    print("soak: every acknowledged turn is there, once" if ok else "soak: FAILED")
    if not args.store:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
