# SPDX-License-Identifier: GPL-2.0
"""Host side of the attribution experiments (experiments/attribution.toml,
tests/guest/attribution.py): boot the test kernel once, run the cases
against the peers, write the bench report.

CLI: python3 -m harness.attribution --kernel BZIMAGE --out DIR
        [--report DIR] [--case C]... [--peer P]... [--runs N] [--runtime S]
"""
import argparse
import sys

from harness import experiments, report, vm

OVERHEAD_S = 25


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--report')
    ap.add_argument('--case', action='append', default=[])
    ap.add_argument('--peer', action='append', default=[])
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--runtime', type=int)
    args = ap.parse_args(argv)
    doc = experiments.load_toml('attribution.toml')
    runtime = args.runtime or doc['runtime']
    ncases = len([c for c in doc['cases']
                  if not args.case or c['name'] in args.case])
    npeers = len(args.peer or experiments.default_peers(
        experiments.load_toml('peers.toml')))
    timeout = 300 + ncases * npeers * args.runs * (runtime + OVERHEAD_S) * 2
    cmd = vm.guest_command(
        ['python3', 'tests/guest/attribution.py', '--out',
         '/tmp/results/attr', '--runs', str(args.runs), '--runtime',
         str(runtime)],
        (('--case', args.case), ('--peer', args.peer)))
    res = vm.run(args.kernel, cmd, args.out, timeout=timeout, mem='3G')
    if not res.ok:
        vm.show_job_log(args.out)
        if not report.load_runs(f'{args.out}/attr'):
            return 1
    _, md = report.write_report(f'{args.out}/attr', args.report or args.out)
    print(md)
    return 0 if res.ok else 1


if __name__ == '__main__':
    sys.exit(main())
