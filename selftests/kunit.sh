#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the test VM: load kmaglev.ko and kmaglev_kunit.ko from DIR, then print the KTAP
# results of every kmaglev KUnit suite (read back from debugfs). Exit non-zero on failure.
dir=${1:?usage: kunit.sh MODULE_DIR}
dbg=/sys/kernel/debug/kunit

modprobe -q -a ip_tunnel ip6_tunnel gre nf_defrag_ipv4 nf_defrag_ipv6 2>/dev/null
modprobe -q -a nf_reject_ipv4 nf_reject_ipv6 2>/dev/null
insmod "$dir/kmaglev.ko" || { echo "not ok 1 insmod kmaglev.ko"; exit 1; }
insmod "$dir/kmaglev_kunit.ko" || { echo "not ok 1 insmod kmaglev_kunit.ko"; exit 1; }

suites=()
for s in "$dbg"/kmaglev*; do
	[[ -f $s/results ]] && suites+=("$s")
done
echo "KTAP version 1"
echo "1..${#suites[@]}"
rc=0 n=0
for s in "${suites[@]}"; do
	# Each results file is a KTAP document holding one suite: drop its header and
	# renumber the suite's own result line.
	n=$((n + 1))
	sed -e '1,2{/^KTAP version/d;/^1\.\./d}' \
	    -e "s/^\(not ok\|ok\) [0-9]* /\1 $n /" "$s/results"
	grep -q '^not ok' "$s/results" && rc=1
done
[[ ${#suites[@]} -gt 0 ]] || { echo "not ok 1 no kmaglev KUnit suites ran"; rc=1; }
rmmod kmaglev_kunit && rmmod kmaglev || rc=1
exit $rc
