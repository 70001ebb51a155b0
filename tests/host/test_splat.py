# SPDX-License-Identifier: GPL-2.0
"""The splat detector, on console logs captured from real boots of the
test kernel (LKDTM raised each condition through debugfs)."""
import pytest

from harness import splat


def test_clean_boot_has_no_splat(fixture):
    # Its command line says softlockup_panic=1 hung_task_panic=1 and
    # lkdtm prints at boot: none of that is a splat.
    assert splat.find_splats(fixture('clean-boot-console.log')) == []


@pytest.mark.parametrize('name,kind,text', [
    ('lkdtm-warn-console.log', 'warning', 'lkdtm_WARNING'),
    ('lkdtm-bug-console.log', 'kernel-bug', 'drivers/misc/lkdtm/bugs.c'),
    ('lkdtm-hung-console.log', 'hung-task', 'blocked for more than 3'),
    ('lkdtm-soft-console.log', 'bug', 'soft lockup - CPU#'),
])
def test_real_splats_are_found(fixture, name, kind, text):
    hits = splat.find_splats(fixture(name))
    assert hits, f'{name}: no splat found'
    assert hits[0][0] == kind
    assert text in hits[0][1]


def test_user_output_cannot_fail_a_run():
    # A test printing the word is not the kernel printing it.
    log = 'WARNING: this is fio talking\r\nBUG: not the kernel\r\n'
    assert splat.find_splats(log) == []


def test_crlf_and_timestamps_are_handled():
    log = '[   12.345678] WARNING: CPU: 0 PID: 1 at block/x.c:1 f+0x1/0x2\r\n'
    assert splat.find_splats(log) == [
        ('warning', 'WARNING: CPU: 0 PID: 1 at block/x.c:1 f+0x1/0x2')]


@pytest.mark.parametrize('line', [
    'BUG: KASAN: slab-use-after-free in cfq_dispatch+0x1/0x2',
    'UBSAN: shift-out-of-bounds in block/cfq-iosched.c:10:3',
    'WARNING: possible circular locking dependency detected',
    'kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)',
    'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:',
    'list_add corruption. prev->next should be next (ffff), but was 0.',
])
def test_debug_kernel_reports_are_splats(line):
    assert splat.find_splats(f'[    1.000000] {line}\n')
