#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian packages of a kernel with cfq: scripts/deb.sh [CONFIG]
#
# CONFIG: the kernel config to start from, e.g. /boot/config-$(uname -r)
# or one of linux-config-6.12's (/usr/src/linux-config-6.12/*.xz, read
# as is).  Default: the lean test config (tinyconfig +
# tests/configs/base.config, as scripts/build.sh makes it).
# LOCALMODCONFIG=1 trims CONFIG to the modules loaded on this machine
# (make localmodconfig; LSMOD=file takes lsmod's output from another).
#
# On top go tests/configs/deb.config (the cfq elevator built in, its
# cgroup controller, what they need), checked in the final .config.
# The tree is Debian's linux-source-6.12 with the patch set
# (scripts/apply.sh); the build is out of tree in $CACHE/deb/NAME/build,
# `make bindeb-pkg`, through ccache.  Also builds cfq-iosched-udev, a
# package of the udev rule scripts/udev/60-cfq-iosched.rules.  Prints
# the paths of the .deb files.
set -euo pipefail
. "$(dirname "$0")/common.sh"

config=${1:-}
local_mods=${LOCALMODCONFIG:-0}
if [ -n "$config" ]; then
	[ -r "$config" ] || die "cannot read $config"
	name=$(basename "$config" .xz)
	[ "$local_mods" = 1 ] && name=$name-local
else
	name=lean
fi
out=$CACHE/deb/$name
build=$out/build
cfq_frag=$REPO/tests/configs/deb.config

tree=$("$REPO/scripts/apply.sh")
mkdir -p "$build" "$CCACHE_DIR"
kmake() {
	make -s -C "$tree" O="$build" ARCH=$KARCH CC="ccache gcc" "$@"
}

# The config's inputs: rebuilt from scratch only when they change.
want=$( (if [ -n "$config" ]; then xz -dcf "$config"; fi
	echo "local=$local_mods"
	cat "$cfq_frag" "$tree/.cfq-state/series.sha"
	[ -n "$config" ] || cat "$REPO/tests/configs/base.config") | sha256sum)
if [ ! -f "$build/.config" ] || [ "$(cat "$build/.cfq-config.sha" 2>/dev/null)" != "$want" ]; then
	if [ -n "$config" ]; then
		note "configuring $name: $config"
		xz -dcf "$config" >"$build/.config"
		if [ "$local_mods" = 1 ]; then
			# The modules lsmod lists here, or in the file $LSMOD
			# names (lsmod's output on the target machine).
			kmake olddefconfig
			kmake localmodconfig >/dev/null
		fi
	else
		note "configuring $name: tinyconfig + base.config"
		kmake tinyconfig >/dev/null
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$build" \
			"$build/.config" "$REPO/tests/configs/base.config" \
			>"$build/merge.log" 2>&1 || {
			cat "$build/merge.log" >&2
			die "merge_config failed"
		}
	fi
	# A distribution config names its vendor's certificates (Debian's:
	# debian/certs/...), which are not in this tree: build without.
	for key in SYSTEM_TRUSTED_KEYS SYSTEM_REVOCATION_KEYS; do
		val=$("$tree/scripts/config" --file "$build/.config" -s "$key")
		if [ -n "$val" ] && [ "$val" != undef ] &&
			[ ! -e "$tree/$val" ] && [ ! -e "$val" ]; then
			note "$key: $val is not here, building without it"
			"$tree/scripts/config" --file "$build/.config" \
				--set-str "$key" ""
		fi
	done
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"$build/.config" "$cfq_frag" >"$build/merge.log" 2>&1 || {
		cat "$build/merge.log" >&2
		die "merge_config failed"
	}
	kmake olddefconfig
	echo "$want" >"$build/.cfq-config.sha"
fi

lost=$("$PY" "$REPO/tests/harness/kconfig_check.py" "$build/.config" \
	"$cfq_frag") || {
	echo "$lost" >&2
	die "the $name config lost options cfq needs (see above)"
}

# Packages of an earlier build would be printed with the new ones.
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
note "building the $name kernel packages in $build"
start=$(date +%s)
kmake -j"$(nproc)" LOCALVERSION=-cfq bindeb-pkg >"$build/bindeb-pkg.log" 2>&1 || {
	tail -n 40 "$build/bindeb-pkg.log" >&2
	die "bindeb-pkg failed (log: $build/bindeb-pkg.log)"
}
note "bindeb-pkg took $(($(date +%s) - start)) s"

# The udev rule as a package of its own: it does nothing on a kernel
# without cfq, so it may stay installed whatever kernel boots.
rule=$REPO/scripts/udev/60-cfq-iosched.rules
ver=0.$(git -C "$REPO" log -1 --format=%cd --date=format:%Y%m%d.%H%M%S \
	2>/dev/null || date -u +%Y%m%d.%H%M%S)
pkg=$build/udev-pkg
rm -rf "$pkg"
install -D -m 0644 "$rule" "$pkg/usr/lib/udev/rules.d/${rule##*/}"
mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<EOF
Package: cfq-iosched-udev
Version: $ver
Architecture: all
Maintainer: cfq-iosched developers <cfq-iosched@localhost>
Depends: udev
Section: admin
Priority: optional
Description: udev rule: the cfq I/O scheduler for rotational disks
 Selects the cfq scheduler for rotational whole disks when they appear,
 on kernels that offer it (cfq-iosched).  Other disks keep the kernel's
 default.
EOF
dpkg-deb --root-owner-group -Zxz --build "$pkg" \
	"$out/cfq-iosched-udev_${ver}_all.deb" >/dev/null

ls "$out"/*.deb
