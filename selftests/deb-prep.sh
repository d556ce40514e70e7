#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side half of selftests/net/deb.sh (the Debian packages: install, upgrade, remove, purge),
# run on the host before that test's VM:
#
#   selftests/deb-prep.sh
#
# Builds the packages twice, as an operator's upgrade would see them, into build/deb-test/:
#
#   N/     `make deb` of this tree (release VERSION): kmaglev_N_ARCH.deb, kmaglev-dkms_N_all.deb,
#          and lintian's verdict (make deb fails on an error)
#   N+1/   the same tree with VERSION bumped to VERSION.1 and a debian/changelog entry for it,
#          built by `make deb` in a copy (build/deb-test/next-src)
#   VERSIONS  "N N+1", written last (deb.sh checks it)
#
# The packages are built here because dpkg-buildpackage in a TCG guest would take minutes; the
# guest installs them and DKMS builds the module there, for the guest's kernel.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/deb-test
V=$(cat "$TOP/VERSION")
V1=$V.1

die() { echo "deb-prep: $*" >&2; exit 1; }

start=$SECONDS
rm -rf "$OUT"
mkdir -p "$OUT/N" "$OUT/N+1" "$OUT/next-src"

echo "deb-prep: make deb ($V)" >&2
make -C "$TOP" -s deb >"$OUT/N/make-deb.log" 2>&1 ||
	{ tail -n 30 "$OUT/N/make-deb.log" >&2; die "make deb failed (log: $OUT/N/make-deb.log)"; }
cp "$TOP"/build/deb/kmaglev_"$V"_*.deb "$TOP"/build/deb/kmaglev-dkms_"$V"_all.deb "$OUT/N/"

# N+1: the sources make deb packs, with the release bumped where the tree keeps it
tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.a' --exclude='.*.cmd' \
	Makefile Kbuild VERSION dkms.conf README.md debian kmod uapi userland Documentation |
	tar -C "$OUT/next-src" -xf -
echo "$V1" >"$OUT/next-src/VERSION"
{
	echo "kmaglev ($V1) unstable; urgency=medium"
	echo
	echo "  * Test release: $V rebuilt as $V1 (selftests/deb-prep.sh)."
	echo
	echo " -- $(dpkg-parsechangelog -l "$TOP/debian/changelog" -SMaintainer)  $(date -R)"
	echo
	cat "$TOP/debian/changelog"
} >"$OUT/next-src/debian/changelog"
echo "deb-prep: make deb ($V1, in $OUT/next-src)" >&2
make -C "$OUT/next-src" -s deb LINTIAN=true >"$OUT/N+1/make-deb.log" 2>&1 ||
	{ tail -n 30 "$OUT/N+1/make-deb.log" >&2; die "make deb of $V1 failed (log: $OUT/N+1/make-deb.log)"; }
cp "$OUT"/next-src/build/deb/kmaglev_"$V1"_*.deb \
	"$OUT"/next-src/build/deb/kmaglev-dkms_"$V1"_all.deb "$OUT/N+1/"
rm -rf "$OUT/next-src"

echo "$V $V1" >"$OUT/VERSIONS"
echo "deb-prep: $V and $V1 ready in $((SECONDS - start)) s: $OUT" >&2
