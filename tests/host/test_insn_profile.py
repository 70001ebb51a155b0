# SPDX-License-Identifier: GPL-2.0
"""tests/tools/insn-profile: what it refuses before it boots anything."""
import os
import subprocess

import pytest

from conftest import REPO

TOOL = os.path.join(REPO, 'tests', 'tools', 'insn-profile', 'insn-profile.sh')


def run(tmp_path, *args):
    # A kernel path with no System.map beside it: arguments that pass
    # every check stop there, before a VM is started.
    boot = tmp_path / 'arch' / 'x86' / 'boot'
    boot.mkdir(parents=True, exist_ok=True)
    return subprocess.run([TOOL, '-k', str(boot / 'bzImage'), *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)


@pytest.mark.parametrize('args, says', [
    ([], 'name one or more schedulers'),
    (['-n', '4', '-g', '3', 'cfq'], 'cannot be spread evenly'),
    (['-n', '2', '-g', '3', 'cfq'], 'cannot be spread evenly'),
    (['-n', '76', '-p', '0,4,7', 'cfq'], 'cannot be spread evenly'),
    (['-n', '6', '-g', '2', '-p', '0,4,7', 'cfq'], 'one or the other'),
    (['-p', '0,4,8', 'cfq'], 'priorities 0-7'),
    (['-p', '0,,4', 'cfq'], 'priorities 0-7'),
    (['-p', '0,4,', 'cfq'], 'priorities 0-7'),
    (['-b', 'irqmode', 'cfq'], "KEY=VALUE words: 'irqmode'"),
    (['-b', 'irqmode=2 x;y=1', 'cfq'], "KEY=VALUE words: 'x;y=1'"),
    (['-b', 'a=$(id)', 'cfq'], 'KEY=VALUE words'),
    (['-r', '0', 'cfq'], "'default': '0'"),
    (['-r', '64k', 'cfq'], "'default': '64k'"),
    (['-w', 'write', 'cfq'], "read or randread: 'write'"),
    (['-s', '1G;', 'cfq'], "block size like 4k or 1M: '1G;'"),
    (['-s', '0', 'cfq'], 'block size'),
    (['-n', '2', '-p', '7,0', '-l', '0', 'cfq'], 'gives 1 levels for 2 groups'),
    (['-l', '8', 'cfq'], 'levels 0-7'),
])
def test_refused(tmp_path, args, says):
    r = run(tmp_path, *args)
    assert r.returncode == 1
    assert says in r.stderr
    assert 'System.map' not in r.stderr


@pytest.mark.parametrize('args', [
    ['cfq'],
    ['-n', '6', '-g', '3', 'cfq', 'none'],
    ['-n', '75', '-p', '0,4,7', 'cfq'],
    ['-n', '2', '-p', '7,0', '-b',
     'irqmode=2 completion_nsec=200000 hw_queue_depth=32 submit_queues=2',
     'mq-deadline'],
    ['-n', '3', '-p', '0,4,7', '-r', 'default', 'cfq'],
    ['-r', '64', 'cfq'],
    ['-n', '2', '-p', '7,0', '-l', '0,7', '-w', 'read', '-s', '1M', 'cfq'],
    ['-w', 'randread', '-s', '64k', '-l', '3', 'cfq'],
])
def test_accepted(tmp_path, args):
    r = run(tmp_path, *args)
    assert r.returncode == 1
    assert 'no System.map' in r.stderr
