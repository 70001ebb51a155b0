# SPDX-License-Identifier: GPL-2.0
"""The functional tests and the stress matrix on the debug kernel
(lockdep, KASAN, kmemleak, hung-task and lockup detectors, list and
object debugging, null_blk fault injection), in one boot
(harness/debugsuite.py).

`make check` runs the quick matrix (STRESS_SECS=10 per case), in the
background once the debug kernel is built (tests/host/conftest.py);
these tests read what it left.  `make stress` runs the full one
(CFQ_STRESS_SECS=60) here.  A test fails on its own verdict, on any
splat in the kernel messages printed while it ran, and on any kmemleak
report from the scan after it (by then it has switched cfq out and
removed its groups).  `make stress` scans after every test; `make check`
after every fifth (run-tests.sh, KMEMLEAK_EVERY), which saves 12 scans
of 12-15 s, and a leak then fails the five tests before the scan.  One
that failed on its own verdict alone (a rate or a count on a host short
of CPU) runs once more in a boot of its own and is judged there
(vm.run_guest_tests())."""
import json
import os

import pytest

import conftest
from harness import debugsuite, splat, vm

pytestmark = pytest.mark.vm

TESTS = debugsuite.TESTS
SECS = debugsuite.SECS


@pytest.fixture(scope='module')
def debug_suite(debug_kernel, vm_results):
    bg = conftest._background
    if not bg.then:
        return debugsuite.run(debug_kernel, vm_results)
    rc = bg.wait()
    try:
        return debugsuite.load(vm_results)
    except FileNotFoundError:
        pytest.fail(f'the debug suite in the background left no result '
                    f'(exit {rc}), {bg.log}')


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
