# SPDX-License-Identifier: GPL-2.0
"""The functional tests and the stress matrix on the debug kernel
(lockdep, KASAN, kmemleak, hung-task and lockup detectors, list and
object debugging, null_blk fault injection), in one boot.

`make check` runs the quick matrix (STRESS_SECS=10 per case); `make
stress` the full one (CFQ_STRESS_SECS=60).  A test fails on its own
verdict, on any splat in the kernel messages printed while it ran, and
on any kmemleak report from the scan after it (by then it has switched
cfq out and removed its groups).  `make stress` scans after every test;
`make check` after every fifth (run-tests.sh, KMEMLEAK_EVERY), which
saves 12 scans of 12-15 s, and a leak then fails the five tests before
the scan.  One that failed on its own verdict
alone (a rate or a count on a host short of CPU) runs once more in a
boot of its own and is judged there (vm.run_guest_tests())."""
import json
import os

import pytest

from harness import splat, vm

pytestmark = pytest.mark.vm

FUNCTIONAL = ['env', 'kunit', 'cfq-tunables', 'cfq-debugfs', 'cfq-hwqueues',
              'cfq-cgroup-files', 'cfq-reap', 'bad-input']
STRESS = ['stress-switch', 'stress-churn', 'stress-procs', 'stress-remove',
          'stress-errors', 'stress-requeue', 'stress-v2']
SECS = int(os.environ.get('CFQ_STRESS_SECS', '10'))
# Functional tests whose paths the stress set drives harder: cfq-switch
# is stress-switch on idle groups; cfq-groups' ioprio rewrites, moves,
# rmdir with requests queued and switches with populated groups are what
# stress-churn and stress-switch do every 50-200 ms.  The lean kernel
# runs both in every `make check`; on the debug kernel they took 3.6 of
# its 16 minutes, so only `make stress` runs them here.
OVERLAP = ['cfq-switch', 'cfq-groups']
TESTS = FUNCTIONAL + (OVERLAP if SECS > 10 else []) + STRESS
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
# The whole run: ~20 min on a quiet host; one with 7 % of its CPU taken
# by the hypervisor needed 1300 s to reach stress-remove (of 17 tests),
# and a whole run on such a host took about 29 min.


@pytest.fixture(scope='module')
def debug_suite(debug_kernel, vm_results):
    out = os.path.join(vm_results, f'debug-{SECS}s')
    return vm.run_guest_tests(debug_kernel, out, TESTS,
                              env=f'STRESS_SECS={SECS} '
                              f'KMEMLEAK_EVERY={1 if SECS > 10 else 5} ',
                              timeout=1800 + 60 * SECS, mem='3G',
                              append=APPEND, boot_timeout=BOOT_TIMEOUT)


def read(path):
    with open(path, errors='replace') as f:
        return f.read()


@pytest.mark.parametrize('name', TESTS)
def test_debug(debug_suite, name):
    res = debug_suite[0]
    assert res.ok, f'debug suite run failed: {res.reasons}'
    tdir = vm.judged_dir(debug_suite, name)
    rc = int(read(os.path.join(tdir, f'{name}.rc')))
    assert rc == 0, f'{name} failed:\n{read(os.path.join(tdir, name + ".log"))[-3000:]}'
    assert splat.find_splats(read(os.path.join(tdir, f'{name}.dmesg'))) == []
    # The scan ran (the kernel has kmemleak) and found nothing.
    leaks = read(os.path.join(tdir, f'{name}.kmemleak'))
    assert leaks == '', f'{name}: kmemleak:\n{leaks[:3000]}'
    if name.startswith('stress-'):
        with open(os.path.join(tdir, f'{name}.json')) as f:
            assert json.load(f)['secs'] >= min(SECS, 10)
