#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (make deb, debian/), as an operator's host takes them, on a distribution
# kernel (the stock VM): install, upgrade N -> N+1 under traffic, remove, purge.
#
# The packages are built on the host first (dpkg-buildpackage in a TCG guest would take minutes):
#
#   selftests/deb-prep.sh      then   selftests/vm/run --kernel stock -- \
#                                            selftests/net/run_tests.sh deb
#
# deb-prep.sh builds this tree's packages (VERSION, N) and the same tree's with the release
# bumped (N+1) into build/deb-test/. This test makes a root of its own: an overlay whose lower
# layer is the host's root as the guest sees it (9p, read-only) and whose upper layer is in
# the guest's tmpfs, with /proc, /sys, /dev and the checkout bound in, and a /run and /tmp of
# its own; dpkg, DKMS and the installed programs run in it with chroot. The host's dpkg
# database (dkms, the libraries and the kernel headers installed) is the one dpkg sees there;
# nothing reaches the host. The network namespaces (dp_lib.sh) are the guest's, as always.
#
#   install:  dpkg -i of both packages: DKMS builds kmaglev.ko for the guest's kernel (in the
#             guest); the files where they belong; the unit not enabled nor started, and
#             `systemd-analyze verify` clean on it as installed; /etc/kmaglev there and
#             empty; modprobe kmaglev loads the DKMS build; the installed CLI configures a VIP
#             that answers HTTP
#   upgrade:  the daemon (the installed kmaglevd, as the unit starts it) runs on
#             /etc/kmaglev/kmaglev.yaml; a client loop through its VIP; dpkg -i of N+1: DKMS
#             removes N and builds N+1, /etc/kmaglev unchanged; the daemon restarted as the
#             unit's restart does it (SIGTERM, lame duck, the new kmaglevd): no request of the
#             loop failed, before, during or after
#   remove:   dpkg -r: the module gone from DKMS and from every /lib/modules tree, the
#             programs gone, /etc/kmaglev kept; dpkg -P: /etc/kmaglev gone, and `dpkg -S`
#             finds nothing of kmaglev
#
# The guest runs no systemd: the maintainer scripts' systemctl parts (start, restart on upgrade,
# stop on removal) are skipped there ([ -d /run/systemd/system ]), so this test does what they
# would, and checks that the scripts the packages installed hold them.
source "$(dirname "$0")/lib.sh"

KVER=$(uname -r)
PREP=$KMG_TOP/build/deb-test
N_TESTS=22

kmg_require_root
kmg_require_cmd chroot dpkg dkms modprobe mount python3 curl
# DKMS needs the kernel's headers, and a distribution kernel has its tree in /lib/modules
[[ -d /lib/modules/$KVER/kernel ]] || ktap_skip_all "not a distribution kernel: no /lib/modules/$KVER/kernel"
[[ -f /lib/modules/$KVER/build/Makefile ]] || ktap_skip_all "no headers for $KVER (linux-headers-$KVER)"
ktap_print_header
ktap_set_plan $N_TESTS

fail_rest() {
	while [[ $__ktap_n -lt $N_TESTS ]]; do ktap_test_fail "$1"; done
	ktap_finished
}
read -r V V1 <"$PREP/VERSIONS" 2>/dev/null
if [[ -z ${V1:-} ]]; then
	ktap_print_msg "no packages: run selftests/deb-prep.sh on the host first"
	fail_rest "packages built on the host (selftests/deb-prep.sh)"
fi
source "$(dirname "$0")/dp_lib.sh"
VIP=192.0.2.10

# --- the root ---------------------------------------------------------------------------------
OVL=$(mktemp -d /tmp/kmaglev-deb.XXXXXX)
ROOT=$OVL/root
UMOUNTS=()
DPID=
LOOP_PID=
cleanup() {
	local i
	[[ -n $LOOP_PID ]] && kill "$LOOP_PID" 2>/dev/null
	[[ -n $DPID ]] && kill -9 "$DPID" 2>/dev/null
	dp_cleanup
	rmmod kmaglev 2>/dev/null	# (the guest's /lib/modules has no kmaglev: the root's has)
	for ((i = ${#UMOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${UMOUNTS[i]}"; done
	rm -rf "$OVL"
}
trap cleanup EXIT
# inroot CMD...: CMD in the root (PATH as root's login shell has it)
inroot() { chroot "$ROOT" env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# mnt ARGS... TARGET: a mount, undone (lazily, last first) by cleanup
mnt() { mount "$@" && UMOUNTS+=("${*: -1}"); }

setup() {
	mkdir -p "$OVL/lower" "$OVL/upper" "$OVL/work" "$ROOT" || return 1
	modprobe overlay || return 1
	# The host's root alone, without the guest's mounts over it (its /var, /tmp, /run tmpfs)
	mnt --bind / "$OVL/lower" || return 1
	mnt -t overlay overlay -o "lowerdir=$OVL/lower,upperdir=$OVL/upper,workdir=$OVL/work" "$ROOT" ||
		{ dmesg | tail -n 3; return 1; }
	mnt -t proc proc "$ROOT/proc" && mnt --rbind /sys "$ROOT/sys" && mnt --rbind /dev "$ROOT/dev" &&
		mnt -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp" && mnt -t tmpfs -o mode=755 tmpfs "$ROOT/run" &&
		mnt --bind "$KMG_TOP" "$ROOT$KMG_TOP" || return 1
	# dkms uses <(...): /dev/fd (the guest's devtmpfs has none; see install.sh)
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd || return 1
	# man-db's trigger would rebuild the index of every man page of the host (minutes under
	# TCG): as with `dpkg-reconfigure man-db` answering no, it is skipped
	rm -f "$ROOT/var/lib/man-db/auto-update" || return 1
	# written here, and only here: the host's root is the lower layer
	touch "$ROOT/etc/.kmaglev-rw" && [[ -f $OVL/upper/etc/.kmaglev-rw ]] && rm "$ROOT/etc/.kmaglev-rw" || return 1
	inroot dpkg-query -W dkms || return 1
	! inroot dpkg-query -W kmaglev kmaglev-dkms 2>/dev/null && [[ ! -d /sys/module/kmaglev ]]
}
if ! setup >"$OVL/setup.log" 2>&1; then
	sed 's/^/# /' "$OVL/setup.log"
	fail_rest "a root of the host's, on a writable overlay"
fi
ktap_test_pass "a root of the host's, on a writable overlay (dpkg's database: the host's)"

# logged NAME CMD...: CMD's output kept in $LOGS/NAME.log, shown if it fails. The logs are in
# the checkout (build/deb-test/logs), where the host can follow the long steps.
LOGS=$PREP/logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
logged() {
	local name=$1; shift
	"$@" >"$LOGS/$name.log" 2>&1 || { sed 's/^/# /' "$LOGS/$name.log"; return 1; }
}
# check DESC NAME CMD...: a test; CMD runs in this shell (it may start the daemon), its output in
# $OVL/NAME.log, shown if it fails
check() {
	local desc=$1; shift
	if logged "$@"; then ktap_test_pass "$desc"; else ktap_test_fail "$desc"; fi
}
# timed DESC NAME CMD...: a test whose description ends with how long CMD took
timed() {
	local desc=$1 start=$SECONDS; shift
	if logged "$@"; then
		ktap_test_pass "$desc ($((SECONDS - start))s)"
	else
		ktap_test_fail "$desc ($((SECONDS - start))s)"
	fi
}
# dkms_has VERSION: kmaglev/VERSION built and installed by DKMS for KVER, and its file in
# /lib/modules/KVER is that version's; no other kmaglev in DKMS
dkms_has() {
	local st f
	st=$(inroot dkms status kmaglev) || return 1
	echo "$st"
	[[ $(grep -c . <<<"$st") == 1 ]] && grep -qF "kmaglev/$1, $KVER, $(uname -m): installed" <<<"$st" || return 1
	f=$(inroot modinfo -k "$KVER" -n kmaglev) || return 1
	echo "$f"
	[[ $f == /lib/modules/$KVER/updates/dkms/kmaglev.ko* ]] &&
		[[ $(inroot modinfo -k "$KVER" -F version kmaglev) == "$1" ]] &&
		[[ -d $ROOT/usr/src/kmaglev-$1 ]]
}
# no_module: no kmaglev.ko in any /lib/modules tree, nothing of kmaglev in DKMS
no_module() {
	local left
	left=$(find "$ROOT"/lib/modules/ -name 'kmaglev.ko*'; ls -d "$ROOT"/usr/src/kmaglev-* "$ROOT"/var/lib/dkms/kmaglev 2>/dev/null)
	[[ -z $left ]] || { echo "left: $left"; return 1; }
	[[ -z $(inroot dkms status kmaglev) ]]
}
# etc_state: /etc/kmaglev, every file with its content's hash and its mode
etc_state() { (cd "$ROOT/etc/kmaglev" && find . -printf '%p %m\n' -type f -exec sha256sum {} + | sort); }

# --- install ----------------------------------------------------------------------------------
ktap_print_msg "install: kmaglev $V and kmaglev-dkms $V; DKMS builds for $KVER here"
timed "dpkg -i kmaglev-dkms_$V kmaglev_$V (DKMS builds kmaglev.ko for $KVER)" install \
	inroot dpkg -i "$PREP/N/kmaglev-dkms_${V}_all.deb" "$PREP"/N/kmaglev_"${V}"_*.deb
check "dkms status: kmaglev/$V installed for $KVER, in /lib/modules/$KVER/updates/dkms" \
	dkms-n dkms_has "$V"
sed -n 's/^kmaglev/# dkms status: kmaglev/p' "$LOGS/dkms-n.log"
installed() {
	local f
	for f in /usr/sbin/kmaglev /usr/sbin/kmaglevd /lib/systemd/system/kmaglev.service \
		/usr/share/man/man8/kmaglev.8.gz /usr/share/bash-completion/completions/kmaglev \
		/usr/share/doc/kmaglev/examples/kmaglev.yaml /usr/src/kmaglev-$V/dkms.conf; do
		inroot dpkg -S "$f" || return 1
	done
	grep -qx 'ExecStart=/usr/sbin/kmaglev daemon' "$ROOT/lib/systemd/system/kmaglev.service" &&
		[[ -d $ROOT/etc/kmaglev && -z $(ls -A "$ROOT/etc/kmaglev") ]] &&
		inroot kmaglev --version | grep -F "kmaglev $V " &&
		inroot kmaglev daemon --check /usr/share/doc/kmaglev/examples/kmaglev.yaml
}
check "installed: CLI, kmaglevd, unit, man page, completion, example; /etc/kmaglev empty" \
	files installed
# Not enabled (dh_installsystemd --no-enable) and so not started, by the scripts as installed;
# an upgrade restarts a running daemon; a removal stops it.
not_started() {
	local pi=$ROOT/var/lib/dpkg/info/kmaglev.postinst pr=$ROOT/var/lib/dpkg/info/kmaglev.prerm
	! pgrep -x kmaglevd && [[ ! -e $ROOT/etc/systemd/system/multi-user.target.wants/kmaglev.service ]] &&
		grep -q "_dh_action=restart" "$pi" && grep -q "deb-systemd-invoke \$_dh_action 'kmaglev.service'" "$pi" &&
		grep -q "deb-systemd-invoke stop 'kmaglev.service'" "$pr"
}
check "the unit is not enabled nor started; the scripts restart it on upgrade, stop it on removal" \
	scripts not_started
verify() {
	local out
	out=$(inroot systemd-analyze verify /lib/systemd/system/kmaglev.service 2>&1) || { echo "$out"; return 1; }
	[[ -z $out ]] || { echo "$out"; return 1; }
}
check "systemd-analyze verify: the unit as installed" verify verify
load() {
	inroot modprobe kmaglev && [[ $(cat /sys/module/kmaglev/version) == "$V" ]]
}
check "modprobe kmaglev loads DKMS's build ($V)" modprobe load

if ! dp_topo 1 1 >"$OVL/topo.log" 2>&1; then
	sed 's/^/# /' "$OVL/topo.log"
	fail_rest "topology: client, router, 1 LB, 1 backend"
fi
ktap_test_pass "topology: client, router, 1 LB, 1 backend"
lbin() { ip netns exec "${DP_LB[1]}" chroot "$ROOT" "$@"; }
forward() {
	local out
	lbin /usr/sbin/kmaglev service add $VIP:80/tcp backend "$(dp_be4 1)" || return 1
	out=$(dp_http $VIP --count 3) || { echo "$out"; return 1; }
	echo "$out"
	[[ $(awk '$2 == "b1"' <<<"$out" | wc -l) -eq 3 ]] && lbin /usr/sbin/kmaglev service del $VIP:80/tcp
}
check "the installed CLI configures a VIP that answers HTTP (3 of 3 from b1)" forward forward

# --- upgrade ----------------------------------------------------------------------------------
ktap_print_msg "upgrade: $V -> $V1 with the daemon running and a client loop through its VIP"
cat >"$ROOT/etc/kmaglev/kmaglev.yaml" <<EOF
# kmaglev deb.sh: the operator's configuration, which an upgrade must leave as it is
daemon:
  owner: kmaglev-deb
  drain-time: 3s
services:
  - vip: $VIP
    port: 80
    proto: tcp
    checks:
      - { kind: tcp, via: direct, interval: 1s, timeout: 1s, rise: 1, fall: 3 }
    backends:
      - address: $(dp_be4 1)
EOF
echo "# the operator's note" >"$ROOT/etc/kmaglev/README.local"
etc_state >"$OVL/etc.before"
# daemon_start: the installed `kmaglev daemon`, as the unit starts it (its RuntimeDirectory
# /run/kmaglev, the configuration from /etc/kmaglev), in the LB
daemon_start() {
	mkdir -p -m 0750 "$ROOT/run/kmaglev"
	# a simple command, not lbin: $! is then the process that becomes the daemon (ip netns
	# exec and chroot exec it), which daemon_stop signals; a function would run in a
	# subshell, and the TERM would kill the shell (143), not the daemon
	ip netns exec "${DP_LB[1]}" chroot "$ROOT" /usr/sbin/kmaglev daemon >>"$LOGS/daemon.log" 2>&1 &
	DPID=$!
	dp_wait 60 test -S "$ROOT/run/kmaglev/daemon.sock" && dp_wait 60 vip_answers
}
vip_answers() { dp_http $VIP --count 1 | grep -q ' b1$'; }
# daemon_stop: what the unit's stop does (KillSignal=SIGTERM: the lame duck, then the exit)
daemon_stop() {
	kill -TERM "$DPID" || return 1
	wait "$DPID"
	local rc=$?
	DPID=
	[[ $rc == 0 ]] || echo "daemon exited $rc"
	[[ $rc == 0 ]]
}
check "the installed daemon runs on /etc/kmaglev/kmaglev.yaml; its VIP answers" \
	daemon-start daemon_start
# The client loop: five requests, each on a new connection, every second until told to stop;
# every answer (or failure) a line in loop.out. (Paced: the guest's one vCPU builds the module
# meanwhile.)
rm -f "$OVL/loop.stop"
(
	while [[ ! -f $OVL/loop.stop ]]; do
		dp_http $VIP --count 5 --max-fail 1 --timeout 3
		dp_sleep 1
	done
) >"$OVL/loop.out" 2>&1 &
LOOP_PID=$!
dp_wait 30 test -s "$OVL/loop.out"
timed "dpkg -i kmaglev-dkms_$V1 kmaglev_$V1 (DKMS removes $V, builds $V1)" upgrade \
	inroot dpkg -i "$PREP/N+1/kmaglev-dkms_${V1}_all.deb" "$PREP"/N+1/kmaglev_"${V1}"_*.deb
upgraded() { dkms_has "$V1" && [[ ! -e $ROOT/usr/src/kmaglev-$V ]]; }
check "dkms status: kmaglev/$V1 alone, installed for $KVER; $V's source gone" dkms-n1 upgraded
etc_same() { diff "$OVL/etc.before" <(etc_state); }
check "/etc/kmaglev unchanged by the upgrade" etc-upgrade etc_same
restart() {
	daemon_stop || return 1
	inroot kmaglev --version | grep -F "kmaglev $V1 " || return 1
	daemon_start
}
check "the daemon restarted as the unit's restart does: the new kmaglevd ($V1) serves the VIP" \
	restart restart
# a few more seconds of the loop after the restart, then its verdict
sleep 3
touch "$OVL/loop.stop"
wait "$LOOP_PID"
LOOP_PID=
loop_ok() {
	local n bad
	n=$(grep -c ' b1$' "$OVL/loop.out")
	bad=$(grep -v ' b1$' "$OVL/loop.out" | head -n 5)
	echo "$n answered; failed: ${bad:-none}"
	[[ $n -gt 0 && -z $bad ]]
}
if loop_ok >"$LOGS/loop.log" 2>&1; then
	ktap_test_pass "client loop through the upgrade and the restart: $(cut -d';' -f1 "$LOGS/loop.log"), none failed"
else
	sed 's/^/# /' "$LOGS/loop.log"
	ktap_test_fail "client loop through the upgrade and the restart: no request failed"
fi
ktap_test_result "the loaded kmaglev.ko stays $V (forwarding) until it is reloaded" \
	bash -c "[[ \$(cat /sys/module/kmaglev/version) == $V ]]"

# --- remove, purge ----------------------------------------------------------------------------
ktap_print_msg "remove and purge"
# what prerm's `systemctl stop` and an operator's modprobe -r do
stop() { daemon_stop && inroot modprobe -r kmaglev && [[ ! -d /sys/module/kmaglev ]]; }
check "daemon stopped (lame duck, exit 0), modprobe -r kmaglev" stop stop
timed "dpkg -r kmaglev kmaglev-dkms" remove inroot dpkg -r kmaglev kmaglev-dkms
removed() { no_module && [[ ! -e $ROOT/usr/sbin/kmaglev && ! -e $ROOT/usr/sbin/kmaglevd ]]; }
check "removed: no kmaglev.ko in /lib/modules, nothing in DKMS, no programs" removed removed
check "removed: /etc/kmaglev kept as it was" etc-remove etc_same
timed "dpkg -P kmaglev kmaglev-dkms" purge inroot dpkg -P kmaglev kmaglev-dkms
purged() {
	local out
	[[ ! -e $ROOT/etc/kmaglev ]] || { ls -la "$ROOT/etc/kmaglev"; return 1; }
	no_module || return 1
	! inroot dpkg-query -W kmaglev kmaglev-dkms || return 1
	out=$(inroot dpkg -S kmaglev 2>&1) && { echo "$out"; return 1; }
	echo "$out"
	grep -q 'no path found matching pattern' <<<"$out"
}
check "purged: /etc/kmaglev gone, dpkg -S finds nothing of kmaglev" purged purged
ktap_finished
