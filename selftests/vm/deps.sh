#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything kmaglev needs to build, test and demo, from Debian's archive.
# Idempotent: only missing packages are installed. As non-root, print the command instead.
set -euo pipefail

PKGS=(
	# build
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod
	sparse pkg-config
	# userland libraries
	libmnl-dev libjson-c-dev libsodium-dev libcyaml-dev libyaml-dev libmicrohttpd-dev libev-dev libcmocka-dev
	libcurl4-openssl-dev libsystemd-dev
	# kernels (Debian's prebuilt 6.12 is not installed: kernel.sh deb612 fetches its packages
	# with apt-get download and unpacks them in its cache, with dpkg-deb, depmod and xz)
	linux-source-6.12 linux-headers-amd64 linux-image-amd64
	# YNL code generator
	python3 python3-yaml python3-jsonschema
	# VM and guest tools
	qemu-system-x86 busybox-static iproute2 iputils-ping curl socat iperf3 ipvsadm
	bird2 frr gobgpd ethtool tcpdump bash-completion jq
	# operator ACLs in front of kmaglev (dp_acl.sh), perf for profiling the data path
	nftables linux-perf
	# DKMS: the module rebuilt for each new kernel (dkms.conf; selftests/net/install.sh)
	dkms
	# make deb: the kmaglev and kmaglev-dkms packages (debian/), checked with lintian
	debhelper dh-dkms lintian fakeroot
	# fuzzing the BGP message parser (libFuzzer)
	clang libclang-rt-14-dev
	# promtool checks the daemon's /metrics
	prometheus
	# make bench-health: the https farm's certificate; daemon_checks.sh: its CA and
	# certificates, and a real resolver on the backends (dnsmasq, without its service)
	openssl dnsmasq-base
	# kmaglev import keepalived: its sample configurations (tests/test_import.c)
	keepalived
)

# --kernel: only what building the 6.12 kernels takes (make check starts the debug kernel's
# build with these, and installs the rest while it builds)
if [[ ${1:-} == --kernel ]]; then
	PKGS=(build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod xz-utils
		linux-source-6.12)
fi

missing=()
for p in "${PKGS[@]}"; do
	case "$p" in \#*) continue ;; esac
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ "$st" == ii* ]] || missing+=("$p")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing packages; as root run:" >&2
	echo "  apt-get update && DEBIAN_FRONTEND=noninteractive ${cmd[*]}" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${cmd[@]}" >/tmp/kmaglev-deps.log 2>&1; then
	apt-get update >>/tmp/kmaglev-deps.log 2>&1 || true
	if ! "${cmd[@]}" >>/tmp/kmaglev-deps.log 2>&1; then
		tail -n 30 /tmp/kmaglev-deps.log >&2
		echo "deps: apt-get failed (log: /tmp/kmaglev-deps.log)" >&2
		exit 1
	fi
fi
