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
	# the kernel packages (make deb): what make bindeb-pkg runs
	debhelper rsync
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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
