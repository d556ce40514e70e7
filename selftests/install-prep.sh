#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side half of selftests/net/install.sh (the install path: DKMS, `make install`,
# `make uninstall`), run as root on the host before that test's VM:
#
#   selftests/install-prep.sh [KVER]      (default: the stock kernel, selftests/vm/kernel.sh stock)
#
# Building kmaglev.ko inside a TCG guest takes minutes, so the builds happen here and the VM
# runs only the install steps. Everything lands in build/install/ and nothing of the host's
# own /lib/modules, /var/lib/dkms, /usr or /etc is written:
#
#   dkms/var-lib-dkms  DKMS's tree after `dkms add` and `dkms build kmaglev/VERSION -k KVER`
#                      (with its MOK signing key, made on the first build), run in a private
#                      mount namespace with this directory bound over /var/lib/dkms
#   dkms/usr-src       what `make install-dkms-src` wrote to /usr/src (kmaglev-VERSION, the
#                      module's source), the upper layer of an overlay over the host's /usr/src
#                      in that namespace; the guest stacks it over /usr/src the same way
#   src/               a copy of the tree with kmaglev.ko and the CLI built for KVER, where the
#                      guest runs `make install` and `make uninstall`
#   KVER               the kernel release all this is for; written last (install.sh checks it)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
KVER=${1:-$("$TOP/selftests/vm/kernel.sh" stock)}
KDIR=/lib/modules/$KVER/build
OUT=$TOP/build/install
VERSION=$(cat "$TOP/VERSION")

die() { echo "install-prep: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "must run as root (a private mount namespace over /var/lib/dkms and /usr/src)"
command -v dkms >/dev/null || die "dkms not installed (run selftests/vm/deps.sh)"
[[ -f $KDIR/Makefile ]] || die "no kernel headers for $KVER at $KDIR"

start=$SECONDS
rm -rf "$OUT"
mkdir -p "$OUT/dkms/var-lib-dkms" "$OUT/dkms/usr-src" "$OUT/dkms/usr-src.work" "$OUT/src"

# The tree for `make install`: what the install targets need, without the build products
# of other kernels (kmod/) but with the CLI's if they are current (make rebuilds what is not).
tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers \
	Makefile Kbuild VERSION dkms.conf kmod uapi Documentation/examples selftests/vm/kernel.sh |
	tar -C "$OUT/src" -xf -
tar -C "$TOP" -cf - userland | tar -C "$OUT/src" -xf -
echo "install-prep: building kmaglev.ko ($KVER) and the CLI in $OUT/src" >&2
make -C "$OUT/src" -s KDIR="$KDIR" KMAGLEV_ONLY=1 -j"$(nproc)" kmod userland >"$OUT/make.log" 2>&1 ||
	{ tail -n 30 "$OUT/make.log" >&2; die "build failed (log: $OUT/make.log)"; }

# DKMS, as on an LB host, but in a mount namespace of its own: /var/lib/dkms is an empty
# directory of ours and /usr/src an overlay whose upper layer is ours (the kernel headers stay
# visible below it).
echo "install-prep: dkms add and dkms build kmaglev/$VERSION -k $KVER" >&2
unshare --mount --propagation private bash -euo pipefail -c '
	OUT=$1 TOP=$2 VERSION=$3 KVER=$4
	mount --bind "$OUT/dkms/var-lib-dkms" /var/lib/dkms
	mount -t overlay overlay -o "lowerdir=/usr/src,upperdir=$OUT/dkms/usr-src,workdir=$OUT/dkms/usr-src.work" /usr/src
	make -C "$TOP" -s install-dkms-src
	dkms add "kmaglev/$VERSION"
	dkms build "kmaglev/$VERSION" -k "$KVER"
	dkms status
' - "$OUT" "$TOP" "$VERSION" "$KVER" >"$OUT/dkms.log" 2>&1 ||
	{ tail -n 30 "$OUT/dkms.log" >&2; die "dkms failed (log: $OUT/dkms.log)"; }
rm -rf "$OUT/dkms/usr-src.work"
ko=$OUT/dkms/var-lib-dkms/kmaglev/$VERSION/$KVER/$(uname -m)/module/kmaglev.ko
[[ -f $ko ]] || die "dkms built no $ko (log: $OUT/dkms.log)"

echo "$KVER" >"$OUT/KVER"
echo "install-prep: ready for $KVER in $((SECONDS - start)) s: $OUT" >&2
