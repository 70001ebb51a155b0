# SPDX-License-Identifier: GPL-2.0
"""The patch series (scripts/series.py, `make series`).  Host-only: every
quilt patch and new file of the repo belongs to exactly one step; how a
step's files are derived from the final ones (Kconfig blocks, Makefile
lines, the MAINTAINERS entry), the commit messages and the cover
letter's results table.  On the 6.12 tree (`tree`): the series itself,
generated, applied with git am onto the base, checkpatch --strict on
every patch, and a W=1 build of block/ at the first and the last patch
(`make series-check` builds every patch)."""
import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location(
    'series', os.path.join(REPO, 'scripts', 'series.py'))
series = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(series)

KCONFIG = '''config A
	bool "a"
	help
	  A, not to be confused with B.

config B
	bool "b"
	depends on A
	help
	  B.

config C
	bool "c"

endmenu
'''


def test_every_change_is_in_one_step():
    steps = series.load_steps()
    series.validate(steps, series.quilt_series(), set(series.new_files()))
    assert all(s.message or len(s.quilt) == 1 for s in steps)


def test_unassigned_and_doubled_changes_are_named(tmp_path):
    for name, text in (('01-a.txt', 'Quilt: p1.patch\n'),
                       ('02-b.txt', 'Adds: block/x.c block/x.c\n\nm\n')):
        (tmp_path / name).write_text(text)
    steps = series.load_steps(str(tmp_path))
    with pytest.raises(series.SeriesError) as e:
        series.validate(steps, ['p1.patch', 'p2.patch'],
                        {'block/x.c', 'block/y.c'})
    msg = str(e.value)
    assert 'quilt patch p2.patch is in no step' in msg
    assert 'new file block/y.c is in no step' in msg
    assert 'block/x.c is already in 02-b.txt' in msg


def test_bad_step_header(tmp_path):
    (tmp_path / '01-a.txt').write_text('Files: x\n\nsubject\n')
    with pytest.raises(series.SeriesError, match='bad header line'):
        series.load_steps(str(tmp_path))


def test_kconfig_block_of_a_later_symbol_goes():
    text = series.drop_kconfig_block(KCONFIG, 'C')
    assert text == KCONFIG.replace('config C\n\tbool "c"\n\n', '')
    text = series.drop_kconfig_block(KCONFIG, 'B')
    assert 'config B' not in text and 'config C' in text
    assert '\n\n\n' not in text
    # Help text may name it; code may not.
    assert series.code_refs('block/Kconfig', text, 'B') == []
    assert series.code_refs('block/Kconfig', KCONFIG.replace(
        'config B', 'config X'), 'B') == []
    assert series.code_refs('block/Kconfig', series.drop_kconfig_block(
        KCONFIG, 'A'), 'A') == ['\tdepends on A']
    with pytest.raises(series.SeriesError):
        series.drop_kconfig_block(KCONFIG, 'D')


def test_makefile_lines_of_a_later_symbol_go():
    mk = 'obj-$(CONFIG_A)\t+= a.o\nobj-$(CONFIG_AB)\t+= ab.o\n'
    assert series.drop_make_lines(mk, 'A') == 'obj-$(CONFIG_AB)\t+= ab.o\n'
    with pytest.raises(series.SeriesError):
        series.drop_make_lines('obj-$(CONFIG_A) += a.o \\\n\tb.o\n', 'A')


def test_c_code_refs():
    text = ('/* Without CONFIG_X nothing. */\n#ifdef CONFIG_X\n'
            'if (IS_ENABLED(CONFIG_X))\n')
    assert series.code_refs('a.c', text, 'X') == [
        '#ifdef CONFIG_X', 'if (IS_ENABLED(CONFIG_X))']


MAINTAINERS = '''Preamble

	M: *Mail* patch to

AAA DRIVER
M:	A <a@x>
S:	Maintained

ZZZ OUT OF ORDER
M:	Z <z@x>

CEPH
M:	C <c@x>

CHAR DRIVERS
M:	H <h@x>
'''


def test_maintainers_entry_in_order():
    entry = series.maintainers_entry(
        '# comment\nCFQ I/O SCHEDULER\nM:\t@AUTHOR@\nS:\tMaintained\n',
        'Me <me@x>', ['block/b.c', 'Documentation/d.rst', 'block/a.c'])
    assert entry == ('CFQ I/O SCHEDULER\nM:\tMe <me@x>\nS:\tMaintained\n'
                     'F:\tDocumentation/d.rst\nF:\tblock/a.c\n'
                     'F:\tblock/b.c\n')
    text = series.insert_maintainers(MAINTAINERS, entry)
    assert text == MAINTAINERS.replace('CHAR DRIVERS',
                                       entry + '\nCHAR DRIVERS')


def test_messages_are_signed_off():
    steps = series.load_steps()
    me = 'Someone Else <else@example.org>'
    for s in steps:
        text = series.message(s, me)
        subject, blank, _ = text.split('\n', 2)
        assert subject and len(subject) <= 75 and not blank, s.name
        assert text.endswith(f'Signed-off-by: {me}\n'), s.name
        if s.quilt and not s.message:
            # The quilt patch's own sign-off stays, ours follows.
            assert text.count('Signed-off-by:') == 2, s.name


def test_results_table_from_the_readme():
    text = series.readme_results(os.path.join(REPO, 'README.md'))
    lines = text.splitlines()
    head = [i for i, ln in enumerate(lines) if ln.startswith('case ')]
    assert len(head) == 1 and set(lines[head[0] + 1]) <= {'-', ' '}
    rows = lines[head[0] + 2:]
    assert len(rows) >= 10 and '|' not in text and '**' not in text
    assert all(len(r.split()) >= 6 for r in rows)


@pytest.mark.tree
def test_series_applies_builds_and_passes_checkpatch():
    """series.py check: generated, git am onto the base (each resulting
    tree the generated commit's), checkpatch --strict clean on every
    patch but for the kept CHECKs, W=1 build of block/ clean at the
    first and the last patch."""
    res = subprocess.run([sys.executable,
                          os.path.join(REPO, 'scripts', 'series.py'),
                          'check'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    print(res.stderr)
    assert res.returncode == 0, res.stderr[-4000:]
    out = res.stdout.strip()
    names = sorted(os.listdir(out))
    assert names[0] == '0000-cover-letter.patch'
    assert len(names) == len(series.load_steps()) + 1
