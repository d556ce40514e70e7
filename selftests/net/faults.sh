#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault injection into every configuration request (issue 13): selftests/tools/failnth fails
# each allocation of each request in turn (fail-nth), on configurations where the request does
# real work, and checks that the request fails with an errno and an extack message and leaves
# the configuration exactly as it was (config, services, backends, table digests; the CLI's
# service show, table show and save), or, where kmaglev does without the allocation, that the
# result is the same as without faults. Mode "once" fails the Nth allocation, mode "sticky"
# the Nth and every later one. Then a kmemleak scan must report nothing.
#
# Only allocations with a kmaglev frame on the stack are counted and failed: failslab's and
# fail_page_alloc's stack-trace filter (require-start/require-end) is set to kmaglev's text.
# Needs the debug kernel (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC,
# FAULT_INJECTION_DEBUG_FS, FAULT_INJECTION_STACKTRACE_FILTER); elsewhere it skips.
#
# Knobs: KMAGLEV_FAULTS_BACKENDS (200) backends of the big services; KMAGLEV_FAULTS_MODES
# ("once,sticky"); KMAGLEV_FAULTS_ONLY (scenario name prefixes, space-separated; default all);
# KMAGLEV_FAULTS_CLI (1: compare the CLI's output too; 0: the netlink dumps only);
# KMAGLEV_FAULTS_VERBOSE (1: a line per injected fault); KMAGLEV_FAULTS_KMEMLEAK (1: its own
# kmemleak scans, one before and two after; 0: none, for a VM whose scan at the end
# (selftests/vm/guest-init) covers it and every test before it: make check's hardening VM,
# where each scan of 3 GiB under emulation takes 15 s).
source "$(dirname "$0")/lib.sh"

kmg_require_root
TOOL=$KMG_TOP/build/tools/failnth
SPEC=$KMG_TOP/Documentation/netlink/specs/kmaglev.yaml
DBG=/sys/kernel/debug
BACKENDS=${KMAGLEV_FAULTS_BACKENDS:-200}
MODES=${KMAGLEV_FAULTS_MODES:-once,sticky}
ONLY=${KMAGLEV_FAULTS_ONLY:-}

mountpoint -q $DBG || mount -t debugfs debugfs $DBG 2>/dev/null
if [[ ! -e /proc/self/fail-nth || ! -d $DBG/failslab || ! -d $DBG/fail_page_alloc ]]; then
	ktap_skip_all "kernel without fault injection (CONFIG_FAULT_INJECTION, FAILSLAB," \
		"FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS): run it on the debug kernel"
fi
if [[ ! -e $DBG/failslab/require-start ]]; then
	ktap_skip_all "kernel without CONFIG_FAULT_INJECTION_STACKTRACE_FILTER: faults could" \
		"not be limited to kmaglev's allocations"
fi
kmg_require_cmd ip awk

ktap_print_header
if [[ ! -x $TOOL ]]; then
	ktap_set_plan 1
	ktap_test_fail "$TOOL is missing: build it on the host first (make -C selftests/tools)"
	ktap_finished
fi
if ! kmg_load_module; then
	ktap_set_plan 1
	ktap_test_fail "load kmaglev.ko"
	ktap_finished
fi

scens=$("$TOOL" --list)
if [[ -n $ONLY ]]; then
	scens=$(for p in $ONLY; do awk -v p="$p" 'index($0, p) == 1' <<<"$scens"; done | sort -u)
fi
nscens=$(echo "$scens" | grep -c .)
nmodes=$(echo "$MODES" | tr ',' '\n' | grep -c .)
ktap_set_plan $((1 + nscens * nmodes + 2))

# ---- every mutating operation of the spec is covered ------------------------------------
# The spec's operations with (uns-)admin-perm that change the configuration: all but the
# reads that need the permission (quota-get lists clients' addresses).
spec_ops=$(awk '
	/^operations:/ { ops = 1; next }
	ops && /^[a-z]/ { ops = 0 }
	ops && /^    -/ { name = "" }
	ops && /^      name:/ { name = $2 }
	ops && /^      flags:.*admin-perm/ && name != "" && name !~ /-get$/ { print name }
' "$SPEC" | sort -u)
covered=$("$TOOL" --list-ops | sort -u)
missing=$(for op in $spec_ops; do grep -qxF "$op" <<<"$covered" || echo "$op"; done)
if [[ -z $spec_ops ]]; then
	ktap_test_fail "mutating operations of the spec: none found in $SPEC"
elif [[ -n $missing ]]; then
	ktap_test_fail "mutating operations of the spec without a scenario: $(echo $missing)"
else
	ktap_test_pass "every mutating operation of the spec has scenarios: $(echo $spec_ops)"
fi

# ---- fault injection setup --------------------------------------------------------------
# kmaglev's text: from its lowest text symbol to the next symbol after its highest one
# (addresses are 16 hex digits: they compare as strings).
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
# (no process substitution: the test VMs have no /dev/fd)
read -r tstart thi tend <<<"$(awk '
	$4 == "[kmaglev]" && ($2 == "t" || $2 == "T") {
		if (lo == "" || $1 < lo) lo = $1
		if ($1 > hi) hi = $1
	}
	{ a[NR] = $1 }
	END {
		if (lo == "") exit
		for (i in a) if (a[i] > hi && (next_ == "" || a[i] < next_)) next_ = a[i]
		print "0x" lo, "0x" hi, "0x" next_
	}' /proc/kallsyms)"
# no symbol above the last function: give it 64 KiB
[[ -n $thi && $tend == 0x ]] && tend=$(printf '0x%x' $((thi + 65536)))
if [[ -z $tstart || -z $tend || $tstart == 0x0000000000000000 ]]; then
	ktap_test_fail "kmaglev's text in /proc/kallsyms"
	ktap_finished
fi
ktap_print_msg "kmaglev text $tstart..$tend"

fi_set() {
	local a
	for a in failslab fail_page_alloc; do
		echo "$2" >"$DBG/$a/$1" || return 1
	done
}
fi_reset() {
	fi_set probability 0
	fi_set require-start 0
	fi_set require-end 0
	fi_set task-filter N
}
# Faults only through fail-nth and, in mode sticky, probability 100 for the tool's thread
# while it sets make-it-fail (task-filter); only with a kmaglev frame on the stack.
fi_set probability 0 && fi_set task-filter Y && fi_set times -1 && fi_set interval 1 &&
fi_set space 0 && fi_set verbose 0 && fi_set ignore-gfp-wait N &&
fi_set stacktrace-depth 32 && fi_set require-start "$tstart" && fi_set require-end "$tend" &&
echo N >$DBG/fail_page_alloc/ignore-gfp-highmem && echo 0 >$DBG/fail_page_alloc/min-order &&
fi_set probability 100 || {
	ktap_test_fail "set up failslab and fail_page_alloc in debugfs"
	fi_reset
	ktap_finished
}
trap 'fi_reset 2>/dev/null; kmg_netns_cleanup' EXIT

# kmemleak in use (a scan is taken: kmg_kmemleak_scan), its suspects so far forgotten; else
# (not built, or booted with kmemleak=off: the file is there and writable all the same) none
leak=
if [[ ${KMAGLEV_FAULTS_KMEMLEAK:-1} == 0 ]]; then
	leak=vm
elif kmg_kmemleak_scan; then
	leak=$KMG_KMEMLEAK
	echo clear >$leak
fi
dmesg_from=$(dmesg | wc -l)

# ---- the netns: devices for the backends' routes and for the ingress hook ---------------
kmg_netns_add NS || { ktap_test_fail "netns"; ktap_finished; }
for i in 0 1 2 3; do
	ip -n "$NS" link add fi$i type dummy && ip -n "$NS" link set fi$i up || {
		ktap_test_fail "dummy devices"
		ktap_finished
	}
done
ip -n "$NS" addr add 10.0.0.254/8 dev fi0
ip -n "$NS" addr add 2001:db8::fe/32 dev fi0 nodad
ip -n "$NS" route add 192.0.2.0/24 dev fi0
ip -n "$NS" route add 198.51.100.0/24 dev fi0

# ---- the requests ----------------------------------------------------------------------
args=(--backends "$BACKENDS" --modes "$MODES")
[[ ${KMAGLEV_FAULTS_CLI:-1} == 1 ]] && args+=(--cli "$KMAGLEV")
[[ ${KMAGLEV_FAULTS_VERBOSE:-0} == 1 ]] && args+=(-v)
out=$KMG_TOP/.vm/faults.$$.out
mkdir -p "$(dirname "$out")"
start=$SECONDS
# its diagnostics as they come (a slow scenario shows where it is), its results below
ip netns exec "$NS" "$TOOL" "${args[@]}" $scens 2>&1 | tee "$out" |
	grep --line-buffered -v '^RESULT' | sed -u 's/^\([^#]\)/# \1/'
rc=${PIPESTATUS[0]}
took=$((SECONDS - start))
fi_reset

declare -A op_faults op_scens op_fail
tot_faults=0 tot_err=0 tot_tol=0 tot_fail=0 results=0
while read -r line; do
	[[ $line == RESULT* ]] || continue
	read -r _ res name mode rest <<<"$line"
	results=$((results + 1))
	op=${name%%/*}
	faults=$(sed -n 's/.*faults=\([0-9]*\).*/\1/p' <<<"$rest")
	errs=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$rest")
	tol=$(sed -n 's/.*tolerated=\([0-9]*\).*/\1/p' <<<"$rest")
	op_faults[$op]=$((${op_faults[$op]:-0} + ${faults:-0}))
	op_scens[$op]=$((${op_scens[$op]:-0} + 1))
	tot_faults=$((tot_faults + ${faults:-0}))
	tot_err=$((tot_err + ${errs:-0}))
	tot_tol=$((tot_tol + ${tol:-0}))
	if [[ $res == pass ]]; then
		ktap_test_pass "$name ($mode): $rest"
	else
		op_fail[$op]=1
		tot_fail=$((tot_fail + 1))
		ktap_test_fail "$name ($mode): $rest"
	fi
done <"$out"
rm -f "$out"
for ((i = results; i < nscens * nmodes; i++)); do
	ktap_test_fail "failnth stopped early (exit $rc)"
	tot_fail=$((tot_fail + 1))
done

# ---- no splat, no leak ------------------------------------------------------------------
# Injected vmalloc() failures print warn_alloc()'s "vmalloc error" report with a stack trace:
# those are expected; any other trace, warning or sanitizer report is not.
kmg_unload_module
msgs=$(dmesg | tail -n +$((dmesg_from + 1)))
traces=$(grep -c 'Call Trace:' <<<"$msgs")
warn_allocs=$(grep -cE 'vmalloc error:|page allocation failure:' <<<"$msgs")
bad=$(grep -E 'WARNING:|BUG:|KASAN|UBSAN|general protection|refcount_t:|list_(add|del) corruption|possible (recursive|circular) locking|inconsistent lock state|suspicious RCU usage|kmaglev: .*leak' <<<"$msgs")
splats=0
if [[ -n $bad || $traces -gt $warn_allocs ]]; then
	splats=1
	echo "$msgs" | grep -m1 -B2 -A30 -E 'WARNING:|BUG:|KASAN|UBSAN|general protection|refcount_t:|corruption|locking|lock state|RCU usage|Call Trace:' |
		sed 's/^/# /'
	ktap_test_fail "kernel log: a splat ($traces stack traces, $warn_allocs of them allocation-failure reports)"
else
	ktap_test_pass "kernel log: no splat ($warn_allocs allocation-failure reports of injected faults)"
fi
leaks=0
if [[ $leak == vm ]]; then
	ktap_test_skip "kmemleak: left to the VM's scan at the end (KMAGLEV_FAULTS_KMEMLEAK=0)"
elif [[ -n $leak ]]; then
	# objects younger than 5 s are not reported; two scans settle grey objects
	sleep 6
	if ! leaks=$(kmg_kmemleak_count); then
		leaks=1
		ktap_test_fail "kmemleak: it was in use, now it is off (no scan)"
	elif [[ $leaks -gt 0 ]]; then
		head -n 60 $leak | sed 's/^/# /'
		ktap_test_fail "kmemleak: $leaks unreferenced objects"
	else
		ktap_test_pass "kmemleak: nothing leaked"
	fi
else
	ktap_test_skip "kmemleak: not in use in this kernel"
fi

for op in $(echo "${!op_scens[@]}" | tr ' ' '\n' | sort); do
	r=pass
	[[ -n ${op_fail[$op]:-} ]] && r=FAIL
	ktap_print_msg "reliability: fault injection: $op | ${op_scens[$op]} scenario runs ($MODES), $BACKENDS backends | - | ${op_faults[$op]} faults injected | $r"
done
r=pass
[[ $tot_fail -gt 0 || $splats -gt 0 || $leaks -gt 0 ]] && r=FAIL
ktap_print_msg "reliability: fault injection (fail-nth, each allocation of a config op in turn) | ${#op_scens[@]} ops, $results scenario runs ($MODES), $BACKENDS backends | $took s | $tot_faults faults injected | $tot_err failed with extack, $tot_tol tolerated, $tot_fail failures, $([[ $leak == vm ]] && echo "leaks left to the VM's scan" || echo "$leaks leaks"), $splats splats: $r"
ktap_finished
