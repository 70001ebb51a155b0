#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per I/O, per kernel function and per scheduler, on
# 7-cpu-cost's instant-completion device: the guest runs on one vCPU
# with an instruction-counting clock (-icount), and the insn-profile
# plugin counts what each function runs between marks.
#
#   tests/tools/insn-profile/insn-profile.sh [-k BZIMAGE] [-n NJOBS] \
#       [-g NGROUPS | -p PRIOS] [-b NULLB] [-r NR_REQUESTS] [-t TOP] \
#       [-w RW] [-s BS] [-l LEVELS] [-d PREFIX] SCHED...
#
# Prints, for each scheduler, the instructions per I/O of the whole
# system and of the TOP costliest functions (inlined helpers count in
# their caller).  The kernel's System.map is taken from beside BZIMAGE's
# build directory (default: the lean test kernel).
#
# -g N spreads the readers over N groups of priority 4; -p gives the
# groups' cfq.ioprio instead, one per group (-p 0,4,7: the seed
# experiments' three groups).  -b takes null_blk settings, configfs
# KEY=VALUE words, that replace the instant device's: -b "irqmode=2
# completion_nsec=200000 hw_queue_depth=32 submit_queues=2" is d32-mq
# (its timer runs on the instruction clock too).  -r sets the elevators'
# nr_requests (512 unless given; -r default keeps the kernel's, twice
# the device's depth: d32-tags).  -w and -s give fio's rw and bs
# (randread and 4k unless given); -l gives each group's readers a
# best-effort level, one per group: -n 2 -p 7,0 -l 0,7 -w read -s 1M is
# the dd example gprio-7-vs-0-task-0-vs-7.  With -d PREFIX, also
# the TOP costliest source lines of the functions named PREFIX*, each
# block of code counted at its first instruction's line, innermost
# inlined function first: that needs the object built with -g, e.g.
#   make O=BUILD CFLAGS_cfq-iosched.o=-g bzImage
set -euo pipefail
. "$(dirname "$0")/../../../scripts/common.sh"

kernel=$CACHE/build/lean/arch/x86/boot/bzImage
njobs=1
ngroups=1
ngroups_given=0
prios=
nullb=
nr_requests=512
top=40
detail=
rw=randread
bs=4k
levels=
while getopts k:n:g:p:b:r:t:d:w:s:l: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	n) njobs=$OPTARG ;;
	g) ngroups=$OPTARG ngroups_given=1 ;;
	p) prios=$OPTARG ;;
	b) nullb=$OPTARG ;;
	r) nr_requests=$OPTARG ;;
	t) top=$OPTARG ;;
	d) detail=$OPTARG ;;
	w) rw=$OPTARG ;;
	s) bs=$OPTARG ;;
	l) levels=$OPTARG ;;
	*) die "usage: $0 [-k BZIMAGE] [-n NJOBS] [-g NGROUPS | -p PRIOS]" \
	       "[-b NULLB] [-r NR_REQUESTS] [-t TOP] [-w RW] [-s BS]" \
	       "[-l LEVELS] [-d PREFIX] SCHED..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || die "name one or more schedulers"
# Option $1 names values 0-7 ($2) separated by commas: refuse anything else.
check_0_7_list() {
	case $3 in
	*[!0-7,]* | ,* | *, | *,,*)
		die "$1 takes $2 0-7 separated by commas: '$3'" ;;
	esac
}
if [ -n "$prios" ]; then
	[ "$ngroups_given" = 0 ] || die "-g and -p: give one or the other"
	check_0_7_list -p priorities "$prios"
	IFS=, read -ra plist <<<"$prios"
	ngroups=${#plist[@]}
fi
for kv in $nullb; do
	[[ $kv =~ ^[a-z_]+=[a-z0-9_]+$ ]] ||
		die "-b takes null_blk KEY=VALUE words: '$kv'"
done
[[ $rw =~ ^(rand)?read$ ]] || die "-w takes read or randread: '$rw'"
[[ $bs =~ ^[1-9][0-9]*[kM]?$ ]] || die "-s takes a block size like 4k or 1M: '$bs'"
if [ -n "$levels" ]; then
	check_0_7_list -l levels "$levels"
	IFS=, read -ra llist <<<"$levels"
	[ "${#llist[@]}" = "$ngroups" ] ||
		die "-l gives ${#llist[@]} levels for $ngroups groups"
fi
[[ $nr_requests =~ ^([1-9][0-9]*|default)$ ]] ||
	die "-r takes a number of requests or 'default': '$nr_requests'"
[ "$ngroups" -ge 1 ] && [ $((njobs % ngroups)) -eq 0 ] &&
	[ "$njobs" -ge "$ngroups" ] ||
	die "-n $njobs readers cannot be spread evenly over $ngroups groups"
build=$(realpath "$(dirname "$kernel")/../../..")
map=$build/System.map
[ -f "$map" ] || die "no System.map at $map"

here=$(cd "$(dirname "$0")" && pwd)
plugin=$CACHE/insn-profile/insn-profile.so
mkdir -p "$CACHE/insn-profile"
if [ ! -f "$plugin" ] || [ "$here/insn-profile.c" -nt "$plugin" ]; then
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
		-o "$plugin" "$here/insn-profile.c"
fi

res=$CACHE/insn-profile/run
cd "$REPO/tests"
"$PY" -m harness.vm --kernel "$kernel" --results "$res" --cpus 1 \
	--icount --timeout 900 \
	--plugin "$plugin,map=$map,out=$res/profile.txt,top=400${detail:+,detail=$detail}" \
	-- NJOBS="$njobs" NGROUPS="$ngroups" PRIOS="$prios" \
	NULLB="${nullb// /,}" NR_REQUESTS="$nr_requests" \
	RW="$rw" BS="$bs" LEVELS="$levels" \
	bash tests/tools/insn-profile/guest.sh "$@" >&2

"$PY" - "$res/job.log" "$res/profile.txt" "$top" "$build/vmlinux" <<'EOF'
import collections
import re
import subprocess
import sys

log, prof, top, vmlinux = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    sys.argv[4]
reads = {}
for line in open(log, errors='replace'):
    m = re.match(r'window (\d+) (\S+): (\d+) reads', line)
    if m:
        reads[int(m[1])] = (m[2], int(m[3]))
windows, cur = {}, None
for line in open(prof):
    m = re.match(r'window (\d+) total (\d+)', line)
    if m:
        cur = int(m[1])
        windows[cur] = [int(m[2]), [], []]
    elif line.startswith('block '):
        _, addr, n, _ = line.split()
        windows[cur][2].append((int(addr, 16), int(n)))
    elif cur is not None:
        n, name = line.split()
        windows[cur][1].append((name, int(n)))


def source_lines(blocks):
    """Instructions per source line (innermost inlined frame)."""
    addrs = sorted({a for a, _ in blocks})
    out = subprocess.run(['addr2line', '-f', '-i', '-a', '-e', vmlinux] +
                         [hex(a) for a in addrs], stdout=subprocess.PIPE,
                         text=True, check=True).stdout.splitlines()
    where, cur = {}, None
    for i, line in enumerate(out):
        if line.startswith('0x'):
            cur = int(line, 16)
        elif cur is not None and cur not in where and i + 1 < len(out):
            loc = out[i + 1].split('/')[-1]
            where[cur] = f'{loc} ({line})'
    lines = collections.Counter()
    for a, n in blocks:
        lines[where.get(a, hex(a))] += n
    return lines.most_common()


for w, (sched, n) in sorted(reads.items()):
    total, funcs, blocks = windows[w]
    print(f'== {sched}: {n} I/Os, {total / n:.0f} instructions per I/O')
    for name, c in funcs[:top]:
        print(f'{c / n:10.1f}  {name}')
    if blocks:
        print(f'-- {sched}: source lines')
        for loc, c in source_lines(blocks)[:top]:
            print(f'{c / n:10.1f}  {loc}')
EOF
