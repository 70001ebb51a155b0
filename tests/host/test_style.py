# SPDX-License-Identifier: GPL-2.0
"""The kernel tree's own quality gates on our kernel code, from the 6.12
tree of scripts/get-tree.sh: checkpatch.pl --strict with no error, no
warning and only the checks scripts/checkpatch-kept.txt lists, on the new
files and on the quilt patches; kernel-doc -Wall silent on the new files;
sparse (make C=2) silent on the new objects of the lean kernel."""
import glob
import os
import re
import subprocess

import pytest

from conftest import REPO, cache_dir

pytestmark = pytest.mark.tree

NEW_FILES = sorted(
    glob.glob(os.path.join(REPO, 'block', '*.[ch]')) +
    [os.path.join(REPO, 'include', 'linux', 'cfq-iosched.h')] +
    glob.glob(os.path.join(REPO, 'tests', 'kunit', '*.c')))
PATCHES = sorted(glob.glob(os.path.join(REPO, 'patches', '*.patch')))

# The objects sparse checks: every new .c file is built into one of them.
SPARSE_OBJECTS = ['block/cfq-iosched.o', 'block/cfq-cgroup.o']


def kept_checks():
    """(file, checkpatch type) of each CHECK we keep; the reasons are in
    the file, which the series' cover letter quotes."""
    kept = set()
    with open(os.path.join(REPO, 'scripts', 'checkpatch-kept.txt')) as f:
        for line in f:
            if line.strip() and not line.startswith('#'):
                path, typ, _ = line.rstrip('\n').split('\t')
                kept.add((path, typ))
    return kept


KEPT_CHECKS = kept_checks()

LINE = re.compile(r'^(?P<path>[^:]+):\d+: (?P<level>ERROR|WARNING|CHECK):'
                  r'(?P<type>[A-Z_]+):')


@pytest.fixture(scope='module')
def tree():
    out = subprocess.run([os.path.join(REPO, 'scripts', 'get-tree.sh')],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


def checkpatch(tree, *args):
    """Findings as (path relative to the repo, level, type, line).  Run
    outside the repo with absolute paths: given a relative path inside
    a git checkout, checkpatch misreads a patch's blank context lines as
    added trailing whitespace."""
    res = subprocess.run([os.path.join(tree, 'scripts', 'checkpatch.pl'),
                          '--strict', '--terse', '--show-types', '--no-tree',
                          '--no-summary', *args],
                         cwd='/', stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    found = []
    for line in res.stdout.splitlines():
        m = LINE.match(line)
        assert m or not line.strip(), f'unparsed checkpatch line: {line}'
        if m:
            found.append((os.path.relpath(m['path'], REPO), m['level'],
                          m['type'], line))
    return found


def test_checkpatch_new_files(tree):
    found = checkpatch(tree, '-f', *NEW_FILES)
    bad = [f[3] for f in found if (f[0], f[2]) not in KEPT_CHECKS or
           f[1] != 'CHECK']
    assert not bad, '\n'.join(bad)


def test_checkpatch_patches(tree):
    found = checkpatch(tree, *PATCHES)
    assert not found, '\n'.join(f[3] for f in found)


def test_kernel_doc(tree):
    res = subprocess.run([os.path.join(tree, 'scripts', 'kernel-doc'),
                          '-none', '-Wall', *NEW_FILES],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    assert res.returncode == 0 and res.stdout == '', res.stdout


def test_sparse(tree, lean_kernel):
    """make C=2 (sparse on every source of the objects, whether or not
    it needs compiling) in the lean build, on the objects that hold every
    new file: no warning, no error.  Without W=1: it would recompile the
    lean kernel's objects with other flags, and W=1 does not change what
    sparse checks (kbuild passes it the compiler's -W options, and sparse
    has none of W=1's); the W=1 compiler warnings are judged on the same
    files by the series test (tests/host/test_series.py)."""
    build = os.path.join(cache_dir(), 'build', 'lean')
    res = subprocess.run(['make', '-s', '-C', tree, f'O={build}',
                          'ARCH=x86_64', 'CC=ccache gcc', 'C=2',
                          *SPARSE_OBJECTS],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    assert res.returncode == 0, res.stdout[-3000:]
    assert res.stdout.strip() == '', res.stdout
