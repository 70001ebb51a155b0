#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest: measure the emulated disk with fio against its datasheet figures
# (README.md) and print the table of docs/results/hdd/validation.md.
#
#   python3 -m harness.vm --kernel BZIMAGE --results DIR --timeout 600 -- \
#       "bash tests/tools/hdd/validate.sh > /tmp/results/validation.md"
set -euo pipefail
hdd=${CFQ_CACHE:-$HOME/.cache/cfq-iosched}/hdd/hdd
rt=${RT:-10}

start() {	# depth
	"$hdd" --depth "$1" --store none >/tmp/hdd.dev 2>/tmp/hdd.err &
	pid=$!
	for _ in $(seq 100); do [ -s /tmp/hdd.dev ] && break; sleep 0.1; done
	dev=$(cat /tmp/hdd.dev)
	echo none >/sys/block/"${dev#/dev/}"/queue/scheduler
}

stop() {
	kill "$pid"
	wait "$pid"
}

# fio, terse: prints "MB/s IOPS mean-latency-ms" of the direction asked
run() {	# read|write, fio args...
	local d=$1
	shift
	fio --name=v --filename="$dev" --direct=1 --runtime="$rt" --time_based \
		--output-format=terse --terse-version=3 "$@" |
		awk -F';' -v d="$d" '{
			if (d == "read") { bw = $7; io = $8; lat = $40 }
			else { bw = $48; io = $49; lat = $81 }
			printf "%.1f %.1f %.2f\n", bw * 1.024 / 1000, io, lat / 1000 }'
}

row() {	# what, datasheet figure, unit, measured, basis
	awk -v w="$1" -v ds="$2" -v u="$3" -v m="$4" -v b="$5" 'BEGIN {
		printf "| %s | %s %s | %s %s | %+.1f %% | %s |\n",
			w, ds, u, m, u, 100 * (m - ds) / ds, b }'
}

echo "| Measurement | Datasheet | fio | Error | Datasheet basis |"
echo "|---|---|---|---|---|"
start 1
r=$(run read --rw=read --bs=1M)
read -r odr _ _ <<<"$r"
r=$(run read --rw=read --bs=1M --offset=99%)
read -r idr _ _ <<<"$r"
r=$(run write --rw=write --bs=1M)
read -r odw _ _ <<<"$r"
r=$(run write --rw=write --bs=1M --offset=99%)
read -r idw _ _ <<<"$r"
r=$(run read --rw=randread --bs=4k)
read -r _ q1 lat1 <<<"$r"
stop
start 32
r=$(run read --rw=randread --bs=4k --ioengine=libaio --iodepth=32)
read -r _ q32 lat32 <<<"$r"
stop
# overhead + average seek + average rotational latency
svc=$(awk 'BEGIN { print 0.1 + 7.4 + 4.16 }')
row "Sequential read, outer zone, 1 MiB, depth 1" 140 MB/s "$odr" \
	"sustained rate, outer zone"
row "Sequential read, inner zone (last 1 %)" 67 MB/s "$idr" \
	"sustained rate, inner zone"
row "Sequential write, outer zone, write cache on" 140 MB/s "$odw" \
	"sustained rate, outer zone"
row "Sequential write, inner zone, write cache on" 67 MB/s "$idw" \
	"sustained rate, inner zone"
row "Random 4 KiB read, depth 1, whole disk" \
	"$(awk -v s="$svc" 'BEGIN { printf "%.1f", 1000 / s }')" IOPS "$q1" \
	"1 / (overhead + average seek + average latency)"
row "Random 4 KiB read, depth 1: mean latency" "$svc" ms "$lat1" \
	"overhead + average seek + average latency"
echo
echo "Random 4 KiB read, NCQ depth 32, whole disk: $q32 IOPS, mean latency $lat32 ms (no datasheet figure found to judge it by)."
