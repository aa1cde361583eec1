#!/usr/bin/env python3
"""Kill torture: SIGKILLs `gauntlet run` at seeded random moments across its stages (once the
journal holds a random number of rows, after a random delay), resumes it with --resume each time,
and checks that every row the journal held at a kill is in the final report, that the report is
complete and valid against the schema, and that nothing temporary is left: no journal, no
half-written report or model, no child process of a killed run. On an OpenCL or Vulkan device the
first kills land inside its conformance, stress and profile units (a random part of the time
each took in the run without a kill, after the row before it), and the device is probed after the
last one: a kill leaves no device unusable.

Usage: kill_torture.py GAUNTLET_EXE SCHEMA_JSON [KILLS] [SEED] [DEVICE]"""
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
DEVICE = sys.argv[5] if len(sys.argv) > 5 else "host"
SHAPE = "n_embd=32,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=64"
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def journal_entries(path):
    """unit -> payload of each whole line (a torn last line is not yet a row)."""
    entries = {}
    try:
        # A run that completes removes its journal at any moment, even between two reads.
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except FileNotFoundError:
        return entries
    for line in lines:
        if not line.endswith("\n"):
            break
        entry = json.loads(line)
        entries[entry["unit"]] = entry["payload"]
    return entries


def start(out, env, resume):
    """Starts a run; its stderr goes to a file beside the report (read with `errors`)."""
    cmd = [EXE, "run", "--device", DEVICE, "--shape", SHAPE, "--level", "quick", "--out", out,
           "--simulate", env["KILL_TORTURE_CLAMPS"], "--quiet"] + (["--resume"] if resume else [])
    with open(out + ".stderr", "w", encoding="utf-8") as err:
        # A session of its own: after the kill, any process left in it is an orphaned child.
        return subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=err)


def errors(out):
    """What the last run writing `out` said on stderr; the file is removed."""
    path = out + ".stderr"
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    os.remove(path)
    return text


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
        # On a device, a first run fills the drivers' kernel caches (PoCL's, Mesa's): with cold
        # caches the run below took 42 s where the runs after it took 15, so every kill aimed from
        # its times came after the end.
        if DEVICE != "host":
            os.makedirs(os.path.join(work, "warm"))
            warm = start(os.path.join(work, "warm", "report.json"), env, False)
            pids.append(warm.pid)
            warm.wait()
        # One run without a kill: when each journal row appears, and when it ends. The gaps
        # between those moments set how long a kill waits after a row.
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
        err = errors(ref_out)
        if ref.returncode not in (0, 1):
            fail(f"the run without a kill exited {ref.returncode}: {err}")
            return
        print(f"a run without a kill: {whole:.2f} s, exit {ref.returncode}; rows at "
              + ", ".join(f"{t:.2f} s ({u})" for t, u in marks), flush=True)
        rows_total = len(marks)
        if rows_total == 0:
            fail("the run without a kill wrote no journal row")
            return
        # What follows row k in the run without a kill (row 0: the start): how long until the next
        # row, or until the end after the last one. A kill that waits for row k waits a random
        # part of that gap after it.
        times = [0.0] + [t for t, _ in marks]
        gaps = [(times[k + 1] if k < rows_total else whole) - times[k]
                for k in range(rows_total + 1)]
        # A run resumed with k rows held first starts up again (the doctor, the devices, the
        # journal) and skips what the journal holds: a kill with no new row to wait for comes
        # within how long such a run took to its next row or its end, as last seen (at first,
        # how long the run without a kill took to its row k + 1, or to its end), or up to half as
        # long again.
        spans = [times[k + 1] if k < rows_total else whole for k in range(rows_total + 1)]
        # Models are written within the run: a fresh cache puts kills into that too.
        shutil.rmtree(env["GAUNTLET_CACHE_DIR"])

        # On a device, the first kills aim inside its own units: the row before each unit's row.
        forced = []
        if DEVICE != "host":
            for stage in ("conform:", "stress:", "profiles:"):
                at = next((k for k, (_, u) in enumerate(marks) if u.startswith(stage)), None)
                if at is None:
                    fail(f"the run without a kill has no {stage} unit")
                    return
                forced.append(at)
        landed = {}  # the unit each kill aimed into: how many
        kills = cycles = after_rows = after_exit = 0
        torture_began = time.monotonic()
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
                # The run without a kill may end within a poll of its last row, which is then
                # never seen: a row count past the known ones extends them.
                while before > rows_total:
                    rows_total += 1
                    marks.append((whole, f"unit {rows_total}, unseen without a kill"))
                    gaps.insert(-1, gaps[-1])
                    spans.append(spans[-1])
                run = start(out, env, resume)
                pids.append(run.pid)
                began = time.monotonic()
                # The moment is chosen by progress, not by the clock from the start: a row count
                # at random from the rows already held to all of them (so that each kill of a
                # cycle moves it on; from none, a third of the time, so that the stages before the
                # first row get their share), then a random part of what follows that row. After
                # the last kill, the run goes to its end.
                aimed = None  # a forced kill's unit
                # A unit is aimed at by progress (its row before held, then part of its gap), or
                # as the first unit of a fresh run by the clock. A run resumed with the unit's row
                # before already held could only be timed by the clock, and it skips the units it
                # holds: it reached its end before a kill aimed at the stress unit that way. Such
                # a run goes to its end unkilled, and the next cycle, fresh, aims at the unit.
                hold_fire = False
                if forced and (forced[0] > before or forced[0] == before == 0):
                    target = forced.pop(0)
                    aimed = marks[target][1]
                elif forced and before > 0:
                    hold_fire = True
                    target = before
                elif before == 0 and rng.random() < 1 / 3:
                    target = 0
                else:
                    target = rng.randint(max(before, 1), rows_total)
                # With no new row to wait for, the moment may fall past the run's end (a third of
                # the time), so that a cycle also completes from every row count.
                delay = rng.uniform(0.0, gaps[target] if target > before else 1.5 * spans[before])
                if aimed is not None:
                    # Into the unit's middle; the first unit's row comes after the start-up.
                    delay = (rng.uniform(0.2, 0.8) * gaps[target] if target > before
                             else rng.uniform(0.7, 0.95) * spans[before])
                deadline = None if target > before or hold_fire else began + delay
                new_row = None  # when the run wrote its first row beyond those it resumed with
                killed = False
                while run.poll() is None:
                    now = time.monotonic()
                    rows = len(journal_entries(journal))
                    if new_row is None and rows > before:
                        new_row = now - began
                    if deadline is None and rows >= target and not hold_fire:
                        deadline = now + delay
                    if kills < KILLS and deadline is not None and now >= deadline:
                        run.kill()
                        killed = True
                        break
                    time.sleep(0.005)
                if new_row is not None:
                    spans[before] = new_row
                elif not killed:
                    spans[before] = time.monotonic() - began
                run.wait()
                err = errors(out)
                if aimed is not None and not killed:
                    forced.insert(0, target)  # the run ended first: aimed again in a later cycle
                if killed:
                    kills += 1
                    at = time.monotonic() - began
                    held = journal_entries(journal)
                    journaled.update(held)
                    if held:
                        after_rows += 1
                    deadline = time.monotonic() + 5
                    while group_alive(run.pid) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    if group_alive(run.pid):
                        fail(f"kill {kills}: a child of the killed run is still running")
                        os.killpg(run.pid, signal.SIGKILL)
                    aim = (f"{delay:.2f} s after row {target} ({marks[target - 1][1]})"
                           if target > before else f"{delay:.2f} s after the start")
                    if aimed is not None:
                        into = aimed.split(":")[0]
                        landed[into] = landed.get(into, 0) + 1
                        aim += f", aimed inside {aimed}"
                    # A kill as the run exits finds its report written and its journal removed:
                    # that report ends the cycle.
                    done = not os.path.exists(journal) and os.path.exists(out)
                    after_exit += done
                    print(f"kill {kills:2d} at {at:5.2f} s, {aim}; cycle {cycles}: "
                          f"journal rows before {before}, after {len(held)}"
                          + ("; the run had written its report and removed the journal"
                             if done else ""), flush=True)
                    if not done:
                        resume = os.path.exists(journal)
                        continue
                    print(f"cycle {cycles} completed by the killed run; the journal held "
                          f"{len(journaled)} units at the kills", flush=True)
                else:
                    if run.returncode not in (0, 1):
                        fail(f"cycle {cycles}: the resumed run exited {run.returncode}: {err}")
                        return
                    print(f"cycle {cycles} completed: journal rows before {before}, exit "
                          f"{run.returncode}; the journal held {len(journaled)} units at the "
                          "kills", flush=True)
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
        print(f"{kills} kills over {cycles} cycles in {time.monotonic() - torture_began:.1f} s; "
              f"{after_rows} of them after at least one journal row existed, {after_exit} after "
              "the run had finished", flush=True)
        # A kill that finds the report written and the journal gone hit no live run; on a loaded
        # machine the runs end sooner than the clock aimed, so those do not count either way.
        if after_rows * 2 < kills - after_exit:
            fail(f"only {after_rows} of the {kills - after_exit} kills of a live run landed after "
                 "a journal row existed")
        print("kills aimed inside: " + ", ".join(f"{u} {n}" for u, n in sorted(landed.items())),
              flush=True)
        if DEVICE != "host":
            for stage in ("conform", "stress", "profiles"):
                if stage not in landed:
                    fail(f"no kill aimed inside a {stage} unit of {DEVICE}")
            probe = subprocess.run([EXE, "probe", "--device", DEVICE], capture_output=True,
                                   text=True)
            if probe.returncode != 0:
                fail(f"{DEVICE} after the kills: probe exited {probe.returncode}: "
                     f"{probe.stderr.strip()}")
            else:
                print(f"{DEVICE} probes after the kills", flush=True)
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
