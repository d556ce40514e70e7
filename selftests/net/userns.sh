#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What root in a user namespace may ask of kmaglev (Documentation/dataplane.rst, "User
# namespaces"): in a netns owned by a non-initial user namespace, max-services, max-backends,
# conn-max and table-size are capped by module parameters, with a clear error naming the
# field and the parameter, and nothing changed; the initial user namespace is not capped.
# Connection entries, allocated in softirq context, are charged to the memory cgroup of the
# task that started balancing: a small memory.max stops new entries (the flows fall back to
# stateless forwarding) instead of letting a user namespace fill the host's memory.
#
# Permissions, as an unprivileged user (nobody) in a new user namespace:
# - with its own netns (unshare -Urn) it manages it fully: every config, service and backend
#   operation, the dumps, stats, tables, the monitor's events, traffic balanced; it reads its
#   own seeds (it chose them, and "save" needs them to restore its tables);
# - on any other netns every change is refused with EPERM: the initial netns, which it stays
#   in with unshare -U alone, and a netns whose netlink socket the host's root opened and
#   handed to it (the capability is checked against the netns' owner, for the opener of the
#   socket and the caller both);
# - it never sees another netns' objects in its dumps nor their events (it listens on the
#   events group while the host changes services in two other netns), and never a seed that
#   is not its own: neither through a socket of another netns nor, in its own netns, once it
#   has dropped CAP_NET_ADMIN. Events carry no seed at all.
# Reading a netns' services needs no capability (like /proc/net/ip_vs): whoever lives in the
# initial netns sees its services, without their seeds.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip unshare python3
ktap_print_header
ktap_set_plan 18

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
# conns: ns2's connection entries (kmaglev -j config show); nothing if not reported
conns() { ip netns exec "$ns2" "$KMAGLEV" -j config show | kmg_jq .conns; }
# limited N / unlimited N: the entry count N of the flows under memory.max, without a limit
limited() { [[ $1 =~ ^[0-9]+$ && $1 -gt 0 && $1 -lt 10000 ]]; }
unlimited() { [[ $1 =~ ^[0-9]+$ && $1 -eq 10000 ]]; }
if ! memcg_ready; then
	ktap_test_skip "connection entries stop at the memory cgroup's limit (no memory cgroup)"
	ktap_test_skip "the same number of flows without a limit are all tracked (no memory cgroup)"
	ktap_test_skip "the cgroup's charge goes when the entries go (no memory cgroup)"
	ktap_test_skip "no OOM kill (no memory cgroup)"
	ktap_test_skip "the two entry checks tell the counts apart (no memory cgroup)"
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
	limited "$n" &&
		ktap_test_pass "connection entries stop at the memory cgroup's limit" ||
		ktap_test_fail "connection entries stop at the memory cgroup's limit"
	echo max >$CG/kmg-test/memory.max
	flows 10000
	n2=$(conns)
	ktap_print_msg "tracked $n2 of 10000 flows without a limit"
	unlimited "$n2" &&
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
	# each entry check fails on the other's count
	[[ -n $n && -n $n2 ]] && ! limited "$n2" && ! unlimited "$n" &&
		ktap_test_pass "the two entry checks tell the counts apart: ${n2:-none} is not under the limit, ${n:-none} is not all" ||
		ktap_test_fail "the two entry checks tell the counts apart: ${n2:-none} is not under the limit, ${n:-none} is not all"
	rmdir $CG/kmg-test 2>/dev/null
fi

# --- permissions ---------------------------------------------------------------------------
NSCYCLE=$KMG_TOP/build/tools/nscycle
SEED=5eed0123456789abcdef5eed5eed5eed
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
command -v setpriv >/dev/null || NOBODY=()
tperm=$SECONDS
perm_ok=1
# perm_result DESC CMD...: ktap_test_result, and the permissions figure fails with it
perm_result() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$desc"
	else
		[[ -n $out ]] && echo "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
		perm_ok=0
	fi
}

# Every operation in its own netns, as the CLI does them, and the events of each.
own_netns() {
	UK "
	set -e
	ip link set lo up
	out=\$(mktemp)
	\$K -j monitor >\$out &
	mon=\$!
	# subscribed once its own marker's event is in
	for i in \$(seq 1 100); do
		\$K service add 198.51.100.254:9/tcp >/dev/null
		sleep 0.2
		grep -q service-new \$out && break
		\$K service del 198.51.100.254:9/tcp >/dev/null
	done
	grep -q service-new \$out || { echo 'monitor: no event'; exit 1; }
	\$K service del 198.51.100.254:9/tcp >/dev/null
	\$K config set conn-max 5000 timeout-udp 90s max-services 20
	\$K config show | grep -q 'conn-max 5000'
	\$K service add 127.0.0.5:53/udp table-size 251 seed $SEED backend 127.0.0.2
	\$K service add [2001:db8::5]:80/tcp table-size 251 backend 2001:db8:1::1 encap gre gre-key 9
	\$K service set 127.0.0.5:53/udp flags resched max-conns 100
	\$K backend add 127.0.0.5:53/udp 127.0.0.3 weight 2
	\$K backend set 127.0.0.5:53/udp 127.0.0.3 weight 4
	\$K backend set 127.0.0.5:53/udp 127.0.0.3 state drain
	\$K backend show 127.0.0.5:53/udp 127.0.0.3 | grep -q drain
	\$K backend show | grep -q 2001:db8:1::1
	[[ \$(\$K service show | grep -c table-size) == 2 ]]
	\$K --show-secrets service show 127.0.0.5:53/udp | grep -q $SEED || { echo 'own seed not shown'; exit 1; }
	# traffic from the netns itself, balanced at LOCAL_OUT
	echo x >/dev/udp/127.0.0.5/53
	\$K config show | grep -qE 'conns [1-9]'
	\$K stats | grep -q global
	\$K stats 127.0.0.5:53/udp | grep -q packets
	\$K table show 127.0.0.5:53/udp | grep -q digest
	\$K save | grep -q 127.0.0.3
	\$K backend del 127.0.0.5:53/udp 127.0.0.3
	\$K service del [2001:db8::5]:80/tcp
	\$K service flush
	[[ -z \$(\$K service show) ]]
	# the end of the capture: a marker's deletion (events arrive in order)
	n=\$(grep -c service-del \$out)
	\$K service add 198.51.100.254:9/tcp >/dev/null
	\$K service del 198.51.100.254:9/tcp >/dev/null
	for i in \$(seq 1 50); do
		[[ \$(grep -c service-del \$out) -gt \$n ]] && break
		sleep 0.2
	done
	kill \$mon
	for e in service-new service-change service-del service-flush backend-new backend-change backend-del table; do
		grep -q \"\\\"\$e\" \$out || { echo \"no \$e event\"; cat \$out; exit 1; }
	done
	# events carry no seed, not even to the netns' owner
	! grep -qi $SEED \$out || { echo 'a seed in an event'; exit 1; }
	echo \"\$(wc -l <\$out) events\"
	"
}
perm_result "own netns: config, service and backend add/set/del/drain/flush, dumps, stats, table, save, traffic and every event, as nobody" own_netns

# In its own netns without CAP_NET_ADMIN (bounding set emptied): reads, but no seed, no change.
perm_result "own netns without CAP_NET_ADMIN: no seed shown, changes refused with EPERM" UK "
	\$K service add 127.0.0.5:53/udp seed $SEED backend 127.0.0.2 &&
	out=\$(setpriv --inh-caps=-all --bounding-set=-all \$K --show-secrets service show 127.0.0.5:53/udp) &&
	echo \"\$out\" | grep -q 127.0.0.5 && ! echo \"\$out\" | grep -q $SEED &&
	err=\$(setpriv --inh-caps=-all --bounding-set=-all \$K service del 127.0.0.5:53/udp 2>&1)
	[[ \$? != 0 ]] && echo \"\$err\" | grep -qi 'not permitted'"

# The host's services: in the initial netns and in $pns, each with a seed.
if [[ ! -x $NSCYCLE ]]; then
	for d in "the initial netns: every change EPERM, no seed" \
		"a socket of another netns handed over: every change EPERM, no seed" \
		"its own netns: no object of another netns in a dump, and no event of theirs"; do
		ktap_test_fail "$d (selftests/tools/nscycle is not built)"
	done
	perm_ok=0
else
	kmg_netns_add pns
	"$KMAGLEV" service add 192.0.2.99:53/udp seed $SEED backend 10.0.0.9 >/dev/null
	ip netns exec "$pns" "$KMAGLEV" service add 192.0.2.98:53/udp seed $SEED backend 10.0.0.8 \
		>/dev/null
	# probe_refused: every change EPERM, the reads allowed, no seed in the dump
	probe_refused() {
		local out
		out=$("$@" 2>&1) || { echo "$out"; return 1; }
		echo "$out"
		[[ $(grep -c '^op .* EPERM$' <<<"$out") == 8 ]] &&
			grep -q '^op config-get 0$' <<<"$out" && grep -q '^op service-dump 0$' <<<"$out" &&
			grep -qE '^dump services [1-9][0-9]* seeds 0$' <<<"$out"
	}
	perm_result "the initial netns (unshare -U alone): every change EPERM, the services read without their seeds" \
		probe_refused "${NOBODY[@]}" unshare -Ur "$NSCYCLE" probe
	perm_result "a socket of another netns opened by the host's root, handed to it: every change EPERM, no seed" \
		probe_refused ip netns exec "$pns" "$NSCYCLE" pass "${NOBODY[@]}" unshare -Urn \
		"$NSCYCLE" probe -F 3
	# Its own netns: every change accepted, a dump with nothing of the others', and while the
	# host changes services in the initial netns and in $pns, no event; a listener of the
	# host's in $pns gets them meanwhile.
	d=$(mktemp -d)
	"${NOBODY[@]}" unshare -Urn "$NSCYCLE" probe -w 600 >"$d/u" 2>&1 &
	upid=$!
	ip netns exec "$pns" "$NSCYCLE" probe -w 600 -s 192.0.2.97:53 >"$d/h" 2>&1 &
	hpid=$!
	for i in $(seq 1 600); do
		grep -q listening "$d/u" && grep -q listening "$d/h" && break
		sleep 0.1
	done
	churn='service add 192.0.2.50:80/tcp seed '$SEED' backend 10.0.0.5
backend add 192.0.2.50:80/tcp 10.0.0.6
service set 192.0.2.50:80/tcp flags resched
backend set 192.0.2.50:80/tcp 10.0.0.6 state drain
backend del 192.0.2.50:80/tcp 10.0.0.6
service del 192.0.2.50:80/tcp'
	"$KMAGLEV" -b - <<<"$churn" >/dev/null
	ip netns exec "$pns" "$KMAGLEV" -b - <<<"$churn" >/dev/null
	# the host's listener has the events of $pns once the last, the service's deletion, is
	# in; by then the userns' would have had the others
	for i in $(seq 1 600); do
		grep -q '^event service-del$' "$d/h" && break
		sleep 0.1
	done
	sleep 1
	kill -TERM $upid $hpid
	wait $upid $hpid
	case_isolated() {
		sed 's/^/u: /' "$d/u"
		echo "h: $(grep -E '^events' "$d/h")"
		[[ $(grep -c '^op .* 0$' "$d/u") == 10 ]] && grep -q '^dump services 0 seeds 0$' "$d/u" &&
			grep -q '^events 0$' "$d/u" && grep -qE '^events ([6-9]|[1-9][0-9]+)$' "$d/h"
	}
	perm_result "its own netns: every op accepted, no object of another netns in its dump, none of their events (the host's listener got them)" \
		case_isolated
	rm -rf "$d"
	"$KMAGLEV" service del 192.0.2.99:53/udp >/dev/null
fi
tperm=$((SECONDS - tperm))
if [[ $perm_ok == 1 ]]; then
	res=pass
	faults="16 of 16 foreign changes EPERM; 0 foreign objects, events or seeds seen"
else
	res=FAIL
	faults="see the failed cases"
fi
echo "# reliability: permissions (unprivileged user namespace) | every op in its own netns; 8 changes each on the initial netns and on a handed-over socket; dump and events during the host's changes in 2 netns | $tperm s | $faults | $res"
ktap_finished
