#!/bin/sh
# Counted copies of the build.sh binaries: the same sources plus three counters, printed to stderr at
# exit as "COUNTS events E packet_hops H switch_pipe S". E counts the events the main loop runs
# (EventList's doNextEvent, triggers included); H counts packets handed to a link, a plain Pipe
# (Pipe::receivePacket), i.e. packet-hops; S counts packets through the switch-latency pipes
# (CallbackPipe, a Pipe subclass inside each FatTreeSwitch of the EQDS topology; 0 µs in every
# reference run), which are not links. Nothing else changes, and run.py --count checks the outputs
# are the same.
#
#   validation/htsim/build_counted.sh [OUT]     (OUT as given to build.sh, default /tmp/htsim-build)
#
# Makes OUT/counted-stock, OUT/counted-ndp10g and OUT/counted-bin.
set -eu
out=${1:-/tmp/htsim-build}
if [ ! -x "$out/bin/htsim_eqds" ] || [ ! -x "$out/bin/htsim_ndp_in_out" ]; then
    echo "error: run validation/htsim/build.sh first ($out/bin has no binaries)" >&2
    exit 2
fi
make_j1() { nice -n 10 make -j1 "$@"; }

count_patch() {  # $1: a sim/ tree; edits its eventlist.cpp and pipe.cpp
    ev="$1/eventlist.cpp"
    pipe="$1/pipe.cpp"
    {
        echo '#include <cstdio>'
        echo 'unsigned long long counted_events = 0, counted_packet_hops = 0;'
        echo 'unsigned long long counted_switch_pipe = 0;'
        printf '%s\n' 'static struct CountReport { ~CountReport() { fprintf(stderr, "COUNTS events %llu packet_hops %llu switch_pipe %llu\n", counted_events, counted_packet_hops, counted_switch_pipe); } } count_report;'
        cat "$ev"
    } > "$ev.new"
    mv "$ev.new" "$ev"
    sed -i 's/^\( *\)target->activate();/\1counted_events++; target->activate();/' "$ev"
    sed -i 's/^\( *\)nextsource->doNextEvent();/\1counted_events++; nextsource->doNextEvent();/' "$ev"
    sed -i '1i #include <typeinfo>' "$pipe"
    sed -i '/^Pipe::receivePacket(Packet& pkt)/{n;s/^{/{ extern unsigned long long counted_packet_hops, counted_switch_pipe; if (typeid(*this) == typeid(Pipe)) counted_packet_hops++; else counted_switch_pipe++;/}' "$pipe"
    [ "$(grep -c 'counted_events++' "$ev")" = 2 ] && grep -q 'counted_packet_hops++' "$pipe" || {
        echo "error: the counting patch did not apply to $1" >&2
        exit 1
    }
}

mkdir -p "$out/counted-bin"
for tree in stock ndp10g; do
    rm -rf "$out/counted-$tree"
    cp -a "$out/$tree" "$out/counted-$tree"
    count_patch "$out/counted-$tree/sim"
    make_j1 -C "$out/counted-$tree/sim" libhtsim.a
done
old_cflags="-Wall -std=c++11 -g -Wsign-compare -O2 -Wl,--allow-multiple-definition"
make_j1 -C "$out/counted-stock/sim/datacenter" htsim_eqds
make_j1 -C "$out/counted-stock/sim/datacenter/old_tests" CFLAGS="$old_cflags" htsim_ndp_in_out
cp "$out/counted-stock/sim/datacenter/htsim_eqds" "$out/counted-bin/"
cp "$out/counted-stock/sim/datacenter/old_tests/htsim_ndp_in_out" "$out/counted-bin/htsim_ndp_in_out_100g"
dc_objs="firstfit.o vl2_topology.o fat_tree_topology.o fat_tree_switch.o bcube_topology.o \
connection_matrix.o oversubscribed_fat_tree_topology.o shortflows.o multihomed_fat_tree_topology.o \
star_topology.o"
# shellcheck disable=SC2086
make_j1 -C "$out/counted-ndp10g/sim/datacenter" $dc_objs
make_j1 -C "$out/counted-ndp10g/sim/datacenter/old_tests" CFLAGS="$old_cflags" \
    htsim_ndp_in_out htsim_ndp_permutation_fail
cp "$out/counted-ndp10g/sim/datacenter/old_tests/htsim_ndp_in_out" \
    "$out/counted-ndp10g/sim/datacenter/old_tests/htsim_ndp_permutation_fail" "$out/counted-bin/"
echo "built: $(ls "$out/counted-bin" | tr '\n' ' ')in $out/counted-bin"
