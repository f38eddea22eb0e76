"""Parse what htsim's NDP and EQDS mains write, into plain dicts for htsim_reference.json.

NDP: the sink sampler (every 100 ms) writes records to the binary log named by -o: after a text
preamble (": NAME=ID" lines naming every logged object, "# TRACE" last) come 44-byte records
<double time s, uint32 type, uint32 id, uint32 event, double val1, val2, val3>; for the sink sampler
(type 18) val3 is payload bytes received since the last sample over the interval, in B/s. The mains
print per-queue counters (packets, headers, ACKs, NACKs, trims) of the paths they used, and the
permutation main prints per-source send counts.

EQDS: one line per completed flow, "Flow NAME flowId N NODE finished at T total packets P RTS R
total bytes B", T in µs, and a totals line "New: N Rtx: R RTS: S Bounced: B".
"""
import re
import statistics
import struct

NDP_SINK = 18
RECORD = struct.Struct("<dIIIddd")
MSS = 9000
WIRE = MSS + 64  # N1: a full NDP data packet on the wire
HEADER = 64
EQDS_FLOW_COLUMNS = ["name", "src", "dst", "flow_id", "fct_us", "packets", "rts", "bytes"]


def counts(stderr):
    """{"events", "packet_hops", "switch_pipe"} printed at exit by a build_counted.sh binary, or None."""
    m = re.search(r"^COUNTS events (\d+) packet_hops (\d+) switch_pipe (\d+)$", stderr, re.M)
    return {"events": int(m[1]), "packet_hops": int(m[2]), "switch_pipe": int(m[3])} if m else None


def read_log(path):
    """Returns ({id: name}, [(time, type, id, event, val1, val2, val3), ...]) of an htsim log."""
    with open(path, "rb") as f:
        data = f.read()
    names, pos = {}, 0
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode(errors="replace")
        pos = end + 1
        if line.startswith("# TRACE"):
            break
        if line.startswith(": ") and "=" in line:
            name, _, ident = line[2:].rpartition("=")
            names[int(ident)] = name
    records = [RECORD.unpack_from(data, p) for p in range(pos, len(data) - RECORD.size + 1, RECORD.size)]
    return names, records


def sink_rates(log_path):
    """{(src, dst): [(t s, Gb/s), ...]} from the NDP sink sampler, flows named ndp_sink_SRC_DST."""
    names, records = read_log(log_path)
    flows = {}
    for t, typ, ident, _ev, _v1, _v2, rate in records:
        if typ != NDP_SINK:
            continue
        m = re.match(r"ndp_sink_(\d+)_(\d+)", names[ident])
        flows.setdefault((int(m[1]), int(m[2])), []).append((round(t, 9), rate * 8 / 1e9))
    return flows


def source_order(log_path):
    """(src, dst) of every NDP source in the order the main created them (its logged names)."""
    names, _ = read_log(log_path)
    pairs = []
    for ident in sorted(names):
        m = re.fullmatch(r"ndp_(\d+)_(\d+)(\(\d+\))?", names[ident])
        if m:
            pairs.append((int(m[1]), int(m[2])))
    return pairs


def queue_counters(stdout):
    """Per switch queue printed after the run (once each, by name): departures by kind and trims."""
    pat = re.compile(r"^(\S+) id=(\d+) (\d+)pkts (\d+)hdrs (\d+)acks (\d+)nacks (\d+)stripped$")
    queues = {}
    for line in stdout.splitlines():
        m = pat.match(line.strip())
        if m:
            queues[m[1]] = {"id": int(m[2]), "data_packets": int(m[3]), "headers": int(m[4]), "acks": int(m[5]),
                            "nacks": int(m[6]), "trimmed": int(m[7])}
    return queues


def rate_at(samples, t):
    return next(r for ts, r in samples if abs(ts - t) < 1e-9)


def ndp_outputs(name, stdout, log_path, link_gbps=10.0):
    rates = sink_rates(log_path)
    flows = []
    for src, dst in source_order(log_path):
        samples = [(t, r) for t, r in rates[(src, dst)] if t > 0]
        flow = {"src": src, "dst": dst, "rate_at_0_2_gbps": rate_at(samples, 0.2)}
        if name.startswith("ndp_in_out"):
            flow["samples_gbps"] = [[t, r] for t, r in samples]
            flow["mean_0_1_to_0_2_gbps"] = statistics.fmean(r for t, r in samples if 0.1 < t <= 0.2 + 1e-9)
            # the run ends at 1.1 s, and a sample due exactly then is not taken: the last is at 1.0 s
            flow["mean_0_1_to_1_0_gbps"] = statistics.fmean(r for t, r in samples if 0.1 < t <= 1.0 + 1e-9)
        flows.append(flow)
    queues = queue_counters(stdout)
    out = {"flows": flows,
           # the mains' own "Hop i Count" lines count a queue once per path through it; this counts it once
           "trimmed_in_printed_queues": sum(q["trimmed"] for q in queues.values()),
           "printed_queues": len(queues)}
    if name.startswith("ndp_in_out"):
        out["queues"] = queues
        out.update(in_out_summary(flows, queues, link_gbps))
    else:
        # the slowed link shows in its queue's name, "compqueue(1000Mb/s,...)"; the other 600-odd queues
        # of the failure runs are left out of the stored file
        out["slow_queues"] = {q: c for q, c in queues.items() if q.startswith("compqueue(1000Mb/s")}
        out.update(failure_summary(flows, stdout))
    return out


def in_out_summary(flows, queues, link_gbps):
    """A = host 0's four flows, F = host 2 -> E = 127; busy fractions of A's uplink and E's downlink."""
    a_flows = [f for f in flows if f["src"] == 0]
    line_payload = link_gbps * MSS / WIRE  # Gb/s of payload a saturated link carries
    times = [t for t, _ in a_flows[0]["samples_gbps"]]
    a_busy = [sum(f["samples_gbps"][i][1] for f in a_flows) / line_payload for i in range(len(times))]
    # E's downlink is the last queue of every path to host 127; over the whole run it carried the full
    # packets and headers of A->E and F->E (both directions of the run's other traffic use other ports).
    e_down = {q: c for q, c in queues.items() if "->DST127(" in q}
    run_s = 1.1
    e_busy = {q: (c["data_packets"] * WIRE + (c["headers"] + c["acks"] + c["nacks"]) * HEADER) * 8 / (link_gbps * 1e9 * run_s)
              for q, c in e_down.items()}
    return {
        "a_uplink_busy_by_sample": [[t, b] for t, b in zip(times, a_busy)],
        "e_downlink_busy_whole_run": e_busy,
        "closed_form_gbps": {"a_each": line_payload / 4, "f_to_e": 3 * line_payload / 4},
    }


def failure_summary(flows, stdout):
    rates = sorted(f["rate_at_0_2_gbps"] for f in flows)
    sent = re.findall(r"^Src, sent: (\d+)\[new: (\d+) rtx: (\d+)\] nacks: (\d+) pulls: (\d+) paths: (\d+)", stdout, re.M)
    for flow, s in zip(flows, sent):
        flow.update(dict(zip(("sent", "new", "rtx", "nacks", "pulls", "paths"), map(int, s))))
    failed = re.findall(r"^Adding link failure for agg_sw (\d+) l (\d+) b (\d+)", stdout, re.M)
    return {
        "permutation": [[f["src"], f["dst"]] for f in flows],
        "failed_links": [dict(zip(("agg_switch", "l", "b"), map(int, x))) for x in failed],
        "rate_summary_gbps": {"mean": statistics.fmean(rates), "min": rates[0], "p10": rates[len(rates) // 10],
                              "median": statistics.median(rates), "max": rates[-1]},
        "sources_with_counts": len(sent),
    }


def eqds_outputs(stdout, tail_target_us, flow_targets_us, n_connections):
    pat = re.compile(r"^Flow (\S+) flowId (\d+) .*? finished at ([0-9.eE+-]+) total packets (\d+) RTS (\d+) total bytes (\d+)")
    flows = []  # rows of EQDS_FLOW_COLUMNS, in the order htsim finished them
    for line in stdout.splitlines():
        m = pat.match(line)
        if m:
            src, dst = (int(x) for x in re.fullmatch(r"Eqds_(\d+)_(\d+)", m[1]).groups())
            flows.append([m[1], src, dst, int(m[2]), float(m[3]), int(m[4]), int(m[5]), int(m[6])])
    fcts = sorted(f[4] for f in flows)
    totals = re.search(r"^New: (\d+) Rtx: (\d+) RTS: (\d+) Bounced: (\d+)", stdout, re.M)
    tail = fcts[-1] if fcts else None
    checks = {"tail": tail is not None and tail <= tail_target_us, "all_flows_finished": len(flows) == n_connections}
    for flow_name, target in flow_targets_us.items():
        fct = next((f[4] for f in flows if f[0] == flow_name), None)
        checks[f"flow {flow_name}"] = fct is not None and fct <= target
    return {
        "flow_columns": EQDS_FLOW_COLUMNS,
        "flows": flows,
        "finished": len(flows),
        "connections": n_connections,
        "tail_fct_us": tail,
        "median_fct_us": statistics.median(fcts) if fcts else None,
        "min_fct_us": fcts[0] if fcts else None,
        "totals": dict(zip(("new", "rtx", "rts", "bounced"), map(int, totals.groups()))) if totals else None,
        "checks": checks,
        "passes": all(checks.values()),
    }
