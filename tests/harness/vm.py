# SPDX-License-Identifier: GPL-2.0
"""Boot a test kernel under QEMU, run one guest job, judge the run.

The guest sees the host's / read-only over virtio-9p (so it has the host's
bash, fio and python3), this repo and the cache ($CFQ_CACHE) read-only at
their host paths (shares of their own, so that a checkout or a cache
under /tmp, which the guest mounts a tmpfs on, works) and a read-write 9p
share of the results directory.  The job is a bash script; whatever it
writes into its working directory comes back to the host.

A run fails if the VM times out, if the kernel log shows a splat (see
splat.py), if the job exits non-zero, or if an expected result file is
missing.

CLI: python3 -m harness.vm --kernel BZIMAGE --results DIR \
        [--expect FILE]... [--timeout S] [--append ARGS] -- COMMAND...
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field

from harness import splat

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
INIT = os.path.join(REPO, 'tests', 'guest', 'init')

BASE_CMDLINE = [
    'console=ttyS0', 'root=/dev/root', 'rootfstype=9p',
    'rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose',
    'ro', f'init={INIT}',
    'panic=-1', 'oops=panic', 'softlockup_panic=1', 'hung_task_panic=1',
    'nmi_watchdog=0', 'tsc=reliable', 'no_hash_pointers',
    # null_blk devices are made through configfs by the tests.
    'null_blk.nr_devices=0',
]


@dataclass
class Result:
    ok: bool
    reasons: list = field(default_factory=list)
    splats: list = field(default_factory=list)
    exit_code: int = None
    seconds: float = 0.0
    results: str = ''
    # Per cent of the host's CPU time its hypervisor took away while the
    # guest ran (steal, from /proc/stat): under TCG the guest slows down
    # with it, and timings with it; None where the host does not say.
    steal: float = None


def cpu_times():
    """The host's CPU times (the 'cpu' line of /proc/stat), or None."""
    try:
        with open('/proc/stat') as f:
            return [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def steal_pct(before, after):
    """Steal's part of the CPU time between two cpu_times(), in per
    cent; None without both, or without a steal field (the eighth)."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])
    return 100.0 * (after[7] - before[7]) / total if total > 0 else None


def kvm_usable():
    """KVM only where the device exists and the CPU exposes VMX/SVM."""
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return False
    with open('/proc/cpuinfo') as f:
        flags = f.read()
    return ' vmx' in flags or ' svm' in flags


def cache_dir():
    """The cache: kernel trees and builds, and the host-built tools the
    guest runs (the emulated disk)."""
    return os.environ.get('CFQ_CACHE',
                          os.path.expanduser('~/.cache/cfq-iosched'))


def qemu_argv(kernel, results, cpus=2, mem='2G', append=(), drives=(),
              icount=False, plugins=(), skip_idle=False):
    """With icount, the guest's clock counts the instructions it runs
    (1 ns each, TCG only, one host thread for all vCPUs): time measured
    in the guest is then work done, mostly whatever else the host is
    doing: while the guest idles its clock follows the host's (QEMU's
    default sleep=on), so a host short of CPU still shows.

    skip_idle (with icount) adds sleep=off: while every vCPU waits, the
    clock jumps to the guest's next timer (a device's completion, a
    task's sleep), so what the guest measures does not move with the
    host's load or the VMs beside it.  The clock also jumps while the
    guest waits for the host's 9p files, by up to the next timer each
    time: a program's first start can take guest seconds.  Only the
    bench harness uses it (tests/guest/bench.py: warm_up(), copy_out()
    and Ticker keep the host's files and long jumps out of its
    measurements)."""
    if skip_idle and not icount:
        raise ValueError('skip_idle needs icount')
    if icount:
        accel = ['-accel', 'tcg', '-icount',
                 'shift=0' + (',sleep=off' if skip_idle else ''),
                 '-cpu', 'max']
    elif kvm_usable():
        accel = ['-accel', 'kvm', '-cpu', 'host']
    else:
        accel = ['-accel', 'tcg,thread=multi', '-cpu', 'max']
    argv = ['qemu-system-x86_64', *accel, '-smp', str(cpus), '-m', mem,
            '-kernel', kernel,
            '-append', ' '.join(BASE_CMDLINE + list(append)),
            '-fsdev', 'local,id=root,path=/,security_model=none,readonly=on,multidevs=remap',
            '-device', 'virtio-9p-pci,fsdev=root,mount_tag=/dev/root',
            '-fsdev', f'local,id=res,path={results},security_model=none',
            '-device', 'virtio-9p-pci,fsdev=res,mount_tag=results',
            '-fsdev', f'local,id=repo,path={REPO},security_model=none,'
            'readonly=on',
            '-device', 'virtio-9p-pci,fsdev=repo,mount_tag=repo',
            '-fsdev', f'local,id=cache,path={cache_dir()},'
            'security_model=none,readonly=on',
            '-device', 'virtio-9p-pci,fsdev=cache,mount_tag=cache',
            '-display', 'none', '-monitor', 'none', '-no-reboot',
            '-serial', f'file:{os.path.join(results, "console.log")}']
    for i, path in enumerate(drives):
        argv += ['-drive', f'file={path},format=raw,if=virtio,cache=none,'
                 f'aio=threads,id=d{i}']
    for plugin in plugins:
        argv += ['-plugin', plugin]
    return argv


def judge(results, expect, timed_out=False):
    """Decide a finished run from the files it left in `results`."""
    res = Result(ok=True, results=results)
    if timed_out:
        res.reasons.append('VM timed out')
    log = ''
    for name in ('console.log', 'dmesg.txt'):
        path = os.path.join(results, name)
        if os.path.exists(path):
            with open(path, errors='replace') as f:
                log += f.read() + '\n'
    seen = set()
    for name, line in splat.find_splats(log):
        if line not in seen:
            seen.add(line)
            res.splats.append((name, line))
    if res.splats:
        res.reasons.append(f'kernel splat: {res.splats[0][1]}')
    code_path = os.path.join(results, 'exit-code')
    if os.path.exists(code_path):
        with open(code_path) as f:
            text = f.read().strip()
        res.exit_code = int(text) if text.lstrip('-').isdigit() else None
        if res.exit_code != 0:
            res.reasons.append(f'guest job exited {text}')
    else:
        res.reasons.append('guest job did not finish (no exit-code)')
        qemu_err = _read(os.path.join(results, QEMU_ERR)).strip()
        if qemu_err:
            res.reasons.append('qemu: ' + qemu_err[-500:])
    for rel in expect:
        if not os.path.exists(os.path.join(results, rel)):
            res.reasons.append(f'missing result file {rel}')
    res.ok = not res.reasons
    return res


BOOTED = 'cfq-vm: running job'


QEMU_ERR = 'qemu.stderr'


def boot_and_wait(argv, console, timeout, boot_timeout, stall=None):
    """Run QEMU for at most `timeout` s.  Returns 'done', 'timeout', or
    'boot-hang' when the guest has not started the job (tests/guest/init
    prints BOOTED) within `boot_timeout` s, or, with `stall`, 'stall' when
    no guest test has started or ended (run-tests.sh's PROGRESS lines on
    the console) for `stall` s.  QEMU's own messages (a drive it could
    not lock, an option it refused) go to QEMU_ERR beside the console
    log; judge() quotes them when the job did not finish."""
    err_path = os.path.join(os.path.dirname(console), QEMU_ERR)
    with open(err_path, 'w') as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=err)
    start = time.monotonic()
    checked = not boot_timeout  # the console is read once, at boot_timeout
    progress = Progress(console)
    while proc.poll() is None:
        now = time.monotonic() - start
        verdict = 'timeout' if now > timeout else None
        if not verdict and not checked and now > boot_timeout:
            checked = True
            if not booted(console):
                verdict = 'boot-hang'
        if not verdict and stall and progress.idle() > stall:
            verdict = 'stall'
        if verdict:
            proc.kill()
            proc.wait()
            return verdict
        time.sleep(1)
    return 'done'


PROGRESS = b'guest-test: '


class Progress:
    """How long since PROGRESS last reached a console log, which is read
    a new part at a time."""

    def __init__(self, console):
        self.console, self.offset, self.tail = console, 0, b''
        self.last = time.monotonic()

    def idle(self):
        try:
            with open(self.console, 'rb') as f:
                f.seek(self.offset)
                new = f.read()
        except OSError:
            new = b''
        self.offset += len(new)
        text = self.tail + new
        if PROGRESS in text:
            self.last = time.monotonic()
        # What may be the start of a PROGRESS cut off by the read.
        self.tail = text[-(len(PROGRESS) - 1):]
        return time.monotonic() - self.last


def booted(console):
    try:
        with open(console, errors='replace') as f:
            return BOOTED in f.read()
    except OSError:
        return False


def run(kernel, command, results, expect=(), timeout=900, cpus=2,
        mem='2G', append=(), drives=(), quiet=False, boot_timeout=None,
        icount=False, plugins=(), skip_idle=False, stall=None):
    """Boot `kernel`, run `command` (a shell string) in the guest.  With
    boot_timeout, a guest that has not reached the job by then is killed
    and the run fails saying so, instead of waiting out `timeout`; with
    stall, so is one in which no guest test has started or ended for that
    long (a hang), while one that goes on, however slowly, may use all of
    `timeout`."""
    if os.path.exists(results):
        shutil.rmtree(results)
    os.makedirs(results)
    results = os.path.abspath(results)
    with open(os.path.join(results, 'job'), 'w') as f:
        f.write('set -o pipefail\n')
        f.write(f'export CFQ_REPO={shlex.quote(REPO)}\n')
        # The repo and the cache (host-built tools: the emulated disk)
        # are 9p shares of their own, mounted at their host paths: under
        # /tmp (a CI clone, `make check CACHE=/tmp/...`) the guest's
        # tmpfs hides them in the host root.
        cache = cache_dir()
        f.write(f'export CFQ_CACHE={shlex.quote(cache)}\n')
        for tag, path in (('repo', REPO), ('cache', cache)):
            f.write(f'mkdir -p {shlex.quote(path)} 2>/dev/null\n')
            f.write('mount -t 9p -o trans=virtio,version=9p2000.L,'
                    f'msize=262144,ro {tag} {shlex.quote(path)} '
                    '|| exit 125\n')
        f.write(f'cd {shlex.quote(REPO)}\n')
        f.write(command + '\n')
    os.makedirs(cache, exist_ok=True)
    argv = qemu_argv(kernel, results, cpus, mem, append, drives, icount,
                     plugins, skip_idle)
    console = os.path.join(results, 'console.log')
    start = time.monotonic()
    times = cpu_times()
    verdict = boot_and_wait(argv, console, timeout, boot_timeout, stall)
    res = judge(results, expect, verdict != 'done')
    if verdict == 'boot-hang':
        res.reasons.insert(0, f'guest did not boot within {boot_timeout} s')
    if verdict == 'stall':
        res.reasons.insert(0, f'no guest test started or ended for {stall} s')
    res.seconds = time.monotonic() - start
    res.steal = steal_pct(times, cpu_times())
    if not quiet:
        state = 'ok' if res.ok else 'FAILED: ' + '; '.join(res.reasons)
        steal = '' if res.steal is None else f', host steal {res.steal:.1f} %'
        print(f'vm: {res.seconds:.0f}s{steal}, {state} ({results})',
              file=sys.stderr)
    return res


def _read(path):
    if not os.path.exists(path):
        return ''
    with open(path, errors='replace') as f:
        return f.read()


def timing_failures(tdir, tests):
    """The tests of a guest suite run that failed on their own verdict
    only: exit status not 0, no splat in the messages printed while they
    ran, no kmemleak report after them."""
    bad = []
    for t in tests:
        rc = _read(os.path.join(tdir, f'{t}.rc')).strip()
        if rc in ('', '0'):
            continue
        if splat.find_splats(_read(os.path.join(tdir, f'{t}.dmesg'))):
            continue
        if _read(os.path.join(tdir, f'{t}.kmemleak')).strip():
            continue
        bad.append(t)
    return bad


def build_hdd():
    """The emulated disk's server (tests/tools/hdd), built on the host
    into the cache unless it is up to date there, where guest tests run
    it from through the host root; its path."""
    out = subprocess.run([os.path.join(REPO, 'scripts', 'build-hdd.sh')],
                         stdout=subprocess.PIPE, check=True, text=True)
    return out.stdout.strip().splitlines()[-1]


def run_guest_tests(kernel, out, tests, env='', **kw):
    """Run guest tests (tests/guest/run-tests.sh) in one boot into
    out/t.  A test that failed on its own verdict alone (a share, a rate,
    a count: timing under TCG on a shared host) runs once more, in a boot
    of its own into out-again/t, and is judged there; its first run stays
    on disk.  A splat, a leak or a failed boot is never run again.
    Returns (the first boot's Result, {test: its result directory},
    [the tests run again])."""
    def boot(where, names):
        res = run(kernel, f'{env}tests/guest/run-tests.sh /tmp/results/t '
                  + ' '.join(names), where,
                  expect=[f't/{t}.rc' for t in names], **kw)
        return res, os.path.join(where, 't')

    res, tdir = boot(out, tests)
    dirs = {t: tdir for t in tests}
    again = timing_failures(tdir, tests) if res.ok else []
    if again:
        print(f'vm: running again in a boot of their own: {again}',
              file=sys.stderr)
        res2, tdir2 = boot(out + '-again', again)
        if res2.ok:
            dirs.update({t: tdir2 for t in again})
    return res, dirs, again


def judged_dir(suite, name):
    """The result directory test `name` of a run_guest_tests() `suite` is
    judged on; one that ran again is named in a pytest warning, with its
    first log's path and its end (a CI machine's cache is gone when the
    run is read)."""
    res, dirs, again = suite
    if name in again:
        log = f'{res.results}/t/{name}.log'
        try:
            with open(log, errors='replace') as f:
                tail = f.read()[-800:]
        except OSError as e:
            tail = str(e)
        warnings.warn(f'{name} failed its first run and was run again; '
                      f'first run: {log}, ending:\n{tail}')
    return dirs[name]


def guest_command(argv, repeated=(), switches=()):
    """A guest job line: @argv, then for each (flag, values) in @repeated
    the flag once per value, then each (flag, set) in @switches that is
    set."""
    cmd = list(argv)
    for flag, values in repeated:
        for v in values:
            cmd += [flag, v]
    cmd += [flag for flag, on in switches if on]
    return ' '.join(cmd)


def show_job_log(results):
    """A failed run: the end of the guest job's log, on stderr."""
    with open(os.path.join(results, 'job.log'), errors='replace') as f:
        sys.stderr.write(f.read()[-3000:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--results', required=True)
    ap.add_argument('--expect', action='append', default=[])
    ap.add_argument('--timeout', type=int, default=900)
    ap.add_argument('--cpus', type=int, default=2)
    ap.add_argument('--mem', default='2G')
    ap.add_argument('--append', action='append', default=[])
    ap.add_argument('--drive', action='append', default=[])
    ap.add_argument('--icount', action='store_true',
                    help='the guest clock counts instructions (TCG)')
    ap.add_argument('--plugin', action='append', default=[],
                    help='a QEMU TCG plugin: PATH[,ARG=VALUE...]')
    ap.add_argument('command', nargs='+')
    args = ap.parse_args(argv)
    res = run(args.kernel, ' '.join(args.command), args.results,
              args.expect, args.timeout, args.cpus, args.mem, args.append,
              args.drive, icount=args.icount, plugins=args.plugin)
    return 0 if res.ok else 1


if __name__ == '__main__':
    sys.exit(main())
