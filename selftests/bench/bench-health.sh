#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-health`: the daemon's health-check engine at scale. N=10000 probes of each
# kind every second (tcp, http, udp, dns; https N_HTTPS, exec N_EXEC) against a fake farm
# (farm.c: one epoll loop answering on 10,000 loopback addresses; exec runs /bin/true), in a
# fresh network namespace when we may make one. Prints the daemon-side CPU as a share of one
# core, measured with getrusage over DURATION seconds, and per 1,000 checks a second.
# Target (issues 10, 26): tcp and http under 50% of one core at 10,000 checks a second. The
# farm shares the machine and, on loopback, the kernel's work of both ends of a connection
# lands partly on the daemon: these figures are an upper bound of a real LB's.
#   N=10000 N_HTTPS=1000 N_EXEC=500 DURATION=20 INTERVAL_MS=1000 KINDS="tcp http" \
#	selftests/bench/bench-health.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
N=${N:-10000}
DURATION=${DURATION:-20}
INTERVAL_MS=${INTERVAL_MS:-1000}
PORT=${PORT:-8080}
N_HTTPS=${N_HTTPS:-1000}
N_EXEC=${N_EXEC:-500}
KINDS=${KINDS:-tcp http http-fresh https https-fresh udp dns exec}
mkdir -p "$OUT"

if [ "${1:-}" != --in-netns ]; then
	make -s -C "$TOP/userland" -j2 lib
	PKGS="libmnl json-c libsodium libcyaml yaml-0.1 libcurl libmicrohttpd libsystemd"
	objs=$TOP/build/userland/libkmaglev.a
	# shellcheck disable=SC2046,SC2086
	gcc -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -I"$TOP/uapi" \
		-I"$TOP/userland" -I"$TOP/userland/lib" -I"$TOP/kmod" $(pkg-config --cflags $PKGS) \
		-o "$OUT/health_bench" "$TOP/selftests/bench/health_bench.c" $objs \
		$(pkg-config --libs $PKGS) -lev -lm
	gcc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$OUT/farm" "$TOP/selftests/bench/farm.c" \
		$(pkg-config --cflags --libs libssl libcrypto)
	# the https farm's certificate: ECDSA P-256, self-signed (the check does not verify)
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=kmaglev-farm -keyout "$OUT/farm.key" -out "$OUT/farm.crt" 2>/dev/null
	# a network namespace of our own: lo only, no one else's ports
	if unshare -n true 2>/dev/null; then
		exec unshare -n "$0" --in-netns
	fi
	echo "(no network namespace: running on this host's lo)"
fi
if [ "${1:-}" = --in-netns ]; then
	ip link set lo up
fi

ulimit -n "$(ulimit -Hn)"
rc=0
for kind in $KINDS; do
	n=$N farm=
	case $kind in
	https|https-fresh)
		n=$N_HTTPS
		"$OUT/farm" "$PORT" https "$OUT/farm.crt" "$OUT/farm.key" >/dev/null &
		farm=$! ;;
	exec) n=$N_EXEC ;;
	*) "$OUT/farm" "$PORT" "${kind%-fresh}" >/dev/null & farm=$! ;;
	esac
	sleep 0.3
	"$OUT/health_bench" "$kind" "$n" "$PORT" "$DURATION" "$INTERVAL_MS" || rc=1
	if [ -n "$farm" ]; then
		kill "$farm"
		wait "$farm" 2>/dev/null || true
	fi
done
echo "target: tcp and http under 50% of one core for $N backends checked every second"
exit $rc
