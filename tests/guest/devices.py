# SPDX-License-Identifier: GPL-2.0
"""Guest side: create the block devices of a device profile.

null_blk devices are made through configfs (the driver is built in and
booted with nr_devices=0); scsi_debug is built in and carries the
partitioned profile (null_blk disks cannot hold partitions); the emulated
hard disk (kind "hdd") is a ublk device served by tests/tools/hdd, built
on the host into $CFQ_CACHE/hdd/hdd.
"""
import glob
import os
import subprocess
import time

NULLB_CFS = '/sys/kernel/config/nullb'
SDEBUG = '/sys/bus/pseudo/drivers/scsi_debug'


def write(path, value):
    with open(path, 'w') as f:
        f.write(f'{value}\n')


def read(path):
    with open(path) as f:
        return f.read().strip()


def wait_for(path, timeout=10.0):
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            raise TimeoutError(f'{path} did not appear')
        time.sleep(0.05)


class Device:
    """A disk to schedule on: `disk` is the queue's name in /sys/block,
    `targets` the paths the groups do I/O to (the disk itself, or one
    partition per group)."""

    def __init__(self, disk, targets, nr_requests, rotational):
        self.disk = disk
        self.targets = targets
        self.nr_requests = nr_requests
        self.rotational = rotational
        self.server = None	# the emulated disk's process
        self.trace = None	# and its per-request trace
        self.tmp_store = None	# and a store file of its own
        self.prof = None	# the profile it was made from

    def queue(self, attr):
        return f'/sys/block/{self.disk}/queue/{attr}'

    def _sysdir(self, path):
        name = os.path.basename(path)
        base = f'/sys/block/{self.disk}'
        return base if name == self.disk else f'{base}/{name}'

    def size_bytes(self, path):
        return int(read(f'{self._sysdir(path)}/size')) * 512

    def start_bytes(self, path):
        """Where @path (the disk or one of its partitions) starts on the
        disk."""
        sysdir = self._sysdir(path)
        if sysdir == f'/sys/block/{self.disk}':
            return 0
        return int(read(f'{sysdir}/start')) * 512

    def flush(self):
        """Empty the disk's write cache (a cache flush: the emulated disk
        writes back all it holds), so that a measurement does not pay
        for the writes of the one before.  Seconds it took."""
        t0 = time.monotonic()
        fd = os.open(f'/dev/{self.disk}', os.O_WRONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return time.monotonic() - t0

    def set_scheduler(self, elevator, iosched=None):
        """Attach a fresh instance of @elevator, then write @iosched.
        Writing the name of the elevator already attached keeps that
        instance and whatever tunables an earlier peer wrote to it (an
        ablation of slice_idle then leaked into every cfq peer measured
        after it): pass through `none` first."""
        if f'[{elevator}]' in read(self.queue('scheduler')) and \
                elevator != 'none':
            write(self.queue('scheduler'), 'none')
        write(self.queue('scheduler'), elevator)
        got = read(self.queue('scheduler'))
        if f'[{elevator}]' not in got:
            raise RuntimeError(f'{self.disk}: scheduler is {got}')
        write(self.queue('rotational'), self.rotational)
        if elevator != 'none' and self.nr_requests:
            write(self.queue('nr_requests'), self.nr_requests)
        for key, val in (iosched or {}).items():
            write(self.queue(f'iosched/{key}'), val)


def make_null_blk(name, prof, memory_backed=False, size_mb=16384):
    path = f'{NULLB_CFS}/{name}'
    if os.path.exists(path):
        write(f'{path}/power', 0)
        os.rmdir(path)
    os.mkdir(path)
    attrs = {
        'queue_mode': 2, 'submit_queues': prof.get('submit_queues', 1),
        'irqmode': prof['irqmode'],
        'completion_nsec': prof['completion_nsec'],
        'hw_queue_depth': prof['hw_queue_depth'],
        'size': size_mb, 'memory_backed': int(memory_backed),
    }
    for key, val in attrs.items():
        write(f'{path}/{key}', val)
    write(f'{path}/power', 1)
    wait_for(f'/dev/{name}')
    return Device(name, [f'/dev/{name}'], prof.get('nr_requests'),
                  prof['rotational'])


def remove_null_blk(name):
    path = f'{NULLB_CFS}/{name}'
    if os.path.exists(path):
        write(f'{path}/power', 0)
        os.rmdir(path)


def scsi_debug_disk():
    """The /sys/block name of the scsi_debug disk."""
    for d in glob.glob('/sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/'
                       'target*/*/block/*'):
        return os.path.basename(d)
    raise RuntimeError('no scsi_debug disk (boot with scsi_debug params)')


def partition(disk, nparts):
    """Split @disk into @nparts partitions of 1 / (nparts + 1) of it
    each, one after the other from the start; their paths."""
    spec = ''.join(',%dM\n' % (int(read(f'/sys/block/{disk}/size')) * 512 //
                                (nparts + 1) // 2**20)
                   for _ in range(nparts))
    subprocess.run(['sfdisk', '-q', '--no-reread', '--no-tell-kernel',
                    f'/dev/{disk}'], input=spec, text=True, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(['blockdev', '--rereadpt', f'/dev/{disk}'], check=True)
    sep = 'p' if disk[-1].isdigit() else ''	# ublkb0p1, sda1
    parts = [f'/dev/{disk}{sep}{i + 1}' for i in range(nparts)]
    for p in parts:
        wait_for(p)
    return parts


def make_scsi_debug(prof):
    """Partition the scsi_debug disk into equal parts, check its delay
    and host depth, set the device's queue depth."""
    disk = scsi_debug_disk()
    parts = partition(disk, prof['partitions'])
    for key in ('ndelay', 'max_queue'):
        got = int(read(f'{SDEBUG}/{key}'))
        if got != prof[key]:
            raise RuntimeError(f'scsi_debug {key} is {got}, the profile '
                               f'wants {prof[key]} (a boot parameter)')
    qd = f'/sys/block/{disk}/device/queue_depth'
    write(qd, prof['queue_depth'])
    if int(read(qd)) != prof['queue_depth']:
        raise RuntimeError(f'{qd} is {read(qd)}, the profile wants '
                           f'{prof["queue_depth"]}')
    return Device(disk, parts, prof.get('nr_requests'), prof['rotational'])


def hdd_binary():
    cache = os.environ.get('CFQ_CACHE',
                           os.path.expanduser('~/.cache/cfq-iosched'))
    path = f'{cache}/hdd/hdd'
    if not os.access(path, os.X_OK):
        raise RuntimeError(f'{path} missing: run scripts/build-hdd.sh')
    return path


def make_hdd(prof, store='none', trace=None):
    """Start the emulated disk (tests/tools/hdd) with the profile's queue
    depth and write cache, partitioned if the profile says so; its data
    in @store (a file, or none).  A partitioned disk must keep what is
    written (its partition table): without a store it gets a sparse one
    in /tmp, which remove_device() deletes."""
    tmp_store = None
    if prof.get('partitions') and store == 'none':
        store = tmp_store = f'/tmp/hdd-{os.getpid()}.store'
    argv = [hdd_binary(), '--depth', str(prof['hw_queue_depth']),
            '--wce', prof.get('write_cache', 'on'),
            '--idle-delay', prof.get('idle_delay', 'off'), '--store', store]
    if trace:
        argv += ['--trace', trace]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    path = proc.stdout.readline().strip()
    if not path.startswith('/dev/ublkb'):
        proc.kill()
        raise RuntimeError(f'hdd did not start (exit {proc.wait()})')
    wait_for(path)
    disk = os.path.basename(path)
    targets = [path]
    if prof.get('partitions'):
        try:
            targets = partition(disk, prof['partitions'])
        except BaseException:
            proc.kill()
            raise
    dev = Device(disk, targets, prof.get('nr_requests'), 1)
    dev.server = proc
    dev.tmp_store = tmp_store
    dev.trace = trace
    return dev


def remove_device(dev):
    """Undo make_device(): null_blk powered off and removed, the
    emulated disk stopped (it prints its statistics); scsi_debug stays."""
    if dev.server:
        dev.server.terminate()
        if dev.server.wait(timeout=60):
            raise RuntimeError(f'hdd exited {dev.server.returncode}')
        dev.server = None
        if dev.tmp_store:
            os.unlink(dev.tmp_store)
            dev.tmp_store = None
    elif os.path.exists(f'{NULLB_CFS}/{dev.disk}'):
        remove_null_blk(dev.disk)


def make_device(name, prof, trace=None):
    """The profile's device; an emulated disk writes its per-request
    trace to @trace if given."""
    if prof['kind'] == 'null_blk':
        dev = make_null_blk(name, prof)
    elif prof['kind'] == 'scsi_debug':
        dev = make_scsi_debug(prof)
    elif prof['kind'] == 'hdd':
        dev = make_hdd(prof, trace=trace)
    else:
        raise ValueError(f'unknown device kind {prof["kind"]}')
    dev.prof = prof
    return dev


# ---------------------------------------------------------------------
# The cfq cgroup controller is bound to one hierarchy at a time: the v1
# hierarchy the RFC mounts, or the unified (v2) one.

CG2 = '/sys/fs/cgroup'
CFQ_V1 = '/dev/cgroup'


def _remove_tree(top, tasks_file, root_tasks):
    """rmdir every cgroup below top, deepest first, moving their tasks
    to root_tasks first."""
    for d, subdirs, _ in sorted(os.walk(top), key=lambda w: -w[0].count('/')):
        if d == top:
            continue
        for pid in read(f'{d}/{tasks_file}').split():
            try:
                write(root_tasks, pid)
            except OSError:
                pass	# exited meanwhile
        os.rmdir(d)


def cfq_on_v1():
    """The RFC's cfq hierarchy at /dev/cgroup.  cfq must not be enabled
    anywhere on v2 for the mount to take it (EBUSY otherwise)."""
    if os.path.ismount(CFQ_V1):
        return CFQ_V1
    for d, _, files in os.walk(CG2, topdown=False):	# children first
        if 'cgroup.subtree_control' in files and \
                'cfq' in read(f'{d}/cgroup.subtree_control').split():
            write(f'{d}/cgroup.subtree_control', '-cfq')
    os.makedirs(CFQ_V1, exist_ok=True)
    end = time.monotonic() + 10
    while subprocess.run(['mount', '-t', 'cgroup', '-o', 'cfq', 'cfq',
                          CFQ_V1], stderr=subprocess.DEVNULL).returncode:
        if time.monotonic() > end:
            raise RuntimeError('mount -t cgroup -o cfq keeps failing')
        time.sleep(0.1)
    return CFQ_V1


def cfq_on_v2():
    """cfq enabled in the v2 root's subtree_control.  A v1 cfq hierarchy
    goes first: its groups removed, unmounted; the kernel gives the
    controller back to v2 once that hierarchy is gone (asynchronously)."""
    if os.path.ismount(CFQ_V1):
        _remove_tree(CFQ_V1, 'tasks', f'{CFQ_V1}/tasks')
        subprocess.run(['umount', CFQ_V1], check=True)
    end = time.monotonic() + 10
    while 'cfq' not in read(f'{CG2}/cgroup.controllers').split():
        if time.monotonic() > end:
            raise RuntimeError('cfq did not come back to cgroup v2')
        time.sleep(0.1)
    write(f'{CG2}/cgroup.subtree_control', '+cfq')
