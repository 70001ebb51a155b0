# SPDX-License-Identifier: GPL-2.0
"""`make deb` (scripts/deb.sh) with its default config, the lean test
config: the kernel package and the udev rule's package are built, and
the packaged kernel, taken out of the .deb, boots in the VM with a
virtio disk: it is the -cfq release, offers cfq, its cgroup controller
works on v2 and v1, the KUnit suites pass at boot, and the packaged udev
rule gives the rotational virtio disk cfq (and only the rotational
disks, t/udev-rule.sh).

Not in `make check` (`make deb-check`): bindeb-pkg builds the kernel
once more, in a build directory of its own."""
import glob
import os
import subprocess

import pytest

from conftest import REPO
from harness import splat, vm

pytestmark = [pytest.mark.vm, pytest.mark.deb]

GUEST_TESTS = ['deb-kernel', 'kunit', 'udev-rule']
RULE = 'usr/lib/udev/rules.d/60-cfq-iosched.rules'


@pytest.fixture(scope='module')
def debs(lean_kernel):
    """The packages.  The lean kernel is built first: the package's
    build then finds the same objects in ccache."""
    out = subprocess.run([os.path.join(REPO, 'scripts', 'deb.sh')],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.split()


def package(debs, prefix):
    found = [d for d in debs if os.path.basename(d).startswith(prefix)]
    assert len(found) == 1, (prefix, debs)
    return found[0]


def test_packages(debs):
    image = package(debs, 'linux-image-')
    assert '-cfq_' in os.path.basename(image)
    udev = package(debs, 'cfq-iosched-udev_')
    files = subprocess.run(['dpkg-deb', '-c', udev], stdout=subprocess.PIPE,
                           check=True, text=True).stdout
    assert f'./{RULE}' in files
    with open(os.path.join(REPO, 'scripts', 'udev',
                           os.path.basename(RULE))) as f:
        want = f.read()
    got = subprocess.run(['dpkg-deb', '--fsys-tarfile', udev],
                         stdout=subprocess.PIPE, check=True).stdout
    assert want.encode() in got


@pytest.fixture(scope='module')
def deb_kernel(debs, tmp_path_factory):
    root = tmp_path_factory.mktemp('deb-root')
    subprocess.run(['dpkg-deb', '-x', package(debs, 'linux-image-'),
                    str(root)], check=True)
    found = glob.glob(str(root / 'boot' / 'vmlinuz-*'))
    assert len(found) == 1, found
    return found[0]


def test_packaged_kernel_boots_with_cfq(deb_kernel, vm_results,
                                        tmp_path):
    disk = tmp_path / 'disk.img'
    with open(disk, 'wb') as f:
        f.truncate(64 << 20)
    out = os.path.join(vm_results, 'deb')
    tests = ' '.join(GUEST_TESTS)
    res = vm.run(deb_kernel,
                 f'DEB_DISK=vda UDEV_DISK=vda tests/guest/run-tests.sh '
                 f'/tmp/results/t {tests}', out,
                 expect=[f't/{t}.rc' for t in GUEST_TESTS], timeout=900,
                 drives=[str(disk)])
    assert res.ok, f'guest run failed: {res.reasons}'
    for name in GUEST_TESTS:
        with open(os.path.join(out, 't', f'{name}.log'),
                  errors='replace') as f:
            log = f.read()
        with open(os.path.join(out, 't', f'{name}.rc')) as f:
            assert int(f.read()) == 0, f'{name} failed:\n{log[-3000:]}'
        with open(os.path.join(out, 't', f'{name}.dmesg'),
                  errors='replace') as f:
            assert splat.find_splats(f.read()) == []
