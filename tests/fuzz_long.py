"""The long fuzz run (not part of the test suite): scenario overrides through
the API, and the command line in this process (run, sweep, validate) with the
limits (huge times and byte counts, --vary grids, --workers, --seeds) and
output folders (bad --out paths, reruns, held locks, stale staging folders,
damaged manifests), and damaged scenario files.

    python tests/fuzz_long.py --cases 100000 --seed 1 --log /tmp/atmsim-fuzz

`--first K` runs cases K to --cases only, the earlier drawn and not run (every case draws all it
needs before it runs, so the draws are those of the whole run): a peak or an anomaly is found by
halving the range. Ctrl-C or SIGTERM stops the run after the case it interrupts (exit 130).

One process (a sweep runs with --workers 1, inline). Every case ends in one
of the expected outcomes, or is an anomaly written to LOG/anomalies.jsonl:
a panic, a traceback (an exception escaping, or "internal error"), a hang
(more than --timeout seconds), an exit code other than 0 or 2 (a sweep whose
points failed exits 1 by design and is counted apart), an error that is not
one line, an unbalanced or physically impossible summary, a key accepted
without effect (`test_fuzz.without_effect`, or a flow that never starts:
`test_fuzz.never_started`), or a staging folder or lock
file left behind. The keys are every scenario's own, every key of the
registry (`atmsim.registry()`), with the mechanism that selects it half the
time, and every key of the schema's sections (test_fuzz.SCHEMA_DEFAULTS);
counts.json also gives the process's peak resident memory and the last case
that raised it by 64 MB or more (each such case is in LOG/peaks.jsonl).
Counts by outcome go to LOG/counts.json every 1000
cases and at the end; the case being run is in LOG/current.json (a hang the
core does not interrupt shows there). Deterministic for a seed.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import io
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import test_fuzz as F  # noqa: E402 - the scenarios, their keys and the values near each limit

from atmsim import ScenarioError, _core, resolve  # noqa: E402
from atmsim.cli import main as cli  # noqa: E402


#: The case being run (written before it runs, so a hang names its case).
CURRENT: dict = {}


LOG = Path(".")


class Drawn(Exception):
    """A case drawn and not run (before --first, DRAW_ONLY: every case draws all it needs before `note`)."""


DRAW_ONLY = [False]


def note(case: dict) -> None:
    """The case about to run, in CURRENT and LOG/current.json (a hang the core does not interrupt shows there)."""
    if DRAW_ONLY[0]:
        raise Drawn()
    CURRENT.update(case)
    (LOG / "current.json").write_text(json.dumps(CURRENT), encoding="utf-8")


class Hang(BaseException):
    """A case ran past --timeout (the core polls signal handlers, so SIGALRM stops a run)."""


def _alarm(*_):
    raise Hang()


#: Set by Ctrl-C or SIGTERM: the run stops after the case it interrupts (IN_CASE: the handler interrupts a
#: running case, and the core polls handlers; between cases only the flag is set, nothing half written).
STOP: list[int] = []
IN_CASE = [False]


def _stop(signum, _frame):
    STOP.append(signum)
    if IN_CASE[0]:
        raise KeyboardInterrupt


# ---------------------------------------------------------------------------- values

TIMES = ["0s", "1ps", "20ms", "288230s", "288231s", "288230376151711744ps", "288230376151711743ps",
         "18446744073709551615ps", "18446744073709551616ps", "1e300s", "-1s", "nan s", "inf s", "1e-300s"]
BYTES = ["0B", "1B", "4611686018427387904B", "4611686018427387903B", "18446744073709551615B",
         "99999999999999999999B", "1e300B", "-1B", "16EiB", "4EiB"]


def value_like(r: random.Random, value, words=()) -> str:
    """The random twin of test_fuzz.like: a value of the key's kind near a limit."""
    if isinstance(value, bool):
        return r.choice(["true", "false"])
    if isinstance(value, int):
        return r.choice(F.INT_LIMITS) if r.random() < 0.6 else str(r.randint(-(2**70), 2**70))
    if isinstance(value, float):
        return r.choice(F.FLOATS) if r.random() < 0.6 else repr(r.uniform(-1e6, 1e6))
    if isinstance(value, list):  # of times (send_at) or of counts (drop_segments, fabric weights)
        counts = r.random() < 0.5
        xs = [r.choice(F.INT_LIMITS[:12]) if counts else f'"{r.choice(F.INT_LIMITS[:12])}{r.choice(["us", "ps", "s"])}"'
              for _ in range(r.randint(0, 4))]
        return "[" + ", ".join(xs) + "]"
    m = F.re.fullmatch(r"\s*[0-9.]+\s*([A-Za-z/].*)", str(value))
    if m:
        unit = m.group(1)
        if unit.endswith("s") and r.random() < 0.2 and unit in ("s", "ms", "us", "ns", "ps"):
            return r.choice(TIMES)
        if unit in ("B", "KB", "MB") and r.random() < 0.2:
            return r.choice(BYTES)
        return r.choice(F.NUMBERS[:-1]) + unit
    return r.choice(list(words) or F.WORDS)


def junk(r: random.Random) -> str:
    k = r.randint(0, 2)
    if k == 0:
        return r.choice(F.WORDS)
    if k == 1:
        return "".join(chr(r.randint(32, 0x2FF)) for _ in range(r.randint(0, 12)))
    return r.choice(F.NUMBERS) + r.choice(F.UNITS)


def overrides(r: random.Random, name: str) -> list[tuple[str, str]]:
    keys = [r.choice(sorted(F.FIELDS[name])) for _ in range(r.randint(1, 3))]
    pairs = [(k, junk(r) if r.random() < 0.1 else value_like(r, F.FIELDS[name][k], F.CHOICES[name].get(k, ())))
             for k in keys]
    # A registry key beside the override that selects its mechanism half the time: where it acts, and where
    # it must be refused.
    return F.selecting(pairs, lambda options: r.choice(options) if r.random() < 0.5 else None)


def moved(pairs) -> bool:
    return any(k in ("report.bottleneck", "network") or k.endswith((".src", ".dst", ".kind")) for k, _ in pairs)


# ---------------------------------------------------------------------------- output folders


class Folders:
    """Paths for --out: fresh, reused (reruns), a file in the way, under a file, dangling or looping
    links, too long a name, a folder whose lock this process holds, a stale staging folder, a damaged
    manifest, the user's own files."""

    KINDS = ("fresh", "rerun", "rerun", "rerun", "file", "under-file", "dangling", "loop", "long", "locked",
             "stale-staging", "bad-manifest", "user-files", "empty", "dot-dot")

    def __init__(self, root: Path):
        self.root, self.n, self.used = root, 0, []
        self.held = None
        self.user = {}  # the user's files put in folders, with their text: never changed nor removed

    def pick(self, r: random.Random) -> tuple[str, Path]:
        self.n += 1
        kind = r.choice(self.KINDS)
        p = self.root / f"o{self.n}"
        if kind == "rerun" and self.used:
            return kind, r.choice(self.used)
        if kind == "file":
            p.write_text("x", encoding="utf-8")
        elif kind == "under-file":
            p.write_text("x", encoding="utf-8")
            p = p / "sub"
        elif kind == "dangling":
            p.symlink_to(self.root / "nowhere")
        elif kind == "loop":
            p.symlink_to(p)
        elif kind == "long":
            p = self.root / ("n" * 300)
        elif kind in ("locked", "stale-staging", "bad-manifest", "user-files"):
            p.mkdir()
            if kind == "locked":
                fd = os.open(p / ".atmsim.lock", os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(fd, fcntl.LOCK_EX)
                self.held = (fd, p)
            elif kind == "stale-staging":
                (p / ".atmsim-staging-99999").mkdir()
                (p / ".atmsim-staging-99999" / "summary.json").write_text("{", encoding="utf-8")
            elif kind == "bad-manifest":
                (p / ".atmsim-manifest.json").write_text(r.choice(['{"files": ["../../etc/passwd", "/x"]}', "{", "[]",
                                                                   '{"files": 3}', '{"complete": false, "files": []}']))
            else:  # some at names a command writes (issue 38: overwritten, then deleted by the next)
                for n in ["mine.txt", *r.sample(["summary.json", "trace_window.csv", "runs.csv", "points.csv"], r.randint(0, 2))]:
                    (p / n).write_text(f"keep {n}\n", encoding="utf-8")
                    self.user[p / n] = f"keep {n}\n"
                self.used = (self.used + [p])[-8:]  # and commands into it again later
        elif kind == "empty":
            return kind, Path("")
        elif kind == "dot-dot":
            p = self.root / "a" / ".." / f"o{self.n}"
        if kind in ("fresh", "rerun"):
            self.used = (self.used + [p])[-8:]
        return kind, p

    def release(self):
        if self.held:
            os.close(self.held[0])
            self.held = None

    def leftovers(self, p: Path) -> list[str]:
        """Staging folders or a lock file a finished command left (none may remain; the held lock is ours)."""
        try:
            names = os.listdir(p) if p.is_dir() and not p.is_symlink() else []
        except OSError:
            return []
        bad = [n for n in names if n.startswith(".atmsim-staging-") and n != ".atmsim-staging-99999"]
        if ".atmsim.lock" in names and not (self.held and self.held[1] == p):
            bad.append(".atmsim.lock")
        return bad


# ---------------------------------------------------------------------------- cases


def api_case(r: random.Random) -> tuple[dict, str, str]:
    name = r.choice(F.NAMES)
    pairs = overrides(r, name)
    sets = [f"{k}={v}" for k, v in pairs]
    sets.append(f"duration={r.choice(TIMES)}" if r.random() < 0.05 else F.DURATION[name])
    case = {"kind": "api", "scenario": name, "set": sets}
    note(case)
    try:
        summary, _ = _core.run(F.SCENARIOS[name], sets, None, False)
    except ScenarioError as e:
        msg = str(e)
        ok = msg and "\n" not in msg and ": " in msg
        return case, ("refused" if ok else "error not one line"), msg
    s = json.loads(summary)
    try:
        F.physically_valid(s, name in F.ONE_DIRECTION and not moved(pairs), F.resized(pairs))
    except AssertionError as e:
        return case, "invalid summary", str(e)[:500]
    inert = F.without_effect(name, pairs, sets) or F.never_started(name, sets)
    return (case, "accepted without effect", inert) if inert else (case, "ran", "")


def invoke(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(args, prog_name="atmsim")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    # The command makes SIGTERM a Ctrl-C and either exit 130: only a user stopping the fuzzer sends them.
    signal.signal(signal.SIGTERM, _stop)
    if code == 130:
        STOP.append(signal.SIGINT)
        raise KeyboardInterrupt
    return code, out.getvalue(), err.getvalue()


def classify_cli(code: int, out: str, err: str, sweep: bool = False) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    if "Traceback" in err or "internal error" in err:
        return "traceback"
    if code == 0:
        return "exit 0"
    if code == 2:
        return "exit 2" if len(lines) == 1 and lines[0].startswith("atmsim: error: ") else "error not one line"
    if code == 1 and sweep and "failed (failures.csv)" in out and all(x.startswith("atmsim: sweep point ") for x in lines):
        return "exit 1 (sweep points failed)"
    return f"exit {code}"


def out_checks(folders: Folders, p: Path, code: int, outcome: str, files: tuple[str, ...]) -> str:
    left = folders.leftovers(p) if str(p) else []
    if left:
        return f"left behind: {', '.join(left)}"
    touched = [f.name for f, text in folders.user.items() if f.parent == p and (not f.is_file() or f.read_text(encoding="utf-8") != text)]
    if touched:
        return f"user file changed or removed: {', '.join(touched)}"
    if code == 0 and str(p):
        m = json.loads((p / ".atmsim-manifest.json").read_text(encoding="utf-8"))
        if not m.get("complete") or not all((p / f).exists() for f in files):
            return "folder incomplete after exit 0"
    return outcome


def run_case(r: random.Random, folders: Folders) -> tuple[dict, str, str]:
    name = r.choice(F.NAMES)
    pairs = overrides(r, name) if r.random() < 0.7 else []
    args = ["run", name, "--json"] + [a for k, v in pairs for a in ("--set", f"{k}={v}")]
    args += ["--set", f"duration={r.choice(TIMES)}" if r.random() < 0.1 else F.DURATION[name]]
    if r.random() < 0.1:
        args += ["--seed", r.choice(F.INT_LIMITS)]
    kind, p = folders.pick(r) if r.random() < 0.6 else ("none", None)
    if p is not None:
        args += ["--out", str(p)]
    case = {"kind": "run", "args": args, "out": kind}
    note(case)
    code, out, err = invoke(args)
    outcome = classify_cli(code, out, err)
    if code == 0:
        try:
            s = json.loads(out)
            F.physically_valid(s, name in F.ONE_DIRECTION and not moved(pairs), F.resized(pairs))
        except (ValueError, AssertionError) as e:
            return case, "invalid summary", str(e)[:500]
    if p is not None:
        outcome = out_checks(folders, p, code, outcome, ("summary.json",))
    return case, outcome, err[-500:]


def sweep_case(r: random.Random, folders: Folders) -> tuple[dict, str, str]:
    name = r.choice(F.NAMES)
    args = ["sweep", name, "--set", F.DURATION[name], "--no-progress"]
    shape = r.random()
    if shape < 0.15:  # a grid past the limit (100,000 points), or malformed
        args += r.choice([[a for i in range(3) for a in ("--vary", f"k{i}=" + ",".join(map(str, range(47))))],
                          ["--vary", "seed"], ["--vary", "=1,2"], ["--vary", "seed=,"], ["--vary", "seed=1", "--vary", "seed=2"]])
    else:
        for k, v in overrides(r, name)[: r.randint(1, 2)]:  # the key's own value, and one near a limit
            own = F.FIELDS[name][k]
            own = str(own).lower() if isinstance(own, bool) else repr(own) if isinstance(own, float) else str(own)
            args += ["--vary", f"{k}={own},{v}" if "," not in own else f"{k}={v}"]
    args += ["--workers", r.choice(["1", "1", "1", "1", "0", "-1", "9", "1025", "x", "18446744073709551616"])]
    if r.random() < 0.3:
        args += ["--seeds", r.choice(["1,2", "0", "9223372036854775807", "9223372036854775808", "18446744073709551615",
                                      "18446744073709551616", "-1", "a,b", ",", "1,,2"])]
    if r.random() < 0.5:
        args.append("--no-cache")
    kind, p = folders.pick(r)
    args += ["--out", str(p)]
    case = {"kind": "sweep", "args": args, "out": kind}
    note(case)
    code, out, err = invoke(args)
    outcome = out_checks(folders, p, code, classify_cli(code, out, err, sweep=True), ())
    return case, outcome, err[-500:]


def file_case(r: random.Random, root: Path) -> tuple[dict, str, str]:
    """A damaged scenario file: the resolved TOML with lines dropped, bytes flipped or cut short."""
    name = r.choice(F.NAMES)
    text = resolve(name).encode()
    how = r.choice(["drop-lines", "flip-bytes", "truncate", "binary"])
    if how == "drop-lines":
        lines = text.split(b"\n")
        text = b"\n".join(x for x in lines if r.random() > 0.1)
    elif how == "flip-bytes":
        b = bytearray(text)
        for _ in range(r.randint(1, 8)):
            b[r.randrange(len(b))] = r.randrange(256)
        text = bytes(b)
    elif how == "truncate":
        text = text[: r.randrange(len(text))]
    else:
        text = bytes(r.randrange(256) for _ in range(r.randint(0, 200)))
    path = root / "scenario.toml"
    path.write_bytes(text)
    args = r.choice([["validate", str(path)], ["run", str(path), "--json", "--set", F.DURATION[name]]])
    case = {"kind": "file", "scenario": name, "how": how, "args": args}
    note(case)
    code, out, err = invoke(args)
    outcome = classify_cli(code, out, err)
    if code == 0 and args[0] == "run":
        try:
            F.physically_valid(json.loads(out), False)
        except (ValueError, AssertionError) as e:
            return case, "invalid summary", str(e)[:500]
    return case, outcome, err[-500:]


EXPECTED = {"ran", "refused", "exit 0", "exit 2", "exit 1 (sweep points failed)", "timeout (a valid 80 h run asked)"}
LONG = ("duration=288230s", "duration=288230376151711743ps", "duration=288230376151711744ps")  # 2^58 ps is allowed


def rotate(folders: Folders, root: Path, i: int) -> None:
    if folders.n >= 200:  # keep the temporary tree small: a new generation of folders
        shutil.rmtree(folders.root, ignore_errors=True)
        folders.root, folders.n, folders.used, folders.user = root / f"g{i}", 0, [], {}
        folders.root.mkdir()


def write_counts(log: Path, i: int, t0: float, counts: Counter, by_kind: Counter, peak: int, peak_case, stopped: bool) -> dict:
    el = max(time.time() - t0, 1e-9)
    report = {"cases": i, "elapsed_s": round(el, 1), "rate_per_s": round(i / el, 1),
              "by_kind": dict(by_kind), "by_outcome": dict(sorted(counts.items())),
              "anomalies": sum(v for k, v in counts.items() if k.split(": ", 1)[1] not in EXPECTED),
              "peak_rss_kb": peak, "peak_case": peak_case, "command": " ".join(sys.argv),
              **({"interrupted": True} if stopped else {})}  # the case it interrupted is not counted
    (log / "counts.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--log", type=Path, default=Path("fuzz-log"))
    ap.add_argument("--first", type=int, default=0,
                    help="run cases from this one on: the earlier are drawn, not run (to bisect a run by case ranges)")
    a = ap.parse_args()
    a.log = a.log.resolve()
    a.log.mkdir(parents=True, exist_ok=True)
    global LOG
    LOG = a.log
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    root = Path(tempfile.mkdtemp(prefix="atmsim-fuzz-"))
    os.chdir(root)  # `--out ""` is the current folder
    folders = Folders(root / "g0")
    folders.root.mkdir()
    r = random.Random(a.seed)
    counts, by_kind = Counter(), Counter()
    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.time()
    anomalies = open(a.log / "anomalies.jsonl", "a", encoding="utf-8")
    peak, peak_case = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, None
    done = 0
    try:
        for i in range(a.cases):
            if STOP:
                break
            x = r.random()
            kind = "api" if x < 0.7 else "run" if x < 0.85 else "sweep" if x < 0.95 else "file"
            CURRENT.clear()
            CURRENT.update(index=i, kind=kind)
            signal.setitimer(signal.ITIMER_REAL, a.timeout)
            DRAW_ONLY[0] = i < a.first
            try:
                IN_CASE[0] = True
                if kind == "api":
                    case, outcome, detail = api_case(r)
                elif kind == "run":
                    case, outcome, detail = run_case(r, folders)
                elif kind == "sweep":
                    case, outcome, detail = sweep_case(r, folders)
                else:
                    case, outcome, detail = file_case(r, root)
            except Hang:
                case, detail = dict(CURRENT), f"more than {a.timeout} s"
                words = case.get("set", []) + case.get("args", [])
                # A duration of 80 h (the largest time, 2^58 ps) is valid: a run that long is asked, not a hang.
                outcome = "timeout (a valid 80 h run asked)" if any(w in words for w in LONG) else "hang"
            except Drawn:
                rotate(folders, root, i)  # as a run case does, so the later draws are the same
                continue
            except KeyboardInterrupt:
                if STOP:
                    break  # ours: the user stopped the run (the interrupted case is not counted)
                raise
            except BaseException:  # noqa: BLE001 - a panic (pyo3's PanicException) or a traceback is the finding
                import traceback

                outcome = "panic" if type(sys.exc_info()[1]).__name__ == "PanicException" else "traceback"
                case, detail = dict(CURRENT), traceback.format_exc()[-2000:]
            finally:
                IN_CASE[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                folders.release()
            if STOP:
                break  # the core ends an interrupted run as an error of its own: that outcome is not the case's
            done = i + 1
            counts[f"{kind}: {outcome}"] += 1
            by_kind[kind] += 1
            # The cases that raise the process's peak memory by 64 MB or more, in LOG/peaks.jsonl, and the
            # last in counts.json: seed 3803 peaked at 3.9 GB and the counts could not say which case did it.
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            if rss >= peak + 65536:
                peak_case = {**case, "index": i, "outcome": outcome, "peak_rss_kb": rss}
                with open(a.log / "peaks.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps(peak_case) + "\n")
            peak = max(peak, rss)
            if outcome not in EXPECTED:
                case.update(index=i, outcome=outcome, detail=detail)
                anomalies.write(json.dumps(case) + "\n")
                anomalies.flush()
            rotate(folders, root, i)
            if (i + 1) % 1000 == 0:
                write_counts(a.log, done, t0, counts, by_kind, peak, peak_case, False)
    finally:
        # Ended or stopped: the counts as they stand, the logs closed, the temporary folders gone.
        IN_CASE[0] = False
        report = write_counts(a.log, done, t0, counts, by_kind, peak, peak_case, bool(STOP))
        anomalies.close()
        os.chdir(a.log)
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(report, indent=1), flush=True)
    if STOP:
        sys.exit(130)


if __name__ == "__main__":
    main()
