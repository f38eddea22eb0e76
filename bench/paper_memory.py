"""Peak memory of each paper's reproduction, as a user's machine sees it (issue 38: "under 1 GB for
every paper").

Runs `python -m atmsim reproduce PAPER --out DIR` for each paper in turn, each into a fresh folder (so
with an empty run cache: every run is simulated, none read back), and samples, every --every seconds,
the resident memory of the whole process tree (the command and its worker processes, summed: what
the machine must hold at once). Also reports the largest single process (from the same samples) and
the command's CPU time and wall time. `/usr/bin/time -v` reports only the largest process, which
with 2 workers can be half of what the tree holds.

    python bench/paper_memory.py                          # every paper, full, CPUs workers
    python bench/paper_memory.py --papers jain96 --quick  # one paper's quick variant
    python bench/paper_memory.py --write bench/paper_memory.json

Linux only (it reads /proc).
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from atmsim.one_line_args import OneLineParser
from atmsim.reproduce import names

PAGE = os.sysconf("SC_PAGE_SIZE")


def children_of() -> dict:
    """parent pid -> its child pids, over every process /proc lists now."""
    kids: dict = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the process ended while we listed
            continue
        # The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE
    except OSError:
        return 0


def tree_rss(root: int) -> tuple:
    """(total, largest) resident bytes of `root` and every process below it."""
    kids, stack, total, largest = children_of(), [root], 0, 0
    while stack:
        pid = stack.pop()
        rss = rss_bytes(pid)
        total, largest = total + rss, max(largest, rss)
        stack.extend(kids.get(pid, []))
    return total, largest


def measure(paper: str, quick: bool, workers, every: float) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"paper-memory-{paper}-") as tmp:
        cmd = [sys.executable, "-m", "atmsim", "reproduce", paper, "--out", os.path.join(tmp, "out")]
        cmd += ["--quick"] * quick + (["--workers", str(workers)] if workers else [])
        start, cpu_before = time.monotonic(), children_cpu()
        with open(os.path.join(tmp, "log"), "w+b") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            peak_tree = peak_one = 0
            while proc.poll() is None:
                total, largest = tree_rss(proc.pid)
                peak_tree, peak_one = max(peak_tree, total), max(peak_one, largest)
                time.sleep(every)
            wall = time.monotonic() - start
            log.seek(0)
            last = log.read().decode(errors="replace").strip().splitlines()[-1:] or [""]
        if proc.returncode != 0:
            sys.exit(f"paper_memory.py: reproduce {paper} exited {proc.returncode}: {last[0][:200]}")
    cpu = round(children_cpu() - cpu_before, 1)
    return {"paper": paper, "quick": quick, "peak_tree_mb": peak_tree / 1e6, "peak_process_mb": peak_one / 1e6,
            "wall_s": round(wall, 1), "children_cpu_s": cpu, "result": last[0]}


def children_cpu() -> float:
    """CPU seconds, user and system, of every child waited for so far: Popen.poll reaps the command, and
    its workers were reaped by it, so RUSAGE_CHILDREN counts the whole tree."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", default="all", help="comma-separated paper names, or all")
    ap.add_argument("--quick", action="store_true", help="each paper's quick variant")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: the CLI's, CPUs)")
    ap.add_argument("--every", type=float, default=0.2, help="sampling interval, seconds")
    ap.add_argument("--write", default=None, help="also write the rows as JSON to this file")
    a = ap.parse_args(argv)
    papers = names() if a.papers == "all" else a.papers.split(",")
    for p in papers:
        if p not in names():
            ap.error(f"--papers: no paper named {p!r} (papers: {', '.join(names())})")
    if a.workers is not None and a.workers < 1:
        ap.error("--workers: must be at least 1")
    if not 0.01 <= a.every <= 10:
        ap.error("--every: must be between 0.01 and 10 seconds")
    rows = []
    for p in papers:
        row = measure(p, a.quick, a.workers, a.every)
        print(f"{p:14s} peak tree {row['peak_tree_mb']:8.1f} MB  largest process {row['peak_process_mb']:8.1f} MB  "
              f"CPU {row['children_cpu_s']:7.1f} s  wall {row['wall_s']:7.1f} s  {row['result']}", flush=True)
        rows.append(row)
    if a.write:
        with open(a.write, "w", encoding="utf-8") as f:
            json.dump({"command": " ".join(["python", "bench/paper_memory.py", *(argv or sys.argv[1:])]),
                       "cpus": os.cpu_count(), "rows": rows}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
