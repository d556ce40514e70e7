#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Locate or build the kernels kmaglev is tested on; print what was asked for on stdout.
#
#   kernel.sh src           extracted Debian linux-source-6.12 tree (checkpatch, ynl-gen, kunit.py)
#   kernel.sh test          build dir of the 6.12 test kernel (KDIR; bzImage in arch/x86/boot):
#                           lockdep and kmemleak (config, config-test)
#   kernel.sh debug         build dir of the 6.12 debug kernel: the test kernel plus KASAN,
#                           KMEMLEAK, UBSAN, full preemption and fault injection
#   kernel.sh stock         release string of Debian's stock kernel (linux-image-amd64)
#   kernel.sh stock-kdir    its headers (KDIR)
#   kernel.sh stock-initrd  busybox initrd that mounts the host root over 9p
#   kernel.sh cached test|debug
#                           exit 0 if that kernel is built and cached (nothing is built)
#
# Everything is cached under ${XDG_CACHE_HOME:-~/.cache}/kmaglev, keyed by the source package
# version and a hash of the inputs, so fresh clones on the same machine reuse it.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${KMAGLEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmaglev}
SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
JOBS=$(nproc)
# Bump when the way the test kernel is built changes (the fragment is hashed separately).
RECIPE=1

die() { echo "kernel.sh: $*" >&2; exit 1; }

srcver() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		die "linux-source-6.12 is not installed (run selftests/vm/deps.sh)"
}

# Run a long quiet step; show its log tail only if it fails.
quiet() {
	local log=$1; shift
	if ! "$@" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "failed: $* (full log: $log)"
	fi
}

cmd_src() {
	local ver dir tmp
	ver=$(srcver)
	dir=$CACHE/src/linux-$ver
	if [[ ! -f $dir/.kmaglev-extracted ]]; then
		[[ -f $SRC_TARBALL ]] || die "$SRC_TARBALL missing"
		mkdir -p "$CACHE/src"
		tmp=$(mktemp -d "$CACHE/src/.x.XXXXXX")
		echo "kernel: extracting linux-source-6.12 $ver" >&2
		tar -C "$tmp" -xf "$SRC_TARBALL"
		rm -rf "$dir"
		mv "$tmp/linux-source-6.12" "$dir"
		rmdir "$tmp"
		touch "$dir/.kmaglev-extracted"
	fi
	echo "$dir"
}

# Build progress: count objects as they appear, one line updated in place.
progress() {
	local flavour=$1 out=$2 pid=$3 start=$SECONDS n
	while kill -0 "$pid" 2>/dev/null; do
		# (find fails on the build's temporary files vanishing under it: not an error here)
		n=$(find "$out" -name '*.o' 2>/dev/null | wc -l) || true
		printf '\rkernel: building 6.12 %s kernel: %d objects, %ds ' "$flavour" "$n" $((SECONDS - start)) >&2
		sleep 5
	done
	printf '\n' >&2
}

# kernel_dir FLAVOUR FRAGMENT...: where that kernel is cached, under a key that hashes the
# recipe and every fragment
kernel_dir() {
	local flavour=$1 key ver
	shift
	ver=$(srcver) || return 1
	key=$( (echo "recipe $RECIPE"; cat "$@") | sha256sum | cut -c1-12) || return 1
	echo "$CACHE/$flavour-$ver-$key"
}

# build_kernel FLAVOUR FRAGMENT...: tinyconfig + the fragments, built unless cached.
build_kernel() {
	local flavour=$1 src out rc
	shift
	src=$(cmd_src)
	out=$(kernel_dir "$flavour" "$@") || exit 1
	if [[ ! -f $out/.kmaglev-built ]]; then
		rm -rf "$out"
		mkdir -p "$out"
		(
			cd "$src"
			quiet "$out/build.log" make O="$out" tinyconfig
			quiet "$out/build.log" scripts/kconfig/merge_config.sh -m -O "$out" \
				"$out/.config" "$@"
			quiet "$out/build.log" make O="$out" olddefconfig
		)
		# Every =y line of the fragments must have survived olddefconfig.
		local missing
		missing=$(cat "$@" | grep -E '^CONFIG_[A-Z0-9_]+=y' | grep -vxFf "$out/.config" || true)
		[[ -z $missing ]] || die "fragment options dropped by olddefconfig: $missing"
		make -C "$src" O="$out" -j"$JOBS" bzImage modules_prepare modules >"$out/build.log" 2>&1 &
		progress "$flavour" "$out" $!
		wait $! && rc=0 || rc=$?
		if [[ $rc -ne 0 ]]; then
			grep -E 'error|Error' "$out/build.log" | head -n 20 >&2
			die "$flavour kernel build failed (log: $out/build.log)"
		fi
		touch "$out/.kmaglev-built"
	fi
	echo "$out"
}

cmd_test() { build_kernel test "$HERE/config" "$HERE/config-test"; }
cmd_debug() { build_kernel debug "$HERE/config" "$HERE/config-debug"; }
cmd_cached() {
	local dir
	[[ ${1:-} == test || ${1:-} == debug ]] || die "usage: kernel.sh cached test|debug"
	dir=$(kernel_dir "$1" "$HERE/config" "$HERE/config-$1") || exit 1
	[[ -f $dir/.kmaglev-built ]]
}

cmd_stock() {
	local k
	# Newest Debian kernel that has both image and headers installed.
	for k in $(ls -1 /boot/vmlinuz-*-amd64 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V -r); do
		if [[ -d /lib/modules/$k/build && -d /lib/modules/$k/kernel ]]; then
			echo "$k"
			return
		fi
	done
	die "no stock kernel with headers (install linux-image-amd64 linux-headers-amd64)"
}

cmd_stock_kdir() {
	echo "/lib/modules/$(cmd_stock)/build"
}

cmd_stock_initrd() {
	local kver key out tmp m
	kver=$(cmd_stock)
	key=$(cat "$HERE/kernel.sh" /bin/busybox | sha256sum | cut -c1-12)
	out=$CACHE/stock-$kver-$key/initrd.gz
	if [[ ! -f $out ]]; then
		mkdir -p "$(dirname "$out")"
		tmp=$(mktemp -d)
		mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
		cp /bin/busybox "$tmp/bin/busybox"
		ln -s busybox "$tmp/bin/sh"
		: >"$tmp/modules"
		for m in $(for m in virtio_pci 9pnet_virtio 9p; do
				modprobe -S "$kver" --show-depends "$m"
			   done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
			cp "$m" "$tmp/lib/modules/"
			case "$m" in
			*.xz) xz -d "$tmp/lib/modules/$(basename "$m")"; m=${m%.xz} ;;
			*.zst) zstd -q -d --rm "$tmp/lib/modules/$(basename "$m")"; m=${m%.zst} ;;
			esac
			echo "/lib/modules/$(basename "$m")" >>"$tmp/modules"
		done
		cat >"$tmp/init" <<'INIT'
#!/bin/sh
# kmaglev stock-kernel initrd: load virtio + 9p, mount the host root, hand over to the guest init.
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t devtmpfs dev /dev
for m in $(/bin/busybox cat /modules); do /bin/busybox insmod "$m" || echo "initrd: insmod $m failed"; done
init=$(/bin/busybox sed -n 's/.*kmaglev.init=\([^ ]*\).*/\1/p' /proc/cmdline)
if ! /bin/busybox mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose /dev/root /newroot; then
	echo "initrd: cannot mount host root"; /bin/busybox reboot -f
fi
/bin/busybox mount --move /dev /newroot/dev
/bin/busybox umount /proc
exec /bin/busybox switch_root /newroot "$init"
INIT
		chmod +x "$tmp/init"
		(cd "$tmp" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out.tmp"
		mv "$out.tmp" "$out"
		rm -rf "$tmp"
	fi
	echo "$out"
}

case "${1:-}" in
src) cmd_src ;;
test) cmd_test ;;
debug) cmd_debug ;;
stock) cmd_stock ;;
stock-kdir) cmd_stock_kdir ;;
stock-initrd) cmd_stock_initrd ;;
cached) cmd_cached "${2:-}" ;;
*) die "usage: kernel.sh src|test|debug|stock|stock-kdir|stock-initrd|cached FLAVOUR" ;;
esac
