#!/usr/bin/env python3
"""A real memory limit: creates a memory cgroup of 1.5 GiB (v2 where /sys/fs/cgroup is cgroup2,
else v1's memory controller), runs `gauntlet stress` and a quick `gauntlet run` on DEVICE inside
it, and checks that gauntlet survives (exits by itself, not by a signal), that the budget it
reports stays within the limit, and that the report names the cgroup as what bound it. Where no
cgroup can be made (not root, no memory controller) the test fails and says why.

Usage: memory_cgroup.py GAUNTLET_EXE [DEVICE]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

EXE = sys.argv[1]
DEVICE = sys.argv[2] if len(sys.argv) > 2 else "opencl:0"
LIMIT = 1536 << 20
SHAPE = "n_embd=32,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=64"
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def make_cgroup():
    """The cgroup's folder and its limit file, or exits with the reason none can be made."""
    fstype = subprocess.run(["stat", "-fc", "%T", "/sys/fs/cgroup"], capture_output=True,
                            text=True).stdout.strip()
    name = f"gauntlet-memtest-{os.getpid()}"
    if fstype == "cgroup2fs":
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            own = next(l.split("::", 1)[1].strip() for l in f if l.startswith("0::"))
        parent = "/sys/fs/cgroup" + own.rstrip("/")
        # A v2 cgroup with processes cannot enable controllers for its children: make the test's
        # cgroup under the root of the hierarchy instead where that is the case.
        if not os.path.exists(os.path.join(parent, "memory.max")) and parent != "/sys/fs/cgroup":
            parent = "/sys/fs/cgroup"
        try:
            with open(os.path.join(parent, "cgroup.subtree_control"), "w") as f:
                f.write("+memory")
        except OSError as e:
            sys.exit(f"cannot enable the memory controller under {parent}: {e}")
        folder, limit_file = os.path.join(parent, name), "memory.max"
    else:
        if not os.path.isdir("/sys/fs/cgroup/memory"):
            sys.exit(f"/sys/fs/cgroup is {fstype or 'missing'} and has no v1 memory controller")
        folder, limit_file = os.path.join("/sys/fs/cgroup/memory", name), "memory.limit_in_bytes"
    try:
        os.mkdir(folder)
        with open(os.path.join(folder, limit_file), "w") as f:
            f.write(str(LIMIT))
    except OSError as e:
        sys.exit(f"cannot create the memory cgroup {folder} (uid {os.getuid()}): {e}")
    return folder, limit_file


def remove_cgroup(folder):
    for _ in range(50):
        try:
            os.rmdir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)
    fail(f"the cgroup {folder} could not be removed")


def run_inside(folder, args, **kw):
    def enter():  # in the child, before exec
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    began = time.monotonic()
    done = subprocess.run([EXE] + args, preexec_fn=enter, capture_output=True, text=True, **kw)
    print(f"gauntlet {' '.join(args[:3])}: exit {done.returncode} in "
          f"{time.monotonic() - began:.1f} s", flush=True)
    if done.returncode < 0 or done.returncode > 1:
        fail(f"gauntlet {args[0]} inside the cgroup ended with {done.returncode}: "
             f"{done.stderr.strip()[-2000:]}")
    return done


def check_cap_row(rows, folder, what):
    cap = next((r for r in rows if r["id"] == "stress.cap"), None)
    if cap is None:
        fail(f"{what}: no stress.cap row")
        return
    bound_by = cap["metrics"]["bound_by"]
    cap_bytes = cap["metrics"]["cap_bytes"]
    print(f"{what}: cap {cap_bytes >> 20} MiB, bound by {bound_by}", flush=True)
    if folder not in bound_by or not bound_by.startswith("cgroup"):
        fail(f"{what}: the cap is bound by '{bound_by}', not by the cgroup {folder}")
    if cap_bytes > LIMIT:
        fail(f"{what}: the cap of {cap_bytes} bytes exceeds the limit of {LIMIT}")


def main():
    folder, limit_file = make_cgroup()
    print(f"cgroup {folder}: {limit_file} = {LIMIT}", flush=True)
    work = tempfile.mkdtemp(prefix="gauntlet-memtest-")
    try:
        stress = run_inside(folder, ["stress", "--device", DEVICE, "--level", "quick", "--json"])
        if stress.returncode in (0, 1):
            results = json.loads(stress.stdout)
            result = results[0] if isinstance(results, list) else results
            budget = result["safe_budget_bytes"]
            print(f"stress: safe budget {budget >> 20} MiB, bound by {result['bound_by']}",
                  flush=True)
            if not 0 < budget <= LIMIT:
                fail(f"stress: a safe budget of {budget} bytes is not within the limit {LIMIT}")
            check_cap_row(result["rows"], folder, "stress")

        out = os.path.join(work, "report.json")
        env = dict(os.environ, GAUNTLET_CACHE_DIR=os.path.join(work, "cache"))
        run_inside(folder, ["run", "--device", DEVICE, "--level", "quick", "--shape", SHAPE,
                            "--out", out, "--quiet"], env=env)
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                report = json.load(f)
            stress_section = report["devices"][0]["stress"]
            budget = stress_section["safe_budget_bytes"]
            print(f"run: safe budget {budget >> 20} MiB in the report", flush=True)
            if not 0 < budget <= LIMIT:
                fail(f"run: the report's budget of {budget} bytes is not within {LIMIT}")
            check_cap_row(stress_section["rows"], folder, "run")
        else:
            fail("gauntlet run wrote no report")
        # What the kernel charged the cgroup at most: the limit held.
        peak_file = "memory.max_usage_in_bytes" if limit_file.endswith("in_bytes") else "memory.peak"
        if os.path.exists(os.path.join(folder, peak_file)):
            with open(os.path.join(folder, peak_file), encoding="utf-8") as f:
                peak = int(f.read().strip())
            print(f"the cgroup's {peak_file}: {peak >> 20} MiB of {LIMIT >> 20} MiB", flush=True)
            if peak > LIMIT:
                fail(f"the cgroup was charged {peak} bytes, over its limit of {LIMIT}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        remove_cgroup(folder)


if __name__ == "__main__":
    main()
    if failures:
        print(f"{len(failures)} failures", flush=True)
        sys.exit(1)
    print("memory cgroup test passed", flush=True)
