# SPDX-License-Identifier: GPL-2.0
"""Bad input an operator may give, one row each: the kernel's usual
error, the state unchanged, and nothing printed by the kernel (read from
/dev/kmsg after every row).  The value tables of cfq-tunables and
cfq-cgroup-files reject the common malformed values; this adds padding,
overflow past 64 bits and page-sized input for every file, and the
operations around them."""
import ctypes
import errno
import os
import re
import subprocess

import devices
from gtest import check, mount_cfq, save, write_errno

LONG = '9' * 5000
rows = 0


class Kmsg:
    """New kernel messages since the last call."""

    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)

    def new(self):
        out = []
        while True:
            try:
                out.append(os.read(self.fd, 8192).decode(errors='replace'))
            except BlockingIOError:
                return out
            except BrokenPipeError:	# overwritten records: still news
                out.append('(lost records)')


kmsg = Kmsg()


def fd_write(fd, value):
    try:
        os.write(fd, value.encode())
        return 0
    except OSError as e:
        return e.errno


def mount(opts, target):
    """mount(2) of the v1 cgroup filesystem; 0 or the errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b'none', target.encode(), b'cgroup', 0,
                  opts.encode()) == 0:
        return 0
    return ctypes.get_errno()


def row(what, err, want, read=None, before=None, may_say=None):
    """One row: the errno, the value unchanged, the kernel quiet (or
    saying only what matches may_say: the kernel's own explanation)."""
    global rows
    if err != want:
        raise AssertionError(f'{what}: errno {err} '
                             f'({os.strerror(err) if err else "success"}),'
                             f' want {errno.errorcode[want]}')
    if read is not None and read() != before:
        raise AssertionError(f'{what}: value changed from {before} to '
                             f'{read()}')
    printed = [m for m in kmsg.new()
               if not (may_say and re.search(may_say, m))]
    if printed:
        raise AssertionError(f'{what}: the kernel printed {printed}')
    rows += 1


# 1. cfq on a queue that cannot take a scheduler (BLK_MQ_F_NO_SCHED, as
# null_blk's no_sched gives; 6.12's null_blk has no bio-based mode left)
# and unknown scheduler names.
path = f'{devices.NULLB_CFS}/nosched'
os.mkdir(path)
for k, v in (('size', 64), ('irqmode', 0), ('no_sched', 1), ('power', 1)):
    devices.write(f'{path}/{k}', v)
devices.wait_for('/dev/nosched')
kmsg.new()
sched = '/sys/block/nosched/queue/scheduler'
row('cfq on a no-scheduler queue', write_errno(sched, 'cfq'), errno.EOPNOTSUPP,
    lambda: devices.read(sched), 'none')
devices.remove_null_blk('nosched')

dev = devices.make_null_blk('badin', {'irqmode': 0, 'completion_nsec': 0,
                                      'hw_queue_depth': 64,
                                      'rotational': 0}, size_mb=64)
dev.set_scheduler('cfq')
kmsg.new()
sched = dev.queue('scheduler')
for name in ('cfqx', 'cfq cfq', '\n', LONG):
    row(f'scheduler {name[:12]!r}', write_errno(sched, name), errno.EINVAL,
        lambda: devices.read(sched), '[cfq]' in devices.read(sched) and
        devices.read(sched))
check(True, f'{rows} scheduler rows')

# 2. Every tunable: padding, signs, overflow past 64 bits, a long number.
d = dev.queue('iosched')
for name in sorted(os.listdir(d)):
    f = f'{d}/{name}'
    before = devices.read(f)
    for bad in ('4 ', '\t4', '+-4', '18446744073709551616', '-0x1', LONG):
        row(f'{name} {bad[:12]!r}', write_errno(f, bad), errno.EINVAL,
            lambda: devices.read(f), before)
check(True, f'{rows} rows through the tunables')

# 3. cfq.ioprio: the same and the value table's own rows; mount options.
cg = mount_cfq()
os.mkdir(f'{cg}/bad')
devices.write(f'{cg}/bad/cfq.ioprio', 3)
prio = f'{cg}/bad/cfq.ioprio'
for bad in ('-1', '8', '\n', '4 ', '\t4', '4x', 'abc', '0x2', '4294967299',
            '18446744073709551616', '9' * 300):
    row(f'cfq.ioprio {bad[:12]!r}', write_errno(prio, bad), errno.EINVAL,
        lambda: devices.read(prio), '3')
# A cgroup file takes at most a page in one write: longer is E2BIG.
row('cfq.ioprio of 5000 digits', write_errno(prio, LONG), errno.E2BIG,
    lambda: devices.read(prio), '3')
os.makedirs('/tmp/cg-other', exist_ok=True)
# mount(2) has no fs-context log to report to, so the cgroup1 parser's
# explanation of an unknown option goes to the kernel log: allowed.
for opts, want, says in (('cfq,name=other', errno.EBUSY, None),
                         ('cfq,bogus', errno.EINVAL,
                          r"cgroup1?: Unknown subsys name 'bogus'")):
    row(f'mount -o {opts}', mount(opts, '/tmp/cg-other'), want,
        lambda: os.path.ismount('/tmp/cg-other'), False, may_say=says)

# 4. A task moved into a removed group; a removed group's cfq.ioprio.
sleeper = subprocess.Popen(['sleep', '60'])
tasks_fd = os.open(f'{cg}/bad/tasks', os.O_WRONLY)
prio_fd = os.open(prio, os.O_WRONLY)
os.rmdir(f'{cg}/bad')
row('a task into a removed group (open file)',
    fd_write(tasks_fd, str(sleeper.pid)), errno.ENODEV)
row('a task into a removed group (path)',
    write_errno(f'{cg}/bad/tasks', str(sleeper.pid)), errno.ENOENT)
row('cfq.ioprio of a removed group', fd_write(prio_fd, '1'), errno.ENODEV)
os.close(tasks_fd)
os.close(prio_fd)
with open(f'/proc/{sleeper.pid}/cgroup') as f:
    check(any(line.endswith(':cfq:/') for line in f.read().splitlines()),
          'the task stayed in the root group')
row('a task that does not exist', write_errno(f'{cg}/tasks', '999999'),
    errno.ESRCH)
sleeper.kill()
sleeper.wait()


def free_devno():
    """A block device number that no disk has."""
    for minor in range(0, 256, 16):
        if not os.path.exists(f'/sys/dev/block/8:{minor}'):
            return f'8:{minor}'
    raise AssertionError('every 8:N taken')


def weight_rows(where, group):
    """cfq.weight of `group`: the issue's table, each row EINVAL (ENODEV
    for a device that does not exist, E2BIG past a page), the file's
    content unchanged; cfq.stat takes no writes (EINVAL).  "Empty" is an empty
    line: a write(2) of no bytes never reaches the file."""
    f = f'{group}/cfq.weight'
    disk = devices.read(f'/sys/block/{dev.disk}/dev')
    devices.write(f, 'default 300')
    devices.write(f, f'{disk} 500')
    before = devices.read(f)
    check(before == f'default 300\n{disk} 500', f'{where}: {before!r}')
    for bad, want in (('0', errno.EINVAL), ('10001', errno.EINVAL),
                      ('-1', errno.EINVAL), ('abc', errno.EINVAL),
                      ('\n', errno.EINVAL), (' \n', errno.EINVAL),
                      ('default', errno.EINVAL), ('default 0', errno.EINVAL),
                      (f'{free_devno()} 100', errno.ENODEV),
                      (disk, errno.EINVAL), (f'{disk} 0', errno.EINVAL),
                      (f'{disk} 100 junk', errno.EINVAL),
                      (f'{disk} 10001', errno.EINVAL),
                      (f'default 100\n{disk} 200', errno.EINVAL),
                      ('100\n200', errno.EINVAL), ('4 5', errno.EINVAL),
                      ('18446744073709551616', errno.EINVAL),
                      (LONG, errno.E2BIG)):
        row(f'{where} cfq.weight {bad[:16]!r}', write_errno(f, bad), want,
            lambda: devices.read(f), before)
    # A read-only cgroup file (mode 0444): root may open it for writing,
    # and the write fails as for every such file (memory.stat, io.stat).
    stat = f'{group}/cfq.stat'
    row(f'{where} cfq.stat written', write_errno(stat, '0'), errno.EINVAL,
        lambda: devices.read(stat), devices.read(stat))


# 5. cfq.weight and cfq.stat, on the v1 hierarchy, then on v2.
os.mkdir(f'{cg}/badw')
weight_rows('v1', f'{cg}/badw')
os.rmdir(f'{cg}/badw')
devices.cfq_on_v2()
os.mkdir(f'{devices.CG2}/badw')
weight_rows('v2', f'{devices.CG2}/badw')
prio = f'{devices.CG2}/badw/cfq.ioprio'
for bad in ('-1', '8', '\n', 'abc', '4x'):
    row(f'v2 cfq.ioprio {bad!r}', write_errno(prio, bad), errno.EINVAL,
        lambda: devices.read(prio), devices.read(prio))
os.rmdir(f'{devices.CG2}/badw')
devices.cfq_on_v1()
dev.set_scheduler('none')
devices.remove_null_blk('badin')
check(True, f'{rows} bad-input rows, each rejected with the usual error, '
      'state unchanged, the kernel silent')
save({'rows': rows})
