#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What root in a user namespace may ask of kmaglev (Documentation/dataplane.rst, "User
# namespaces"): in a netns owned by a non-initial user namespace, max-services, max-backends,
# conn-max and table-size are capped by module parameters, with a clear error naming the
# field and the parameter, and nothing changed; the initial user namespace is not capped.
# Connection entries, allocated in softirq context, are charged to the memory cgroup of the
# task that started balancing: a small memory.max stops new entries (the flows fall back to
# stateless forwarding) instead of letting a user namespace fill the host's memory.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip unshare python3
ktap_print_header
ktap_set_plan 12

PY=/usr/bin/python3
PARAMS=/sys/module/kmaglev/parameters
kmg_load_module || { ktap_test_fail "load kmaglev.ko"; ktap_finished; }

# U CMD...: CMD as root of a new user namespace with its own netns. As an unprivileged user
# when setpriv is there (nobody), else as the host's root (still a non-initial user namespace).
U() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn "$@"
	else
		unshare -Urn "$@"
	fi
}
# UK "KMAGLEV ARGS; ...": a shell in such a namespace, with $K the CLI.
UK() { U bash -c "K=$KMAGLEV; $1"; }

# fails_naming WORD... -- CMD: CMD fails and its message names every WORD.
fails_naming() {
	local words=() w out
	while [[ $1 != -- ]]; do words+=("$1"); shift; done
	shift
	if out=$("$@" 2>&1); then
		echo "accepted: $*"
		return 1
	fi
	for w in "${words[@]}"; do
		grep -q -- "$w" <<<"$out" || { echo "message lacks '$w': $out"; return 1; }
	done
}

if ! U true 2>/dev/null; then
	ktap_skip_all "cannot create user namespaces here"
fi

# --- caps ----------------------------------------------------------------------------------
ktap_test_result "defaults come down to the caps in a user namespace" UK '
	out=$($K config show) || exit 1
	echo "$out"
	echo "$out" | grep -q "max-services 1024" && echo "$out" | grep -q "max-backends 16384" &&
	echo "$out" | grep -q "conn-max 262144"'
ktap_test_result "conn-max above the cap: refused, names field and parameter" UK "
	$(declare -f fails_naming)
	fails_naming conn-max userns_conn_max -- \$K config set conn-max 1000000 &&
	\$K config show | grep -q 'conn-max 262144'"
ktap_test_result "max-services and max-backends above the caps: refused" UK "
	$(declare -f fails_naming)
	fails_naming max-services userns_max_services -- \$K config set max-services 100000 &&
	fails_naming max-backends userns_max_backends -- \$K config set max-backends 1000000 &&
	\$K config show | grep -q 'max-services 1024'"
ktap_test_result "within the caps: accepted" UK '
	$K config set conn-max 1000 max-services 10 max-backends 100 &&
	$K config show | grep -q "conn-max 1000"'
ktap_test_result "table-size above the cap: service not created" UK "
	$(declare -f fails_naming)
	fails_naming table-size userns_table_size_max -- \
		\$K service add 192.0.2.1:80/tcp table-size 16777213 &&
	[[ -z \$(\$K service show) ]]"
ktap_test_result "table-size raised above the cap: refused, service unchanged" UK "
	$(declare -f fails_naming)
	\$K service add 192.0.2.1:80/tcp table-size 65537 &&
	\$K backend add 192.0.2.1:80/tcp 10.0.0.1 &&
	fails_naming table-size -- \$K service set 192.0.2.1:80/tcp table-size 131071 &&
	\$K service show 192.0.2.1:80/tcp | grep -q 'table-size 65537' &&
	\$K backend add 192.0.2.1:80/tcp 10.0.0.2"
old=$(cat $PARAMS/userns_conn_max)
echo 100 >$PARAMS/userns_conn_max
ktap_test_result "a lower module parameter applies to new user namespaces" UK '
	$K config show | grep -q "conn-max 100\b"'
echo "$old" >$PARAMS/userns_conn_max
kmg_netns_add ns
ktap_test_result "the initial user namespace is not capped" bash -c "
	ip netns exec $ns $KMAGLEV config set conn-max 50000000 max-services 200000 &&
	ip netns exec $ns $KMAGLEV service add 192.0.2.1:80/tcp table-size 16777213 &&
	ip netns exec $ns $KMAGLEV config show | grep -q 'conn-max 50000000'"
ip netns exec "$ns" "$KMAGLEV" service flush >/dev/null

# --- connection entries charged to a memory cgroup ----------------------------------------
CG=/sys/fs/cgroup
memcg_ready() {
	mountpoint -q $CG || mount -t cgroup2 none $CG 2>/dev/null || return 1
	grep -qw memory $CG/cgroup.controllers || return 1
	echo +memory >$CG/cgroup.subtree_control 2>/dev/null
	mkdir -p $CG/kmg-test && [[ -e $CG/kmg-test/memory.max ]]
}
# flows N: N UDP datagrams to the VIP from the LB itself, each from its own source port (a raw
# socket, so no socket per flow).
flows() {
	ip netns exec "$ns2" "$PY" - "$1" <<'EOF'
import socket, struct, sys
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
src, dst = socket.inet_aton('10.0.0.254'), socket.inet_aton('192.0.2.1')
for i in range(n):
    udp = struct.pack('!HHHH', 1024 + i % 60000, 53, 8, 0)
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 28, 0, 0x4000, 64, 17, 0, src, dst)
    s.sendto(ip + udp, ('192.0.2.1', 0))
EOF
}
conns() { ip netns exec "$ns2" "$KMAGLEV" config show | grep -oE 'conns [0-9]+' | awk '{ print $2 }'; }
if ! memcg_ready; then
	ktap_test_skip "connection entries stop at the memory cgroup's limit (no memory cgroup)"
	ktap_test_skip "the same number of flows without a limit are all tracked (no memory cgroup)"
	ktap_test_skip "the cgroup's charge goes when the entries go (no memory cgroup)"
	ktap_test_skip "no OOM kill (no memory cgroup)"
else
	kmg_netns_add ns2
	ip -n "$ns2" link add d0 type dummy
	ip -n "$ns2" addr add 10.0.0.254/8 dev d0
	ip -n "$ns2" link set d0 up
	ip -n "$ns2" route add 192.0.2.1/32 dev d0
	# The first service starts balancing: from a task in the cgroup, which is then charged.
	(
		echo $BASHPID >$CG/kmg-test/cgroup.procs &&
		ip netns exec "$ns2" "$KMAGLEV" service add 192.0.2.1:53/udp
	) >/dev/null
	ip netns exec "$ns2" "$KMAGLEV" backend add 192.0.2.1:53/udp 10.0.0.1 >/dev/null
	cur=$(cat $CG/kmg-test/memory.current)
	# Room for a few thousand 64-byte entries, no more.
	echo $((cur + 128 * 1024)) >$CG/kmg-test/memory.max
	flows 10000
	n=$(conns)
	ktap_print_msg "tracked $n of 10000 flows under memory.max = current + 128 KiB"
	[[ ${n:-0} -gt 0 && $n -lt 10000 ]] &&
		ktap_test_pass "connection entries stop at the memory cgroup's limit" ||
		ktap_test_fail "connection entries stop at the memory cgroup's limit"
	echo max >$CG/kmg-test/memory.max
	flows 10000
	n2=$(conns)
	ktap_print_msg "tracked $n2 of 10000 flows without a limit"
	[[ ${n2:-0} -eq 10000 ]] &&
		ktap_test_pass "the same number of flows without a limit are all tracked" ||
		ktap_test_fail "the same number of flows without a limit are all tracked"
	charged=$(cat $CG/kmg-test/memory.current)
	ip netns exec "$ns2" "$KMAGLEV" service del 192.0.2.1:53/udp >/dev/null
	sleep 3
	after=$(cat $CG/kmg-test/memory.current)
	ktap_print_msg "memory.current: $charged with 10000 entries, $after after they went"
	[[ $((charged - after)) -gt $((10000 * 48)) ]] &&
		ktap_test_pass "the cgroup's charge goes when the entries go" ||
		ktap_test_fail "the cgroup's charge goes when the entries go"
	grep -q '^oom_kill 0' $CG/kmg-test/memory.events &&
		ktap_test_pass "no OOM kill" || ktap_test_fail "no OOM kill"
	rmdir $CG/kmg-test 2>/dev/null
fi
ktap_finished
