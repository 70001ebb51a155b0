# SPDX-License-Identifier: GPL-2.0
"""Check that every option a config fragment sets survived in a final
.config.  Kconfig drops options silently when a dependency is missing;
the build must stop instead, naming the option.

Usage: kconfig_check.py FINAL_CONFIG FRAGMENT...
Prints one line per lost option and exits 1 if any were lost.
"""
import re
import sys

_SET = re.compile(r'^(CONFIG_\w+)=(.*)$')
_UNSET = re.compile(r'^# (CONFIG_\w+) is not set$')


def parse(lines):
    """Map option -> value ('n' for "is not set") from .config lines."""
    opts = {}
    for line in lines:
        line = line.strip()
        m = _SET.match(line)
        if m:
            opts[m.group(1)] = m.group(2)
            continue
        m = _UNSET.match(line)
        if m:
            opts[m.group(1)] = 'n'
    return opts


def lost_options(final, wanted):
    """Return [(option, wanted, got)] for options not as requested."""
    lost = []
    for opt, val in wanted.items():
        got = final.get(opt, 'n')
        if got != val:
            lost.append((opt, val, got))
    return lost


def main(argv):
    with open(argv[1]) as f:
        final = parse(f)
    wanted = {}
    for frag in argv[2:]:
        with open(frag) as f:
            wanted.update(parse(f))
    lost = lost_options(final, wanted)
    for opt, val, got in lost:
        print(f'{opt}: fragment wants {val}, final .config has {got}')
    return 1 if lost else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
