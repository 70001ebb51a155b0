# SPDX-License-Identifier: GPL-2.0
"""scripts/apply.sh on a small fake 6.12 tree: idempotent, reversible,
and a patch that does not apply stops with its name."""
import os
import shutil
import subprocess

import pytest

from conftest import REPO

PATCH = '''Subject: [PATCH] block: add cfq to the Makefile

---
--- a/block/Makefile
+++ b/block/Makefile
@@ -1,2 +1,3 @@
 obj-y += a.o
 obj-y += b.o
+obj-y += cfq-iosched.o
'''

BAD_PATCH = PATCH.replace(' obj-y += b.o', ' obj-y += zzz.o')


@pytest.fixture
def setup(tmp_path):
    repo = tmp_path / 'repo'
    shutil.copytree(os.path.join(REPO, 'scripts'), repo / 'scripts')
    (repo / 'patches').mkdir()
    (repo / 'patches' / 'makefile.patch').write_text(PATCH)
    (repo / 'series').write_text('# the series\nmakefile.patch\n')
    (repo / 'block').mkdir()
    (repo / 'block' / 'cfq-iosched.c').write_text('/* new */\n')
    tree = tmp_path / 'tree'
    (tree / 'block').mkdir(parents=True)
    (tree / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 12\n')
    (tree / 'block' / 'Makefile').write_text('obj-y += a.o\nobj-y += b.o\n')
    return repo, tree


def apply(repo, tree):
    env = dict(os.environ, LINUX_SRC=str(tree), CFQ_CACHE=str(tree) + '.c',
               HOME=str(tree.parent))
    return subprocess.run([str(repo / 'scripts' / 'apply.sh')], env=env,
                          capture_output=True, text=True)


def test_apply_is_idempotent(setup):
    repo, tree = setup
    r = apply(repo, tree)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tree)
    mk = tree / 'block' / 'Makefile'
    assert 'cfq-iosched.o' in mk.read_text()
    assert (tree / 'block' / 'cfq-iosched.c').read_text() == '/* new */\n'
    stamps = [os.stat(p).st_mtime_ns
              for p in (mk, tree / 'block' / 'cfq-iosched.c')]
    r = apply(repo, tree)
    assert r.returncode == 0, r.stderr
    assert [os.stat(p).st_mtime_ns
            for p in (mk, tree / 'block' / 'cfq-iosched.c')] == stamps
    assert mk.read_text().count('cfq-iosched.o') == 1


def test_changed_set_is_reapplied(setup):
    repo, tree = setup
    assert apply(repo, tree).returncode == 0
    (repo / 'series').write_text('')
    (repo / 'block' / 'cfq-iosched.c').unlink()
    r = apply(repo, tree)
    assert r.returncode == 0, r.stderr
    assert (tree / 'block' / 'Makefile').read_text() == \
        'obj-y += a.o\nobj-y += b.o\n'
    assert not (tree / 'block' / 'cfq-iosched.c').exists()


def test_bad_patch_is_named(setup):
    repo, tree = setup
    (repo / 'patches' / 'makefile.patch').write_text(BAD_PATCH)
    r = apply(repo, tree)
    assert r.returncode != 0
    assert 'makefile.patch does not apply' in r.stderr


def test_wrong_kernel_version(setup):
    repo, tree = setup
    (tree / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 6\n')
    r = apply(repo, tree)
    assert r.returncode != 0 and 'is Linux 6.6' in r.stderr
