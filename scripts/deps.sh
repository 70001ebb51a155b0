#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages the loop needs, only those missing.
set -euo pipefail

pkgs=(
	build-essential flex bison bc libelf-dev libssl-dev dwarves cpio kmod
	xz-utils ccache quilt sparse linux-source-6.12 liburing-dev
	qemu-system-x86 busybox-static fio util-linux blktrace cgroup-tools
	fdisk e2fsprogs python3 python3-pytest python3-matplotlib
	# the patch series (make series): git, patch, and what checkpatch's
	# SPDX check (scripts/spdxcheck.py) imports
	git patch python3-ply python3-git
	# the kernel packages (make deb): make bindeb-pkg's tools; udevadm,
	# with which the guest tests run the udev rule
	debhelper rsync udev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "==> installing: ${missing[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive

# Without a service manager (a container), udev's postinst may start
# udevd from its init script, which replays the add event of every
# device of the host where /sys is writable.  Only udevadm is needed
# here: install without starting services (policy-rc.d's exit 101:
# action forbidden).
policy=/usr/sbin/policy-rc.d
if [[ " ${missing[*]} " == *" udev "* ]] && [ ! -d /run/systemd/system ] &&
	[ ! -e $policy ]; then
	printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
	$sudo chmod 755 $policy
	trap '$sudo rm -f $policy' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
