# SPDX-License-Identifier: GPL-2.0
"""Host side of the fairness harness: boot the test kernel once, run the
chosen experiment cases against the peers in the guest (tests/guest/
bench.py), then write the report.

CLI: python3 -m harness.bench --kernel BZIMAGE --out DIR [--report DIR]
        [--exp E]... [--case C]... [--profile P]... [--peer P]... [--runs N]
        [--runtime S] [--scale F] [--quick] [--seed-style] [--pin]
        [--cpus N] [--icount [--skip-idle]]

--icount runs the guest on an instruction-counted clock (see vm.py): a
guest second is 10^9 instructions, so IOPS measure work per I/O and do
not move with the host's load.  For the CPU-cost experiment.
--skip-idle also makes the clock jump over the guest's idle time
(vm.qemu_argv()): a thinking task's gaps and a device's waits then
cost no host time and do not follow the host's clock either, so the
runs of a case repeat, beside another VM too.
"""
import argparse
import os
import sys

from harness import experiments, report, vm

# Seconds a case costs beyond its runtime and fio's start-up allowance
# under TCG: group setup, log parsing (measured: 2-3 s at 75 processes).
OVERHEAD_S = 10
# Wall-clock seconds per guest second under --icount, with room to spare:
# measured here, a 6 s fio run on the instant-completion device took
# about 14 s (TCG on one host thread runs some 4 x 10^8 guest
# instructions a second).
ICOUNT_SLOWDOWN = 4
# Backing store for the scsi_debug disk that carries the partitioned
# profile (null_blk disks cannot be partitioned).
SCSI_DEBUG_MB = 192


def scsi_debug_args(prof):
    """scsi_debug's queue depth can only be set before it adds its host,
    so the profile's parameters go on the kernel command line."""
    return [f'scsi_debug.dev_size_mb={SCSI_DEBUG_MB}',
            f'scsi_debug.max_queue={prof["max_queue"]}',
            f'scsi_debug.ndelay={prof["ndelay"]}']


def plan(args):
    cases = experiments.load_all(args.exp or None, args.scale, args.quick,
                                 args.case or None)
    profiles = experiments.load_toml('profiles.toml')
    all_peers = experiments.load_toml('peers.toml')
    peers = args.peer or experiments.default_peers(all_peers)
    runs = 0
    startup = 0	# seconds fio takes to start workers, all measurements
    append = []
    skipped = set()
    hdd = False
    for c in cases:
        for p in c.profiles:
            if args.profile and p not in args.profile or p in skipped:
                continue
            if profiles[p]['kind'] == 'scsi_debug':
                args_p = scsi_debug_args(profiles[p])
                if append and append != args_p:
                    if args.profile:
                        raise SystemExit(
                            f'bench: profile {p} needs other scsi_debug '
                            'boot parameters than the others chosen; run '
                            'it on its own')
                    # Not asked for by name: leave it to a boot of its own.
                    print(f'bench: skipping profile {p} (other scsi_debug '
                          f'boot parameters): run it with --profile {p}',
                          file=sys.stderr)
                    skipped.add(p)
                    continue
                append = args_p
            n = len([q for q in peers if not c.peers or q in c.peers]
                    ) * args.runs
            runs += n
            startup += n * c.startup_allowance()
            hdd = hdd or profiles[p]['kind'] == 'hdd'
    if hdd:
        vm.build_hdd()
    if skipped:
        # The guest then runs the same profiles.
        args.profile = [p for p in profiles if p not in skipped and
                        any(p in c.profiles for c in cases)]
    return cases, runs, append, startup


def guest_command(args):
    return vm.guest_command(
        ['python3', 'tests/guest/bench.py', '--out', '/tmp/results/bench',
         '--runs', str(args.runs), '--runtime', str(args.runtime),
         '--scale', str(args.scale)],
        (('--exp', args.exp), ('--case', args.case),
         ('--profile', args.profile), ('--peer', args.peer)),
        (('--quick', args.quick), ('--pin', args.pin),
         ('--keep-trace', args.keep_trace)))


def report_header(args):
    """What the report came from: the kernel's commit, the clock, the
    runs; so a table can be told apart from an older one."""
    clock = 'instruction-counted' if args.icount else "the host's"
    if getattr(args, 'skip_idle', False):
        clock += ' (idle time skipped)'
    kernel = (f'the series at `{args.commit}`' if args.commit
              else f'`{args.kernel}`')
    pinned = ('; every fio task pinned to one vCPU, spread over all'
              if args.pin else '')
    return (f'Kernel: {kernel}, lean test config; {args.cpus} vCPUs, '
            f"{clock} clock; {args.runs} run(s) of {args.runtime} s per "
            f'cell{pinned}.\n\n')


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--report')
    ap.add_argument('--exp', action='append', default=[])
    ap.add_argument('--case', action='append', default=[])
    ap.add_argument('--profile', action='append', default=[])
    ap.add_argument('--peer', action='append', default=[])
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--runtime', type=int, default=20)
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--seed-style', action='store_true')
    ap.add_argument('--cpus', type=int, default=2)
    ap.add_argument('--icount', action='store_true')
    ap.add_argument('--skip-idle', action='store_true',
                    help='with --icount: the clock jumps over idle time')
    ap.add_argument('--pin', action='store_true',
                    help='pin each fio task to one vCPU, spread over all')
    ap.add_argument('--keep-trace', action='store_true',
                    help="on the emulated disk: keep the disk's trace "
                    'beside each run.json (hdd.trace)')
    ap.add_argument('--commit', help='the commit the kernel was built '
                    'from, for the report (scripts/bench.sh passes it)')
    args = ap.parse_args(argv)
    if args.skip_idle and not args.icount:
        ap.error('--skip-idle needs --icount')

    _, nruns, append, startup = plan(args)
    if not nruns:
        print('bench: nothing to run', file=sys.stderr)
        return 1
    timeout = 120 + (nruns * (args.runtime + OVERHEAD_S) + startup) * 2
    if args.icount:
        timeout *= ICOUNT_SLOWDOWN
    print(f'bench: {nruns} measurements of {args.runtime}s '
          f'(VM timeout {timeout}s)', file=sys.stderr)
    res = vm.run(args.kernel, guest_command(args), args.out,
                 timeout=timeout, mem='3G', append=append, cpus=args.cpus,
                 icount=args.icount, skip_idle=args.skip_idle)
    if not res.ok:
        vm.show_job_log(args.out)
        if not report.load_runs(f'{args.out}/bench'):
            return 1
        print('bench: the run failed; reporting what was measured',
              file=sys.stderr)
    os.makedirs(f'{args.out}/bench', exist_ok=True)
    with open(f'{args.out}/bench/{report.HEADER}', 'w') as f:
        f.write(report_header(args))
    rows, md = report.write_report(f'{args.out}/bench', args.report or
                                   args.out)
    if args.seed_style:
        print(report.seed_style(rows))
    print(md)
    return 0 if res.ok else 1


if __name__ == '__main__':
    sys.exit(main())
