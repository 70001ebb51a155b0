# SPDX-License-Identifier: GPL-2.0
"""How a finished VM run is judged, from the files it left."""
import os
import time

import pytest

from harness import vm


def _results(tmp_path, console='', exit_code='0', files=()):
    (tmp_path / 'console.log').write_text(console)
    if exit_code is not None:
        (tmp_path / 'exit-code').write_text(exit_code + '\n')
    for f in files:
        (tmp_path / f).write_text('{}')
    return str(tmp_path)


def test_clean_run(tmp_path, fixture):
    res = vm.judge(_results(tmp_path, fixture('clean-boot-console.log'),
                            files=['a.json']), ['a.json'])
    assert res.ok, res.reasons


def test_missing_result_file_fails(tmp_path):
    res = vm.judge(_results(tmp_path), ['a.json'])
    assert not res.ok and res.reasons == ['missing result file a.json']


def test_no_exit_code_fails(tmp_path):
    res = vm.judge(_results(tmp_path, exit_code=None), [])
    assert not res.ok and 'did not finish' in res.reasons[0]


def test_qemu_message_is_quoted_when_the_job_did_not_finish(tmp_path):
    results = _results(tmp_path, exit_code=None)
    (tmp_path / vm.QEMU_ERR).write_text(
        'qemu-system-x86_64: -drive file=/c/hdd: Failed to get "write" '
        'lock\nIs another process using the image [/c/hdd]?\n')
    res = vm.judge(results, [])
    assert not res.ok
    assert res.reasons[1].startswith('qemu: ') and 'lock' in res.reasons[1]


def test_qemu_message_alone_does_not_fail_a_finished_job(tmp_path):
    results = _results(tmp_path)
    (tmp_path / vm.QEMU_ERR).write_text('qemu: terminating on signal 15\n')
    assert vm.judge(results, []).ok


def test_job_failure_fails(tmp_path):
    res = vm.judge(_results(tmp_path, exit_code='3'), [])
    assert not res.ok and res.exit_code == 3


def test_warning_fails(tmp_path, fixture):
    res = vm.judge(_results(tmp_path, fixture('lkdtm-warn-console.log')), [])
    assert not res.ok and res.splats[0][0] == 'warning'


def test_timeout_fails(tmp_path):
    res = vm.judge(_results(tmp_path), [], timed_out=True)
    assert not res.ok and 'VM timed out' in res.reasons


def _guest(console, script):
    """A stand-in for QEMU: a shell that writes `script`'s output to the
    console log."""
    return ['sh', '-c', f'exec >>{console}; {script}']


def test_a_guest_that_goes_on_slowly_is_not_stopped(tmp_path):
    console = str(tmp_path / 'console.log')
    script = 'for t in a b c d; do echo "guest-test: $t"; sleep 1; done'
    assert vm.boot_and_wait(_guest(console, script), console, 60, None,
                            stall=3) == 'done'


def test_a_guest_whose_tests_stop_ending_is_stopped(tmp_path):
    console = str(tmp_path / 'console.log')
    # Console output that is not a test starting or ending is no progress.
    script = ('echo "guest-test: a"; '
              'while :; do echo "[ 1.0] a kernel message"; sleep 0.2; done')
    t = time.monotonic()
    assert vm.boot_and_wait(_guest(console, script), console, 60, None,
                            stall=2) == 'stall'
    assert time.monotonic() - t < 10


def test_progress_split_between_two_reads(tmp_path):
    console = tmp_path / 'console.log'
    console.write_bytes(b'x\nguest-te')
    progress = vm.Progress(str(console))
    progress.last -= 100
    assert progress.idle() >= 100
    with open(console, 'ab') as f:
        f.write(b'st: b rc=0 1.0s\n')
    assert progress.idle() < 1


def test_command_line_has_the_panic_knobs():
    for arg in ('panic=-1', 'oops=panic', 'softlockup_panic=1'):
        assert arg in vm.BASE_CMDLINE


def test_icount_runs_on_an_instruction_clock(tmp_path):
    """--icount: one TCG thread whose clock counts guest instructions,
    never KVM or multi-threaded TCG (whose clocks are the host's)."""
    argv = vm.qemu_argv('bzImage', str(tmp_path), cpus=1, icount=True)
    accel = argv[argv.index('-accel') + 1]
    assert accel == 'tcg'
    assert argv[argv.index('-icount') + 1] == 'shift=0'
    assert argv[argv.index('-smp') + 1] == '1'
    plain = vm.qemu_argv('bzImage', str(tmp_path))
    assert '-icount' not in plain


def test_skip_idle_jumps_the_clock_over_idle_time(tmp_path):
    """--skip-idle: the instruction clock with sleep=off; it means
    nothing on the host's clock, and is refused there."""
    argv = vm.qemu_argv('bzImage', str(tmp_path), icount=True,
                        skip_idle=True)
    assert argv[argv.index('-icount') + 1] == 'shift=0,sleep=off'
    with pytest.raises(ValueError):
        vm.qemu_argv('bzImage', str(tmp_path), skip_idle=True)


def test_the_cache_is_a_share_of_its_own(tmp_path, monkeypatch):
    """A cache under /tmp (make check CACHE=/tmp/...) is hidden by the
    guest's tmpfs in the host root: the guest must get it as its own
    share (a cold-cache run lost the emulated disk's binary so)."""
    monkeypatch.setenv('CFQ_CACHE', '/tmp/cold-cache')
    argv = vm.qemu_argv('bzImage', str(tmp_path))
    shares = [a for a in argv if a.startswith('local,id=cache,')]
    assert shares and 'path=/tmp/cold-cache,' in shares[0]
    assert 'readonly=on' in shares[0]
    assert 'virtio-9p-pci,fsdev=cache,mount_tag=cache' in argv


def test_steal_share():
    """Steal is the eighth field of /proc/stat's cpu line."""
    before = [100, 0, 50, 800, 0, 0, 0, 50]
    after = [200, 0, 100, 1550, 0, 0, 0, 150]
    assert vm.steal_pct(before, after) == 10.0
    assert vm.steal_pct(None, after) is None
    assert vm.steal_pct(before[:4], after[:4]) is None


def _guest_run(tdir, rcs, dmesg=None, leaks=None):
    """Files run-tests.sh leaves: NAME.rc, NAME.dmesg, NAME.kmemleak."""
    tdir.mkdir(parents=True, exist_ok=True)
    for name, rc in rcs.items():
        (tdir / f'{name}.rc').write_text(f'{rc}\n')
        (tdir / f'{name}.log').write_text('')
        (tdir / f'{name}.dmesg').write_text((dmesg or {}).get(name, ''))
        (tdir / f'{name}.kmemleak').write_text((leaks or {}).get(name, ''))


def test_only_verdict_failures_run_again(tmp_path, fixture):
    _guest_run(tmp_path, {'a': 0, 'b': 1, 'c': 1, 'd': 1},
               dmesg={'c': fixture('lkdtm-warn-console.log')},
               leaks={'d': 'unreferenced object 0xffff888004b1c000'})
    assert vm.timing_failures(str(tmp_path), ['a', 'b', 'c', 'd']) == ['b']


def test_a_failure_is_judged_on_its_second_run(tmp_path, monkeypatch):
    boots = []

    def fake_run(kernel, command, results, expect=(), **kw):
        names = command.split()[2:]
        boots.append(names)
        second = results.endswith('-again')
        rcs = {n: 0 if second or n == 'a' else 1 for n in names}
        _guest_run(tmp_path / os.path.basename(results) / 't', rcs)
        return vm.Result(ok=True, results=results)

    monkeypatch.setattr(vm, 'run', fake_run)
    res, dirs, again = vm.run_guest_tests('bz', str(tmp_path / 'g'),
                                          ['a', 'b'])
    assert boots == [['a', 'b'], ['b']] and again == ['b']
    assert dirs == {'a': str(tmp_path / 'g' / 't'),
                    'b': str(tmp_path / 'g-again' / 't')}
    (tmp_path / 'g' / 't' / 'b.log').write_text(
        'ok: one\nAssertionError: g7: 117 writes, 0 verified\n')
    suite = (res, dirs, again)
    assert vm.judged_dir(suite, 'a') == dirs['a']
    with pytest.warns(UserWarning, match='b failed its first run') as w:
        assert vm.judged_dir(suite, 'b') == dirs['b']
    assert 'AssertionError: g7: 117 writes, 0 verified' in str(w[0].message)


def test_a_failed_boot_is_not_run_again(tmp_path, monkeypatch):
    boots = []

    def fake_run(kernel, command, results, expect=(), **kw):
        boots.append(command)
        return vm.Result(ok=False, results=results, reasons=['VM timed out'])

    monkeypatch.setattr(vm, 'run', fake_run)
    res, _, again = vm.run_guest_tests('bz', str(tmp_path / 'g'), ['a'])
    assert not res.ok and again == [] and len(boots) == 1
