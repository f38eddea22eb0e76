"""The ns-2 side of the Fall & Floyd forced-drop suite (forced_drops.py runs it): the Tcl of a
case of ns-2.35's test-suite-tcpVariants.tcl (topology net4), rebuilt from its parameters, run in
the installed `ns` (Debian's ns2 2.35), and its packet, event and cwnd traces read back as a `Trace`.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from forced_drops_cases import DURATION, PROFILES, START, Profile, Trace, Variant

# ns-2 event-trace names of a fast retransmission, by agent (tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc).
NS_FAST_RETX = {"FAST_RETX", "RENO_FAST_RETX", "NEWRENO_FAST_RETX", "FAST_RECOVERY"}

NS_TCL = """\
# Written by validation/ns2/forced_drops.py: the test {test} of ns-2's
# test-suite-tcpVariants.tcl (topology net4), rebuilt from its parameters.
remove-all-packet-headers
add-packet-header Flags IP TCP
Agent/TCP set precisionReduce_ false
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set updated_rttvar_ false
Agent/TCP set minrto_ 1
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
Agent/TCP set singledup_ 0
Trace set show_tcphdr_ 1
{extra}
set ns [new Simulator]
set trf [open all.tr w]
$ns trace-all $trf
set evf [open events.tr w]
$ns eventtrace-all $evf

# net4
set s1 [$ns node]
set s2 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb 0ms DropTail
$ns duplex-link $s2 $r1 8Mb 0ms DropTail
$ns duplex-link $r1 $k1 800Kb 100ms DropTail
$ns queue-limit $r1 $k1 8
$ns queue-limit $k1 $r1 8
set lossy [$ns link $r1 $k1]
set em [new ErrorModule Fid]
set periodic [new ErrorModel/Periodic]
$periodic unit pkt
$lossy errormodule $em

set tcp [$ns create-connection {agent} $s1 {sink} $k1 1]
$tcp set window_ 28
set ftp [$tcp attach-app FTP]
$ns at {start} "$ftp start"

set cwf [open cwnd.tr w]
$tcp attach $cwf
$tcp trace cwnd_
$tcp trace ssthresh_

set dl [new ErrorModel/List]
$dl droplist {{{drops}}}
$em insert $dl
$em bind $dl 1

proc finish {{}} {{
    global ns trf evf cwf
    $ns halt
    close $trf
    close $evf
    close $cwf
    exit 0
}}
$ns at {stop} "finish"
$ns run
"""


def ns2_tcl(v: Variant, drops: list, profile: Profile = PROFILES["suite"]) -> str:
    return NS_TCL.format(test=f"{v.name} {drops}", extra=profile.ns_tcl + v.ns_extra, agent=v.ns_agent,
                         sink=v.ns_sink,
                         start=START, stop=START + DURATION, drops=" ".join(map(str, drops)))


def ns2_binary() -> str | None:
    return shutil.which("ns")


def run_ns2(v: Variant, drops: list, workdir: str, profile: Profile = PROFILES["suite"]) -> Trace:
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, "test.tcl"), "w", encoding="utf-8") as f:
        f.write(ns2_tcl(v, drops, profile))
    p = subprocess.run([ns2_binary(), "test.tcl"], cwd=workdir, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"ns failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return parse_ns2(workdir, profile.first_data)


def parse_ns2(workdir: str, first_data: int = 1) -> Trace:
    tr = Trace()
    top = -1
    with open(os.path.join(workdir, "all.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) < 12:
                continue
            ev, t, a, b, kind, seq = w[0], float(w[1]) - START, w[2], w[3], w[4], int(w[10])
            # nodes: s1 = 0, s2 = 1, r1 = 2, k1 = 3
            if ev == "+" and (a, b) == ("0", "2") and kind == "tcp" and seq >= first_data:
                tr.sends.append((t, seq, seq <= top))
                top = max(top, seq)
            elif ev == "d" and kind == "tcp":
                tr.drops.append((t, seq))
            elif ev == "r" and (a, b) == ("2", "0") and kind == "ack":
                tr.acks.append((t, seq))
    with open(os.path.join(workdir, "events.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[0] == "E":
                if w[5] in NS_FAST_RETX:
                    tr.fast_retransmits.append(float(w[1]) - START)
                elif w[5] == "TIMEOUT":
                    tr.timeouts.append(float(w[1]) - START)
    with open(os.path.join(workdir, "cwnd.tr"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) >= 7 and w[5] == "cwnd_":
                tr.cwnd.append((float(w[0]) - START, float(w[6])))
    return tr


def ns2_version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    return "ns-2 " + (out or "unknown")
