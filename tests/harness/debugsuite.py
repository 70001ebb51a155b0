# SPDX-License-Identifier: GPL-2.0
"""The debug kernel's guest suite: the functional tests and the stress
matrix (tests/host/test_debug.py judges them), in one boot.

`make check` starts it in the background as soon as the debug kernel is
built (tests/host/conftest.py), under nice 19 beside the guests on the
instruction clock, through this module's CLI:

    python3 -m harness.debugsuite --kernel BZIMAGE --out DIR

which writes DIR/suite.json for load().  `make stress` runs it in the
foreground (run()).
"""
import argparse
import dataclasses
import json
import os
import sys

from harness import vm

# cfq-media@hdd-q1: the cache flushes cfq sends from kblockd and their
# completions, with the elevator switched while they are in flight
# (52 s in make check's debug boot at ea08ee8).
FUNCTIONAL = ['env', 'kunit', 'cfq-tunables', 'cfq-debugfs', 'cfq-hwqueues',
              'cfq-cgroup-files', 'cfq-reap', 'bad-input', 'cfq-media@hdd-q1']
STRESS = ['stress-switch', 'stress-churn', 'stress-procs', 'stress-remove',
          'stress-errors', 'stress-requeue', 'stress-v2']
SECS = int(os.environ.get('CFQ_STRESS_SECS', '10'))
# make check's quick matrix (make stress sets CFQ_STRESS_SECS=60).
QUICK = SECS <= 10
# Functional tests whose paths the stress set drives harder: cfq-switch
# is stress-switch on idle groups; cfq-groups' ioprio rewrites, moves,
# rmdir with requests queued and switches with populated groups are what
# stress-churn and stress-switch do every 50-200 ms.  The lean kernel
# runs both in every `make check`; on the debug kernel they took 3.6 of
# its 16 minutes, so only `make stress` runs them here.
OVERLAP = ['cfq-switch', 'cfq-groups']
TESTS = FUNCTIONAL + ([] if QUICK else OVERLAP) + STRESS
# Under TCG the debug kernel holds a vCPU in stop_machine (the switch to
# the refined TSC clocksource) for up to ~30 s at boot: soft lockups are
# reported after 2 x 60 s instead of 20 s, RCU stalls after 90 s instead
# of 21 s.
# acpi=noirq: PCI interrupts are routed from the BIOS's $PIR table, not
# by running ACPI's _PRT.  On this kernel under TCG the AML interpreter
# took ~70 s over _PRT and, often, hit its loop timeout
# (AE_AML_LOOP_TIMEOUT): the virtio-9p devices then had no interrupt and
# the root mount waited forever, silently.  With it the kernel boots in
# 30 s.  No boot-time scsi_debug disk (stress-remove adds its own).
APPEND = ['watchdog_thresh=60', 'rcupdate.rcu_cpu_stall_timeout=90',
          'scsi_debug.add_host=0', 'acpi=noirq']
# A good boot reaches the job in well under a minute: fail fast if not.
BOOT_TIMEOUT = 300
# The whole run: one with 7 % of its CPU taken by the hypervisor needed
# 1300 s to reach stress-remove (of 17 tests), and a whole run on such a
# host took about 29 min; alone on this host (7.6 % steal, 28d105f) 39
# min, 15.7 of them a failed stress-procs (about 25 min without).  Under
# nice 19 beside make check's guests on the instruction clock from its
# start (the debug kernel was already built), a run with 6 % steal took
# 37.5 min to reach stress-v2, its last test, each test about twice as
# long as alone (stress-procs 358 s), and the old limit of 40 min
# stopped it there.  So a run that goes on may take an hour; a hang is
# told by STALL: no test started or ended for that long, more than
# run-tests.sh gives a test (900 s) and a kmemleak scan after it.
TIMEOUT = 3000 + 60 * SECS
STALL = 1200


def out_dir(root):
    return os.path.join(root, f'debug-{SECS}s')


def run(kernel, root):
    """vm.run_guest_tests() of TESTS on the debug kernel, into
    out_dir(root).  `make stress` scans kmemleak after every test, `make
    check` after every fifth (run-tests.sh, KMEMLEAK_EVERY): a scan takes
    12-15 s here under TCG.  cfq-media@hdd-q1 needs the emulated disk's
    server: built first (make check's guests on the instruction clock
    may be building it at the same time; each build writes a file of
    its own and renames it)."""
    vm.build_hdd()
    return vm.run_guest_tests(kernel, out_dir(root), TESTS,
                              env=f'STRESS_SECS={SECS} '
                              f'KMEMLEAK_EVERY={5 if QUICK else 1} ',
                              timeout=TIMEOUT, stall=STALL, mem='3G',
                              append=APPEND, boot_timeout=BOOT_TIMEOUT)


def load(root):
    """What main() wrote, in run()'s form."""
    with open(os.path.join(out_dir(root), 'suite.json')) as f:
        doc = json.load(f)
    return vm.Result(**doc['result']), doc['dirs'], doc['again']


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--out', required=True, help='out_dir()\'s root')
    args = ap.parse_args(argv)
    res, dirs, again = run(args.kernel, args.out)
    with open(os.path.join(out_dir(args.out), 'suite.json'), 'w') as f:
        json.dump({'result': dataclasses.asdict(res), 'dirs': dirs,
                   'again': again}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
