"""The stored htsim results (htsim_reference.json, made by run.py) and matrices, as plain dicts and lists.

Nothing here needs htsim. Run names are those of SCENARIOS; spec fabrics.md §3.1 lists the runs.

    import reference
    reference.ndp_in_out_flows()           # [{"src": 0, "dst": 124, "rate_at_0_2_gbps": ..., "samples_gbps": [[t, r], ...]}, ...]
    reference.ndp_failure("perm")          # {"flows": [...128...], "permutation": [[src, dst], ...], ...}
    reference.eqds("eqds_incast")          # {"flows": [{"name": ..., "fct_us": ...}, ...], "tail_fct_us": ..., "passes": ...}
    reference.read_matrix("incast.cm")     # {"nodes": 16, "connections": 15, "flows": [{"src": 1, "dst": 0, ...}, ...]}
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "htsim_reference.json")
MATRICES = os.path.join(HERE, "matrices")

NDP_SCENARIOS = ["ndp_in_out", "ndp_in_out_100g", "ndp_failure_perm", "ndp_failure_pull"]
EQDS_SCENARIOS = ["eqds_one", "eqds_bidir", "eqds_incast", "eqds_incast_128", "eqds_outcast_incast",
                  "eqds_perm_16n_paths128", "eqds_perm_16n_paths1", "eqds_perm_1024n_paths128", "eqds_perm_1024n_paths1"]
SCENARIOS = NDP_SCENARIOS + EQDS_SCENARIOS
#: Runs also stored at htsim seeds 1-10 (run.py --seed-sweep): their outputs are a draw of the seed.
SEED_SWEEPS = {"eqds_perm_16n_paths1": list(range(1, 11)), "eqds_perm_1024n_paths1": list(range(1, 11))}

_cache = {}


def load(path=REFERENCE):
    """The whole stored file."""
    if path not in _cache:
        with open(path, encoding="utf-8") as f:
            _cache[path] = json.load(f)
    return _cache[path]


def run(name):
    """One run's entry: command, htsim_commit, user_cpu_s, runs (every repeat's timings), outputs."""
    runs = load()["runs"]
    if name not in runs:
        raise KeyError(f"no stored htsim run {name!r}; stored: {', '.join(runs)}")
    return runs[name]


def seed_sweep(name):
    """{seed: {"tail_us", "median_us", "finished", "retransmissions"}} of a run of SEED_SWEEPS at htsim seeds 1-10 (int keys)."""
    sweeps = load().get("seed_sweeps", {})
    if name not in sweeps:
        raise KeyError(f"no stored htsim seed sweep {name!r}: run validation/htsim/run.py --seed-sweep")
    return {int(k): v for k, v in sweeps[name]["seeds"].items()}


def user_cpu_s(name):
    """The least user CPU time over the run's repeats, in seconds (one pinned core)."""
    return run(name)["user_cpu_s"]


def counts(name):
    """{"events", "packet_hops", "switch_pipe", "user_cpu_s"} from the counted build (build_counted.sh), or None."""
    return run(name).get("counted")


def cpu_per_packet_hop_ns(name):
    """The run's user CPU (uncounted build) per packet-hop of the counted build, in ns; None if not counted."""
    c = counts(name)
    return user_cpu_s(name) / c["packet_hops"] * 1e9 if c else None


def ndp_in_out_flows(link_gbps=10):
    """NDP Fig. 21: A's four flows (0 -> 124..127) then F -> E (2 -> 127), rates in Gb/s; the examples'
    10 Gb/s build, or with link_gbps=100 htsim as committed."""
    return run("ndp_in_out" if link_gbps == 10 else f"ndp_in_out_{link_gbps}g")["outputs"]["flows"]


def ndp_failure(strategy):
    """NDP Fig. 22 for strategy "perm" or "pull": 128 flows (src, dst, rate at 0.2 s and counts)."""
    return run(f"ndp_failure_{strategy}")["outputs"]


def ndp_permutation(strategy="perm"):
    """The permutation htsim drew (srand(13)): [(src, dst), ...] in the order it created the flows."""
    return [tuple(p) for p in ndp_failure(strategy)["permutation"]]


def eqds(name):
    """An EQDS run's outputs with its flows as dicts (name, src, dst, flow_id, fct_us, packets, rts, bytes)."""
    out = dict(run(name)["outputs"])
    columns = out.pop("flow_columns")
    out["flows"] = [dict(zip(columns, row)) for row in out["flows"]]
    return out


def eqds_fcts_us(name):
    """The FCTs of an EQDS run, in µs, ascending."""
    return sorted(row[4] for row in run(name)["outputs"]["flows"])


def read_matrix(name_or_path):
    """An htsim connection matrix: {"nodes", "connections", "flows": [{"src", "dst", "start", "size", "id"?}]}.

    `start` is as written in the file (htsim's parser reads it as picoseconds; all stored ones are 0)."""
    path = name_or_path if os.sep in name_or_path else os.path.join(MATRICES, name_or_path)
    nodes = connections = None
    flows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "Nodes":
                nodes = int(words[1])
            elif words[0] == "Connections":
                connections = int(words[1])
            elif "->" in words[0]:
                src, dst = words[0].split("->")
                flow = {"src": int(src), "dst": int(dst)}
                flow.update({k: int(v) for k, v in zip(words[1::2], words[2::2])})
                flows.append(flow)
    return {"nodes": nodes, "connections": connections, "flows": flows}
