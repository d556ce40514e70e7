#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for kmaglev kselftests: KTAP output in the style of the kernel's
# ktap_helpers.sh, module loading, and throwaway network namespaces.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

KMG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KMAGLEV=${KMAGLEV_CLI:-$KMG_TOP/build/kmaglev}

__ktap_n=0
__ktap_pass=0
__ktap_fail=0
__ktap_skip=0

ktap_print_header() { echo "TAP version 13"; }
ktap_set_plan() { echo "1..$1"; }
ktap_print_msg() { echo "# $*"; }

# Where a test's time goes: each result slower than 2 s is preceded by how long it took.
__ktap_t=$SECONDS
__ktap_took() {
	local d=$((SECONDS - __ktap_t))
	__ktap_t=$SECONDS
	[[ $d -lt 2 ]] || echo "# ${d}s"
}

ktap_test_pass() {
	__ktap_took
	__ktap_n=$((__ktap_n + 1)); __ktap_pass=$((__ktap_pass + 1))
	echo "ok $__ktap_n $*"
}

ktap_test_fail() {
	__ktap_took
	__ktap_n=$((__ktap_n + 1)); __ktap_fail=$((__ktap_fail + 1))
	echo "not ok $__ktap_n $*"
}

ktap_test_skip() {
	__ktap_took
	__ktap_n=$((__ktap_n + 1)); __ktap_skip=$((__ktap_skip + 1))
	echo "ok $__ktap_n $* # SKIP"
}

# ktap_test_result DESC CMD...: run CMD, pass if it succeeds. Its output is shown on failure.
ktap_test_result() {
	local desc=$1 out; shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$desc"
	else
		[[ -n $out ]] && echo "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
}

# ktap_test_run DESC CMD...: as ktap_test_result, and CMD's output (its "# " lines: what it
# measured) shown whether it passes or not
ktap_test_run() {
	local desc=$1 out; shift
	if out=$("$@" 2>&1); then
		[[ -n $out ]] && echo "$out" | sed '/^#/!s/^/# /'
		ktap_test_pass "$desc"
	else
		[[ -n $out ]] && echo "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
}

ktap_finished() {
	echo "# Totals: pass:$__ktap_pass fail:$__ktap_fail xfail:0 xpass:0 skip:$__ktap_skip error:0"
	if [[ $__ktap_fail -gt 0 ]]; then
		exit $KSFT_FAIL
	elif [[ $__ktap_pass -eq 0 && $__ktap_skip -gt 0 ]]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# The whole script is skipped, e.g. when not root or when a tool is missing.
ktap_skip_all() {
	ktap_print_header
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

kmg_require_root() {
	[[ $(id -u) -eq 0 ]] || ktap_skip_all "must run as root"
}

kmg_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || ktap_skip_all "$c not installed"
	done
}

# The kmaglev.ko built for the running kernel: $KMAGLEV_KO, or the per-kernel build dir.
kmg_module_path() {
	if [[ -n ${KMAGLEV_KO:-} ]]; then
		echo "$KMAGLEV_KO"
		return
	fi
	local ko
	for ko in "$KMG_TOP"/build/*/kmod/kmaglev.ko "$KMG_TOP"/build/kmod/kmaglev.ko; do
		[[ -f $ko ]] || continue
		if [[ $(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1) == "$(uname -r)" ]]; then
			echo "$ko"
			return
		fi
	done
	return 1
}

# --- the CLI's JSON output ---------------------------------------------------------------------
# Tests read what the CLI prints from its JSON output (-j: the same keys as the text), by key
# with jq, never by the position of a word in the text.
#
# kmg_jq FILTER [JQ-ARGS...]: the values FILTER picks from the JSON document on stdin, one a
# line, raw (strings without quotes). Fails and prints nothing when the input is not a JSON
# document (the CLI failed: no output) or FILTER picks nothing but null (a key that is not
# there): a missing field never reads as "" or 0. JQ-ARGS: --arg NAME VALUE, --argjson ...
kmg_jq() { jq -ner "input | ($1) | select(. != null) | tostring" "${@:2}" 2>/dev/null; }
# kmg_jq_test FILTER [JQ-ARGS...]: FILTER on the JSON document on stdin is true (not false,
# null, nothing or an error).
kmg_jq_test() { jq -ne "input | ($1)" "${@:2}" >/dev/null 2>&1; }

# --- kmemleak --------------------------------------------------------------------------------
# /sys/kernel/debug/kmemleak is there on a kernel built with it even when it is off (booted
# with kmemleak=off, or turned off by an error), and root may always open it for writing: a
# -w test says nothing. kmemleak is in use when it takes a command: a scan is refused (EPERM)
# when it is off. (selftests/vm/guest-init decides the same way.)
KMG_KMEMLEAK=/sys/kernel/debug/kmemleak
# kmg_kmemleak_scan: ask for a scan; fails when kmemleak is not in use.
kmg_kmemleak_scan() { [[ -e $KMG_KMEMLEAK ]] && { echo scan >"$KMG_KMEMLEAK"; } 2>/dev/null; }
# kmg_kmemleak_count: scan (twice: that settles grey objects) and print how many suspected leaks
# kmemleak lists; fails, printing nothing, when kmemleak is not in use. Objects younger than
# 5 s are never reported: the caller waits first where that matters.
kmg_kmemleak_count() {
	local n
	kmg_kmemleak_scan && kmg_kmemleak_scan || return 1
	n=$(grep -c '^unreferenced object' "$KMG_KMEMLEAK")	# (exit 1 when 0)
	[[ -n $n ]] && echo "$n"
}

# Load kmaglev.ko (and the kernel modules it needs) unless it is already loaded.
kmg_load_module() {
	[[ -d /sys/module/kmaglev ]] && return 0
	local ko
	ko=$(kmg_module_path) || { echo "# no kmaglev.ko for $(uname -r)"; return 1; }
	modprobe -q -a ip_tunnel ip6_tunnel tunnel4 tunnel6 gre ip_gre ip6_gre ipip \
		nf_defrag_ipv4 nf_defrag_ipv6 udp_tunnel ip6_udp_tunnel 2>/dev/null
	# quota-action rst's RSTs (kernels without them build a kmaglev.ko that needs neither)
	modprobe -q -a nf_reject_ipv4 nf_reject_ipv6 2>/dev/null
	insmod "$ko"
}

kmg_unload_module() {
	[[ -d /sys/module/kmaglev ]] || return 0
	rmmod kmaglev
}

# Network namespaces with a random suffix, removed on exit.
__kmg_netns=()
kmg_netns_add() {
	local __var=$1 name
	name="$1-$(mktemp -u XXXXXX)"
	ip netns add "$name" || return 1
	ip -n "$name" link set lo up
	__kmg_netns+=("$name")
	printf -v "$__var" '%s' "$name"
}

kmg_netns_cleanup() {
	local ns
	for ns in "${__kmg_netns[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	__kmg_netns=()
}
trap kmg_netns_cleanup EXIT

# A monitor whose capture has a known start and end. `kmg_monitor_start NS FILE [OBJECT]`
# runs `kmaglev -j monitor [OBJECT]` in NS into FILE and returns once it has printed the
# addition of a marker service (so it is subscribed); `kmg_monitor_stop` deletes the marker,
# waits for that event (multicast keeps order: every earlier event is in FILE by then) and
# stops the monitor. Lines naming the marker, KMG_MON_MARK, are the caller's to filter out.
KMG_MON_MARK=198.51.100.254
__kmg_mon_count() { grep -F "\"$2\"" "$1" 2>/dev/null | grep -cF "$KMG_MON_MARK"; }
kmg_monitor_start() {
	local ns=$1 file=$2 i
	ip netns exec "$ns" timeout 1800 "$KMAGLEV" -j monitor ${3:-} >"$file" &
	__kmg_mon_pid=$!
	__kmg_mon_ns=$ns
	__kmg_mon_file=$file
	for i in $(seq 1 300); do
		ip netns exec "$ns" "$KMAGLEV" service add "$KMG_MON_MARK:9/tcp" >/dev/null 2>&1
		sleep 0.2
		[[ $(__kmg_mon_count "$file" service-new) -gt 0 ]] && return 0
		ip netns exec "$ns" "$KMAGLEV" service del "$KMG_MON_MARK:9/tcp" >/dev/null 2>&1
	done
	echo "# the monitor never printed its marker"
	return 1
}
kmg_monitor_stop() {
	local i n
	n=$(__kmg_mon_count "$__kmg_mon_file" service-del)
	# (A flush may have taken the marker already: then add it again to delete it.)
	ip netns exec "$__kmg_mon_ns" "$KMAGLEV" service del "$KMG_MON_MARK:9/tcp" >/dev/null 2>&1 || {
		ip netns exec "$__kmg_mon_ns" "$KMAGLEV" service add "$KMG_MON_MARK:9/tcp" &&
		ip netns exec "$__kmg_mon_ns" "$KMAGLEV" service del "$KMG_MON_MARK:9/tcp"
	} >/dev/null 2>&1
	for i in $(seq 1 600); do
		[[ $(__kmg_mon_count "$__kmg_mon_file" service-del) -gt $n ]] && break
		sleep 0.1
	done
	kill "$__kmg_mon_pid" 2>/dev/null
	wait "$__kmg_mon_pid" 2>/dev/null
}
