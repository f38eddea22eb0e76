"""How long Ctrl-C takes to end a huge validation: from SIGINT to the exit
of `python -m atmsim`, with its exit code and last line; or, with
`--in-process`, from SIGINT to the KeyboardInterrupt that
`atmsim.run(SCENARIO, set=[KEY=VALUE...])` raises (as a notebook sees it).

    python bench/interrupt_exit.py [--repeat 5] [--after 3,4,5] [--python PY] -- ATMSIM-ARGS...
    python bench/interrupt_exit.py --in-process [...] -- SCENARIO KEY=VALUE...

Each repeat starts `PY -m atmsim ATMSIM-ARGS`, sends SIGINT `after` seconds
later (each of the given moments in turn, so that the signal lands in
different phases), and waits for the exit; then prints the minimum, median
and maximum time to the exit. A run that ended before its signal is counted
apart ("done first"). Run it pinned (`taskset -c 0 nice`) for comparable
figures. Before and after a change, point PY at two installs (or swap the
built module) and run the same arguments.
"""
import signal
import statistics
import subprocess
import sys
import time

from atmsim.one_line_args import OneLineParser


def interrupted(python, args, after_s):
    """(seconds from SIGINT to the exit, exit code, last stderr line), or None if it ended first."""
    p = subprocess.Popen([python, "-m", "atmsim", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(after_s)
    if p.poll() is not None:
        return None
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    waited = time.monotonic() - t0
    lines = err.strip().splitlines()
    return waited, p.returncode, lines[-1] if lines else ""


IN_PROCESS = """
import os, signal, sys, threading, time
import atmsim
sent = []
def interrupt():
    time.sleep(float(sys.argv[1]))
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
try:
    atmsim.run(sys.argv[2], set=sys.argv[3:])
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - sent[0], file=sys.stderr)
"""


def in_process(python, args, after_s):
    """(seconds from SIGINT to the KeyboardInterrupt caught, 0, its line), or None if the run ended first.
    `after_s` counts from atmsim's import, not the process start."""
    p = subprocess.run([python, "-c", IN_PROCESS, str(after_s), *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    last = (p.stderr.strip().splitlines() or [""])[-1]
    if not last.startswith("interrupted "):
        return None
    return float(last.split()[1]), p.returncode, "KeyboardInterrupt"


def main():
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--after", default="3,4,5", help="seconds from the start to SIGINT, comma-separated, used in turn")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--in-process", action="store_true", help="time the KeyboardInterrupt of atmsim.run, not the exit")
    ap.add_argument("args", nargs="+")
    a = ap.parse_args()
    moments = [float(x) for x in a.after.split(",")]
    waits, first = [], 0
    for i in range(a.repeat):
        after = moments[i % len(moments)]
        r = (in_process if a.in_process else interrupted)(a.python, a.args, after)
        if r is None:
            first += 1
            print(f"  SIGINT at {after:.1f} s: done first", flush=True)
            continue
        waited, code, line = r
        waits.append(waited)
        print(f"  SIGINT at {after:.1f} s: exit {code} after {waited * 1e3:.0f} ms ({line})", flush=True)
    if waits:
        print(f"SIGINT to {'KeyboardInterrupt' if a.in_process else 'exit'}, {len(waits)} runs: min {min(waits) * 1e3:.0f} ms, "
              f"median {statistics.median(waits) * 1e3:.0f} ms, max {max(waits) * 1e3:.0f} ms"
              + (f"; {first} done before the signal" if first else ""))


if __name__ == "__main__":
    main()
