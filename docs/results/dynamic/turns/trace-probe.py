# SPDX-License-Identifier: GPL-2.0
# The order of group turns on d1-rot, from cfq's own blk-trace messages:
# the leave-return case's three groups (priorities 0, 4 and 7, four random
# 4 KiB readers each) for its first stretch, with the blk tracer keeping
# cfq's notes only.  Writes trace.txt (turn start/end lines) and run.json
# (the harness's 10 ms bins) to the results directory.
# Run in the guest, from the repository (from tests/ on the host):
#   python3 -c "from harness import vm; vm.run(BZ, 'python3 \
#     docs/results/dynamic/turns/trace-probe.py', OUT, cpus=1, \
#     icount=True)"
import json
import os
import subprocess
import sys

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), '../../../..'))
sys.path.insert(0, os.path.join(REPO, 'tests', 'guest'))
sys.path.insert(0, os.path.join(REPO, 'tests'))
import bench  # noqa: E402
import devices  # noqa: E402
import dynamic as gdyn  # noqa: E402
from harness import dynamic, experiments  # noqa: E402

SECONDS = int(os.environ.get('PROBE_SECONDS', '8'))
profiles = experiments.load_toml('profiles.toml')
peers = experiments.load_toml('peers.toml')
case = dynamic.load(True, ['leave-return'])[0]
case.duration = SECONDS
case.events = []
if not os.path.ismount('/sys/kernel/debug'):
    subprocess.run(['mount', '-t', 'debugfs', 'none', '/sys/kernel/debug'])
tr = '/sys/kernel/tracing'
if not os.path.isdir(tr + '/trace'):
    tr = '/sys/kernel/debug/tracing'
bench.warm_up()
dev = devices.make_device('nullb1', profiles['d1-rot'])
blk = f'/sys/block/{dev.disk}/trace'
devices.write(f'{tr}/buffer_size_kb', 65536)
devices.write(f'{blk}/act_mask', 'notify')
devices.write(f'{blk}/enable', 1)
devices.write(f'{tr}/current_tracer', 'blk')
res = gdyn.run_once(case, dev, 'cfq', peers['cfq'], '/tmp/results/probe')
with open(f'{tr}/trace') as f:
    lines = [ln for ln in f if 'turn ' in ln]
devices.write(f'{tr}/current_tracer', 'nop')
devices.write(f'{blk}/enable', 0)
with open('/tmp/results/trace.txt', 'w') as f:
    f.writelines(lines)
with open('/tmp/results/run.json', 'w') as f:
    json.dump(res, f)
print(f'probe: {len(lines)} turn lines, {res["duration_s"]} s')
