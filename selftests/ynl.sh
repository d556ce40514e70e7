#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate (or verify) the uAPI header, the kernel policy/op tables and the reference page of
# the netlink family from the YNL spec, with ynl-gen-c.py and ynl-gen-rst.py from Debian's
# linux-source-6.12.
#
#   ynl.sh generate   rewrite uapi/linux/kmaglev.h, kmod/netlink-gen.[ch],
#                     Documentation/netlink/kmaglev.rst and userland/lib/schema.c
#   ynl.sh verify     fail if the checked-in files differ from what the spec generates
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
SPEC=$TOP/Documentation/netlink/specs/kmaglev.yaml
SRC=$("$TOP/selftests/vm/kernel.sh" src)
PY=/usr/bin/python3

# ynl-gen-c.py wants the schema two levels above the spec and a MAINTAINERS file further up
# (it looks for the kernel root); give it that layout in a scratch directory.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/Documentation/netlink/specs" "$WORK/out"
ln -s "$SRC"/Documentation/netlink/*.yaml "$WORK/Documentation/netlink/"
cp "$SPEC" "$WORK/Documentation/netlink/specs/kmaglev.yaml"
: >"$WORK/MAINTAINERS"

gen() {
	local mode=$1 kind=$2 out=$3
	(cd "$WORK" && "$PY" "$SRC/tools/net/ynl/ynl-gen-c.py" --mode "$mode" "--$kind" \
		--spec Documentation/netlink/specs/kmaglev.yaml -o "$WORK/out/$out")
}
gen uapi header kmaglev.h
"$PY" "$SRC/tools/net/ynl/ynl-gen-rst.py" -i "$SPEC" -o "$WORK/out/kmaglev.rst"
gen kernel header netlink-gen.h
gen kernel source netlink-gen.c
# The CLI's attribute schema and enum names.
"$PY" "$TOP/userland/lib/gen-schema.py" "$SPEC" "$WORK/out/schema.c"

# The generated source includes its header by the spec's name; point it at ours.
sed -i 's|#include "kmaglev-nl-gen.h"|#include "netlink-gen.h"|' "$WORK/out/netlink-gen.c"
# ynl-gen-c.py writes the family struct only for genetlink (not -legacy) specs and keeps the
# multicast group table static for it; export the table for netlink.c's family struct.
ngrp=$(grep -c '^	KMAGLEV_NLGRP_[A-Z0-9_]*,$' "$WORK/out/netlink-gen.h")
sed -i 's|^static const struct genl_multicast_group kmaglev_nl_mcgrps\[\] =|const struct genl_multicast_group kmaglev_nl_mcgrps['"$ngrp"'] =|' \
	"$WORK/out/netlink-gen.c"
sed -i 's|^\(extern const struct genl_split_ops kmaglev_nl_ops\[[0-9]*\];\)$|\1\nextern const struct genl_multicast_group kmaglev_nl_mcgrps['"$ngrp"'];|' \
	"$WORK/out/netlink-gen.h"

declare -A DEST=(
	[kmaglev.h]=uapi/linux/kmaglev.h
	[netlink-gen.h]=kmod/netlink-gen.h
	[netlink-gen.c]=kmod/netlink-gen.c
	[kmaglev.rst]=Documentation/netlink/kmaglev.rst
	[schema.c]=userland/lib/schema.c
)
rc=0
for f in "${!DEST[@]}"; do
	case "${1:-generate}" in
	generate) cp "$WORK/out/$f" "$TOP/${DEST[$f]}" ;;
	verify)
		if ! diff -u "$TOP/${DEST[$f]}" "$WORK/out/$f"; then
			echo "ynl: ${DEST[$f]} does not match the spec; run 'make generate'" >&2
			rc=1
		fi ;;
	*) echo "usage: ynl.sh generate|verify" >&2; exit 2 ;;
	esac
done
exit $rc
