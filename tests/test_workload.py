"""`[workload]`: htsim's connection matrices and the generated patterns, from the CLI and the Python
API (docs/fabrics.md, "Traffic matrices"): a matrix gives the same run as its flows written out,
every bad matrix is one line naming the file and its line before any run, a relative path is
found beside the scenario file, and the run cache sees an edited matrix."""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim.runner import Job

ROOT = Path(__file__).resolve().parents[1]
MATRICES = ROOT / "validation/htsim/matrices"


def _summary(result) -> dict:
    s = dict(result.summary)
    s.pop("wall_s")
    return s


@pytest.mark.parametrize("scenario, matrix", [("eqds-one", "one.cm"), ("eqds-incast", "incast.cm"),
                                              ("eqds-incast-128", "incast_128.cm")])
def test_a_matrix_runs_as_its_flows_written_out(scenario, matrix):
    # The built-ins are these matrices written out inline: the same flows, names and order.
    inline = atmsim.run(scenario)
    loaded = atmsim.run(scenario, set=[f"workload.matrix={MATRICES / matrix}"])
    assert _summary(loaded) == _summary(inline)


def test_the_cli_run_with_a_matrix_is_identical(cli, tmp_path):
    out = {}
    for name, sets in (("inline", []), ("matrix", ["--set", "workload.matrix=validation/htsim/matrices/incast.cm"])):
        p = subprocess.run([sys.executable, "-m", "atmsim", "run", "eqds-incast", *sets, "--json"], cwd=ROOT,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        out[name] = json.loads(p.stdout)
        out[name].pop("wall_s")
    assert out["matrix"] == out["inline"]


def test_every_reference_matrix_loads():
    # The 1,024-host permutation needs the k = 16 tree (1,024 hosts); the others fit k = 8.
    for cm in sorted(MATRICES.glob("*.cm")):
        nodes = int(cm.read_text().split()[1])
        k = 16 if nodes > 128 else 8
        sets = [f"workload.matrix={cm}", f"topology.k={k}", "report.bottleneck=h0->tor0"]
        text = atmsim.resolve("eqds-one", sets)
        assert "matrix" in text
        facts = atmsim.model_facts("eqds-one", sets)
        assert facts["network"] == "packet"


HEAD = "Nodes 16\nConnections 2\n"
BAD = [
    (HEAD + "0->1 start 0 size 5\n1->16 start 0 size 5\n", 4, "node 16 is beyond Nodes 16"),
    (HEAD + "0->1 start 0 size 5\n3->3 start 0 size 5\n", 4, "sends to itself"),
    (HEAD + "0->1 start 0 size 5\n1->2 start 0 size 0\n", 4, "size 0"),
    (HEAD + "0->1 start 0 size 5\n1->2 start 0 size 99999999999999999999\n", 4, "too large"),
    (HEAD + "0->1 id 3 start 0 size 5\n1->2 id 3 start 0 size 5\n", 4, "id 3 is given twice"),
    (HEAD + "0->1 start 0 size 5\n", 2, "Connections says 2, but the file has 1"),
    (HEAD + "0->1 id 1 start 0 size 5\n1->2 id 2 trigger 7 size 5\n", 4, "trigger 7 is not defined"),
    ("Nodes 16\nConnections 2\nTriggers 2\n0->1 id 1 trigger 2 size 5 send_done_trigger 1\n"
     "1->2 id 2 trigger 1 size 5 send_done_trigger 2\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n", 4, "a cycle"),
    ("Nodes 16\nConnections 1\nFailures 1\n0->1 start 0 size 5\nfailure switch_type TOR switch_id 0 link_id 1\n", 5,
     "cannot fail a fat tree's link"),
    ("Nodes 16\nConnections 1\n0->1 start 0 size 5 prio 2\n", 3, "not modelled"),
    ("Nodes 128\nConnections 1\n0->1 start 0 size 5\n", 1, "the scenario's fat tree has 16 hosts"),
    ("Nodes 16\nConnections 1\n0->1 start 0\n", 3, "no size"),
    ("Nodes 16\nConnections 1\n0->1 start 0 size 5 extra\n", 3, "needs a value"),
]


@pytest.mark.parametrize("text, line, words", BAD, ids=[w for _, _, w in BAD])
def test_a_bad_matrix_is_one_line_naming_file_and_line_from_api_and_cli(tmp_path, cli, text, line, words):
    path = tmp_path / "bad.cm"
    path.write_text(text)
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.run("eqds-one", set=[f"workload.matrix={path}"])
    message = str(e.value)
    assert "\n" not in message and f"'{path}' line {line}: " in message and words in message, message
    assert message.startswith("workload.matrix: ")
    p = cli("run", "eqds-one", "--set", f"workload.matrix={path}", "--out", str(tmp_path / "o"))
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [f"atmsim: {message}"] or (
        len(p.stderr.strip().splitlines()) == 1 and f"line {line}: " in p.stderr and words in p.stderr), p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "o").exists()


@pytest.mark.parametrize("setup, key, words", [
    (lambda d: str(d / "absent.cm"), "workload.matrix", "no such file"),
    (lambda d: str(d), "workload.matrix", "is a folder"),
    (lambda d: str(d / "bin.cm") if (d / "bin.cm").write_bytes(b"Nodes \xff\xfe\n") else "", "workload.matrix",
     "is not text"),
])
def test_an_unreadable_matrix_file_is_one_line(tmp_path, cli, setup, key, words):
    path = setup(tmp_path)
    p = cli("run", "eqds-one", "--set", f"workload.matrix={path}", "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert key in p.stderr and words in p.stderr and path in p.stderr


def test_a_matrix_needs_a_fat_tree(cli, tmp_path):
    p = cli("run", "aron97-topo1-packet", "--set", f"workload.matrix={MATRICES / 'one.cm'}", "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "needs a generated topology" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_a_relative_matrix_is_found_beside_its_scenario_file_and_set_paths_beside_the_working_folder(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "two.cm").write_text("Nodes 16\nConnections 2\n0->13 start 0 size 100000\n13->0 start 0 size 100000\n")
    # The workload replaces the flows, so the file writes it instead of them (both are refused: rule 1).
    scenario = atmsim.load_scenario("eqds-one").split("[[flow]]")[0] + '[workload]\nmatrix = "two.cm"\nkind = "eqds"\n'
    (folder / "s.toml").write_text(scenario)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = subprocess.run([sys.executable, "-m", "atmsim", "run", str(folder / "s.toml"), "--json"], cwd=elsewhere,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert [f["name"] for f in json.loads(p.stdout)["flows"]] == ["Eqds_0_13", "Eqds_13_0"]
    # --set is relative to the working folder: there is no two.cm in `elsewhere`.
    p = subprocess.run([sys.executable, "-m", "atmsim", "run", "eqds-one", "--set", "workload.matrix=two.cm"],
                       cwd=elsewhere, capture_output=True, text=True)
    assert p.returncode == 2 and "'two.cm': no such file" in p.stderr, p.stderr
    p = subprocess.run([sys.executable, "-m", "atmsim", "run", "eqds-one", "--set", "workload.matrix=two.cm", "--json"],
                       cwd=folder, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_editing_a_matrix_changes_the_cache_key(tmp_path):
    path = tmp_path / "m.cm"
    path.write_text("Nodes 16\nConnections 1\n0->13 start 0 size 100000\n")
    job = Job(atmsim.load_scenario("eqds-one"), (f"workload.matrix={path}",))
    before = job.key()
    assert job.key() == before
    path.write_text("Nodes 16\nConnections 1\n0->13 start 0 size 100001\n")
    assert job.key() != before
    # A scenario without a matrix keeps its key (resolved text, seed and core only).
    plain = Job(atmsim.load_scenario("eqds-one"))
    assert plain.key() == Job(atmsim.load_scenario("eqds-one")).key()
    from atmsim.workload import matrix_digest

    assert "matrix" not in atmsim.resolve("eqds-one", []) and matrix_digest(atmsim.resolve("eqds-one", [])) is None
    assert "matrix" in atmsim.resolve("boston97", []) and matrix_digest(atmsim.resolve("boston97", [])) is None
    named = atmsim.resolve("eqds-one", [f"workload.matrix={path}"])
    assert matrix_digest(named) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_generated_patterns_and_their_jobs():
    # NDP: EQDS flows smaller than their speculative window stall in this run (docs/fabrics.md, "Generators").
    r = atmsim.run("eqds-one", set=["workload.pattern=ring_allreduce", "workload.group=4", "workload.bucket=400000",
                                    "workload.kind=ndp"])
    jobs = r.summary["jobs"]
    assert [j["name"] for j in jobs] == [f"allreduce{i}" for i in range(4)]
    for j in jobs:
        t = j["completion_time_s"]
        assert j["flows"] == 24 and j["ranks"] == 4 and t > 0
        assert j["algbw_bytes_per_s"] == pytest.approx(400000 / t)
        assert j["busbw_bytes_per_s"] == pytest.approx(j["algbw_bytes_per_s"] * 2 * 3 / 4)
    # A step waits for the previous one to arrive: a job takes longer than 6 steps' transmission of 100 KB.
    assert min(j["completion_time_s"] for j in jobs) > 6 * 100_000 * 8 / 100e9
    # The same pattern without the key of another pattern; a key the pattern does not read is refused.
    assert r.summary["accounting"]["balanced"] and all(f["completion_time_s"] for f in r.summary["flows"])
    with pytest.raises(atmsim.ScenarioError, match=r"^workload.senders: does nothing here"):
        atmsim.resolve("eqds-one", ["workload.pattern=ring_allreduce", "workload.senders=3"])
    # incast.cm is the incast pattern of 15 senders to host 15: the same flows, the same results.
    incast = atmsim.run("eqds-one", set=["workload.pattern=incast", "workload.senders=15", "workload.receiver=15",
                                         "duration=3ms"])
    assert incast.summary["flows"] == atmsim.run("eqds-incast").summary["flows"]
