"""Writes the built-in EQDS scenarios of validate.txt's bidir, outcast-incast and permutation runs
(python/atmsim/scenarios/eqds-*.toml) from the stored connection matrices, one flow a line in the
matrix's order, so that no flow list is typed by hand; tests/test_eqds_scenarios.py checks that every
EQDS built-in's flows are its matrix's and that these six files are what this script writes.

    python validation/htsim/eqds_scenarios.py           # rewrite the six files
    python validation/htsim/eqds_scenarios.py --check   # exit 1 if any differs

htsim's main_eqds.cpp builds the fat tree from the matrix's node count (FatTreeTopology::set_params:
the k whose k^3/4 hosts are exactly them: 16 -> 4, 128 -> 8, 1024 -> 16; our topology.k default, the
smallest even k that holds them, is the same for these, written out here) and `-paths N` sets the number of entropies a sender cycles through
(eqds.paths; 1 pins each flow to the one path the switches' hashes give its single entropy).
"""
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import reference  # noqa: E402

from atmsim.one_line_args import OneLineParser  # noqa: E402

SCENARIOS_DIR = os.path.join(HERE, "..", "..", "python", "atmsim", "scenarios")

# name: (matrix, -end in µs, -paths or None, description, what the run checks)
RUNS = {
    "eqds-bidir": ("bidir.cm", 1000, None, "EQDS, one flow each way between h0 and h13 on htsim's 16-host fat tree (validate.txt bidir.cm)",
                   "Hosts h0 and h13 send 2,000,000 B to each other; each flow's FCT >= 162.5 us plus the path, as eqds-one's."),
    "eqds-outcast-incast": ("outcast_incast.cm", 3000, None,
                            "EQDS, a 3-to-1 incast on h0 whose senders h2 and h3 also send 9 flows each (validate.txt outcast_incast.cm)",
                            "Hosts h1, h2 and h3 send to h0 while h2 and h3 each send to 9 more hosts: Eqds_1_0 is its "
                            "sender's only flow (htsim: 210.0 us); the other 20 share their sender's NIC 10 ways (htsim: 1,637.9 us)."),
    "eqds-perm-16": ("perm_16n_16c_2MB.cm", 1000, 128, "EQDS, a 16-host permutation on htsim's k = 4 fat tree over 128 entropies (validate.txt perm_16n_16c_2MB.cm -paths 128)",
                     "Every host sends to one and receives from one; FCT >= 162.5 us plus the path."),
    "eqds-perm-16-1path": ("perm_16n_16c_2MB.cm", 2000, 1, "EQDS, a 16-host permutation on htsim's k = 4 fat tree with one entropy per flow (validate.txt perm_16n_16c_2MB.cm -paths 1)",
                           "One entropy pins each flow to one hashed path, so flows collide on links."),
    "eqds-perm-1024": ("perm_1024n_1024c_0u_2000000b.cm", 2000, 128,
                       "EQDS, a 1,024-host permutation on htsim's k = 16 fat tree over 128 entropies (validate.txt perm_1024n_1024c_0u_2000000b.cm -paths 128)",
                       "Every host sends to one and receives from one; FCT >= 162.5 us plus the path."),
    "eqds-perm-1024-1path": ("perm_1024n_1024c_0u_2000000b.cm", 3000, 1,
                             "EQDS, a 1,024-host permutation on htsim's k = 16 fat tree with one entropy per flow (validate.txt perm_1024n_1024c_0u_2000000b.cm -paths 1)",
                             "One entropy pins each flow to one hashed path, so flows collide on links."),
}


def fat_tree_k(nodes):
    """htsim's k for a node count (FatTreeTopology::set_params, 3 tiers): k = 1, 2, ... until
    k^3/4 >= nodes, and a count it does not hit exactly is refused."""
    k = 1
    while k ** 3 // 4 < nodes:
        k += 1
    if k ** 3 // 4 != nodes:
        raise ValueError(f"htsim builds no 3-tier fat tree of {nodes} hosts")
    return k


def tor_of(host, k):
    return host // (k // 2)


def render(name):
    matrix, end_us, paths, description, what = RUNS[name]
    m = reference.read_matrix(matrix)
    k = fat_tree_k(m["nodes"])
    first_dst = m["flows"][0]["dst"]
    params = f"-end {end_us}" + (f" -paths {paths}" if paths else "")
    about = (f"EQDS (Olteanu et al., NSDI 2022) as htsim runs it: sim/datacenter/validate.txt's {matrix} ({params}) "
             f"at commit 841d9e7 (docs/fabrics.md, EQDS) on the {m['nodes']}-host k = {k} tree: a 3-tier fat tree at "
             "100 Gb/s, 1 us per hop, 35-packet trimming queues; hosts hN are htsim's node N; every flow is "
             f"2,000,000 B from 0 (connection matrix validation/htsim/matrices/{matrix}). {what} "
             "Written by validation/htsim/eqds_scenarios.py: edit that, not this file.")
    lines = ["# " + line for line in textwrap.wrap(about, 97)]
    lines += [
        f'name = "{name}"',
        f'description = "{description}"',
        'network = "packet"',
        f'duration = "{end_us // 1000}ms"' if end_us % 1000 == 0 else f'duration = "{end_us}us"',
        "seed = 13",
        "",
        "# One flow a line (the matrix's order).",
        "flow = [",
    ]
    for f in m["flows"]:
        assert f.get("start", 0) == 0, "every validate.txt flow starts at 0"
        lines.append(f'    {{ name = "Eqds_{f["src"]}_{f["dst"]}", kind = "eqds", src = "h{f["src"]}", dst = "h{f["dst"]}", '
                     f'bytes = "{f["size"]}B" }},')
    lines += ["]", ""]
    if paths:
        lines += ["[eqds]", f"# -paths {paths}: the entropies each sender cycles through (E10).", f"paths = {paths}", ""]
    lines += [
        "[router]", 'policy = "trim"', "",
        "[switch]", "# htsim's 35-packet queues of 4,150-B packets (E7).", 'buffer = "145250B"', "",
        "[topology]", 'kind = "fattree"', f"k = {k}", 'rate = "100Gbps"', 'delay = "1us"', "",
        "[report]", "# The first flow's receiving downlink.", f'bottleneck = "tor{tor_of(first_dst, k)}->h{first_dst}"',
    ]
    return "\n".join(lines) + "\n"


def path_of(name):
    return os.path.normpath(os.path.join(SCENARIOS_DIR, f"{name}.toml"))


def main(argv):
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if any file differs")
    check = ap.parse_args(argv).check
    stale = []
    for name in RUNS:
        text = render(name)
        path = path_of(name)
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            stale.append(name)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    if check and stale:
        print(f"stale: {', '.join(stale)} (run python validation/htsim/eqds_scenarios.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
