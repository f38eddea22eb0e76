"""Python API and the process-pool runner: determinism for any worker count, cache and resume."""
import numpy as np
import pytest

import atmsim
from atmsim import _core
from atmsim.runner import Job, run_jobs


def test_api_tables_and_traces():
    r = atmsim.run("aron97-topo1-atm", set=["duration=1s"], seed=2, trace=True)
    assert r.accounting["balanced"]
    assert list(r.flows["name"]) == [f"f{i}" for i in range(1, 9)]
    assert "R1->R2" in set(r.ports["name"])
    cwnd = r.trace_array("window", "cwnd")
    assert isinstance(cwnd, np.ndarray) and len(cwnd) > 100
    assert set(r.traces["events"]["kind"]) >= {"send", "tick"}
    assert r.to_arrow().num_rows == 8


def _strip(s):
    s = dict(s)
    s.pop("wall_s")
    return s


def test_same_results_for_any_worker_count(tmp_path):
    text = atmsim.load_scenario("aron97-topo1-atm")
    jobs = [Job(text, ("duration=1s", f"switch.buffer={k * 9168}B"), seed) for k in (3, 21) for seed in (1, 2)]
    one = [_strip(s) for s in run_jobs(jobs, workers=1, progress=False)]
    two = [_strip(s) for s in run_jobs(jobs, workers=2, progress=False)]
    assert one == two
    assert one[0] != one[1], "seeds differ"
    # The cache returns the stored results on a second pass.
    cached = [_strip(s) for s in run_jobs(jobs, workers=2, progress=False, cache_dir=tmp_path)]
    again = [_strip(s) for s in run_jobs(jobs, workers=2, progress=False, cache_dir=tmp_path)]
    assert cached == one == again
    assert len(list(tmp_path.glob("*.json"))) == 4


def test_same_seed_same_summary():
    a = atmsim.run("aron97-topo2-atm", set=["duration=1s", "switch.buffer=82512B"], seed=3).summary
    b = atmsim.run("aron97-topo2-atm", set=["duration=1s", "switch.buffer=82512B"], seed=3).summary
    assert _strip(a) == _strip(b)


def test_bad_seed_is_a_scenario_error():
    with pytest.raises(atmsim.ScenarioError, match="^seed: "):
        atmsim.run("aron97-topo1-packet", seed=-1)
    with pytest.raises(atmsim.ScenarioError, match="^scenario: "):
        atmsim.load_scenario("no-such-built-in")


def test_interrupted_sweep_resumes_from_the_cache(tmp_path, monkeypatch):
    from atmsim import runner

    text = atmsim.load_scenario("aron97-topo1-packet")
    jobs = [Job(text, ("duration=500ms",), seed) for seed in (1, 2, 3)]
    first = run_jobs(jobs, workers=1, progress=False, cache_dir=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert [f.stem for f in files] == sorted(j.key() for j in jobs)
    files[0].unlink()  # as if the sweep had stopped before this run
    calls = []
    real = runner._run_one
    monkeypatch.setattr(runner, "_run_one", lambda job: calls.append(job) or real(job))
    again = run_jobs(jobs, workers=1, progress=False, cache_dir=tmp_path)
    assert len(calls) == 1 and calls[0].key() == files[0].stem
    assert [_strip(s) for s in again] == [_strip(s) for s in first]


def test_cache_key_is_the_resolved_scenario_seed_and_core_build():
    import hashlib

    from atmsim import _core
    from atmsim.runner import core_fingerprint

    text = atmsim.load_scenario("aron97-topo1-atm")
    job = Job(text, ("switch.buffer=96KB",), 7)
    resolved = _core.resolve(text, ["switch.buffer=96KB"])
    assert job.key() == hashlib.sha256(f"{resolved}\n#seed=7\n#core={core_fingerprint()}\n".encode()).hexdigest()
    assert job.key() != Job(text, ("switch.buffer=96KB",), 8).key()


def test_output_folder_leaves_nothing_on_failure(tmp_path):
    # (The whole contract is in test_outdir.py.)
    from atmsim.outdir import OutDir

    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with OutDir(target) as o, o.stage() as d:
            (d / "half.csv").write_text("x", encoding="utf-8")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_model_facts_are_the_cores():
    f = atmsim.model_facts("aron97-topo1-atm", ["duration=1s"])
    s = atmsim.run("aron97-topo1-atm", ["duration=1s"]).summary
    assert f["u_max_bytes"] == s["u_max_bytes"] and f["bottleneck"] == s["bottleneck"]
    assert (f["segment_ip_bytes"], f["segment_cells"], f["segment_wire_bytes"]) == (9168, 191, 191 * 53)
    assert f["ports"]["R1->R2"]["rate_bits"] * 10**12 / f["ports"]["R1->R2"]["rate_ps"] == f["ports"]["R1->R2"]["rate_bps"]
    assert _core.aal5_cells(9180, "aal5-llc") == 192 and _core.aal5_cells(9168, "raw48") == 191
    assert _core.aal5_cells(9168, "aal5-vcmux") == 192 and _core.aal5_cells(40, "raw48") == 1
    with pytest.raises(atmsim.ScenarioError, match="^encapsulation: "):
        _core.aal5_cells(100, "aal7")


def test_one_worker_pool_serves_every_call():
    # `reproduce all` and sweeps call run_jobs once per paper or batch: the
    # spawned workers are started once per process, not once per call.
    from atmsim import runner

    text = atmsim.load_scenario("aron97-topo1-packet")
    jobs = [Job(text, ("duration=200ms",), seed) for seed in (1, 2)]
    first = [_strip(s) for s in run_jobs(jobs, workers=2, progress=False)]
    pool = runner._POOL
    second = [_strip(s) for s in run_jobs(jobs, workers=2, progress=False)]
    assert pool is not None and runner._POOL is pool
    assert first == second
    runner.shutdown_pool()
    assert runner._POOL is None


def _console_script_entry():
    """The `atmsim` console script's entry point, as installed (module, attribute)."""
    from importlib.metadata import entry_points

    try:
        eps = entry_points(group="console_scripts", name="atmsim")
    except TypeError:  # Python 3.9
        eps = [e for e in entry_points().get("console_scripts", ()) if e.name == "atmsim"]
    (ep,) = eps
    return ep.module, ep.attr


def test_spawned_workers_import_only_the_core(tmp_path):
    # A spawned worker re-imports the parent's main script as __mp_main__; the
    # parent here is a copy of the `atmsim` console script (its one import line,
    # as pip writes it), so whatever that line imports, every worker imports too.
    import subprocess
    import sys

    module, attr = _console_script_entry()
    script = tmp_path / "atmsim"
    script.write_text(
        "import json\nimport sys\n"
        f"from {module} import {attr}\n"
        "\n\n"
        "def heavy_modules():\n"
        "    import time\n"
        "    time.sleep(0.2)  # one probe per worker\n"
        "    return sorted(m for m in ('click', 'rich', 'pandas', 'matplotlib') if m in sys.modules)\n"
        "\n\n"
        "if __name__ == '__main__':\n"
        "    from atmsim import load_scenario, runner\n"
        "    text = load_scenario('aron97-topo1-packet')\n"
        "    jobs = [runner.Job(text, ('duration=100ms',), seed) for seed in (1, 2)]\n"
        "    assert len(runner.run_jobs(jobs, workers=2, progress=False)) == 2\n"
        "    pool = runner._pool(2)  # the pool that ran the jobs\n"
        "    print(json.dumps([f.result() for f in [pool.submit(heavy_modules) for _ in range(2)]]))\n"
    )
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    import json

    assert json.loads(p.stdout) == [[], []], f"workers of `atmsim` ({module}:{attr}) import {p.stdout.strip()}"


def test_python_dash_m_atmsim():
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "atmsim", "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and "atmsim" in p.stdout and _core.version() in p.stdout, p.stderr


def test_the_api_takes_toml_text_and_one_override_string():
    # atmsim.run(text) echoed the whole text as a path; Job(text, "k=v") made an override of each character.
    text = atmsim.load_scenario("aron97-topo1-packet")
    assert atmsim.run(text, "duration=0.1s").summary["duration_s"] == 0.1
    assert Job(text, "duration=1s").overrides == ("duration=1s",)
    assert Job(text, ["a=1", "b=2"]).overrides == ("a=1", "b=2")
    with pytest.raises(atmsim.ScenarioError, match=r"^scenario: '<text>' is not valid TOML at end of document: "):
        atmsim.run('name = "x"\nnetwork = "atm')


def test_trace_array_says_what_is_missing():
    r = atmsim.run("aron97-topo1-packet", ["duration=0.1s"])
    with pytest.raises(ValueError, match=r"^this run recorded no traces: run it with trace=True$"):
        r.trace_array("window", "cwnd")
    r = atmsim.run("aron97-topo1-packet", ["duration=0.1s"], trace=True)
    assert len(r.trace_array("window", "cwnd")) > 0
    with pytest.raises(ValueError, match=r"^no trace 'windw' \(traces: "):
        r.trace_array("windw", "cwnd")
    with pytest.raises(ValueError, match=r"^trace 'window' has no column 'cwin' \(columns: t, "):
        r.trace_array("window", "cwin")


def test_an_invalid_scenario_in_a_worker_reaches_the_caller_as_its_one_line():
    # The core's exception used to be named `_core.PyScenarioError`, which pickle cannot find, so a
    # worker's invalid scenario surfaced as "PicklingError" (found by issue 38's rule-2 sweep).
    import pickle

    e = pickle.loads(pickle.dumps(atmsim.ScenarioError("tcp.mss: problem")))
    assert type(e) is atmsim.ScenarioError and str(e) == "tcp.mss: problem"
    text = atmsim.load_scenario("aron97-topo1-atm")
    jobs = [Job(text, ("duration=1s",), 1), Job(text, ("duration=1s", "tcp.mss=0B"), 1)]
    with pytest.raises(atmsim.ScenarioError) as raised:
        run_jobs(jobs, workers=2, progress=False)
    assert str(raised.value).startswith("tcp.mss") and "\n" not in str(raised.value)
