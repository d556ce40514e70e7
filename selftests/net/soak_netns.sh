#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak of kmaglev's lifetimes at the scale of issue 13 (teardown.sh has the same cases small):
#
# 1. Namespaces: KMAGLEV_SOAK_NETNS (1000) netns created, configured over netlink (config,
#    three services, IPv4 and IPv6, IPIP, 4in6, 6in6, 6in4 and keyed GRE backends, a backend
#    added, drained and weighted, a seed changed), given traffic (KMAGLEV_SOAK_FLOWS, 8, UDP
#    flows to each UDP VIP and half as many TCP SYNs, balanced by the LOCAL_OUT hook: one
#    connection entry each, checked in every netns) and destroyed, by selftests/tools/nscycle
#    in KMAGLEV_SOAK_WORKERS (2) processes (unshare(CLONE_NEWNET) per cycle, no fork or exec
#    per netns). Then every service, backend, table and entry freed, the netns count
#    (debugfs) back where it was, the module's refcount and the connection slabs back to
#    their baseline, and a kmemleak scan (debug kernel) that reports nothing new.
# 2. Unload: KMAGLEV_SOAK_UNLOADS (50) times: the module loaded, services configured (UDP and
#    TCP, IPv4 and IPv6; the hook alternately prerouting and ingress), connection entries made
#    by flooders that run all along (one in the client netns, over a veth, for PRE_ROUTING or
#    the ingress hook; one in the LB netns itself, for LOCAL_OUT; IPv4 and IPv6), then the
#    module removed while they send (KMAGLEV_SOAK_PPS, 1200 packets a second in all). Each
#    time rmmod must succeed, leave no kmaglev slab cache and no splat (the module's exit
#    warns if any object is left); after the last, a reload finds nothing left over, and
#    kmemleak (debug kernel) reports nothing new.
#
# Each part prints a "# reliability:" line for the report.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip insmod rmmod
ktap_print_header
ktap_set_plan 13

NNS=${KMAGLEV_SOAK_NETNS:-1000}
FLOWS=${KMAGLEV_SOAK_FLOWS:-8}
UNLOADS=${KMAGLEV_SOAK_UNLOADS:-50}
WORKERS=${KMAGLEV_SOAK_WORKERS:-2}
NSCYCLE=$KMG_TOP/build/tools/nscycle
DBG=/sys/kernel/debug/kmaglev/objects
LEAK=$KMG_KMEMLEAK

[[ -r /sys/kernel/debug/kmaglev ]] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [[ ! -x $NSCYCLE ]]; then
	ktap_test_fail "selftests/tools/nscycle is built (make -C selftests/tools)"
	ktap_finished
fi
kmg_load_module || { ktap_test_fail "load kmaglev.ko"; ktap_finished; }

obj() { awk -v k="$1" '$1 == k { print $2 }' "$DBG"; }
# every service, backend, table and entry freed, and the netns count down to $1 (within $2 s)
wait_freed() {
	local end=$((SECONDS + $2))
	while [[ $SECONDS -lt $end ]]; do
		[[ $(obj services) == 0 && $(obj backends) == 0 && $(obj tables) == 0 &&
		   $(obj conns) == 0 && $(obj netns) -le $1 ]] && return 0
		sleep 1
	done
	sed 's/^/# /' "$DBG"
	return 1
}
# slab NAME: the objects in use in slab cache NAME (0 if there is no such cache)
slab() { awk -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' /proc/slabinfo; }
# The cache in /proc/slabinfo that holds the objects of cache $1: itself, or the cache SLUB
# merged it into (/sys/kernel/slab/$1 is then a link to the same directory as that cache's).
slab_root() {
	local t
	t=$(readlink /sys/kernel/slab/"$1" 2>/dev/null) || { echo "$1"; return; }
	find /sys/kernel/slab -maxdepth 1 -lname "$t" -printf '%f\n' |
		awk 'NR == FNR { alias[$1] = 1; next } $1 in alias { print $1; exit }' - /proc/slabinfo
}
# kmaglev's own slab caches (not merged into others): in /proc/slabinfo, or as a directory
# in /sys/kernel/slab. (A merged cache leaves its alias link there after it is destroyed.)
kmg_slabs() {
	{ awk '$1 ~ /^kmaglev/ { print $1 }' /proc/slabinfo
	  find /sys/kernel/slab -maxdepth 1 -name 'kmaglev*' -type d -printf '%f\n' 2>/dev/null
	} | sort -u
}
# splats: kernel log lines since the test started that are a splat or a leak warning
DMESG0=$(dmesg | wc -l)
splats() {
	dmesg | tail -n +$((DMESG0 + 1)) |
		grep -E 'WARNING:|BUG:|KASAN|UBSAN|kernel BUG|general protection|possible .*deadlock|kmaglev: leaked|unregister_netdevice: waiting|Call Trace' |
		sed 's/^/# /'
}
nsplats() { splats | grep -c .; }
# kmemleak: how many suspected leaks it lists after a scan ("none" when kmemleak is not in use:
# not built, booted with kmemleak=off, or turned off since; kmg_kmemleak_count). Objects
# younger than 5 s are not reported: the caller waits first. Nothing is cleared, so the
# harness's own scan after the test still sees everything.
leaks() { kmg_kmemleak_count || echo none; }

# --- 1: netns cycles -------------------------------------------------------------------------
nets0=$(obj netns)
ref0=$(cat /sys/module/kmaglev/refcnt)
r4=$(slab_root kmaglev_conn4)
r6=$(slab_root kmaglev_conn6)
c40=$(slab "$r4")
c60=$(slab "$r6")
leak0=$(leaks)
t0=$SECONDS
out=$("$NSCYCLE" cycles -n "$NNS" -j "$WORKERS" -f "$FLOWS" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
tcycles=$((SECONDS - t0))
percycle=$(sed -n 's/.*per-cycle \([0-9.]*\) ms.*/\1/p' <<<"$out")
entries=$(sed -n 's/.* entries \([0-9]*\) .*/\1/p' <<<"$out")
[[ $rc == 0 ]] && ktap_test_pass "$NNS netns created, configured, given $entries entries in all and destroyed (${percycle} ms per cycle)" ||
	ktap_test_fail "$NNS netns created, configured, given traffic and destroyed"
t1=$SECONDS
freed=0
if out=$(wait_freed "$nets0" 900); then
	freed=1
	ktap_test_pass "every object freed and the netns count back to $nets0"
else
	echo "$out"
	ktap_test_fail "every object freed and the netns count back to $nets0"
fi
tfree=$((SECONDS - t1))
ktap_print_msg "the destroyed netns were dismantled within ${tfree}s of the last cycle"
ref=$(cat /sys/module/kmaglev/refcnt)
[[ $ref == "$ref0" ]] && ktap_test_pass "module refcount back to $ref0" ||
	ktap_test_fail "module refcount back to $ref0 (it is $ref)"
c4=$(slab "$r4")
c6=$(slab "$r6")
# SLUB counts the objects of the per-CPU slabs as in use, and a merged cache holds others'
# objects too: a few slabs' worth of slack, against $NNS times the entries of one netns.
# Under KASAN (the debug kernel) freed objects wait in its quarantine, still counted in use:
# there the figures are shown, and kmemleak and the object counters decide.
sl="kmaglev_conn4 (in $r4) $c40 -> $c4, kmaglev_conn6 (in $r6) $c60 -> $c6 objects in use"
if grep -q ' kasan_report$' /proc/kallsyms; then
	ktap_test_pass "connection slabs: $sl (KASAN's quarantine holds freed objects)"
elif [[ $c4 -le $((c40 + 1024)) && $c6 -le $((c60 + 1024)) ]]; then
	ktap_test_pass "connection slabs back to baseline: $sl"
else
	ktap_test_fail "connection slabs back to baseline: $sl"
fi
ns_leaks=0
if [[ $leak0 == none ]]; then
	ktap_test_skip "kmemleak reports nothing new after the netns cycles (kmemleak not in use on this kernel)"
	ns_leaks="n/a (kmemleak not in use)"
else
	sleep 6
	leak1=$(leaks)
	if [[ $leak1 == none ]]; then
		ns_leaks="? (kmemleak turned off)"
		ktap_test_fail "kmemleak reports nothing new after the netns cycles (it was in use, now it is off)"
	elif ns_leaks=$((leak1 - leak0)); [[ $ns_leaks -le 0 ]]; then
		ns_leaks=0
		ktap_test_pass "kmemleak reports nothing new after the netns cycles"
	else
		head -n 60 "$LEAK" | sed 's/^/# /'
		ktap_test_fail "kmemleak reports nothing new after the netns cycles ($ns_leaks new)"
	fi
fi
n=$(nsplats)
[[ $n == 0 ]] && ktap_test_pass "no splat in the kernel log" ||
	{ splats | head -n 40; ktap_test_fail "no splat in the kernel log ($n lines)"; }
res=pass
[[ $rc == 0 && $freed == 1 && $ref == "$ref0" && $n == 0 && ($ns_leaks == 0 || $ns_leaks == n/a*) ]] ||
	res=FAIL
echo "# reliability: netns create/configure/traffic/destroy | $NNS netns, 3 services and $((2 * FLOWS + (FLOWS + 1) / 2)) entries each | $((tcycles + tfree)) s ($percycle ms/cycle, ${tfree} s teardown) | $n splats, $ns_leaks kmemleak | $res"

# --- 2: module unload under traffic ----------------------------------------------------------
#   cl: flooder --veth cl0/in0--> lb: kmaglev, flooder of its own --> dummy0 (backends)
VIP=192.0.2.1
VIP6=2001:db8::1
kmg_netns_add lb
kmg_netns_add cl
ip link add in0 netns "$lb" type veth peer name cl0 netns "$cl"
ip -n "$lb" link add dummy0 type dummy
ip -n "$lb" addr add 198.51.100.1/24 dev in0
ip -n "$lb" addr add 2001:db8:f::1/64 dev in0 nodad
ip -n "$lb" addr add 10.0.0.254/8 dev dummy0
ip -n "$lb" addr add 2001:db8:1::fe/64 dev dummy0 nodad
ip -n "$cl" addr add 198.51.100.2/24 dev cl0
ip -n "$cl" addr add 2001:db8:f::2/64 dev cl0 nodad
for l in "$lb in0" "$lb dummy0" "$cl cl0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$lb" route add $VIP/32 dev dummy0
ip -n "$lb" -6 route add $VIP6/128 dev dummy0
ip -n "$cl" route add 192.0.2.0/24 via 198.51.100.1
ip -n "$cl" -6 route add 2001:db8::/64 via 2001:db8:f::1
ip netns exec "$lb" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.in0.rp_filter=0 \
	net.ipv6.conf.all.forwarding=1
# dummy0 has no neighbours to resolve: static ones, so encapsulated packets leave at once
ip -n "$lb" neigh add 10.0.0.1 lladdr 02:00:00:00:00:01 dev dummy0 nud permanent
ip -n "$lb" neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev dummy0 nud permanent
ip -n "$lb" neigh add 2001:db8:1::1 lladdr 02:00:00:00:00:03 dev dummy0 nud permanent

FLOOD_PIDS=()
flood() { ip netns exec "$1" "$NSCYCLE" flood -r "$2" -f 32 "$3" "$4" & FLOOD_PIDS+=($!); }
flood_stop() {
	[[ ${#FLOOD_PIDS[@]} -gt 0 ]] && kill "${FLOOD_PIDS[@]}" 2>/dev/null
	wait "${FLOOD_PIDS[@]}" 2>/dev/null
	FLOOD_PIDS=()
}
trap 'flood_stop; kmg_netns_cleanup' EXIT
# KMAGLEV_SOAK_PPS (1200) packets a second in all: always traffic in flight, and a guest
# that still answers (the debug kernel needs far fewer: each packet costs it ten times more)
PPS=${KMAGLEV_SOAK_PPS:-1200}
flood "$cl" $((PPS / 2)) $VIP 53
flood "$cl" $((PPS / 4)) $VIP6 53
flood "$lb" $((PPS / 4)) $VIP 53

K() { ip netns exec "$lb" "$KMAGLEV" "$@"; }
# counts: "ENTRIES RX", the table's entries and the netns' rx-packets (one batch: config show
# and stats, two JSON documents); nothing if either cannot be read
counts() {
	printf 'config show\nstats\n' | K -j -b - |
		kmg_jq '"\(.conns // error) \(input.global."rx-packets" // error)"'
}
# enough ENTRIES RX: the flooders' 96 flows (32 each) have entries, packets are counted
enough() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && $1 -ge 90 && $2 -gt 0 ]]; }
# one round: load, configure, entries made by the flooders, unload under traffic
unload_round() {
	local i=$1 hook=prerouting n rx t=$SECONDS t1 t2 t3 out
	[[ $((i % 2)) == 0 ]] && hook="ingress ingress-dev in0"
	insmod "$KO" || { echo "round $i: insmod failed"; return 1; }
	if [[ $i == 1 ]]; then
		# the check below fails before there is a service: no entry, nothing counted
		read -r n rx <<<"$(counts)"
		[[ -n $rx ]] && ! enough "$n" "$rx" ||
			{ echo "round $i: no service yet, and the entry check passes ($n entries, rx-packets $rx)"; return 1; }
		echo "round $i: no service yet: $n entries, rx-packets $rx: the entry check fails, as it should"
	fi
	t1=$SECONDS
	K -b - <<EOF || { echo "round $i: configuration failed"; return 1; }
config set hook $hook conn-max 100000
service add $VIP:53/udp table-size 251 backend 10.0.0.1 backend 10.0.0.2 encap gre
service add $VIP:80/tcp table-size 251 backend 10.0.0.1
service add [$VIP6]:53/udp table-size 251 backend 2001:db8:1::1 backend 10.0.0.2
EOF
	t2=$SECONDS
	# the flooders' 96 flows (32 each) all have entries within a second of the hooks; the
	# packets counted since the module came show that they are still flowing
	for n in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		read -r n rx <<<"$(counts)"
		enough "$n" "$rx" && break
		sleep 0.5
	done
	enough "$n" "$rx" ||
		{ echo "round $i: $n entries, rx-packets $rx: is traffic flowing?"; return 1; }
	t3=$SECONDS
	rmmod kmaglev || { echo "round $i: rmmod failed"; return 1; }
	echo "round $i: hook ${hook%% *}, $n entries, rx-packets $rx; insmod $((t1 - t)) s, configure $((t2 - t1)) s, traffic $((t3 - t2)) s, rmmod $((SECONDS - t3)) s"
	[[ ! -d /sys/module/kmaglev ]] || { echo "round $i: the module is still there"; return 1; }
	[[ -z $(kmg_slabs) ]] || { echo "round $i: slab caches left: $(kmg_slabs)"; return 1; }
	[[ $(nsplats) == 0 ]] || { echo "round $i: a splat"; splats | head -n 40; return 1; }
}
# the module without its debug info, in the guest's memory: insmod reads it every round
KO=/tmp/kmaglev-soak.ko
objcopy --strip-debug "$(kmg_module_path)" "$KO" 2>/dev/null || cp "$(kmg_module_path)" "$KO"
nets0=$(obj netns)
rmmod kmaglev
# kmemleak's baseline: its count after part 1 (a scan takes minutes under emulation)
[[ $leak0 == none || $leak1 == none ]] || leak0=$leak1
t0=$SECONDS
ENTRIES=0
ok=0
for i in $(seq 1 "$UNLOADS"); do
	out=$(unload_round "$i" 2>&1) || { echo "$out" | sed 's/^/# /'; break; }
	[[ $i -le 2 || $((i % 10)) == 0 ]] && echo "$out" | sed 's/^/# /'
	ENTRIES=$((ENTRIES + $(sed -n 's/.*, \([0-9]*\) entries,.*/\1/p' <<<"$out")))
	ok=$i
done
tunload=$((SECONDS - t0))
alive=0
for p in "${FLOOD_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
ktap_print_msg "$ok unloads in ${tunload}s ($((ok ? tunload * 1000 / ok : 0)) ms each), $ENTRIES entries in all at the unloads, $alive of 3 flooders still sending"
[[ $ok == "$UNLOADS" ]] && ktap_test_pass "module unloaded under traffic $UNLOADS times, services and entries present" ||
	ktap_test_fail "module unloaded under traffic $UNLOADS times ($ok succeeded)"
[[ $alive == 3 ]] && ktap_test_pass "the flooders sent all along" ||
	ktap_test_fail "the flooders sent all along ($alive of 3 alive)"
flood_stop
ktap_test_result "no kmaglev slab cache after the last unload" test -z "$(kmg_slabs)"
kmg_load_module
ktap_test_result "reloaded: no object left over, netns count $(obj netns) as before the unloads ($nets0)" \
	wait_freed "$nets0" 60
n=$(nsplats)
[[ $n == 0 ]] && ktap_test_pass "no splat in the kernel log" ||
	{ splats | head -n 40; ktap_test_fail "no splat in the kernel log ($n lines)"; }
un_leaks=0
if [[ $leak0 == none ]]; then
	ktap_test_skip "kmemleak reports nothing new after the unloads (kmemleak not in use on this kernel)"
	un_leaks="n/a (kmemleak not in use)"
else
	sleep 6
	leak1=$(leaks)
	if [[ $leak1 == none ]]; then
		un_leaks="? (kmemleak turned off)"
		ktap_test_fail "kmemleak reports nothing new after the unloads (it was in use, now it is off)"
	elif un_leaks=$((leak1 - leak0)); [[ $un_leaks -le 0 ]]; then
		un_leaks=0
		ktap_test_pass "kmemleak reports nothing new after the unloads"
	else
		head -n 60 "$LEAK" | sed 's/^/# /'
		ktap_test_fail "kmemleak reports nothing new after the unloads ($un_leaks new)"
	fi
fi
res=pass
[[ $ok == "$UNLOADS" && $n == 0 && $alive == 3 && ($un_leaks == 0 || $un_leaks == n/a*) ]] || res=FAIL
echo "# reliability: module unload under traffic | $ok/$UNLOADS unloads, 3 services, $((ok ? ENTRIES / ok : 0)) entries avg, ~$PPS pkt/s | ${tunload} s ($((ok ? tunload * 1000 / ok : 0)) ms/unload) | $n splats, $un_leaks kmemleak | $res"
ktap_test_result "module unloads at the end" rmmod kmaglev
ktap_finished
