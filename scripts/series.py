#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The patch set as a git format-patch series against the 6.12 base.

  series.py generate      write the series (cover letter and patches) into
                          $CFQ_CACHE/series/ and print that path
  series.py check         generate; git am every patch onto the base;
                          checkpatch --strict each; W=1 build of block/ on
                          the lean test config at the first and the last
                          patch (the test in `make check`)
  series.py check --every-step
                          the same, then a W=1 build of the whole lean
                          kernel at the base and at every patch: no
                          warning the base build does not give
                          (`make series-check`)

The base is a git repository of Debian's linux-source-6.12 tarball in
the cache: one commit of the pristine tree, tagged `base`, made once
(about two minutes) and reused.

The steps are scripts/series/NN-*.txt.  Each starts with header lines:
`Quilt:` the quilt patches (series, patches/) whose changes arrive in
this step, `Adds:` the new files it adds (paths in the kernel tree),
`Introduces:` the Kconfig symbols it adds; then a blank line and the
commit message (subject, blank line, body), or nothing to take the
quilt patch's own.  A file's content at a step is its content at the
end of the series with everything that belongs to a later step's
symbols taken out: #ifdef blocks (unifdef), `config` blocks, Makefile
lines.  So every step is the final code with the options of later
steps off, which is what makes each step build.  The patches that add
files also add their F: lines to a MAINTAINERS entry
(scripts/series/maintainers.txt).

SERIES_AUTHOR="Name <mail>" sets the author and Signed-off-by of the
commits (default: the From: of the first quilt patch).
"""
import argparse
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS_DIR = os.path.join(REPO, 'scripts', 'series')
KEPT_FILE = os.path.join(REPO, 'scripts', 'checkpatch-kept.txt')
TARBALL = '/usr/src/linux-source-6.12.tar.xz'
BASE_TAG = 'base'
BRANCH = 'refs/heads/cfq-series'
ARCH = 'x86_64'
# Fixed identity and date of the base commit: the same tarball gives the
# same commit everywhere.
BASE_IDENT = ('cfq-iosched series', 'cfq-iosched@localhost',
              '2026-01-01T00:00:00Z')


def cache_dir():
    return os.environ.get('CFQ_CACHE',
                          os.path.expanduser('~/.cache/cfq-iosched'))


def base_dir():
    return os.path.join(cache_dir(), 'series-base', 'linux')


def out_dir():
    return os.path.join(cache_dir(), 'series')


def note(msg):
    print(f'==> {msg}', file=sys.stderr, flush=True)


class SeriesError(Exception):
    pass


def run(argv, cwd=None, env=None, input=None, check=True):
    res = subprocess.run(argv, cwd=cwd, env=env, input=input,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         encoding='utf-8', errors='surrogateescape')
    if check and res.returncode != 0:
        raise SeriesError(f'{" ".join(argv)} failed ({res.returncode}):\n'
                          f'{res.stdout[-2000:]}{res.stderr[-2000:]}')
    return res


def read(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read()


def write(path, text):
    with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
        f.write(text)


def git(*args, env=None, input=None, check=True):
    return run(['git', '-C', base_dir(), *args], env=env, input=input,
               check=check)


# ---------------------------------------------------------------------
# The steps and what the repo holds

class Step:
    """One patch of the series, from scripts/series/NN-name.txt."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.quilt, self.adds, self.introduces = [], [], []
        with open(path) as f:
            text = f.read()
        head, _, body = text.partition('\n\n')
        for line in head.splitlines():
            if not line.strip() or line.startswith('#'):
                continue
            key, sep, val = line.partition(':')
            fields = {'Quilt': self.quilt, 'Adds': self.adds,
                      'Introduces': self.introduces}
            if not sep or key not in fields:
                raise SeriesError(f'{self.name}: bad header line: {line}')
            fields[key].extend(val.split())
        self.message = body.strip()


def load_steps(steps_dir=STEPS_DIR):
    steps = [Step(p) for p in sorted(glob.glob(os.path.join(steps_dir,
                                                            '[0-9]*.txt')))]
    if not steps:
        raise SeriesError(f'no steps in {steps_dir}')
    return steps


def quilt_series(repo=REPO):
    names = []
    with open(os.path.join(repo, 'series')) as f:
        for line in f:
            line = line.split('#')[0].strip()
            if line:
                names.append(line.split()[0])
    return names


def patch_files(path):
    """Tree paths a quilt patch changes."""
    files = []
    with open(path) as f:
        for line in f:
            m = re.match(r'\+\+\+ b/(\S+)', line)
            if m:
                files.append(m.group(1))
    return files


def quilt_message(path):
    """(subject, body) of a quilt patch's header."""
    with open(path) as f:
        text = f.read()
    head, _, rest = text.partition('\n\n')
    m = re.search(r'^Subject: (?:\[PATCH[^]]*\] )?(.*)$', head, re.M)
    if not m:
        raise SeriesError(f'{path}: no Subject:')
    body = re.split(r'^---$', rest, maxsplit=1, flags=re.M)[0]
    return m.group(1).strip(), body.strip()


def quilt_author(path):
    with open(path) as f:
        m = re.search(r'^From: (.+)$', f.read(), re.M)
    if not m:
        raise SeriesError(f'{path}: no From:')
    return m.group(1).strip()


def new_files(repo=REPO):
    """{tree path: repo path} of the files the project adds, as
    scripts/common.sh maps them (the one definition)."""
    res = run(['bash', '-c', '. "$1/scripts/common.sh" && new_files', '_',
               repo])
    pairs = {}
    for line in res.stdout.splitlines():
        src, dst = line.split()
        pairs[dst] = src
    return pairs


def kept_checks(path=KEPT_FILE):
    """{(tree path, checkpatch type): why}."""
    kept = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            fname, typ, why = line.rstrip('\n').split('\t')
            kept[fname, typ] = why
    return kept


def validate(steps, quilt, added):
    """Every quilt patch and every new file in exactly one step, each
    symbol introduced once."""
    errors = []
    for what, universe, pick in (
            ('quilt patch', quilt, lambda s: s.quilt),
            ('new file', added, lambda s: s.adds)):
        seen = {}
        for s in steps:
            for x in pick(s):
                if x not in universe:
                    errors.append(f'{s.name}: {what} {x} is not in the set')
                elif x in seen:
                    errors.append(f'{s.name}: {what} {x} is already in '
                                  f'{seen[x]}')
                seen.setdefault(x, s.name)
        for x in universe:
            if x not in seen:
                errors.append(f'{what} {x} is in no step of scripts/series/')
    syms = [y for s in steps for y in s.introduces]
    for y in set(syms):
        if syms.count(y) > 1:
            errors.append(f'symbol {y} introduced twice')
    if errors:
        raise SeriesError('\n'.join(errors))


# ---------------------------------------------------------------------
# A file at a step: the final content without later steps' symbols

KCONFIG_TOP = re.compile(r'(config|menuconfig|choice|endchoice|comment|menu|'
                         r'endmenu|if|endif|source)\b')


def drop_kconfig_block(text, sym):
    """Remove `config SYM` and its lines up to the next top-level entry."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, ln in enumerate(lines) if ln.rstrip() == f'config {sym}']
    if len(starts) != 1:
        raise SeriesError(f'config {sym}: found {len(starts)} times')
    end = starts[0] + 1
    while end < len(lines) and not KCONFIG_TOP.match(lines[end]):
        end += 1
    return ''.join(lines[:starts[0]] + lines[end:])


def drop_make_lines(text, sym):
    out = []
    for ln in text.splitlines(keepends=True):
        if f'$(CONFIG_{sym})' in ln:
            if ln.rstrip().endswith('\\'):
                raise SeriesError(f'CONFIG_{sym}: continued Makefile line')
            continue
        out.append(ln)
    return ''.join(out)


def kind(path):
    base = os.path.basename(path)
    if base.startswith('Kconfig'):
        return 'kconfig'
    if base in ('Makefile', 'Kbuild'):
        return 'make'
    if path.endswith(('.c', '.h')):
        return 'c'
    return 'other'


def code_refs(path, text, sym):
    """Lines that use SYM in code (not in comments or help text)."""
    k = kind(path)
    if k == 'c':
        pat = re.compile(rf'^\s*#.*\bCONFIG_{sym}\b|'
                         rf'IS_(ENABLED|BUILTIN|MODULE|REACHABLE)\(CONFIG_{sym}\)')
    elif k == 'kconfig':
        pat = re.compile(rf'^\s*(config|menuconfig|depends on|select|imply|'
                         rf'default|visible if|if|range)\b.*\b{sym}\b')
    elif k == 'make':
        pat = re.compile(rf'\bCONFIG_{sym}\b')
    else:
        return []
    return [ln for ln in text.splitlines() if pat.search(ln)]


class Unifdef:
    """The tree's own scripts/unifdef.c, built once into the cache."""

    def __init__(self, tree):
        self.bin = os.path.join(cache_dir(), 'series-base', 'unifdef')
        src = os.path.join(tree, 'scripts', 'unifdef.c')
        if not os.path.exists(self.bin):
            run(['gcc', '-O2', '-o', self.bin + '.tmp', src])
            os.rename(self.bin + '.tmp', self.bin)

    def undef(self, text, syms):
        syms = [y for y in syms if f'CONFIG_{y}' in text]
        if not syms:
            return text
        res = subprocess.run([self.bin] + [f'-UCONFIG_{y}' for y in syms],
                             input=text, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, encoding='utf-8',
                             errors='surrogateescape')
        if res.returncode not in (0, 1):
            raise SeriesError(f'unifdef: {res.stderr}')
        return res.stdout


def without_symbols(path, text, syms, unifdef):
    k = kind(path)
    if k == 'c':
        cut = unifdef.undef(text, syms)
        if cut != text:
            # A block taken out leaves the blank lines that framed it.
            cut = re.sub(r'\n{3,}', '\n\n', cut).rstrip('\n') + '\n'
        text = cut
    for sym in syms:
        if k == 'kconfig' and re.search(rf'^config {sym}$', text, re.M):
            text = drop_kconfig_block(text, sym)
        elif k == 'make':
            text = drop_make_lines(text, sym)
    for sym in syms:
        left = code_refs(path, text, sym)
        if left:
            raise SeriesError(f'{path}: still uses {sym} before the step '
                              f'that introduces it:\n' + '\n'.join(left))
    return text


def maintainers_entry(template, author, files):
    lines = [ln for ln in template.splitlines() if not ln.startswith('#')]
    lines = [ln.replace('@AUTHOR@', author) for ln in lines if ln.strip()]
    return '\n'.join(lines + [f'F:\t{f}' for f in sorted(files)]) + '\n'


def insert_maintainers(text, entry):
    """Put @entry after the section whose title comes last before its own
    in alphabetical order (MAINTAINERS is not sorted everywhere)."""
    lines = text.splitlines(keepends=True)
    title = entry.splitlines()[0].upper()
    titles = [i for i in range(1, len(lines) - 1)
              if lines[i - 1] == '\n' and lines[i].strip() and
              re.match(r'[A-Z]:\t', lines[i + 1])]
    before = [i for i in titles if lines[i].strip().upper() < title]
    if not before:
        raise SeriesError('MAINTAINERS: no place found for the entry')
    prev = max(before, key=lambda i: lines[i].strip().upper())
    nxt = [i for i in titles if i > prev]
    if not nxt:
        raise SeriesError('MAINTAINERS: no section after the entry')
    i = nxt[0]
    return ''.join(lines[:i]) + entry + '\n' + ''.join(lines[i:])


class Plan:
    """What every file holds at every step (0 = the base)."""

    def __init__(self, steps, quilt_files, base_text, final, unifdef, author,
                 template):
        self.steps = steps
        self.quilt_files = quilt_files  # quilt patch -> paths
        self.base_text = base_text      # path -> text or None
        self.final = final              # path -> text or None (deleted)
        self.unifdef = unifdef
        self.author = author
        self.template = template
        self.intro = {}
        for k, s in enumerate(steps, 1):
            for f in s.adds:
                self.intro.setdefault(f, k)
            for p in s.quilt:
                for f in self.quilt_files[p]:
                    self.intro.setdefault(f, k)
        self._cache = {}

    def symbols_after(self, k):
        return [y for s in self.steps[k:] for y in s.introduces]

    def content(self, path, k):
        key = (path, k)
        if key not in self._cache:
            self._cache[key] = self._content(path, k)
        return self._cache[key]

    def _content(self, path, k):
        if path == 'MAINTAINERS':
            added = [f for s in self.steps[:k] for f in s.adds]
            text = self.base_text['MAINTAINERS']
            if not added:
                return text
            entry = maintainers_entry(self.template, self.author, added)
            return insert_maintainers(text, entry)
        if k < self.intro[path]:
            return self.base_text.get(path)
        text = self.final[path]
        late = self.symbols_after(k)
        if text is None or not late:
            return text
        return without_symbols(path, text, late, self.unifdef)

    def paths(self):
        return sorted(set(self.intro) | {'MAINTAINERS'})

    def changes(self, k):
        return [p for p in self.paths()
                if self.content(p, k) != self.content(p, k - 1)]

    def verify(self):
        n = len(self.steps)
        for p in self.intro:
            if self.content(p, n) != self.final[p]:
                raise SeriesError(f'{p}: the last step is not the final '
                                  f'content')
        for k, s in enumerate(self.steps, 1):
            if not self.changes(k):
                raise SeriesError(f'{s.name}: changes nothing')
            for q in s.quilt:
                for f in self.quilt_files[q]:
                    if self.content(f, k) == self.content(f, k - 1):
                        raise SeriesError(
                            f'{s.name}: {q} changes {f}, but the change '
                            f'is there before this step (give it a symbol '
                            f'of its own, or assign {q} to the step that '
                            f'introduces the file)')
            for y in s.introduces:
                if not any(kind(p) == 'kconfig' and
                           re.search(rf'^config {y}$',
                                     self.content(p, k) or '', re.M)
                           for p in self.intro):
                    raise SeriesError(f'{s.name}: introduces {y}, which '
                                      f'no Kconfig defines')


# ---------------------------------------------------------------------
# The base repository

def tarball_stamp():
    st = os.stat(TARBALL)
    return f'{TARBALL} {st.st_size} {int(st.st_mtime)}\n'


def base_env(name, mail, date):
    env = dict(os.environ)
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail,
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_NAME=name,
               GIT_COMMITTER_EMAIL=mail, GIT_COMMITTER_DATE=date)
    return env


def ensure_base():
    """The git repository of the pristine tree, made once."""
    base = base_dir()
    stamp_path = os.path.join(base, '.git', 'cfq-tarball')
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read() == tarball_stamp():
                return base
        note(f'{TARBALL} changed: making the base again')
    if not os.path.exists(TARBALL):
        raise SeriesError(f'{TARBALL} missing: run scripts/deps.sh')
    shutil.rmtree(base, ignore_errors=True)
    tmp = base + '.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    t0 = time.monotonic()
    note(f'making the series base: extracting {TARBALL}')
    run(['tar', '-xJf', TARBALL, '-C', tmp, '--strip-components=1'])
    note('making the series base: git add (once, a few minutes)')
    g = ['git', '-C', tmp]
    run(g + ['-c', 'init.defaultBranch=master', 'init', '-q'])
    # No automatic gc: it would pack the tree in the background.
    run(g + ['config', 'gc.auto', '0'])
    # -f: Debian's .gitignore ignores everything at the top level.
    run(g + ['add', '-f', '-A', '.'])
    ver = run(['dpkg-query', '-W', '-f', '${Version}',
               'linux-source-6.12'], check=False).stdout.strip() or '?'
    msg = (f'Debian linux-source-6.12 {ver}\n\n'
           f'{os.path.basename(TARBALL)} as Debian ships it.\n')
    run(g + ['commit', '-q', '-F', '-'], env=base_env(*BASE_IDENT),
        input=msg)
    run(g + ['tag', BASE_TAG])
    with open(os.path.join(tmp, '.git', 'cfq-tarball'), 'w') as f:
        f.write(tarball_stamp())
    os.rename(tmp, base)
    note(f'series base made in {time.monotonic() - t0:.0f} s: {base}')
    return base


def base_show(path):
    res = git('show', f'{BASE_TAG}:{path}', check=False)
    return res.stdout if res.returncode == 0 else None


def base_version():
    subject = git('log', '-1', '--format=%s', BASE_TAG).stdout.strip()
    mk = base_show('Makefile')
    v = {k: re.search(rf'^{k} = (\S*)', mk, re.M).group(1)
         for k in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL')}
    return subject, f'{v["VERSION"]}.{v["PATCHLEVEL"]}.{v["SUBLEVEL"]}'


# ---------------------------------------------------------------------
# Generating the series

def final_contents(quilt, quilt_files, added):
    """The files at the end of the series: the base with the quilt
    patches applied (as scripts/apply.sh does), and the new files."""
    final = {}
    with tempfile.TemporaryDirectory() as tmp:
        touched = sorted({f for p in quilt for f in quilt_files[p]})
        for f in touched:
            text = base_show(f)
            if text is not None:
                os.makedirs(os.path.dirname(os.path.join(tmp, f)),
                            exist_ok=True)
                write(os.path.join(tmp, f), text)
        for p in quilt:
            run(['patch', '-p1', '--fuzz=0', '-s', '--no-backup-if-mismatch',
                 '-d', tmp, '-i', os.path.join(REPO, 'patches', p)])
        for f in touched:
            path = os.path.join(tmp, f)
            final[f] = read(path) if os.path.exists(path) else None
    for dst, src in added.items():
        final[dst] = read(os.path.join(REPO, src))
    return final


def author():
    a = os.environ.get('SERIES_AUTHOR')
    if not a:
        a = quilt_author(os.path.join(REPO, 'patches', quilt_series()[0]))
    m = re.match(r'(.+?) <([^>]+)>$', a)
    if not m:
        raise SeriesError(f'author "{a}" is not "Name <mail>"')
    return a, m.group(1), m.group(2)


def message(step, signer):
    if step.message:
        text = step.message
    else:
        if len(step.quilt) != 1:
            raise SeriesError(f'{step.name}: no message, and not one quilt '
                              f'patch to take it from')
        subject, body = quilt_message(os.path.join(REPO, 'patches',
                                                   step.quilt[0]))
        text = f'{subject}\n\n{body}'
    sob = f'Signed-off-by: {signer}'
    if not text.rstrip().endswith(sob):
        text = text.rstrip() + ('\n' if 'Signed-off-by:' in text
                                else '\n\n') + sob
    return text + '\n'


def repo_time():
    res = run(['git', '-C', REPO, 'log', '-1', '--format=%ct'], check=False)
    out = res.stdout.strip()
    return int(out) if res.returncode == 0 and out.isdigit() else \
        int(time.time())


def commit_plan(plan, signer, name, mail):
    """One commit per step on top of the base, without touching the
    work tree (a private index)."""
    t = repo_time()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, 'index'))
        git('read-tree', BASE_TAG, env=env)
        parent = git('rev-parse', f'{BASE_TAG}^{{commit}}').stdout.strip()
        commits = []
        for k, step in enumerate(plan.steps, 1):
            info = []
            for p in plan.changes(k):
                text = plan.content(p, k)
                if text is None:
                    info.append(f'0 {"0" * 40}\t{p}')
                    continue
                blob = git('hash-object', '-w', '--stdin', '--no-filters',
                           input=text).stdout.strip()
                info.append(f'100644 {blob}\t{p}')
            git('update-index', '--index-info', env=env,
                input='\n'.join(info) + '\n')
            tree = git('write-tree', env=env).stdout.strip()
            date = f'@{t + k} +0000'
            cenv = base_env(name, mail, date)
            parent = git('commit-tree', tree, '-p', parent, env=cenv,
                         input=message(step, signer)).stdout.strip()
            commits.append(parent)
        git('update-ref', BRANCH, parent)
    return commits


def readme_results(readme):
    """The README's Results section up to the end of its first table,
    the table aligned for a plain-text mail."""
    with open(readme) as f:
        text = f.read()
    m = re.search(r'^## Results\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    if not m:
        raise SeriesError('README.md has no "## Results" section')
    intro, rows = [], []
    for line in m.group(1).splitlines():
        if line.startswith('|'):
            rows.append([c.strip().replace('**', '')
                         for c in line.strip().strip('|').split('|')])
        elif rows:
            break
        else:
            intro.append(line)
    rows = [r for r in rows if not all(re.fullmatch(r':?-+:?', c) for c in r)]
    if len(rows) < 2:
        raise SeriesError('README.md: no table in the Results section')
    width = [max(len(r[i]) for r in rows if i < len(r))
             for i in range(len(rows[0]))]
    table = []
    for j, r in enumerate(rows):
        table.append('  '.join(c.ljust(width[i])
                               for i, c in enumerate(r)).rstrip())
        if j == 0:
            table.append('  '.join('-' * w for w in width))
    return '\n'.join(intro).strip() + '\n\n' + '\n'.join(table)


def cover_letter(path, kept, base_desc):
    with open(os.path.join(STEPS_DIR, 'cover.txt')) as f:
        subject, _, body = f.read().partition('\n\n')
    kept_text = '\n'.join(textwrap.fill(f'{fname}: {typ}: {why}', 72,
                                         initial_indent='  ',
                                         subsequent_indent='    ')
                           for (fname, typ), why in sorted(kept.items()))
    base_desc = textwrap.fill(f'Base: {base_desc}', 72)
    body = (body.replace('@KEPT@', kept_text)
            .replace('@BASE@', base_desc)
            .replace('@RESULTS@', readme_results(
                os.path.join(REPO, 'README.md'))))
    left = re.findall(r'@[A-Z]+@', body)
    if left:
        raise SeriesError(f'cover letter: unfilled {left}')
    text = read(path)
    if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
        raise SeriesError('git format-patch cover letter has no placeholders')
    text = text.replace('*** SUBJECT HERE ***', subject.strip())
    text = text.replace('*** BLURB HERE ***', body.strip() + '\n')
    write(path, text)


def generate():
    """Write the series; return (patch paths with the cover letter first,
    the generated commits)."""
    ensure_base()
    steps = load_steps()
    quilt = quilt_series()
    added = new_files()
    validate(steps, quilt, set(added))
    quilt_files = {p: patch_files(os.path.join(REPO, 'patches', p))
                   for p in quilt}
    final = final_contents(quilt, quilt_files, added)
    signer, name, mail = author()
    paths = set(final) | {'MAINTAINERS'}
    base_text = {p: base_show(p) for p in paths}
    with open(os.path.join(STEPS_DIR, 'maintainers.txt')) as f:
        template = f.read()
    plan = Plan(steps, quilt_files, base_text, final, Unifdef(base_dir()),
                signer, template)
    plan.verify()
    commits = commit_plan(plan, signer, name, mail)
    out = out_dir()
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, '*.patch')):
        os.remove(old)
    env = base_env(name, mail, f'@{repo_time()} +0000')
    res = git('format-patch', '-q', '--cover-letter', '-o', out,
              f'{BASE_TAG}..{BRANCH}', env=env)
    patches = sorted(glob.glob(os.path.join(out, '*.patch')))
    if len(patches) != len(steps) + 1:
        raise SeriesError(f'format-patch wrote {len(patches)} files for '
                          f'{len(steps)} steps: {res.stderr}')
    subject, version = base_version()
    base_desc = (f'{subject} (Linux {version} with Debian\'s patches), '
                 f'the series applies to it with git am.')
    cover_letter(patches[0], kept_checks(), base_desc)
    return patches, commits


# ---------------------------------------------------------------------
# Checking it

FINDING = re.compile(r'^(ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$')
WHERE = re.compile(r'^#\d+: FILE: ([^:]+):\d+:')


def checkpatch(patch):
    """[(level, type, file or None, message)] of checkpatch --strict."""
    base = base_dir()
    # Tree mode runs the tree's spdxcheck.py through `python3` (it needs
    # python3-ply and python3-git): the python3 that runs this script.
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + ':' +
               os.environ.get('PATH', ''))
    res = run([os.path.join(base, 'scripts', 'checkpatch.pl'), '--strict',
               '--show-types', '--no-summary', f'--root={base}', patch],
              cwd='/', env=env, check=False)
    if 'Traceback' in res.stderr:
        raise SeriesError(f'checkpatch on {patch}: a helper failed:\n'
                          f'{res.stderr}')
    found, lines = [], res.stdout.splitlines()
    for i, line in enumerate(lines):
        m = FINDING.match(line)
        if m:
            w = WHERE.match(lines[i + 1]) if i + 1 < len(lines) else None
            found.append((m[1], m[2], w[1] if w else None, m[3]))
    if res.returncode not in (0, 1) or (res.returncode and not found):
        raise SeriesError(f'checkpatch failed on {patch}:\n{res.stdout}'
                          f'{res.stderr}')
    return found


def unkept(found, kept):
    return [f for f in found if f[0] != 'CHECK' or (f[2], f[1]) not in kept]


def am(patches, ident):
    """Apply the patches onto the base as a reviewer would; return the
    resulting commits."""
    git('am', '--abort', check=False)   # a run killed in the middle
    git('checkout', '-q', '-f', '--detach', BASE_TAG)
    env = base_env(ident[1], ident[2], f'@{repo_time()} +0000')
    res = git('am', '-q', '--whitespace=error', *patches, env=env,
              check=False)
    if res.returncode:
        git('am', '--abort', check=False)
        raise SeriesError(f'git am failed:\n{res.stdout}{res.stderr}')
    return git('rev-list', '--reverse',
               f'{BASE_TAG}..HEAD').stdout.split()


def kbuild_env():
    env = dict(os.environ)
    env.setdefault('CCACHE_DIR', os.path.join(cache_dir(), 'ccache'))
    env.update(KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026',
               KBUILD_BUILD_USER='cfq', KBUILD_BUILD_HOST='cfq-iosched')
    return env


def kmake(build, *args):
    return subprocess.run(['make', '-s', '-C', base_dir(), f'O={build}',
                           f'ARCH={ARCH}', 'CC=ccache gcc', *args],
                          env=kbuild_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def configure(build, symbols):
    """tinyconfig + the lean fragment for the tree as it is checked out;
    the cfq symbols introduced so far must be y."""
    frag = os.path.join(REPO, 'tests', 'configs', 'base.config')
    head = git('rev-parse', 'HEAD').stdout.strip()
    with open(frag, 'rb') as f:
        want = hashlib.sha256(head.encode() + f.read()).hexdigest()
    stamp = os.path.join(build, '.cfq-series-config')
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    os.makedirs(build, exist_ok=True)
    for args in (['tinyconfig'], None, ['olddefconfig']):
        if args is None:
            res = subprocess.run(
                [os.path.join(base_dir(), 'scripts', 'kconfig',
                              'merge_config.sh'), '-m', '-O', build,
                 os.path.join(build, '.config'), frag],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        else:
            res = kmake(build, *args)
        if res.returncode:
            raise SeriesError(f'configuring {build} failed:\n{res.stdout}')
    with open(os.path.join(build, '.config')) as f:
        config = f.read()
    for y in symbols:
        if not re.search(rf'^CONFIG_{y}=y$', config, re.M):
            raise SeriesError(f'CONFIG_{y} is not y in the config of '
                              f'{head[:12]}')
    with open(stamp, 'w') as f:
        f.write(want)


WARN = re.compile(r'(: warning: |: error: |^WARNING: |^ERROR: )')


def build(build_dir, targets):
    """W=1 build; (ok, [warning lines])."""
    res = kmake(build_dir, f'-j{os.cpu_count()}', 'W=1', *targets)
    warnings = [ln for ln in res.stdout.splitlines() if WARN.search(ln)]
    return res.returncode == 0, warnings, res.stdout


def normalize(line):
    for prefix in (base_dir() + '/', cache_dir() + '/'):
        line = line.replace(prefix, '')
    return re.sub(r':\d+(:\d+)?:', ':', line)


def check(every_step=False):
    t0 = time.monotonic()
    steps = load_steps()
    patches, commits = generate()
    note(f'generated {len(patches)} patches in {time.monotonic() - t0:.0f} s')
    t = time.monotonic()
    ident = author()
    applied = am(patches[1:], ident)
    for ours, theirs in zip(commits, applied):
        if (git('rev-parse', f'{ours}^{{tree}}').stdout !=
                git('rev-parse', f'{theirs}^{{tree}}').stdout):
            raise SeriesError(f'git am of the series gives another tree '
                              f'than its commit {ours[:12]}')
    note(f'git am: {len(applied)} patches apply '
         f'({time.monotonic() - t:.0f} s)')
    t = time.monotonic()
    kept = kept_checks()
    bad = []
    for p in patches[1:]:
        bad += [f'{os.path.basename(p)}: {lv}:{ty}: {fn or "-"}: {msg}'
                for lv, ty, fn, msg in unkept(checkpatch(p), kept)]
    if bad:
        raise SeriesError('checkpatch --strict:\n' + '\n'.join(bad))
    note(f'checkpatch --strict: clean ({time.monotonic() - t:.0f} s)')
    out = os.path.join(cache_dir(), 'build', 'series')
    if every_step:
        check_every_step(steps, applied, out)
    else:
        for k in (1, len(applied)):
            t = time.monotonic()
            symbols = [y for s in steps[:k] for y in s.introduces]
            git('checkout', '-q', '-f', '--detach', applied[k - 1])
            configure(out, symbols)
            ok, warnings, log = build(out, ['block/'])
            if not ok or warnings:
                raise SeriesError(f'patch {k}: W=1 build of block/ '
                                  f'failed:\n' + '\n'.join(
                                      warnings or log.splitlines()[-30:]))
            note(f'patch {k}: W=1 build of block/ clean '
                 f'({time.monotonic() - t:.0f} s)')
    note(f'series checked in {time.monotonic() - t0:.0f} s: {out_dir()}')


def base_warnings(out):
    """The W=1 warnings of the base itself, each file's, for the lean
    config.  A build prints the warnings of the files it compiles (ccache
    replays them), so they come from a build from scratch, kept in the
    build directory for the next runs: the base and the config do not
    change, the compiler might."""
    frag = os.path.join(REPO, 'tests', 'configs', 'base.config')
    gcc = run(['gcc', '--version']).stdout.splitlines()[0]
    with open(frag, 'rb') as f:
        key = hashlib.sha256(git('rev-parse', BASE_TAG).stdout.encode() +
                             gcc.encode() + f.read()).hexdigest()
    path = os.path.join(out, '.cfq-base-warnings')
    if os.path.exists(path):
        lines = read(path).splitlines()
        if lines and lines[0] == key:
            note(f'the base: {len(lines) - 1} W=1 warnings of its own, '
                 f'from an earlier build')
            return set(lines[1:])
    t = time.monotonic()
    shutil.rmtree(out, ignore_errors=True)
    git('checkout', '-q', '-f', '--detach', BASE_TAG)
    configure(out, [])
    ok, warnings, log = build(out, ['bzImage'])
    if not ok:
        raise SeriesError('the base: W=1 build failed:\n' +
                          '\n'.join(log.splitlines()[-40:]))
    seen = sorted({normalize(w) for w in warnings})
    write(path, '\n'.join([key] + seen) + '\n')
    note(f'the base: W=1 build from scratch, {len(seen)} warnings of its '
         f'own ({time.monotonic() - t:.0f} s)')
    return set(seen)


def check_every_step(steps, applied, out):
    known = base_warnings(out)
    for k in range(1, len(applied) + 1):
        t = time.monotonic()
        symbols = [y for s in steps[:k] for y in s.introduces]
        git('checkout', '-q', '-f', '--detach', applied[k - 1])
        configure(out, symbols)
        ok, warnings, log = build(out, ['bzImage'])
        if not ok:
            raise SeriesError(f'patch {k}: W=1 build failed:\n' +
                              '\n'.join(log.splitlines()[-40:]))
        new = sorted({normalize(w) for w in warnings} - known)
        if new:
            raise SeriesError(f'patch {k}: new W=1 warnings:\n' +
                              '\n'.join(new))
        note(f'patch {k}: W=1 build, no new warning '
             f'({time.monotonic() - t:.0f} s)')


def locked(fn, *args):
    os.makedirs(os.path.dirname(base_dir()), exist_ok=True)
    with open(os.path.join(os.path.dirname(base_dir()), 'lock'), 'w') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        return fn(*args)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('generate')
    c = sub.add_parser('check')
    c.add_argument('--every-step', action='store_true')
    args = ap.parse_args(argv)
    try:
        if args.cmd == 'generate':
            t0 = time.monotonic()
            patches, _ = locked(generate)
            for p in patches:
                note(os.path.basename(p))
            note(f'generated in {time.monotonic() - t0:.0f} s')
            print(out_dir())
        else:
            locked(check, args.every_step)
            print(out_dir())
    except SeriesError as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
