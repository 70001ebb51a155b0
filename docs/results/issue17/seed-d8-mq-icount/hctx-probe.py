import glob, os, subprocess, sys, time, tomllib
sys.path.insert(0, '/work/main/tests/guest')
import devices
prof = tomllib.load(open('/work/main/tests/experiments/profiles.toml', 'rb'))['d8-mq']
d = devices.make_device("probe", prof)
name = d.disk
dev = "/dev/" + name

print('device', dev, flush=True)
if not os.path.ismount('/sys/kernel/debug'):
    subprocess.run(['mount', '-t', 'debugfs', 'none', '/sys/kernel/debug'])
hctxs = sorted(glob.glob(f'/sys/kernel/debug/block/{name}/hctx*'))
print('hctxs', hctxs, flush=True)
def busy():
    out = []
    for h in hctxs:
        t = open(f'{h}/tags').read()
        b = [l for l in t.splitlines() if l.strip().startswith('busy=')]
        out.append(int(b[0].split('=')[1]) if b else -1)
    return out
print('files', sorted(os.listdir(hctxs[0])) if hctxs else None, flush=True)
def dispatched():
    return [open(f'{h}/dispatched').read().split() if os.path.exists(f'{h}/dispatched') else None for h in hctxs]
for sched in ('none', 'mq-deadline', 'cfq'):
    devices.write(f'/sys/block/{name}/queue/scheduler', sched)
    if sched != 'none':
        devices.write(f'/sys/block/{name}/queue/nr_requests', 512)
    q0 = dispatched()
    p = subprocess.Popen(['fio', '--name=r', f'--filename={dev}', '--direct=1', '--bs=4k',
                          '--rw=randread', '--ioengine=psync', '--numjobs=75', '--time_based',
                          '--runtime=6', '--group_reporting', '--output-format=terse',
                          '--terse-version=3'], stdout=subprocess.PIPE, text=True)
    time.sleep(3)
    samples = []
    for _ in range(200):
        samples.append(busy())
        time.sleep(0.01)
    out, _ = p.communicate()
    iops = out.split(';')[7]
    n = len(samples)
    mean = [sum(s[i] for s in samples) / n for i in range(len(hctxs))]
    tot = [sum(s) for s in samples]
    hist = {}
    for s in samples:
        hist[tuple(s)] = hist.get(tuple(s), 0) + 1
    top = sorted(hist.items(), key=lambda kv: -kv[1])[:6]
    print(f'{sched}: iops {iops} driver tags busy per hctx mean {mean} total mean {sum(tot)/n:.1f} min {min(tot)} queued before {q0} after {dispatched()} top {top}', flush=True)
