"""Times two commands against each other: run in turn (A B A B ...), so that a drift of the machine's speed
falls on both alike, each run's user CPU read from the kernel's accounting of the finished process (wait4).
Prints each command's minimum, median and maximum user CPU and the ratio A/B pair by pair (minimum, median,
maximum): quote the median ratio; a wide spread says the machine was noisy.

    python bench/paired.py --a "/tmp/new/run python/atmsim/scenarios/ndp-in-out.toml duration=1.1s" \\
                           --b "/tmp/old/run python/atmsim/scenarios/ndp-in-out.toml duration=1.1s" --pairs 21 --core 1

Each command is one string split as a shell splits words (no shell runs it); its output is thrown away.
"""
import os
import shlex
import shutil
import statistics
import subprocess
import sys

from atmsim.one_line_args import OneLineParser


def user_cpu(argv: list, core) -> float:
    """User CPU seconds of one run of `argv` (pinned to `core` by taskset if given); exits on a failed run."""
    pin = ["taskset", "-c", str(core)] if core is not None else []
    proc = subprocess.Popen(pin + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"paired.py: {shlex.join(argv)} exited {code}")
    return usage.ru_utime


def spread(values: list) -> str:
    return f"{min(values):.4f} {statistics.median(values):.4f} {max(values):.4f}"


def main(argv=None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="the command timed (one string)")
    ap.add_argument("--b", required=True, help="the command it is timed against (one string)")
    ap.add_argument("--pairs", type=int, default=11, help="counted pairs (default 11)")
    ap.add_argument("--warmup", type=int, default=1, help="uncounted pairs first (default 1)")
    ap.add_argument("--core", type=int, default=None, help="pin every run to this core (taskset)")
    a = ap.parse_args(argv)
    if a.pairs < 1:
        ap.error("--pairs: must be at least 1")
    if a.warmup < 0:
        ap.error("--warmup: must not be negative")
    if a.core is not None and not 0 <= a.core < os.cpu_count():
        ap.error(f"--core: this machine has cores 0 to {os.cpu_count() - 1}")
    cmds = {}
    for name in ("a", "b"):
        try:
            cmds[name] = shlex.split(getattr(a, name))
        except ValueError as e:
            ap.error(f"--{name}: {e}")
        if not cmds[name]:
            ap.error(f"--{name}: an empty command")
        if shutil.which(cmds[name][0]) is None:
            ap.error(f"--{name}: {cmds[name][0]} is not a program that can be run")
    for _ in range(a.warmup):
        user_cpu(cmds["a"], a.core)
        user_cpu(cmds["b"], a.core)
    ta, tb = [], []
    for _ in range(a.pairs):
        ta.append(user_cpu(cmds["a"], a.core))
        tb.append(user_cpu(cmds["b"], a.core))
    load = os.getloadavg()
    print(f"{a.pairs} pairs, core {a.core if a.core is not None else 'any'}, load average {load[0]:.2f} at the end")
    print("figure        min    median max")
    print(f"A user s    {spread(ta)}")
    print(f"B user s    {spread(tb)}")
    print(f"A/B user    {spread([x / y for x, y in zip(ta, tb) if y > 0])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
