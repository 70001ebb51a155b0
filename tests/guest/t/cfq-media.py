# SPDX-License-Identifier: GPL-2.0
"""A disk's write cache as cfq's accounts show it (run as
cfq-media@hdd-q1: the emulated 7200 rpm disk, one command at a time,
write cache on).  Readers and writers start together on a fresh cfq:
- the first four reads are sent before any write, one at a time (debugfs
  event media_probe: 4), so that a cached write's price is learned from
  reads with no write-back in front of them;
- writes taken into the cache are then charged that price, and what they
  did not take is owed (write_debt_us above 0 at some point of the run);
- with the cache switched off (queue/write_cache "write through") and
  cfq chosen again, nothing is sent first and nothing is owed: a write is
  charged what it took;
- with readers and writers in two groups, each writers' turn ends with a
  cache flush cfq sends (debugfs event flush; 4 within 30 s, in 4 s
  on the instruction clock), and none fails (flush_failed), none with
  the tunable writeback_flush at 0 or the cache off; switching the
  elevator while such flushes come and go leaves no splat (the harness
  reads dmesg)."""
import os
import threading
import time

import devices
from gtest import (Fio, check, mkgroup, mount_cfq, nullb, save,
                   sched_events, sched_media)

check(os.environ.get('CFQ_DISK') == 'hdd-q1',
      'runs on the emulated disk at depth 1 (cfq-media@hdd-q1)')
dev = nullb('mediatest')
disk = dev.targets[0]
q = f'/sys/block/{dev.disk}/queue'
GB = 1 << 30


def events():
    return sched_events(dev.disk)


def media():
    """debugfs state's read_us line as {word: value}: the reads' mean and
    count, the debt, the price."""
    line = sched_media(dev.disk)
    if not line:
        raise AssertionError('no read_us line in debugfs state')
    w = line.split()
    return {'small': w[2], 'debt_us': int(w[w.index('write_debt_us') + 1]),
            'price': w[-1]}


def run(name):
    """Four random readers and four random writers, 4 KiB, started
    together for 3 s; the most owed seen, polled every 50 ms."""
    jobs = [{'rw': 'randread', 'bs': '4k', 'offset': i * GB, 'size': GB}
            for i in range(4)]
    jobs += [{'rw': 'randwrite', 'bs': '4k', 'offset': (4 + i) * GB,
              'size': GB} for i in range(4)]
    most = [0]
    done = threading.Event()

    def poll():
        while not done.is_set():
            most[0] = max(most[0], media()['debt_us'])
            time.sleep(0.05)
    t = threading.Thread(target=poll)
    t.start()
    try:
        Fio(name, disk, jobs, 3).wait()
    finally:
        done.set()
        t.join()
    return most[0]


def measure(name):
    """On a fresh cfq, run(): the events, the read_us line and the most
    owed, kept in the result under @name."""
    devices.write(f'{q}/scheduler', 'none')
    devices.write(f'{q}/scheduler', 'cfq')
    check(events()['media_probe'] == 0, 'a new cfq has sent no read first')
    owed = run(name)
    ev, m = events(), media()
    result[name] = {'media_probe': ev['media_probe'], 'most_owed_us': owed,
                    'media': m}
    print(f'{name}: {ev["media_probe"]} reads first, most owed {owed} us, '
          f'reads {m["small"]} us, price {m["price"]}')
    return ev, m, owed


result = {}
check(devices.read(f'{q}/write_cache') == 'write back',
      'the disk\'s write cache is on')
ev, m, owed = measure('cached')
check(ev['media_probe'] == 4,
      f'the first 4 reads went first ({ev["media_probe"]})')
check(int(m['small'].split('/')[1]) > 4, 'reads were timed after those')
check(owed > 0, f'cached writes were charged more than they took '
      f'(most owed {owed} us)')

devices.write(f'{q}/write_cache', 'write through')
check(devices.read(f'{q}/write_cache') == 'write through',
      'the write cache is off')
ev, m, owed = measure('through')
check(ev['media_probe'] == 0, f'no read went first ({ev["media_probe"]})')
check(owed == 0, f'nothing was owed (most {owed} us)')
check(m['price'] == '16/16', f'the price never moved ({m["price"]})')
devices.write(f'{q}/write_cache', 'write back')


def two_groups(name, secs, flush=True, during=None, enough=None):
    """Four random readers in group r (cfq.ioprio 0), four random writers
    in w (4), for @secs on a fresh cfq, with writeback_flush at its
    default or, without @flush, 0; @during() runs meanwhile and may make
    a flush fail (the elevator it was sent for is gone).  With @enough,
    the run ends once cfq has sent that many flushes, after 4 s at the
    least: the debug kernel on a busy host takes a few times longer for
    a turn.  The flushes cfq sent."""
    devices.write(f'{q}/scheduler', 'none')
    devices.write(f'{q}/scheduler', 'cfq')
    if not flush:
        devices.write(f'{q}/iosched/writeback_flush', '0')
    fr = Fio(f'{name}-r', disk, [{'rw': 'randread', 'bs': '4k',
                                  'offset': i * GB, 'size': GB}
                                 for i in range(4)], secs, group='r')
    fw = Fio(f'{name}-w', disk, [{'rw': 'randwrite', 'bs': '4k',
                                  'offset': (4 + i) * GB, 'size': GB}
                                 for i in range(4)], secs, group='w')
    if during:
        during()
    if enough:
        time.sleep(4)
        while fr.proc.poll() is None and events()['flush'] < enough:
            time.sleep(0.2)
        fr.stop()
        fw.stop()
    fr.wait()
    fw.wait()
    ev = events()
    n, failed = ev['flush'], ev['flush_failed']
    result[name] = {'flush': n, 'flush_failed': failed,
                    'secs': round(time.time() - fr.started, 1)}
    print(f'{name}: {n} flushes, {failed} failed, '
          f'{result[name]["secs"]} s')
    check(failed == 0 or during, f'no flush failed ({failed})')
    return n


mount_cfq()
mkgroup('r', 0)
mkgroup('w', 4)
n = two_groups('flush', 30, enough=4)
check(n >= 4, f'the writers\' turns ended with a flush ({n}, '
      f'{result["flush"]["secs"]} s)')
check(two_groups('noflush', 3, flush=False) == 0,
      'writeback_flush 0: no flush')
devices.write(f'{q}/write_cache', 'write through')
check(two_groups('through', 3) == 0, 'no cache to flush: no flush')
devices.write(f'{q}/write_cache', 'write back')


def switches():
    """The elevator away and back every 0.4 s, flushes in flight or not."""
    for i in range(8):
        time.sleep(0.4)
        devices.write(f'{q}/scheduler', 'mq-deadline' if i % 2 == 0
                      else 'cfq')


two_groups('switch', 5, during=switches)
check('[cfq]' in devices.read(f'{q}/scheduler'), 'cfq chosen at the end')
save(result)
