#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The netlink fuzzer (selftests/tools/nlfuzz, its knowledge of the family generated from the YNL
# spec) against the kmaglev family, while at the same time:
#   - traffic flows through the VIPs the fuzzer's sensible requests create and change (UDP sent
#     from the fuzzed netns itself: kmaglev's LOCAL_OUT hook balances it to a dummy device);
#   - network namespaces are created and destroyed in a loop, a fuzzer running in every other
#     one (killed part-way now and then), so that netns teardown meets live services, pending
#     dumps and sockets;
#   - a fuzzer runs as root of an unprivileged user namespace (nobody, `unshare -Urn`): its
#     mutating requests work in its own netns only;
#   - a fuzzer runs as nobody in a sentinel netns of the initial user namespace (--unpriv):
#     every mutating request must fail, and no reply may carry a seed.
# Then: the main fuzzer sent its messages with no unexpected errno and no unparseable reply,
# the sentinel netns and the initial netns are unchanged, the module still answers, every
# object is freed once the namespaces are gone, and the module unloads.
#
# KMAGLEV_FUZZ_MSGS: messages of the main fuzzer (default 100000).
# KMAGLEV_FUZZ_WORKERS: its workers (threads, each with its own socket; default 2).
# KMAGLEV_FUZZ_SEED: the seed (default 13); the other fuzzers derive theirs from it.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip python3 unshare setpriv
ktap_print_header
ktap_set_plan 10

MSGS=${KMAGLEV_FUZZ_MSGS:-100000}
WORKERS=${KMAGLEV_FUZZ_WORKERS:-2}
SEED=${KMAGLEV_FUZZ_SEED:-13}
NETNS_MIN=${KMAGLEV_FUZZ_NETNS_MIN:-4}	# netns churn cycles at least
SIDE_MSGS=$((MSGS / 20 > 500 ? MSGS / 20 : 500))	# the unprivileged fuzzers
NLFUZZ=$KMG_TOP/build/tools/nlfuzz
DBG=/sys/kernel/debug/kmaglev/objects
PY=/usr/bin/python3
OUT=$(mktemp -d)
STOP=$OUT/stop

if [[ ! -x $NLFUZZ ]]; then
	ktap_test_fail "nlfuzz is built (make -C selftests/tools): $NLFUZZ missing"
	ktap_finished
fi
kmg_load_module || { ktap_test_fail "load kmaglev.ko"; ktap_finished; }
[[ -r $DBG ]] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
dmesg_start=$(dmesg | wc -l)

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
summary() { grep '^nlfuzz: ' "$1" | tail -n1; }
field() { summary "$1" | grep -oE "(^| )$2=[0-9]+" | cut -d= -f2; }

# --- the sentinel netns and the initial netns: state that nothing here may change --------
kmg_netns_add sentinel
"$KMAGLEV" -n "$sentinel" -b - >/dev/null <<EOF || echo "# sentinel setup failed"
service add 192.0.2.1:53/udp table-size 251 window 0s seed 0x0123456789abcdef0123456789abcdef
backend add 192.0.2.1:53/udp 10.0.0.1
service add [2001:db8::1]:80/tcp table-size 251
config set conn-max 4242
EOF
# (one CLI run each: under TCG every process start counts)
state() {
	printf 'service show\ntable show 192.0.2.1:53/udp\nconfig show\n' |
		"$KMAGLEV" -n "$1" -b - 2>&1 | sed -E 's/ conns [0-9]+//'
}
init_state() { printf 'service show\nconfig show\n' | "$KMAGLEV" -b - 2>&1; }
sentinel_before=$(state "$sentinel")
init_before=$(init_state)

# --- the fuzzed netns with traffic ------------------------------------------------------
kmg_netns_add lb
ip -n "$lb" link add dummy0 type dummy
ip -n "$lb" addr add 10.0.0.254/8 dev dummy0
ip -n "$lb" addr add 2001:db8:1::fe/64 dev dummy0 nodad
ip -n "$lb" link set dummy0 up
ip -n "$lb" route add 192.0.2.0/24 dev dummy0
ip -n "$lb" route add 2001:db8::/64 dev dummy0

# UDP to the fuzzer's pool of VIPs (192.0.2.1-4, 2001:db8::1-4, port 53 and 80) from the LB
# itself, a few hundred datagrams a second, until $STOP exists (and 2000 at least). Creates
# $OUT/flowing once started; prints how many it sent.
traffic() {
	ip netns exec "$lb" "$PY" - "$STOP" "$OUT/flowing" <<'EOF'
import os, socket, sys, time
stop = sys.argv[1]
open(sys.argv[2], 'w').close()
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
n = 0
while n < 1000 or not os.path.exists(stop):
    for i in range(25):
        for port in (53, 80):
            try:
                s4.sendto(b'x' * 32, ('192.0.2.%d' % (1 + n % 4), port))
                s6.sendto(b'x' * 32, ('2001:db8::%d' % (1 + n % 4), port))
            except OSError:
                pass
            n += 1
    time.sleep(0.1)
print(n * 2)
EOF
}
traffic >"$OUT/traffic" 2>&1 &
traffic_pid=$!
for i in $(seq 1 600); do
	[[ -e $OUT/flowing ]] && break
	sleep 0.1
done

# --- netns churn with fuzzers inside ---------------------------------------------------
churn() {
	local i=0 fails=0 ns pid rc
	while [[ ! -e $STOP || $i -lt $NETNS_MIN ]]; do
		i=$((i + 1))
		ns=fzchurn-$i-$$
		ip netns add "$ns" || { fails=$((fails + 1)); continue; }
		ip -n "$ns" link set lo up
		"$KMAGLEV" -n "$ns" service add 192.0.2.9:80/tcp table-size 251 >/dev/null
		if ((i % 2)); then
			ip netns exec "$ns" "$NLFUZZ" --seed $((SEED + 1000 + i)) --msgs 1000 \
				--duration 3 --no-paths >"$OUT/churn-$i" 2>&1 &
			pid=$!
			if ((i % 6 == 1)); then
				sleep 1
				kill -KILL "$pid" 2>/dev/null	# mid-run: sockets and dumps left
				wait "$pid" 2>/dev/null
			else
				wait "$pid"
				rc=$?
				if [[ $rc -ne 0 ]]; then
					fails=$((fails + 1))
					echo "# churn fuzzer $i exited $rc:"
					grep -E 'anomaly|^nlfuzz' "$OUT/churn-$i" | sed 's/^/#   /' | head -n 20
				fi
			fi
		else
			sleep 0.5
		fi
		ip netns del "$ns"
	done
	echo "cycles=$i fails=$fails"
}
churn >"$OUT/churn" 2>&1 &
churn_pid=$!

# --- the unprivileged fuzzers -------------------------------------------------------------
# Root of a user namespace of its own (with its own netns): everything works there, capped.
nobody unshare -Urn "$NLFUZZ" --seed $((SEED + 1)) --msgs "$SIDE_MSGS" --no-paths \
	>"$OUT/userns" 2>&1 &
userns_pid=$!
# Nobody in the sentinel netns: no mutating request may succeed, no seed may show.
ip netns exec "$sentinel" setpriv --reuid=65534 --regid=65534 --clear-groups "$NLFUZZ" --unpriv --seed $((SEED + 2)) --msgs "$SIDE_MSGS" --no-paths \
	>"$OUT/unpriv" 2>&1 &
unpriv_pid=$!

# --- the main fuzzer ---------------------------------------------------------------------
start=$SECONDS
# (a valid table-size above 65537, up to 16 M slots, goes out at most once per 100000 msgs,
# from the 50000th on: probably
# minutes of CPU under kn->lock on the debug kernel; not measured)
ip netns exec "$lb" "$NLFUZZ" --seed "$SEED" --msgs "$MSGS" --workers "$WORKERS" --huge-every 100000 \
	>"$OUT/main" 2>&1
main_rc=$?
took=$((SECONDS - start))
wait $userns_pid; userns_rc=$?
wait $unpriv_pid; unpriv_rc=$?
touch "$STOP"
wait $churn_pid
wait $traffic_pid

grep -E '^# (path|anomaly|nlfuzz)' "$OUT/main"
sent=$(field "$OUT/main" msgs)
paths=$(field "$OUT/main" paths)
anom=$(field "$OUT/main" anomalies)
ktap_print_msg "main fuzzer: $(summary "$OUT/main") in ${took}s"
if [[ ${sent:-0} -ge $MSGS ]]; then
	ktap_test_pass "main fuzzer sent $sent messages (>= $MSGS)"
else
	ktap_test_fail "main fuzzer sent ${sent:-0} messages (>= $MSGS)"
fi
if [[ $main_rc -eq 0 && ${anom:-1} -eq 0 ]]; then
	ktap_test_pass "no unexpected errno, unparseable reply or timeout ($paths distinct error paths)"
else
	ktap_test_fail "no unexpected errno, unparseable reply or timeout (exit $main_rc)"
fi

grep -E '^# anomaly|^nlfuzz' "$OUT/userns" | sed 's/^\([^#]\)/# userns: \1/'
if [[ $userns_rc -eq 0 && $(field "$OUT/userns" msgs) -ge $SIDE_MSGS ]]; then
	ktap_test_pass "fuzzer as root of an unprivileged user namespace: $(field "$OUT/userns" msgs) msgs, no anomaly"
else
	ktap_test_fail "fuzzer as root of an unprivileged user namespace (exit $userns_rc)"
fi
grep -E '^# anomaly|^nlfuzz' "$OUT/unpriv" | sed 's/^\([^#]\)/# unpriv: \1/'
if [[ $unpriv_rc -eq 0 && $(field "$OUT/unpriv" msgs) -ge $SIDE_MSGS ]]; then
	ktap_test_pass "fuzzer without CAP_NET_ADMIN: $(field "$OUT/unpriv" msgs) msgs, nothing changed, no seed seen"
else
	ktap_test_fail "fuzzer without CAP_NET_ADMIN (exit $unpriv_rc)"
fi

churn_res=$(tail -n1 "$OUT/churn")
grep '^#' "$OUT/churn"
ktap_print_msg "netns churn: $churn_res"
if [[ $churn_res =~ cycles=([0-9]+)\ fails=0 && ${BASH_REMATCH[1]} -ge 2 ]]; then
	ktap_test_pass "netns created and destroyed under fuzzing: ${BASH_REMATCH[1]} cycles"
else
	ktap_test_fail "netns created and destroyed under fuzzing ($churn_res)"
fi

pkts=$(tail -n1 "$OUT/traffic")
rx=$("$KMAGLEV" -n "$lb" -j stats 2>/dev/null | kmg_jq '.global."rx-packets"')
ktap_print_msg "traffic: $pkts datagrams sent to the VIPs, rx-packets $rx"
if [[ $pkts =~ ^[0-9]+$ && $pkts -gt 0 ]]; then
	ktap_test_pass "traffic flowed during the fuzzing"
else
	ktap_test_fail "traffic flowed during the fuzzing ($pkts)"
fi

sentinel_after=$(state "$sentinel")
init_after=$(init_state)
if [[ $sentinel_after == "$sentinel_before" && $init_after == "$init_before" ]]; then
	ktap_test_pass "the sentinel netns and the initial netns are unchanged"
else
	echo "$sentinel_before$init_before" >"$OUT/before"
	echo "$sentinel_after$init_after" >"$OUT/after"
	diff "$OUT/before" "$OUT/after" | sed 's/^/# /'
	ktap_test_fail "the sentinel netns and the initial netns are unchanged"
fi

ktap_test_result "the module still answers" "$KMAGLEV" -n "$lb" config show

# Every object freed once the namespaces are gone, then the module unloads.
kmg_netns_cleanup
wait_objects() {
	local i
	for i in $(seq 1 120); do
		[[ $(awk '$1 == "services" || $1 == "backends" || $1 == "tables" || $1 == "conns" { s += $2 } END { print s + 0 }' "$DBG") == 0 ]] &&
			return 0
		sleep 0.5
	done
	cat "$DBG"
	return 1
}
if wait_objects && rmmod kmaglev && [[ ! -d /sys/module/kmaglev ]]; then
	ktap_test_pass "every object freed, module unloaded"
else
	ktap_test_fail "every object freed, module unloaded"
fi

splats=$(dmesg | tail -n +$((dmesg_start + 1)) |
	grep -cE 'BUG:|WARNING:|KASAN|UBSAN|kmemleak|possible circular|inconsistent lock|RCU stall|Oops|general protection')
dmesg | tail -n +$((dmesg_start + 1)) | grep -E 'BUG:|WARNING:|KASAN|UBSAN|kmemleak|RCU stall|Oops' |
	head -n 20 | sed 's/^/# /'
if [[ $splats -eq 0 ]]; then
	ktap_test_pass "no kernel warning in dmesg"
else
	ktap_test_fail "no kernel warning in dmesg ($splats lines)"
fi
result=pass
[[ $__ktap_fail -eq 0 ]] || result=fail
ktap_print_msg "reliability: netlink fuzzer | ${sent:-0} msgs, $WORKERS workers (+ userns, unpriv, netns churn, traffic) | ${took} s | $splats splats, ${anom:-?} anomalies | ${paths:-0} distinct error paths, $result"
rm -rf "$OUT"
ktap_finished
