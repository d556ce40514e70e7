#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the systemd unit, systemd/kmaglev.service: "make install-unit" puts it under
# DESTDIR/SYSTEMDUNITDIR with ExecStart under PREFIX; it has what the daemon relies on
# (Type=notify, reload by SIGHUP, the watchdog, a stop timeout above the default drain-time,
# the capability bounding set); and "systemd-analyze verify" accepts it (skipped when
# systemd-analyze is not installed). TAP output.
#
#   bash tests/unit.sh            (from userland/; "make check" runs it)
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${KMAGLEV_BIN:-../build/kmaglev}

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[[ $# -gt 1 ]] && echo "# $2"
	failed=1
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "1..4"

UNIT=$TMP/dest/opt/kmg/lib/systemd/system/kmaglev.service
if make -s install-unit DESTDIR="$TMP/dest" PREFIX=/opt/kmg >"$TMP/out" 2>&1 &&
	[[ -f $UNIT ]] && grep -qx 'ExecStart=/opt/kmg/sbin/kmaglev daemon' "$UNIT" &&
	[[ $(stat -c %a "$UNIT") == 644 ]]; then
	ok "install-unit: under DESTDIR and SYSTEMDUNITDIR, ExecStart under PREFIX"
else
	notok "install-unit: under DESTDIR and SYSTEMDUNITDIR, ExecStart under PREFIX" \
		"$(cat "$TMP/out")"
fi

missing=""
for want in 'Type=notify' 'ExecReload=/bin/kill -HUP $MAINPID' 'WatchdogSec=30s' \
	'KillSignal=SIGTERM' 'Restart=on-failure' 'RuntimeDirectory=kmaglev' \
	'ConfigurationDirectory=kmaglev' 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE' 'RestartForceExitStatus=75' \
	'NoNewPrivileges=yes' 'ProtectSystem=strict' \
	'RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET AF_INET6'; do
	grep -qxF -- "$want" systemd/kmaglev.service || missing+=" [$want]"
done
if [[ -z $missing ]]; then
	ok "the unit has what the daemon relies on"
else
	notok "the unit has what the daemon relies on" "missing:$missing"
fi

# the daemon drains for 10s by default: stopping must wait longer
stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s$/\1/p' systemd/kmaglev.service)
if [[ -n $stop ]] && ((stop > 10)); then
	ok "TimeoutStopSec ($stop s) is above the default drain-time"
else
	notok "TimeoutStopSec is above the default drain-time" "TimeoutStopSec: \"$stop\""
fi

if ! command -v systemd-analyze >/dev/null; then
	echo "ok 4 - systemd-analyze verify # SKIP no systemd-analyze"
elif [[ ! -x $BIN ]]; then
	echo "ok 4 - systemd-analyze verify # SKIP no $BIN (make kmaglev)"
else
	# ExecStart must name an executable: this build's
	sed "s|^ExecStart=/usr/local/sbin/kmaglev|ExecStart=$(realpath "$BIN")|" systemd/kmaglev.service \
		>"$TMP/kmaglev.service"
	# it warns about unknown keys and bad values, but exits 0: no output is the pass
	if systemd-analyze verify --man=no "$TMP/kmaglev.service" >"$TMP/out" 2>&1 &&
		[[ ! -s $TMP/out ]]; then
		ok "systemd-analyze verify"
	else
		notok "systemd-analyze verify" "$(tr '\n' ' ' <"$TMP/out")"
	fi
fi
exit $failed
