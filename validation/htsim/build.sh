#!/bin/sh
# Build the htsim binaries the reference runs need, from a checkout of Broadcom/csg-htsim at
# commit 841d9e7be46bb968eece766aa4b6c044c7799f67, into scratch copies: the user's checkout is
# only read (a git checkout is read at that commit, whatever is checked out).
#
#   validation/htsim/build.sh CHECKOUT [OUT]      (OUT defaults to /tmp/htsim-build)
#
# OUT/stock   the tree as committed (host links 100 Gb/s): libhtsim.a, parse_output, htsim_eqds, and
#             the NDP in & out test at HEAD's 100 Gb/s (bin/htsim_ndp_in_out_100g)
# OUT/ndp10g  the same tree with HOST_NIC = 10 Gb/s in sim/datacenter/main.h, the rate the NDP
#             examples (EXAMPLES/in_and_out, EXAMPLES/failure) were made at; htsim_ndp_in_out
#             and htsim_ndp_permutation_fail from sim/datacenter/old_tests
# OUT/bin     the four binaries, under the names run.py expects (parse_output, htsim's log-to-text
#             converter, is not needed by run.py, which reads the binary logs itself)
#
# The two old tests define globals that the library defines too, so they link only with
# -Wl,--allow-multiple-definition. sim/ndp.h uses #elifdef: g++ 12 or later.
# Builds run at nice 10 with make -j1 (override with MAKEFLAGS) because the machine is shared.
set -eu

if [ $# -lt 1 ] || [ ! -f "$1/sim/ndp.h" ]; then
    echo "usage: $0 CHECKOUT [OUT]: CHECKOUT must be a csg-htsim checkout (CHECKOUT/sim/ndp.h)" >&2
    exit 2
fi
checkout=$(cd "$1" && pwd)
out=${2:-/tmp/htsim-build}
want=841d9e7be46bb968eece766aa4b6c044c7799f67

make_j1() { nice -n 10 make -j1 "$@"; }

mkdir -p "$out/bin"
rm -rf "$out/stock" "$out/ndp10g"
mkdir -p "$out/stock"
# A git checkout gives sim/ exactly as committed at $want, whatever is checked out or built in it;
# a plain directory (an unpacked archive) is copied as it is.
if git -C "$checkout" cat-file -e "$want^{commit}" 2>/dev/null; then
    git -C "$checkout" archive "$want" sim | tar -x -C "$out/stock"
else
    echo "warning: $checkout is not a git checkout holding $want; building its sim/ as it is" >&2
    cp -a "$checkout/sim" "$out/stock/sim"
fi

# Stock tree: the library, the log converter and the EQDS main (host links 100 Gb/s).
make_j1 -C "$out/stock/sim" libhtsim.a parse_output
make_j1 -C "$out/stock/sim/datacenter" htsim_eqds
cp "$out/stock/sim/datacenter/htsim_eqds" "$out/bin/htsim_eqds"
cp "$out/stock/sim/parse_output" "$out/bin/parse_output"
old_cflags="-Wall -std=c++11 -g -Wsign-compare -O2 -Wl,--allow-multiple-definition"
make_j1 -C "$out/stock/sim/datacenter/old_tests" CFLAGS="$old_cflags" htsim_ndp_in_out
cp "$out/stock/sim/datacenter/old_tests/htsim_ndp_in_out" "$out/bin/htsim_ndp_in_out_100g"

# NDP tree: the library does not read main.h, so it is reused; every datacenter object is
# rebuilt because the topology code takes its host-queue rate from HOST_NIC.
mkdir -p "$out/ndp10g"
cp -a "$out/stock/sim" "$out/ndp10g/sim"
rm -f "$out/ndp10g/sim/datacenter/"*.o "$out/ndp10g/sim/datacenter/htsim_"* \
    "$out/ndp10g/sim/datacenter/old_tests/"*.o "$out/ndp10g/sim/datacenter/old_tests/htsim_"*
main_h="$out/ndp10g/sim/datacenter/main.h"
sed -i 's/^#define HOST_NIC 100000 /#define HOST_NIC 10000 /' "$main_h"
grep -q '^#define HOST_NIC 10000 ' "$main_h" || {
    echo "error: could not set HOST_NIC to 10000 in $main_h" >&2
    exit 1
}
dc_objs="firstfit.o vl2_topology.o fat_tree_topology.o fat_tree_switch.o bcube_topology.o \
connection_matrix.o oversubscribed_fat_tree_topology.o shortflows.o multihomed_fat_tree_topology.o \
star_topology.o"
# shellcheck disable=SC2086
make_j1 -C "$out/ndp10g/sim/datacenter" $dc_objs
make_j1 -C "$out/ndp10g/sim/datacenter/old_tests" CFLAGS="$old_cflags" \
    htsim_ndp_in_out htsim_ndp_permutation_fail
cp "$out/ndp10g/sim/datacenter/old_tests/htsim_ndp_in_out" "$out/bin/htsim_ndp_in_out"
cp "$out/ndp10g/sim/datacenter/old_tests/htsim_ndp_permutation_fail" \
    "$out/bin/htsim_ndp_permutation_fail"

echo "built: $(ls "$out/bin" | tr '\n' ' ')in $out/bin"
