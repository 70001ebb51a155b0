# SPDX-License-Identifier: GPL-2.0
"""Shared fixtures.  Tests marked `vm` build the kernel and boot it; the
rest are pure host-side unit tests (`make unit` runs only those)."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'tests'))

FIXTURES = os.path.join(HERE, 'fixtures')

from harness import debugsuite, vm  # noqa: E402 (after the path above)


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
# where it had taken about 15 on both CPUs before them.  Once built, the
# debug kernel's suite (harness/debugsuite.py) runs there too, still
# under nice 19, on the CPU the guests leave.  The guests timed by the
# host's clock wait for both to end; the debug suite's tests, last, read
# what it left.
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
    """scripts/build.sh FLAVOR under nice 19, then, if it succeeded and
    was given one, a command that takes the kernel (--kernel BZIMAGE), in
    the same process group; the output of both in a log file (a
    background process writing to pytest's descriptors would land in
    whichever test's captured output)."""

    def __init__(self):
        self.proc = self.log = None
        self.then = []

    def start(self, flavor, log, then=()):
        self.flavor, self.log, self.then = flavor, log, list(then)
        os.makedirs(os.path.dirname(log), exist_ok=True)
        # The log's line after the build's output says how it ended and
        # how long it took.
        script = ('"$0" "$1"; rc=$?; echo "# exit $rc after $SECONDS s"; '
                  '[ $rc = 0 ] && [ $# -gt 2 ] || exit $rc; '
                  'k=$(grep "bzImage$" "$2" | tail -n 1); shift 2; '
                  'exec "$@" --kernel "$k"')
        with open(log, 'w') as f:
            self.proc = subprocess.Popen(
                ['nice', '-n', '19', 'bash', '-c', script,
                 os.path.join(REPO, 'scripts', 'build.sh'), flavor, log,
                 *self.then],
                stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                cwd=os.path.join(REPO, 'tests'))

    def wait(self):
        """The exit status of the build, or of the command after it (None:
        none was started)."""
        return None if self.proc is None else self.proc.wait()

    def result(self):
        """The bzImage's path once built (the command after it may still
        be running); the log's end if the build failed."""
        while True:
            with open(self.log, errors='replace') as f:
                text = f.read()
            ends = re.findall(r'^# exit (\d+) after', text, re.M)
            if ends or self.proc.poll() is not None:
                break
            time.sleep(5)
        if not ends or ends[0] != '0':
            pytest.fail(f'scripts/build.sh {self.flavor} failed '
                        f'({ends[0] if ends else self.proc.returncode}), '
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
    in the background, and its suite runs after it (see phase())."""
    path = _build('lean')
    if request.config.stash.get(WANTS_DEBUG, False) and \
            _background.proc is None:
        root = os.path.join(cache_dir(), 'results', 'check')
        stale = os.path.join(debugsuite.out_dir(root), 'suite.json')
        if os.path.exists(stale):
            os.unlink(stale)
        _background.start('debug', os.path.join(root, 'debug-build.log'),
                          then=[sys.executable, '-m', 'harness.debugsuite',
                                '--out', root])
    return path


@pytest.fixture(scope='session')
def hdd_tool():
    """The emulated disk's server (tests/tools/hdd), built once into the
    cache, where guest tests find it through the host root."""
    return vm.build_hdd()


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
