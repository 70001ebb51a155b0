#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Apply the patch set to the tree: the quilt series (edits to existing
# files), then copy the new files.  Idempotent: re-running on an applied
# tree with an unchanged series touches nothing, so incremental builds
# stay incremental.  A patch that does not apply stops with its name.
set -euo pipefail
. "$(dirname "$0")/common.sh"

tree=$("$REPO/scripts/get-tree.sh")
cd "$tree"

export QUILTRC=$REPO/scripts/quiltrc
export QUILT_PATCHES=$REPO/patches
export QUILT_SERIES=$REPO/series

state=.cfq-state
mkdir -p "$state"
stamp=$state/series.sha
want=$(cat "$REPO/series" $(sed -e 's/#.*//' -e '/^\s*$/d' \
	-e "s|^|$REPO/patches/|" "$REPO/series") </dev/null | sha256sum)

# Undo whatever quilt applied, from the backups in .pc alone: the
# checkout that applied it may be gone.  quilt keeps a copy of each file
# before each patch; an empty copy stands for a file the patch created.
restore_from_pc() {
	local p f
	tac .pc/applied-patches | while read -r p; do
		(cd ".pc/$p" && find . -type f ! -name .timestamp) | while read -r f; do
			if [ -s ".pc/$p/$f" ]; then
				cp ".pc/$p/$f" "$f"
			else
				rm -f "$f"
			fi
		done
	done
	rm -rf .pc "$stamp"
}

# quilt prefers the series recorded in .pc over QUILT_SERIES.  Another
# checkout of this project (a CI clone) may have patched the shared tree:
# adopt its state when the series content is the same, else undo it.
if [ -d .pc ] && [ ! -s .pc/applied-patches ]; then
	rm -rf .pc
elif [ -d .pc ] && [ "$(cat .pc/.quilt_series)" != "$QUILT_SERIES" ]; then
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		note "adopting the tree patched from $(cat .pc/.quilt_series)"
		echo "$QUILT_SERIES" >.pc/.quilt_series
		echo "$QUILT_PATCHES" >.pc/.quilt_patches
	else
		note "undoing the series applied from $(cat .pc/.quilt_series)"
		restore_from_pc
	fi
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	if [ -d .pc ] && quilt applied >/dev/null 2>&1; then
		note "unapplying the previous series"
		quilt pop -a -f -q >/dev/null
	fi
	if [ -s "$REPO/series" ] && grep -qv '^\s*\(#.*\)\?$' "$REPO/series"; then
		note "applying $(grep -cv '^\s*\(#.*\)\?$' "$REPO/series") patches"
		if ! out=$(quilt push -a -q --fuzz=0 2>&1); then
			echo "$out" >&2
			bad=$(quilt next 2>/dev/null || true)
			die "patch ${bad:-?} does not apply to $tree"
		fi
	fi
	echo "$want" >"$stamp"
fi

# New files: copy only what changed (keeps mtimes, so make stays
# incremental); drop files an earlier version of the set added.
manifest=$state/new-files
touch "$manifest"
new_files >"$state/pairs"
while read -r src dst; do
	mkdir -p "$(dirname "$dst")"
	cmp -s "$REPO/$src" "$dst" || cp "$REPO/$src" "$dst"
	echo "$dst"
done <"$state/pairs" | LC_ALL=C sort >"$manifest.new"
comm -23 <(LC_ALL=C sort "$manifest") "$manifest.new" | while read -r f; do
	note "removing $f (no longer in the set)"
	rm -f "$f"
done
mv "$manifest.new" "$manifest"
echo "$tree"
