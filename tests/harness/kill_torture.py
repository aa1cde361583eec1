#!/usr/bin/env python3
"""Kill torture: SIGKILLs `gauntlet run` at seeded random moments across its stages, resumes it
with --resume each time, and checks that every row the journal held at a kill is in the final
report, that the report is complete and valid against the schema, and that nothing temporary is
left: no journal, no half-written report or model, no child process of a killed run.

Usage: kill_torture.py GAUNTLET_EXE SCHEMA_JSON [KILLS] [SEED]"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import jsonschema

EXE, SCHEMA = sys.argv[1], sys.argv[2]
KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 2026
SHAPE = "n_embd=32,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=64"
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def journal_entries(path):
    """unit -> payload of each whole line (a torn last line is not yet a row)."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            entry = json.loads(line)
            entries[entry["unit"]] = entry["payload"]
    return entries


def start(out, env, resume):
    cmd = [EXE, "run", "--device", "host", "--shape", SHAPE, "--level", "quick", "--out", out,
           "--simulate", env["KILL_TORTURE_CLAMPS"], "--quiet"] + (["--resume"] if resume else [])
    # A session of its own: after the kill, any process left in it is an orphaned child.
    return subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def row_key(row):
    return (row.get("id"), row.get("device"), row.get("status"), row.get("reason"))


def check_report(out, journaled, label):
    """The final report holds every journaled row, is complete and matches the schema."""
    shown = subprocess.run([EXE, "report", "show", out, "--format", "json"], capture_output=True,
                           text=True)
    if shown.returncode != 0:
        fail(f"{label}: gauntlet report show refused the report: {shown.stderr.strip()}")
        return
    with open(out, encoding="utf-8") as f:
        report = json.load(f)
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        jsonschema.validate(report, schema)
    except jsonschema.ValidationError as e:
        fail(f"{label}: the report does not match the schema: {e.message}")
    if report.get("complete") is not True:
        fail(f"{label}: the final report is not complete")
    rows = set()
    metrics = []
    for device in report["devices"]:
        for row in device.get("conformance", []) + (device.get("stress") or {}).get("rows", []):
            rows.add(row_key(row))
        for profile in device.get("profiles", []):
            for row in profile.get("rows", []):
                rows.add(row_key(row))
                metrics.append(row.get("metrics"))
    missing = 0
    for unit, payload in journaled.items():
        if unit.startswith("profiles:"):
            for result in payload:
                if "error" in result:
                    found = any(r[3] == result["error"] for r in rows)
                else:
                    found = result in metrics
                if not found:
                    missing += 1
                    fail(f"{label}: a result of {unit} the journal held is not in the report")
        else:
            for row in payload.get("rows", []):
                if row_key(row) not in rows:
                    missing += 1
                    fail(f"{label}: row {row.get('id')} of {unit} the journal held is not in "
                         "the report")
    return missing


def main():
    rng = random.Random(SEED)
    tmp_before = set(os.listdir(tempfile.gettempdir()))
    work = tempfile.mkdtemp(prefix="gauntlet-kill-torture-")
    # A 256 MiB device: the stress stays short, so that 20 kills take well under a minute.
    clamps = os.path.join(work, "small.json")
    with open(clamps, "w", encoding="utf-8") as f:
        json.dump({"name": "small-host", "global_mem_size": 256 << 20}, f)
    env = dict(os.environ, GAUNTLET_CACHE_DIR=os.path.join(work, "cache"),
               KILL_TORTURE_CLAMPS=clamps)
    pids = []
    try:
        # One run without a kill: when each journal row appears, and when it ends. The stages
        # between those moments are where the kills are aimed.
        os.makedirs(os.path.join(work, "ref"))
        ref_out = os.path.join(work, "ref", "report.json")
        began = time.monotonic()
        ref = start(ref_out, env, False)
        pids.append(ref.pid)
        marks = []  # (seconds, unit) as rows appear
        while ref.poll() is None:
            units = list(journal_entries(ref_out + ".journal"))
            for unit in units[len(marks):]:
                marks.append((time.monotonic() - began, unit))
            time.sleep(0.01)
        whole = time.monotonic() - began
        err = ref.stderr.read()
        if ref.returncode not in (0, 1):
            fail(f"the run without a kill exited {ref.returncode}: {err.strip()}")
            return
        print(f"a run without a kill: {whole:.2f} s, exit {ref.returncode}; rows at "
              + ", ".join(f"{t:.2f} s ({u})" for t, u in marks), flush=True)
        bounds = [0.0] + [t for t, _ in marks] + [whole]
        stages = [(bounds[i], bounds[i + 1],
                   f"before {marks[i][1]}" if i < len(marks) else "writing the report")
                  for i in range(len(bounds) - 1)]
        # Models are written within the run: a fresh cache each cycle puts kills into that too.
        shutil.rmtree(env["GAUNTLET_CACHE_DIR"])

        kills = cycles = 0
        while kills < KILLS:
            cycles += 1
            folder = os.path.join(work, f"cycle{cycles}")
            os.makedirs(folder)
            out = os.path.join(folder, "report.json")
            journal = out + ".journal"
            journaled = {}
            resume = False
            while True:
                before = len(journal_entries(journal))
                run = start(out, env, resume)
                pids.append(run.pid)
                # A stage at random, a moment at random within it; after the last kill, the
                # run goes to its end.
                stage = stages[rng.randrange(len(stages))]
                delay = rng.uniform(stage[0], stage[1]) if kills < KILLS else None
                try:
                    _, err = run.communicate(timeout=delay)
                except subprocess.TimeoutExpired:
                    run.kill()
                    run.wait()
                    kills += 1
                    held = journal_entries(journal)
                    journaled.update(held)
                    deadline = time.monotonic() + 5
                    while group_alive(run.pid) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    if group_alive(run.pid):
                        fail(f"kill {kills}: a child of the killed run is still running")
                        os.killpg(run.pid, signal.SIGKILL)
                    print(f"kill {kills:2d} at {delay:5.2f} s ({stage[2]}; cycle {cycles}): "
                          f"journal rows before {before}, after {len(held)}", flush=True)
                    resume = os.path.exists(journal)
                    continue
                if run.returncode not in (0, 1):
                    fail(f"cycle {cycles}: the resumed run exited {run.returncode}: {err.strip()}")
                    return
                print(f"cycle {cycles} completed: journal rows before {before}, exit "
                      f"{run.returncode}; the journal held {len(journaled)} units at the kills",
                      flush=True)
                check_report(out, journaled, f"cycle {cycles}")
                if os.path.exists(journal):
                    fail(f"cycle {cycles}: the journal is left after a complete run")
                left = sorted(set(os.listdir(folder)) - {"report.json"})
                if left:
                    fail(f"cycle {cycles}: left in the report's folder: {left}")
                break
            cache = env["GAUNTLET_CACHE_DIR"]
            if os.path.isdir(cache):
                temps = [f for f in os.listdir(cache) if not f.endswith(".gguf")]
                if temps:
                    fail(f"cycle {cycles}: left in the model cache: {temps}")
        print(f"{kills} kills over {cycles} cycles", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # What the runs may have written outside their folders: names with one of their pids.
    new = set(os.listdir(tempfile.gettempdir())) - tmp_before
    ours = sorted(n for n in new if any(str(p) in n for p in pids))
    if ours:
        fail(f"left in {tempfile.gettempdir()}: {ours}")


if __name__ == "__main__":
    main()
    if failures:
        print(f"{len(failures)} failures", flush=True)
        sys.exit(1)
    print("kill torture passed", flush=True)
