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
#   kernel.sh deb612        Debian's own prebuilt 6.12 kernel, the version of linux-source-6.12:
#                           its headers (KDIR), from the packages unpacked in the cache (not
#                           installed on the host)
#   kernel.sh deb612-root   the root its packages are unpacked in (boot/vmlinuz-*, lib/modules)
#   kernel.sh deb612-initrd busybox initrd with its virtio and 9p modules, as stock-initrd
#   kernel.sh cached test|debug|deb612
#                           exit 0 if that kernel is built (unpacked) and cached (nothing is
#                           built or fetched)
#
# Everything is cached under ${XDG_CACHE_HOME:-~/.cache}/kmaglev, keyed by the source package
# version and a hash of the inputs, so fresh clones on the same machine reuse it.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${KMAGLEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kmaglev}
SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
# One job more than cores: on a cold `make check` the build shares them with the stock
# kernel's VMs, and it is the critical path.
JOBS=$(($(nproc) + 1))
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
	case "${1:-}" in
	test|debug) dir=$(kernel_dir "$1" "$HERE/config" "$HERE/config-$1") || exit 1 ;;
	deb612) dir=$(deb612_dir) || exit 1 ;;
	*) die "usage: kernel.sh cached test|debug|deb612" ;;
	esac
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

# make_initrd OUT KVER [BASE]: a busybox initrd with KVER's virtio and 9p modules (from
# BASE/lib/modules: the host's own by default) that mounts the host root over 9p and hands
# over to the init named by kmaglev.init=
make_initrd() {
	local out=$1 kver=$2 tmp m n
	local -a base=()
	[[ -n ${3:-} ]] && base=(-d "$3")
	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp -d)
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp /bin/busybox "$tmp/bin/busybox"
	ln -s busybox "$tmp/bin/sh"
	: >"$tmp/modules"
	# (built-in ones, such as Debian 6.12's virtio_pci, are "builtin" lines: skipped)
	for m in $(for n in virtio_pci 9pnet_virtio 9p; do
			modprobe "${base[@]}" -S "$kver" --show-depends "$n"
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
# kmaglev initrd (stock, deb612): load virtio + 9p, mount the host root, hand over to the guest init.
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
	# (a temporary name of its own: VMs started at once may each make it)
	(cd "$tmp" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$tmp"
}

cmd_stock_initrd() {
	local kver key out
	kver=$(cmd_stock)
	key=$(cat "$HERE/kernel.sh" /bin/busybox | sha256sum | cut -c1-12)
	out=$CACHE/stock-$kver-$key/initrd.gz
	[[ -f $out ]] || make_initrd "$out" "$kver"
	echo "$out"
}

# --- Debian's prebuilt 6.12 (deb612) ----------------------------------------------------
# A distribution kernel beside the compiled ones: every driver a module, the config users of
# 6.12 run, and nothing to build. Its packages are fetched with `apt-get download` (no root,
# nothing installed on the host) and unpacked together into one root in the cache, so that the
# headers' relative links (scripts and tools, to linux-kbuild) resolve inside it.

# deb612_abi: Debian's ABI name of the linux-source-6.12 version: 6.12.118-1~deb12u1 (a
# bookworm update) -> 6.12.118+deb12; without a ~debN suffix, debN is this system's release.
deb612_abi() {
	local ver up deb
	ver=$(srcver) || return 1
	up=${ver%%-*}
	deb=$(sed -n 's/.*~\(deb[0-9][0-9]*\).*/\1/p' <<<"$ver")
	if [[ -z $deb ]]; then
		# shellcheck source=/dev/null
		deb=deb$(. /etc/os-release && echo "${VERSION_ID%%.*}")
	fi
	echo "$up+$deb"
}

# The packages, all built from the same source version as linux-source-6.12. The -unsigned
# image is the same kernel and modules as the signed one, and its modules are signed with the
# build's own key all the same (they load without tainting): what it lacks is the Secure Boot
# signature on vmlinuz, which QEMU's -kernel does not check.
deb612_pkgs() {
	local abi=$1
	echo "linux-image-$abi-amd64-unsigned linux-headers-$abi-amd64 linux-headers-$abi-common" \
		"linux-kbuild-$abi"
}

# deb612_unpack DIR VER ABI: fetch and unpack the packages into DIR/root, made usable in place.
# (Its code is part of the cache key: a change to it unpacks again.)
deb612_unpack() {
	local dir=$1 ver=$2 abi=$3 root=$1/root p l t
	local -a pkgs=()
	for p in $(deb612_pkgs "$abi"); do pkgs+=("$p=$ver"); done
	mkdir -p "$dir/debs" "$root"
	# apt-get download as root warns that its _apt user cannot write here: harmless
	(cd "$dir/debs" && quiet "$dir/fetch.log" apt-get download "${pkgs[@]}") ||
		die "cannot download ${pkgs[*]} (the archive has moved on? apt-get update, upgrade linux-source-6.12)"
	for p in "$dir"/debs/*.deb; do
		dpkg-deb -x "$p" "$root" || die "dpkg-deb -x $p failed"
	done
	# The headers' Makefile includes the common half by its installed path: point it into
	# the cache, where kbuild also finds the source tree (abs_srctree is that file's dir).
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$abi-amd64/Makefile"
	# Absolute links (lib/modules/*/build and source) made relative, within the root.
	while IFS= read -r l; do
		t=$(readlink "$l")
		ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$root$t")" "$l"
	done < <(find "$root" -type l -lname '/*')
	# Nothing dangling where kbuild and modprobe look.
	l=$(find "$root/usr/src" "$root/usr/lib" "$root/lib/modules" -xtype l)
	[[ -z $l ]] || die "deb612: dangling links in $root: $l"
	[[ -f $root/usr/src/linux-headers-$abi-amd64/scripts/Makefile.build ]] ||
		die "deb612: headers without kbuild's scripts in $root"
	# modules.dep and the rest: what the package's postinst would have made with depmod.
	quiet "$dir/depmod.log" depmod -b "$root" "$abi-amd64"
	rm -rf "$dir/debs"
}

# deb612_dir: where it is unpacked, keyed by the source version and the unpack recipe
deb612_dir() {
	local ver key
	ver=$(srcver) || return 1
	key=$(declare -f deb612_pkgs deb612_unpack | sha256sum | cut -c1-12) || return 1
	echo "$CACHE/deb612-$ver-$key"
}

cmd_deb612_root() {
	local dir ver abi
	dir=$(deb612_dir) || exit 1
	if [[ ! -f $dir/.kmaglev-built ]]; then
		ver=$(srcver)
		abi=$(deb612_abi)
		echo "kernel: fetching and unpacking Debian's $abi-amd64 ($ver)" >&2
		# An interrupted unpack (no marker) is redone from scratch.
		rm -rf "$dir"
		mkdir -p "$dir"
		deb612_unpack "$dir" "$ver" "$abi"
		touch "$dir/.kmaglev-built"
	fi
	echo "$dir/root"
}

cmd_deb612() {
	local root
	root=$(cmd_deb612_root)
	echo "$root/usr/src/linux-headers-$(deb612_abi)-amd64"
}

cmd_deb612_initrd() {
	local root key out
	root=$(cmd_deb612_root)
	key=$(cat "$HERE/kernel.sh" /bin/busybox | sha256sum | cut -c1-12)
	out=$(dirname "$root")/initrd-$key.gz
	[[ -f $out ]] || make_initrd "$out" "$(deb612_abi)-amd64" "$root"
	echo "$out"
}

case "${1:-}" in
src) cmd_src ;;
test) cmd_test ;;
debug) cmd_debug ;;
stock) cmd_stock ;;
stock-kdir) cmd_stock_kdir ;;
stock-initrd) cmd_stock_initrd ;;
deb612) cmd_deb612 ;;
deb612-root) cmd_deb612_root ;;
deb612-initrd) cmd_deb612_initrd ;;
cached) cmd_cached "${2:-}" ;;
*) die "usage: kernel.sh src|test|debug|stock|stock-kdir|stock-initrd|deb612|deb612-root|deb612-initrd|cached FLAVOUR" ;;
esac
