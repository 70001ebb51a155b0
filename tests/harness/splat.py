# SPDX-License-Identifier: GPL-2.0
"""Find kernel splats in a guest console log or dmesg.

Only kernel lines count (those with a printk timestamp "[    1.234567]"),
so test output that happens to print "WARNING:" cannot fail a run, and
the kernel command line ("softlockup_panic=1 hung_task_panic=1") cannot
match either: the patterns name the messages, not the knobs.
"""
import re

_KERNEL_LINE = re.compile(r'^\[\s*\d+\.\d+\]\s?(.*)$')

# (name, pattern).  Each pattern is anchored on the text the kernel prints
# when the condition happens.
PATTERNS = [
    ('bug', re.compile(r'\bBUG: ')),
    ('kernel-bug', re.compile(r'kernel BUG at ')),
    ('warning', re.compile(r'\bWARNING: ')),
    ('oops', re.compile(r'\bOops\b')),
    ('gpf', re.compile(r'general protection fault')),
    ('panic', re.compile(r'Kernel panic - not syncing')),
    ('lockdep', re.compile(r'possible (circular|recursive) locking|'
                           r'inconsistent lock state|DEBUG_LOCKS_WARN_ON|'
                           r'lock held when returning to user space|'
                           r'suspicious RCU usage')),
    ('kasan', re.compile(r'KASAN: ')),
    ('ubsan', re.compile(r'UBSAN: ')),
    ('kmemleak', re.compile(r'kmemleak: \d+ new suspected memory leaks')),
    ('hung-task', re.compile(r'INFO: task .* blocked for more than \d+ seconds')),
    ('soft-lockup', re.compile(r'soft lockup - CPU#\d+ stuck')),
    ('hard-lockup', re.compile(r'Watchdog detected hard LOCKUP')),
    ('rcu-stall', re.compile(r'rcu: INFO: .* (self-)?detected stalls?')),
    ('list-corruption', re.compile(r'list_(add|del) corruption')),
]


def kernel_lines(text):
    """Yield the message part of each kernel line in a console log."""
    for raw in text.splitlines():
        m = _KERNEL_LINE.match(raw.rstrip('\r'))
        if m:
            yield m.group(1)


def find_splats(text):
    """Return [(name, line)] for every splat line in the log text."""
    hits = []
    for line in kernel_lines(text):
        for name, pat in PATTERNS:
            if pat.search(line):
                hits.append((name, line))
                break
    return hits
