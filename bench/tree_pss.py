"""Run a command and sample the Pss of its whole process tree every 0.2 s (smaps_rollup of every
descendant): prints the wall seconds and the peak tree Pss, what `steth diagnose --max-memory` promises to
stay under (the bench's peak RSS is the main process' alone). Linux only.

    STETH_JOBS=8 .venv/bin/python bench/tree_pss.py .venv/bin/steth diagnose --from-logs BUNDLE --format json --max-memory 4G
"""
import os, subprocess, sys, time
def tree(root):
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f: ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except OSError: pass
    out, todo = [], [root]
    while todo:
        x = todo.pop(); out.append(x); todo += kids.get(x, [])
    return out
def pss(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for l in f:
                if l.startswith("Pss:"): return int(l.split()[1]) / 1024
    except OSError: return 0.0
    return 0.0
t = time.perf_counter(); p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = 0.0; n = 0
while p.poll() is None:
    pids = tree(p.pid); peak = max(peak, sum(pss(x) for x in pids)); n = max(n, len(pids)); time.sleep(0.2)
print(f"wall {time.perf_counter()-t:.2f} s  peak tree Pss {peak:.0f} MB  max procs {n}  rc {p.returncode}  env STETH_JOBS={os.environ.get('STETH_JOBS','-')}")
