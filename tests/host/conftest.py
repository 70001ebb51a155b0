# SPDX-License-Identifier: GPL-2.0
"""Shared fixtures.  Tests marked `vm` build the kernel and boot it; the
rest are pure host-side unit tests (`make unit` runs only those)."""
import os
import signal
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
    config.addinivalue_line('markers',
                            'host_clock: times a guest by the host\'s clock'
                            ' (runs once no build shares the host)')


# The order of a run.  The lean kernel is built first, with both CPUs;
# the debug kernel then builds in the background at the lowest priority
# (scripts/build.sh debug under nice 19) while the tests that do not
# time anything by the host's clock run: the host's unit tests, and the
# guests on the instruction clock, which QEMU runs on one host thread and
# whose results do not depend on what else the host runs.  That leaves
# the second CPU to the build: in a run from a cold cache the debug
# kernel took 18.7 minutes there, behind 27.8 minutes of such guests,
# where it had taken about 15 on both CPUs before them.  The guests
# timed by the host's clock wait for the build to end; the debug
# kernel's suite runs last.
PHASE_LEAN, PHASE_UNIT, PHASE_ICOUNT, PHASE_HOST_CLOCK, PHASE_DEBUG = range(5)


def phase(item):
    names = item.fixturenames
    if 'debug_kernel' in names:
        return PHASE_DEBUG
    if item.get_closest_marker('host_clock'):
        return PHASE_HOST_CLOCK
    if item.get_closest_marker('vm'):
        return PHASE_ICOUNT
    if 'lean_kernel' in names:
        return PHASE_LEAN
    return PHASE_UNIT


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """After -m and -k have deselected: sort by phase (stable, so a file's
    tests keep their order within one), and note whether the debug kernel
    is wanted."""
    items.sort(key=phase)
    config.stash[WANTS_DEBUG] = any(phase(i) == PHASE_DEBUG for i in items)


def pytest_runtest_setup(item):
    if phase(item) == PHASE_HOST_CLOCK:
        _background.wait()


def pytest_unconfigure(config):
    _background.stop()


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


@pytest.fixture
def fixture():
    return fixture_text


def cache_dir():
    return vm.cache_dir()


def _build(flavor):
    out = subprocess.run([os.path.join(REPO, 'scripts', 'build.sh'), flavor],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


class BackgroundBuild:
    """scripts/build.sh FLAVOR under nice 19, its output in a log file
    (a background process writing to pytest's descriptors would land in
    whichever test's captured output)."""

    def __init__(self):
        self.proc = self.log = None

    def start(self, flavor, log):
        self.flavor, self.log = flavor, log
        os.makedirs(os.path.dirname(log), exist_ok=True)
        # The log's last line says how long the build took.
        script = '"$0" "$1"; rc=$?; echo "# exit $rc after $SECONDS s"; ' \
                 'exit $rc'
        with open(log, 'w') as f:
            self.proc = subprocess.Popen(
                ['nice', '-n', '19', 'bash', '-c', script,
                 os.path.join(REPO, 'scripts', 'build.sh'), flavor],
                stdout=f, stderr=subprocess.STDOUT, start_new_session=True)

    def wait(self):
        """The build's exit status (None: none was started)."""
        return None if self.proc is None else self.proc.wait()

    def result(self):
        """The bzImage's path; the log's end if the build failed."""
        rc = self.wait()
        with open(self.log, errors='replace') as f:
            text = f.read()
        if rc != 0:
            pytest.fail(f'scripts/build.sh {self.flavor} failed ({rc}), '
                        f'{self.log}:\n{text[-3000:]}')
        return [line for line in text.splitlines()
                if line.endswith('bzImage')][-1]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait()


WANTS_DEBUG = pytest.StashKey[bool]()
_background = BackgroundBuild()


@pytest.fixture(scope='session')
def lean_kernel(request):
    """Path of the lean test kernel, built (incrementally) once.  Then,
    if the run has debug-kernel tests, the debug kernel starts building
    in the background (see phase())."""
    path = _build('lean')
    if request.config.stash.get(WANTS_DEBUG, False) and \
            _background.proc is None:
        _background.start('debug', os.path.join(
            cache_dir(), 'results', 'check', 'debug-build.log'))
    return path


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
    (incrementally) once: in the background if the lean kernel's fixture
    started it, else here."""
    if _background.proc is not None:
        return _background.result()
    return _build('debug')


@pytest.fixture(scope='session')
def vm_results():
    """A fresh directory for VM results under the cache."""
    path = os.path.join(cache_dir(), 'results', 'check')
    os.makedirs(path, exist_ok=True)
    return path
