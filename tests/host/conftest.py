# SPDX-License-Identifier: GPL-2.0
"""Shared fixtures.  Tests marked `vm` build the kernel and boot it; the
rest are pure host-side unit tests (`make unit` runs only those)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'tests'))

FIXTURES = os.path.join(HERE, 'fixtures')

from harness import vm  # noqa: E402 (after the path above)


def pytest_configure(config):
    config.addinivalue_line('markers', 'vm: builds and boots a test kernel')
    config.addinivalue_line('markers',
                            'tree: runs the 6.12 tree\'s own scripts')
    config.addinivalue_line('markers',
                            'deb: builds the kernel packages (make deb-check,'
                            ' not make check)')


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


@pytest.fixture
def fixture():
    return fixture_text


def cache_dir():
    return vm.cache_dir()


@pytest.fixture(scope='session')
def lean_kernel():
    """Path of the lean test kernel, built (incrementally) once."""
    out = subprocess.run([os.path.join(REPO, 'scripts', 'build.sh'), 'lean'],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope='session')
def hdd_tool():
    """The emulated disk's server (tests/tools/hdd), built once into the
    cache, where guest tests find it through the host root."""
    out = subprocess.run([os.path.join(REPO, 'scripts', 'build-hdd.sh')],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope='session')
def debug_kernel():
    """Path of the debug kernel (tests/configs/debug.config), built
    (incrementally) once."""
    out = subprocess.run([os.path.join(REPO, 'scripts', 'build.sh'), 'debug'],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope='session')
def vm_results():
    """A fresh directory for VM results under the cache."""
    path = os.path.join(cache_dir(), 'results', 'check')
    os.makedirs(path, exist_ok=True)
    return path
