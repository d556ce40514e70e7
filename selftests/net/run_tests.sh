#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run kmaglev kselftests (all of selftests/net/*.sh, or those named) and print KTAP: each script
# is one top-level test, with its own KTAP indented beneath it. Exit 0 only if none failed.
#
# NAME@MODE runs a data-plane test (dp_*.sh, soak_*.sh) with kmaglev's hook in MODE (prerouting or
# ingress: KMAGLEV_DP_HOOK, see dp_lib.sh), whatever KMAGLEV_DP_HOOK says for the others:
#   run_tests.sh dp_basic dp_basic@ingress
cd "$(dirname "$0")" || exit 1

tests=("$@")
[[ ${#tests[@]} -gt 0 ]] || tests=($(ls *.sh | grep -vE '^(lib|dp_lib|bgp_lib|run_tests)\.sh$'))

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0 failed=0
# The guest's busy CPU time in seconds, all its CPUs together (/proc/stat: everything but idle
# and iowait). Under TCG a busy vCPU is a busy host thread, so it is what the test cost the host.
busy() { awk '$1 == "cpu" { printf "%d", ($2 + $3 + $4 + $7 + $8 + $9) / 100 }' /proc/stat; }
for t in "${tests[@]}"; do
	n=$((n + 1))
	hook=${KMAGLEV_DP_HOOK:-}
	if [[ $t == *@* ]]; then
		hook=${t##*@}
		t=${t%@*}
	fi
	t=${t%.sh}.sh
	name=$t
	# (dp_acl.sh runs in both modes whatever it is given)
	[[ ($t == dp_* || $t == soak_*) && $t != dp_acl.sh && -n $hook ]] && name+=" (hook $hook)"
	start=$SECONDS cpu0=$(busy)
	echo "# selftests: kmaglev: $name"
	KMAGLEV_DP_HOOK=$hook timeout -s KILL "${KMAGLEV_TEST_TIMEOUT:-900}" ./"$t" 2>&1 |
		sed -u 's/^/  /'
	rc=${PIPESTATUS[0]}
	took="$((SECONDS - start))s, cpu $(($(busy) - cpu0))s"
	case $rc in
	0) echo "ok $n selftests: kmaglev: $name # $took" ;;
	4) echo "ok $n selftests: kmaglev: $name # SKIP" ;;
	137) echo "not ok $n selftests: kmaglev: $name # TIMEOUT"; failed=1 ;;
	*) echo "not ok $n selftests: kmaglev: $name # exit=$rc"; failed=1 ;;
	esac
	# Every test leaves the module unloaded and no namespaces behind.
	rmmod kmaglev 2>/dev/null
	ip -all netns del 2>/dev/null
done
exit $failed
