#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# BGP peers for kselftests: real BGP daemons (BIRD 2, FRR, GoBGP) run in network namespaces as
# the neighbors of kmaglev's speaker, with readers that print what they received in one
# normalized form. Sourced after lib.sh (by bgp.sh, bgp_ecmp.sh; bgp_lib_selftest.sh checks it
# by pairing the daemons with each other). Every runtime file lives under $BGP_TMP (mktemp -d):
# the VM's root filesystem is the host's, read-only. The EXIT trap stops the peers, then runs
# the trap that was set before: source this after lib.sh (and dp_lib.sh). BGP_KEEP=1 keeps
# $BGP_TMP (configurations, logs) for a look afterwards.
#
# Functions (NS is a namespace, NAME a peer name unique in NS, KIND bird|frr|gobgp):
#   bgp_peer_start KIND NS NAME KEY=VALUE...   start a peer; returns once its control socket
#                                              answers (not once a session is up). Keys:
#       as=ASN              local AS (required)
#       id=A.B.C.D          router id (required)
#       neighbor=ADDR[@v4|@v6][,...]   the neighbors (our speaker(s)); each carries the
#                           families of afi=, or only the one after "@"
#       peer_as=ASN         the neighbors' AS (required; equal to as= makes it iBGP)
#       local=ADDR[,ADDR]   local addresses: the session source of the neighbors of the same
#                           family, and (gobgp) the listen addresses
#       afi=v4,v6           address families carried on every session (default v4,v6);
#                           v4 on an IPv6 neighbor with IPv6 next hops (RFC 8950: BIRD
#                           "extended next hop on", FRR "capability extended-nexthop")
#       hold=SECS           hold time (default 9; keepalive hold/3)
#       md5=PASSWORD        TCP-MD5 on every session
#       passive=0|1         only accept connections (default 0: also connect)
#       ttl_security=AFIS   GTSM (RFC 5082) on the sessions of these families (v4, v6 or
#                           v4,v6; default none): TTL 255, and nothing taken from farther
#                           (BIRD and FRR)
#       bfd=MS[xMULT]       bird only: BFD (RFC 5880) on every session ("bfd on", and a
#                           "protocol bfd" with min rx/tx interval MS ms and multiplier
#                           MULT, default 3): a BFD Down takes the session down
#       multipath=0|1       ECMP over the neighbors (bird: kernel "merge paths"; frr:
#                           maximum-paths 8 / ibgp 8 and as-path multipath-relax)
#       gr=0|1              graceful restart (the helper side: a restarting neighbor's routes
#                           are kept as stale)
#       gr_time=SECS        the restart time we advertise (default 30)
#       kernel=0|1          install received routes in NS's main table (not gobgp)
#       port=N              the BGP port, listened on and connected to (default 179)
#       announce=0|1        gobgp: export its global RIB (what bgp_peer_announce adds) to the
#                           neighbors; default 0: a peer exports nothing (BIRD: export none,
#                           FRR: a deny-all route-map out, gobgp: default export reject-route)
#   bgp_peer_stop NS NAME [SIG]     stop one peer (SIGTERM; SIGKILL to stop without a
#                                   NOTIFICATION, e.g. a crash for graceful restart)
#   bgp_peers_stop                  stop every peer (in the EXIT trap too)
#   bgp_peer_cmd NS NAME ARGS...    the peer's own CLI (birdc / vtysh -c ARGS / gobgp ARGS)
#   bgp_peer_routes NS NAME [v4|v6] the received routes, one line per path (sorted):
#       PREFIX NEXTHOP as_path=A,B local_pref=N med=N communities=A:B,... large=A:B:C,...
#       origin=igp|egp|incomplete stale=0|1
#     "-" for an attribute the route does not carry; local_pref is "-" on eBGP sessions (BIRD
#     and FRR would show their own default there). NEXTHOP is the BGP NEXT_HOP (for IPv6 the
#     global one).
#   bgp_peer_state NS NAME [NEIGHBOR]   the session's state word: Idle Connect Active OpenSent
#                                   OpenConfirm Established (or Down: BIRD protocol disabled);
#                                   NEIGHBOR defaults to the first neighbor
#   bgp_peer_last_error NS NAME [NEIGHBOR]  the last NOTIFICATION received from the neighbor:
#                                   "received CODE/SUBCODE TEXT[: MESSAGE]" with the RFC 9003
#                                   shutdown message where the daemon shows it; empty if none
#   bgp_peer_gr_stale NS NAME [v4|v6]   the prefixes held as stale (graceful restart)
#   bgp_peer_announce NS NAME PREFIX [ATTR...]  gobgp only: originate PREFIX (gobgp global rib
#                                   add, ATTR e.g. nexthop X med 10 community 65000:1
#                                   large-community 65000:1:2 origin igp aspath 65010)
#   bgp_peer_withdraw NS NAME PREFIX     gobgp only: withdraw it
#   bgp_peer_shutdown NS NAME [MSG]      administrative shutdown of every session of the peer,
#                                   with an RFC 9003 message
#   bgp_wait SECS CMD...            poll CMD every 0.1 s until it succeeds (1 after SECS)
#   bgp_wait_state SECS NS NAME STATE [NEIGHBOR]   poll until bgp_peer_state prints STATE
#   bgp_wait_routes SECS NS NAME AFI N   poll until bgp_peer_routes prints N lines
#
# Facts found by experiment (bird 2.0.12, frr 8.4.4, gobgpd 3.10.0, Debian, as root; each is
# exercised by bgp_lib_selftest.sh unless marked "(seen by hand)"):
# FRR
#   - zebra and bgpd run with private paths only, inside `ip netns exec NS`:
#       zebra -d -u root -g frrvty -P 0 -i DIR/zebra.pid -z DIR/zserv.api --vty_socket DIR
#             -f DIR/zebra.conf --log file:DIR/zebra.log
#       bgpd  -d -u root -g frrvty -P 0 -i DIR/bgpd.pid -z DIR/zserv.api --vty_socket DIR
#             -f DIR/bgpd.conf --log file:DIR/bgpd.log [-n] -p PORT
#       vtysh --vty_socket DIR -c CMD [-c CMD...]      (inside the namespace)
#     "-u root -g root" fails at once: "privs_init: user(root) is not part of vty group
#     specified(frrvty)" (the vty group is compiled in; the -g group counts as one of the
#     user's groups, so -g frrvty passes). bgpd also takes -S (skip runas), zebra has no -S
#     (seen by hand). -P 0 turns off the TCP vty (2601, 2605). Nothing goes to /var/run/frr;
#     each daemon keeps an open crash-log file /var/tmp/frr/<daemon>.<pid> (in the VM /var is
#     a tmpfs). Harmless warning: "vty_serv_un: could chown socket, Operation not permitted".
#     bgpd connects to zebra's zserv.api by itself once it exists.
#   - bgpd -n (no_kernel): bgpd does not hand its routes to zebra (kernel=0; seen by hand);
#     zebra still runs, for next-hop tracking. eBGP needs "no bgp ebgp-requires-policy" to
#     accept routes. Without an outbound filter FRR re-advertises what it learnt to its other
#     eBGP neighbors (gobgp counted them as received): a deny-all route-map out is applied.
#   - FRR 8.4 has no "show bgp ipv4 unicast detail json" ("% Unknown command"); the
#     attributes come from "show bgp ipv4 unicast PREFIX json" ("paths": aspath.segments,
#     metric, locPrf (iBGP only), community.list, largeCommunity.list, origin "IGP" /
#     "incomplete", nexthops[].ip with scope, stale, peer.peerId), one vtysh call with a -c
#     per prefix; "show bgp ipv4 unicast json" lists the prefixes.
#   - ECMP: per address family "maximum-paths 8" (eBGP) / "maximum-paths ibgp 8", plus
#     "bgp bestpath as-path multipath-relax" for paths from different neighbor ASes. zebra
#     installs one route through a nexthop object (`ip nexthop show`):
#       $ ip route show 192.0.2.1
#       192.0.2.1 nhid 42 proto bgp metric 20
#               nexthop via 10.99.1.1 dev s1 weight 1
#               nexthop via 10.99.2.1 dev s2 weight 1
#   - NOTIFICATIONs: `show bgp neighbors ADDR json` -> ADDR.lastNotificationReason
#     ("Cease/Administrative Shutdown"), lastErrorCodeSubcode ("0602", hex), and the RFC 9003
#     message in lastShutdownDescription. Sent by FRR with "neighbor X shutdown message MSG".
#   - graceful restart: "bgp graceful-restart" and "bgp graceful-restart restart-time N"
#     (router bgp). A killed neighbor's paths stay, "stale":true in the PREFIX json, and stay
#     in the kernel. FRR's default without the knob is helper mode ("localGrMode":"Helper*").
# BIRD
#   - bird -c CONF -s SOCK -P PIDFILE (daemonizes), birdc -s SOCK CMD. Directly connected
#     neighbors: "direct;" and "gateway direct" in the channels (iBGP is multihop by default:
#     "Multihop BGP cannot use direct gateway mode" otherwise). Fast retries: "connect delay
#     time 1; connect retry time 1; error wait time 1, 4;".
#   - ECMP: "merge paths yes [limit N]" in the kernel protocol (export all); equal BGP paths
#     from different neighbors then go into the kernel as one route:
#       $ ip route show 192.0.2.1
#       192.0.2.1 proto bird metric 32
#               nexthop via 10.99.1.1 dev s1 weight 1
#               nexthop via 10.99.2.1 dev s2 weight 1
#   - NOTIFICATIONs: the log ("log FILE all") has `<RMT> n1: Received: Administrative
#     shutdown: "MSG"` (text only, no numeric code; the reader adds the code for the Cease
#     subcodes and 4/0). "Last error:" in `show protocols all n1` shows it at first but is
#     overwritten by the next socket error ("Socket: Connection reset by peer"), so the
#     reader takes the log. Sent by BIRD with `birdc disable n1 "MSG"`.
#   - BIRD shows BGP.local_pref 100 on eBGP routes (its own default): the reader hides it.
#   - graceful restart: "graceful restart on; graceful restart time N;". During a neighbor's
#     restart `show protocols all n1` prints "Neighbor graceful restart active" and "Restart
#     timer:"; `show route all` does not mark stale routes ("show route stale" is a syntax
#     error), so the reader calls a route stale when its protocol is in that state.
# GoBGP
#   - gobgpd -f conf.toml -t toml --api-hosts 127.0.0.1:PORT --pprof-disable (pprof would
#     take localhost:6060); it logs JSON on stderr; gobgp -u 127.0.0.1 -p PORT. No kernel
#     install (that would need zebra). [global.apply-policy.config] default-export-policy =
#     "reject-route" keeps a receiving peer quiet; idle-hold-time-after-reset (default 30 s)
#     is set to 1.
#   - gobgpd's own connection attempts start 5 to 10 s after it starts, whatever
#     connect-retry says: gobgp<->gobgp sessions take that long (BIRD and FRR connect to it
#     within 1-3 s).
#   - NOTIFICATIONs: not in `gobgp -j neighbor` (counters only; state.session_state is a
#     number, 6 = established). gobgpd's log has {"msg":"received notification","Code":6,
#     "Subcode":2,"Communicated-Reason":"MSG",...}, then {"msg":"Peer Down","Reason":
#     "notification-received code 6(cease) subcode 2(administrative shutdown)"}. Sent by
#     gobgp with `gobgp neighbor ADDR shutdown --reason MSG` (-m does not exist), after which
#     the session comes back (idle-hold-time-after-reset); `gobgp neighbor ADDR disable`
#     keeps it down but sends no message even with --reason: bgp_peer_shutdown does the
#     first, waits for the session to drop, then the second. gobgpd sends Cease 6/3 (peer
#     deconfigured) to every neighbor on SIGTERM.
#   - graceful restart: [neighbors.graceful-restart.config] enabled, restart-time, and
#     [neighbors.afi-safis.mp-graceful-restart.config] enabled per family; a killed
#     neighbor's paths have "stale":true in `gobgp -j global rib`.
#   - gobgp announces an IPv6 route over an IPv4 session too (next hop ::ffff:10.99.1.1) and
#     FRR may pick that path as best, which cannot go into the kernel: the selftest gives each
#     session one family (neighbor=ADDR@v4,ADDR6@v6).

BGP_TMP=$(mktemp -d /tmp/kmaglev-bgp.XXXXXX)
BGP_PY=/usr/bin/python3
[[ -x $BGP_PY ]] || BGP_PY=$(command -v python3)
BGP_FRR=/usr/lib/frr

# Short sleeps without a process: read with a timeout from a FIFO nobody writes.
mkfifo "$BGP_TMP/sleep"
exec {BGP_SLEEPFD}<>"$BGP_TMP/sleep"
bgp_sleep() { read -r -t "$1" -u "$BGP_SLEEPFD" _ || true; }

declare -A __bgp_kind=() __bgp_dir=() __bgp_nbr=() __bgp_ibgp=()
__bgp_api_port=50051
__bgp_seq=0

# bgp_wait SECS CMD...: run CMD every 0.1 s until it succeeds; 1 if SECS pass first.
bgp_wait() {
	local secs=$1 end; shift
	end=$((SECONDS + secs))
	while ! "$@" >/dev/null 2>&1; do
		[[ $SECONDS -ge $end ]] && return 1
		bgp_sleep 0.1
	done
}

__bgp_is6() { [[ $1 == *:* ]]; }

# The KEY=VALUE settings of bgp_peer_start, into the caller's local variables.
__bgp_settings() {
	local kv
	as='' id='' neighbor='' peer_as='' laddr='' afi=v4,v6 hold=9 md5='' passive=0 multipath=0
	gr=0 gr_time=30 kernel=0 port=179 announce=0 ttl_security='' bfd=''
	for kv in "$@"; do
		case ${kv%%=*} in
		local) laddr=${kv#*=} ;;
		as|id|neighbor|peer_as|afi|hold|md5|passive|multipath|gr|gr_time|kernel|port|announce|ttl_security|bfd)
			printf -v "${kv%%=*}" '%s' "${kv#*=}" ;;
		*) echo "bgp_peer_start: unknown setting $kv" >&2; return 1 ;;
		esac
	done
	if [[ -z $as || -z $id || -z $neighbor || -z $peer_as ]]; then
		echo "bgp_peer_start: as=, id=, neighbor= and peer_as= are required" >&2
		return 1
	fi
}

# The local address of LIST (comma-separated) of the family of ADDR, if any.
__bgp_local_for() {
	local a
	for a in ${2//,/ }; do
		if __bgp_is6 "$1" && __bgp_is6 "$a" || ! __bgp_is6 "$1" && ! __bgp_is6 "$a"; then
			echo "$a"
			return
		fi
	done
}

# Whether the session to ADDR has GTSM (its family in ttl_security=).
__bgp_gtsm() {
	local f
	__bgp_is6 "$1" && f=v6 || f=v4
	[[ ,$ttl_security, == *,$f,* ]]
}

# The address of a neighbor= entry, and its families.
__bgp_addr() { echo "${1%@*}"; }
__bgp_afis() { if [[ $1 == *@* ]]; then echo "${1##*@}"; else echo "${afi//,/ }"; fi; }

# bgp_peer_start KIND NS NAME KEY=VALUE...: see the top of the file.
bgp_peer_start() {
	local kind=$1 ns=$2 name=$3 dir
	local as id neighbor peer_as laddr afi hold md5 passive multipath gr gr_time kernel port
	local announce ttl_security bfd
	shift 3
	__bgp_settings "$@" || return 1
	if [[ -n $bfd && $kind != bird ]]; then
		echo "bgp_peer_start: bfd= is for bird only" >&2
		return 1
	fi
	if [[ $kind == gobgp && $kernel == 1 ]]; then
		echo "bgp_peer_start: gobgp cannot install routes in the kernel (kernel=1)" >&2
		return 1
	fi
	if [[ -n ${__bgp_kind[$ns/$name]:-} ]]; then
		echo "bgp_peer_start: $name already runs in $ns" >&2
		return 1
	fi
	__bgp_seq=$((__bgp_seq + 1))
	dir=$BGP_TMP/$ns.$name.$__bgp_seq
	mkdir -p "$dir" || return 1
	__bgp_kind[$ns/$name]=$kind
	__bgp_dir[$ns/$name]=$dir
	__bgp_nbr[$ns/$name]=$(sed -E 's/@v[46]//g; s/,/ /g' <<<"$neighbor")
	__bgp_ibgp[$ns/$name]=$([[ $as == "$peer_as" ]] && echo 1 || echo 0)
	case $kind in
	bird) __bgp_start_bird "$ns" "$dir" ;;
	frr) __bgp_start_frr "$ns" "$dir" ;;
	gobgp) __bgp_start_gobgp "$ns" "$dir" ;;
	*) echo "bgp_peer_start: unknown kind $kind" >&2; false ;;
	esac || { echo "bgp_peer_start: $kind $name in $ns did not start (logs in $dir)" >&2; return 1; }
}

# --- BIRD -------------------------------------------------------------------------------------
__bgp_start_bird() {
	local ns=$1 dir=$2 n e i=0 f l
	{
		echo "log \"$dir/bird.log\" all;"
		echo "router id $id;"
		echo "protocol device { scan time 10; }"
		if [[ -n $bfd ]]; then
			echo "protocol bfd {"
			echo "	interface \"*\" { min rx interval ${bfd%x*} ms; min tx interval ${bfd%x*} ms; multiplier $([[ $bfd == *x* ]] && echo "${bfd#*x}" || echo 3); };"
			echo "}"
		fi
		for f in ${afi//,/ }; do
			if [[ $kernel == 1 ]]; then
				echo "protocol kernel kernel_$f {"
				echo "	ip$f { import none; export all; };"
				[[ $multipath == 1 ]] && echo "	merge paths yes limit 16;"
				echo "}"
			fi
		done
		for e in ${neighbor//,/ }; do
			i=$((i + 1))
			n=$(__bgp_addr "$e")
			echo "protocol bgp n$i {"
			l=$(__bgp_local_for "$n" "$laddr")
			echo "	local ${l:+$l }port $port as $as;"
			echo "	neighbor $n port $port as $peer_as; direct;"
			echo "	hold time $hold; keepalive time $((hold / 3 > 0 ? hold / 3 : 1));"
			echo "	connect delay time 1; connect retry time 1; error wait time 1, 4;"
			[[ -n $md5 ]] && echo "	password \"$md5\";"
			[[ $passive == 1 ]] && echo "	passive on;"
			__bgp_gtsm "$n" && echo "	ttl security on;"
			[[ -n $bfd ]] && echo "	bfd on;"
			if [[ $gr == 1 ]]; then
				echo "	graceful restart on; graceful restart time $gr_time;"
			else
				echo "	graceful restart off;"
			fi
			for f in $(__bgp_afis "$e"); do
				# IPv4 on an IPv6 session: IPv6 next hops (RFC 8950)
				if [[ $f == v4 ]] && __bgp_is6 "$n"; then
					echo "	ipv4 { import all; export none; extended next hop on; };"
				else
					echo "	ip$f { import all; export none; gateway direct; };"
				fi
			done
			echo "}"
		done
	} >"$dir/bird.conf"
	ip netns exec "$ns" bird -c "$dir/bird.conf" -s "$dir/bird.ctl" -P "$dir/bird.pid" \
		>"$dir/bird.out" 2>&1 || { cat "$dir/bird.out" >&2; return 1; }
	bgp_wait 10 ip netns exec "$ns" birdc -s "$dir/bird.ctl" show status
}

# --- FRR --------------------------------------------------------------------------------------
__bgp_frr_group() { getent group frrvty >/dev/null && echo frrvty || echo root; }

__bgp_start_frr() {
	local ns=$1 dir=$2 n e f l grp nofib=
	grp=$(__bgp_frr_group)
	[[ $kernel == 1 ]] || nofib=-n
	{
		echo "frr defaults traditional"
		echo "hostname $ns-$(basename "$dir")"
		echo "log file $dir/frr.log informational"
		echo "!"
	} >"$dir/zebra.conf"
	{
		cat "$dir/zebra.conf"
		echo "router bgp $as"
		echo " bgp router-id $id"
		echo " no bgp ebgp-requires-policy"
		echo " no bgp default ipv4-unicast"
		echo " no bgp network import-check"
		echo " bgp log-neighbor-changes"
		[[ $multipath == 1 ]] && echo " bgp bestpath as-path multipath-relax"
		if [[ $gr == 1 ]]; then
			echo " bgp graceful-restart"
			echo " bgp graceful-restart restart-time $gr_time"
		fi
		for e in ${neighbor//,/ }; do
			n=$(__bgp_addr "$e")
			echo " neighbor $n remote-as $peer_as"
			[[ $port != 179 ]] && echo " neighbor $n port $port"
			echo " neighbor $n timers $((hold / 3 > 0 ? hold / 3 : 1)) $hold"
			echo " neighbor $n timers connect 1"
			echo " neighbor $n advertisement-interval 0"
			l=$(__bgp_local_for "$n" "$laddr")
			[[ -n $l ]] && echo " neighbor $n update-source $l"
			[[ -n $md5 ]] && echo " neighbor $n password $md5"
			[[ $passive == 1 ]] && echo " neighbor $n passive"
			__bgp_gtsm "$n" && echo " neighbor $n ttl-security hops 1"
			# IPv4 on an IPv6 session: IPv6 next hops (RFC 8950)
			__bgp_is6 "$n" && [[ " $(__bgp_afis "$e") " == *" v4 "* ]] &&
				echo " neighbor $n capability extended-nexthop"
		done
		for f in ${afi//,/ }; do
			echo " address-family ipv${f#v} unicast"
			for e in ${neighbor//,/ }; do
				[[ " $(__bgp_afis "$e") " == *" $f "* ]] || continue
				n=$(__bgp_addr "$e")
				echo "  neighbor $n activate"
				echo "  neighbor $n route-map BGP_LIB_NONE out"
			done
			if [[ $multipath == 1 ]]; then
				echo "  maximum-paths 8"
				echo "  maximum-paths ibgp 8"
			else
				echo "  maximum-paths 1"
				echo "  maximum-paths ibgp 1"
			fi
			echo " exit-address-family"
		done
		echo "!"
		echo "route-map BGP_LIB_NONE deny 10"
		echo "!"
	} >"$dir/bgpd.conf"
	ip netns exec "$ns" "$BGP_FRR/zebra" -d -u root -g "$grp" -P 0 -i "$dir/zebra.pid" \
		-z "$dir/zserv.api" --vty_socket "$dir" -f "$dir/zebra.conf" \
		--log "file:$dir/zebra.log" >"$dir/zebra.out" 2>&1 || { cat "$dir/zebra.out" >&2; return 1; }
	bgp_wait 10 test -S "$dir/zserv.api" || return 1
	ip netns exec "$ns" "$BGP_FRR/bgpd" -d -u root -g "$grp" -P 0 -i "$dir/bgpd.pid" \
		-z "$dir/zserv.api" --vty_socket "$dir" -f "$dir/bgpd.conf" \
		--log "file:$dir/bgpd.log" ${nofib:+"$nofib"} -p "$port" \
		>"$dir/bgpd.out" 2>&1 || { cat "$dir/bgpd.out" >&2; return 1; }
	bgp_wait 10 ip netns exec "$ns" vtysh --vty_socket "$dir" -d bgpd -c 'show bgp summary'
}

# --- GoBGP ------------------------------------------------------------------------------------
__bgp_start_gobgp() {
	local ns=$1 dir=$2 n e f l api
	api=$__bgp_api_port
	__bgp_api_port=$((__bgp_api_port + 1))
	echo "$api" >"$dir/api.port"
	{
		echo "[global.config]"
		echo "  as = $as"
		echo "  router-id = \"$id\""
		echo "  port = $port"
		if [[ -n $laddr ]]; then
			l=
			for n in ${laddr//,/ }; do l+="\"$n\", "; done
			echo "  local-address-list = [${l%, }]"
		fi
		if [[ $announce != 1 ]]; then
			echo "[global.apply-policy.config]"
			echo "  default-export-policy = \"reject-route\""
		fi
		for e in ${neighbor//,/ }; do
			n=$(__bgp_addr "$e")
			echo "[[neighbors]]"
			echo "  [neighbors.config]"
			echo "    neighbor-address = \"$n\""
			echo "    peer-as = $peer_as"
			[[ -n $md5 ]] && echo "    auth-password = \"$md5\""
			echo "  [neighbors.timers.config]"
			echo "    hold-time = $hold"
			echo "    keepalive-interval = $((hold / 3 > 0 ? hold / 3 : 1))"
			echo "    connect-retry = 1"
			echo "    idle-hold-time-after-reset = 1"
			echo "  [neighbors.transport.config]"
			[[ $passive == 1 ]] && echo "    passive-mode = true"
			l=$(__bgp_local_for "$n" "$laddr")
			[[ -n $l ]] && echo "    local-address = \"$l\""
			[[ $port != 179 ]] && echo "    remote-port = $port"
			if [[ $gr == 1 ]]; then
				echo "  [neighbors.graceful-restart.config]"
				echo "    enabled = true"
				echo "    restart-time = $gr_time"
			fi
			for f in $(__bgp_afis "$e"); do
				echo "  [[neighbors.afi-safis]]"
				echo "    [neighbors.afi-safis.config]"
				echo "      afi-safi-name = \"ipv${f#v}-unicast\""
				if [[ $gr == 1 ]]; then
					echo "    [neighbors.afi-safis.mp-graceful-restart.config]"
					echo "      enabled = true"
				fi
			done
		done
	} >"$dir/gobgpd.toml"
	ip netns exec "$ns" gobgpd -f "$dir/gobgpd.toml" -t toml --api-hosts "127.0.0.1:$api" \
		--pprof-disable >"$dir/gobgpd.log" 2>&1 &
	echo $! >"$dir/gobgpd.pid"
	disown $!		# (no "Killed" message from bash when it is stopped)
	bgp_wait 10 ip netns exec "$ns" gobgp -u 127.0.0.1 -p "$api" global
}

# --- control ----------------------------------------------------------------------------------
__bgp_pids() {
	local dir=${__bgp_dir[$1]} f
	for f in "$dir"/*.pid; do [[ -s $f ]] && cat "$f"; done
}

# shellcheck disable=SC2086 # (pid lists)
# bgp_peer_stop NS NAME [SIG]: stop the peer's daemons (SIGTERM, or SIG) and wait for them.
bgp_peer_stop() {
	local key=$1/$2 sig=${3:-TERM} pids p
	[[ -n ${__bgp_kind[$key]:-} ]] || return 0
	pids=$(__bgp_pids "$key")
	# (FRR: bgpd.pid, then zebra.pid: bgpd goes first, with its NOTIFICATIONs)
	for p in $pids; do kill -s "$sig" "$p" 2>/dev/null; done
	bgp_wait 10 __bgp_gone $pids || for p in $pids; do kill -s KILL "$p" 2>/dev/null; done
	unset "__bgp_kind[$key]" "__bgp_nbr[$key]" "__bgp_ibgp[$key]"
	rm -f "${__bgp_dir[$key]}"/*.pid
}

__bgp_gone() {
	local p
	for p in "$@"; do ! kill -0 "$p" 2>/dev/null || return 1; done
}

# bgp_peers_stop: stop every peer.
bgp_peers_stop() {
	local key
	for key in "${!__bgp_kind[@]}"; do bgp_peer_stop "${key%%/*}" "${key#*/}"; done
}

# The EXIT trap: the peers, then whatever the trap did before (lib.sh's, dp_lib.sh's).
__bgp_prev_trap=$(trap -p EXIT)
__bgp_prev_trap=${__bgp_prev_trap#trap -- \'}
__bgp_prev_trap=${__bgp_prev_trap%\' EXIT}
bgp_cleanup() {
	bgp_peers_stop
	[[ -n $__bgp_prev_trap ]] && eval "$__bgp_prev_trap"
	[[ -n $BGP_TMP && -d $BGP_TMP && -z ${BGP_KEEP:-} ]] && rm -rf "$BGP_TMP"
}
trap bgp_cleanup EXIT

# bgp_peer_cmd NS NAME ARGS...: the daemon's CLI in NS (birdc ARGS, vtysh -c "ARGS", gobgp ARGS).
bgp_peer_cmd() {
	local ns=$1 key=$1/$2 dir; shift 2
	dir=${__bgp_dir[$key]:-}
	case ${__bgp_kind[$key]:-} in
	bird) ip netns exec "$ns" birdc -s "$dir/bird.ctl" "$@" ;;
	frr) ip netns exec "$ns" vtysh --vty_socket "$dir" -c "$*" ;;
	gobgp) ip netns exec "$ns" gobgp -u 127.0.0.1 -p "$(cat "$dir/api.port")" "$@" ;;
	*) echo "no BGP peer $2 in $ns" >&2; return 1 ;;
	esac
}

__bgp_first_nbr() { local n; read -r n _ <<<"${__bgp_nbr[$1]}"; echo "$n"; }

# The BIRD protocol name of NEIGHBOR.
__bgp_bird_proto() {
	local i=0 n
	for n in ${__bgp_nbr[$1]}; do
		i=$((i + 1))
		[[ $n == "$2" ]] && { echo "n$i"; return; }
	done
	echo "no neighbor $2" >&2
	return 1
}

__bgp_py() { "$BGP_PY" "$BGP_TMP/readers.py" "$@"; }

# bgp_peer_routes NS NAME [v4|v6]: the received routes (both families without AFI).
bgp_peer_routes() {
	local ns=$1 name=$2 key=$1/$2 f
	for f in ${3:-v4 v6}; do
		case ${__bgp_kind[$key]:-} in
		bird) {
			bgp_peer_cmd "$ns" "$name" show protocols all
			echo "@@routes@@"
			bgp_peer_cmd "$ns" "$name" show route all table "master${f#v}"
		} | __bgp_py bird-routes "${__bgp_ibgp[$key]}" ;;
		frr) __bgp_frr_routes "$ns" "$key" "ipv${f#v}" ;;
		gobgp) bgp_peer_cmd "$ns" "$name" -j global rib -a "ipv${f#v}" |
			__bgp_py gobgp-routes "${__bgp_ibgp[$key]}" ;;
		*) echo "no BGP peer $name in $ns" >&2; return 1 ;;
		esac
	done | sort
}

# One command to bgpd, for the readers that poll. vtysh builds its whole command tree at each
# start: 0.2 s on the host, but about 4 s under TCG. bgpd's own vty socket takes the command
# line ending in a NUL and answers with the output, then NUL NUL NUL and the status, then
# closes once we have: socat does that in a few ms. vtysh -d bgpd if socat is missing.
__bgp_vtysh_bgpd() {
	if command -v socat >/dev/null; then
		printf '%s\0' "$3" | ip netns exec "$1" socat -t 10 - "UNIX-CONNECT:${__bgp_dir[$2]}/bgpd.vty" |
			tr -d '\0'
	else
		ip netns exec "$1" vtysh --vty_socket "${__bgp_dir[$2]}" -d bgpd -c "$3"
	fi
}

# FRR 8.4 has no "show bgp ... detail json": the prefixes, then one query for all of them.
__bgp_frr_routes() {
	local ns=$1 key=$2 af=$3 p i args=()
	for p in $(__bgp_vtysh_bgpd "$ns" "$key" "show bgp $af unicast json" | __bgp_py frr-prefixes); do
		args+=(-c "show bgp $af unicast $p json")
	done
	[[ ${#args[@]} -gt 0 ]] || return 0
	for ((i = 1; i < ${#args[@]}; i += 2)); do
		__bgp_vtysh_bgpd "$ns" "$key" "${args[i]}"
	done | __bgp_py frr-routes "${__bgp_ibgp[$key]}"
}

# bgp_peer_gr_stale NS NAME [v4|v6]: the prefixes held as stale.
bgp_peer_gr_stale() {
	bgp_peer_routes "$@" | awk '/ stale=1$/ { print $1 }'
}

# bgp_peer_state NS NAME [NEIGHBOR]: the session's state word.
bgp_peer_state() {
	local ns=$1 name=$2 key=$1/$2 nbr=${3:-}
	[[ -n $nbr ]] || nbr=$(__bgp_first_nbr "$key")
	case ${__bgp_kind[$key]:-} in
	bird) local proto
		proto=$(__bgp_bird_proto "$key" "$nbr") || return 1
		bgp_peer_cmd "$ns" "$name" show protocols all "$proto" | __bgp_py bird-state ;;
	frr) __bgp_vtysh_bgpd "$ns" "$key" "show bgp neighbors $nbr json" | __bgp_py frr-state "$nbr" ;;
	gobgp) bgp_peer_cmd "$ns" "$name" -j neighbor "$nbr" | __bgp_py gobgp-state ;;
	*) echo "no BGP peer $name in $ns" >&2; return 1 ;;
	esac
}

# bgp_peer_last_error NS NAME [NEIGHBOR]: the last NOTIFICATION received from NEIGHBOR.
bgp_peer_last_error() {
	local ns=$1 name=$2 key=$1/$2 nbr=${3:-}
	[[ -n $nbr ]] || nbr=$(__bgp_first_nbr "$key")
	case ${__bgp_kind[$key]:-} in
	bird) local proto
		proto=$(__bgp_bird_proto "$key" "$nbr") || return 1
		__bgp_py bird-error "$proto" <"${__bgp_dir[$key]}/bird.log" ;;
	frr) __bgp_vtysh_bgpd "$ns" "$key" "show bgp neighbors $nbr json" | __bgp_py frr-error "$nbr" ;;
	gobgp) __bgp_py gobgp-error "$nbr" <"${__bgp_dir[$key]}/gobgpd.log" ;;
	*) echo "no BGP peer $name in $ns" >&2; return 1 ;;
	esac
}

# bgp_wait_state SECS NS NAME STATE [NEIGHBOR]
bgp_wait_state() {
	local secs=$1; shift
	bgp_wait "$secs" __bgp_state_is "$@"
}
__bgp_state_is() { [[ $(bgp_peer_state "$1" "$2" "${4:-}") == "$3" ]]; }
__bgp_state_not() { [[ $(bgp_peer_state "$1" "$2" "${4:-}") != "$3" ]]; }

# bgp_wait_routes SECS NS NAME AFI N
bgp_wait_routes() {
	local secs=$1; shift
	bgp_wait "$secs" __bgp_routes_are "$@"
}
__bgp_routes_are() { [[ $(bgp_peer_routes "$1" "$2" "$3" | grep -c .) -eq $4 ]]; }

# bgp_peer_announce NS NAME PREFIX [ATTR...] (gobgp): originate PREFIX.
bgp_peer_announce() {
	local ns=$1 name=$2 p=$3; shift 3
	[[ ${__bgp_kind[$ns/$name]:-} == gobgp ]] || { echo "bgp_peer_announce: gobgp only" >&2; return 1; }
	bgp_peer_cmd "$ns" "$name" global rib add "$p" "$@" -a "$(__bgp_is6 "$p" && echo ipv6 || echo ipv4)"
}

# bgp_peer_withdraw NS NAME PREFIX (gobgp)
bgp_peer_withdraw() {
	local ns=$1 name=$2 p=$3
	[[ ${__bgp_kind[$ns/$name]:-} == gobgp ]] || { echo "bgp_peer_withdraw: gobgp only" >&2; return 1; }
	bgp_peer_cmd "$ns" "$name" global rib del "$p" -a "$(__bgp_is6 "$p" && echo ipv6 || echo ipv4)"
}

# bgp_peer_shutdown NS NAME [MSG]: administrative shutdown of every session (NOTIFICATION
# Cease/Administrative Shutdown, with MSG as the RFC 9003 message).
bgp_peer_shutdown() {
	local ns=$1 name=$2 key=$1/$2 msg=${3:-} n
	for n in ${__bgp_nbr[$key]:-}; do
		case ${__bgp_kind[$key]} in
		bird) bgp_peer_cmd "$ns" "$name" disable "$(__bgp_bird_proto "$key" "$n")" \
			${msg:+"\"$msg\""} ;;
		frr) ip netns exec "$ns" vtysh --vty_socket "${__bgp_dir[$key]}" -c "configure terminal" \
			-c "router bgp" -c "neighbor $n shutdown${msg:+ message $msg}" ;;
		gobgp)	# "disable --reason" sends no message, "shutdown --reason" does but the
			# session comes back after idle-hold-time: shutdown, then disable once down.
			if [[ -n $msg ]]; then
				bgp_peer_cmd "$ns" "$name" neighbor "$n" shutdown --reason "$msg"
				bgp_wait 10 __bgp_state_not "$ns" "$name" Established "$n"
			fi
			bgp_peer_cmd "$ns" "$name" neighbor "$n" disable ;;
		esac
	done >/dev/null
}

# --- the readers (python3): normalize each daemon's output ---------------------------------------
cat >"$BGP_TMP/readers.py" <<'EOF'
import json, re, sys

def fmt(prefix, nh, aspath, lp, med, comms, large, origin, stale):
    d = lambda v: "-" if v is None or v == [] else str(v)
    print(f"{prefix} {nh or '-'} as_path={','.join(map(str, aspath))} local_pref={d(lp)} "
          f"med={d(med)} communities={d(','.join(comms)) if comms else '-'} "
          f"large={','.join(large) if large else '-'} origin={origin or '-'} stale={int(bool(stale))}")

def json_docs(text):
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)

def bird_routes(ibgp):
    # "PREFIX  unicast [proto time] * (pref) [ASxi]" (PREFIX blank on further paths), then
    # tab-indented attribute lines.
    # BIRD does not mark stale routes in "show route": a route is stale while its protocol
    # shows "Neighbor graceful restart active" (show protocols all, before "@@routes@@").
    protos, routes = sys.stdin.read().split("@@routes@@\n", 1)
    gr, proto = set(), None
    for line in protos.splitlines():
        m = re.match(r"^(\S+)\s+BGP\s", line)
        if m:
            proto = m.group(1)
        elif proto and "Neighbor graceful restart active" in line:
            gr.add(proto)
    routes, lines, cur, prefix = [], routes.splitlines(), None, None
    for line in lines:
        m = re.match(r"^(\S+)?\s+\S+\s+\[(\S+) [^]]*\](.*)$", line)
        if m and not line.startswith("\t"):
            prefix = m.group(1) or prefix
            cur = {"prefix": prefix, "stale": m.group(2) in gr}
            routes.append(cur)
            continue
        if cur is None or not line.startswith("\t"):
            continue
        k, _, v = line.strip().partition(": ")
        cur[k] = v
    for r in routes:
        if "BGP.origin" not in r:
            continue
        nh = r.get("BGP.next_hop", "").split()
        comms = re.findall(r"\((\d+),(\d+)\)", r.get("BGP.community", ""))
        large = re.findall(r"\((\d+), (\d+), (\d+)\)", r.get("BGP.large_community", ""))
        fmt(r["prefix"], nh[0] if nh else None, r.get("BGP.as_path", "").split(),
            r.get("BGP.local_pref") if ibgp else None, r.get("BGP.med"),
            [f"{a}:{b}" for a, b in comms], [f"{a}:{b}:{c}" for a, b, c in large],
            r["BGP.origin"].lower(), r["stale"])

def frr_routes(ibgp):
    for doc in json_docs(sys.stdin.read()):
        for p in doc.get("paths", []):
            segs = p.get("aspath", {}).get("segments", [])
            aspath = [a for s in segs for a in s.get("list", [])]
            nh = [n["ip"] for n in p.get("nexthops", []) if n.get("scope", "global") == "global"]
            fmt(doc["prefix"], nh[0] if nh else None, aspath,
                p.get("locPrf") if ibgp else None, p.get("metric"),
                p.get("community", {}).get("list", []),
                p.get("largeCommunity", {}).get("list", []), (p.get("origin") or "").lower(),
                p.get("stale"))

def frr_prefixes():
    for doc in json_docs(sys.stdin.read()):
        for pfx in doc.get("routes", {}):
            print(pfx)

def gobgp_routes(ibgp):
    text = sys.stdin.read().strip()
    if not text:
        return
    for prefix, paths in json.loads(text).items():
        for p in paths:
            a = {x["type"]: x for x in p.get("attrs", [])}
            aspath = [n for s in a.get(2, {}).get("as_paths", []) for n in s.get("asns", [])]
            nh = a.get(3, {}).get("nexthop") or a.get(14, {}).get("nexthop")
            comms = [f"{c >> 16}:{c & 0xffff}" for c in a.get(8, {}).get("communities", [])]
            large = [f"{l['ASN']}:{l['LocalData1']}:{l['LocalData2']}" for l in a.get(32, {}).get("value", [])]
            origin = {0: "igp", 1: "egp", 2: "incomplete"}.get(a.get(1, {}).get("value"))
            fmt(prefix, nh, aspath, a.get(5, {}).get("value") if ibgp else None,
                a.get(4, {}).get("metric"), comms, large, origin, p.get("stale"))

STATES = {"idle": "Idle", "connect": "Connect", "active": "Active", "opensent": "OpenSent",
          "openconfirm": "OpenConfirm", "established": "Established"}

def bird_state():
    text = sys.stdin.read()
    m = re.search(r"^\s+BGP state:\s+(\S+)", text, re.M)
    if m:
        print(STATES.get(m.group(1).lower(), m.group(1)))
    else:
        print("Down")

# BIRD logs a NOTIFICATION's text only: the codes of the ones our tests meet.
BIRD_CODES = {"hold timer expired": "4/0", "maximum number of prefixes reached": "6/1",
              "administrative shutdown": "6/2", "peer de-configured": "6/3",
              "administrative reset": "6/4", "connection rejected": "6/5",
              "configuration change": "6/6", "connection collision resolution": "6/7",
              "out of resources": "6/8", "hard reset": "6/9"}

def bird_error(proto):
    # "Last error:" of show protocols is overwritten by later socket errors: the log's
    # "<RMT> nI: Received: Administrative shutdown: "msg"" lines are the NOTIFICATIONs.
    last = None
    for line in sys.stdin:
        m = re.search(r"<RMT> (\S+): (Received: .*)$", line)
        if m and m.group(1) == proto:
            last = m.group(2)
    if not last:
        return
    text, _, msg = last[len("Received: "):].partition(": ")
    code = BIRD_CODES.get(text.lower())
    msg = msg.strip().strip('"')
    print(f"received {code + ' ' if code else ''}{text}" + (f": {msg}" if msg else ""))

def frr_neighbor(nbr):
    text = sys.stdin.read().strip()
    doc = json.loads(text) if text else {}
    return doc.get(nbr, {})

def frr_state(nbr):
    n = frr_neighbor(nbr)
    s = n.get("bgpState", "Unknown")
    print(STATES.get(s.lower(), s))

def frr_error(nbr):
    n = frr_neighbor(nbr)
    if "lastNotificationReason" not in n:
        return
    cs = n.get("lastErrorCodeSubcode", "")
    msg = f"received {int(cs[:2], 16)}/{int(cs[2:], 16)} " if len(cs) == 4 else "received "
    msg += n["lastNotificationReason"]
    desc = n.get("lastShutdownDescription")
    print(msg + (f": {desc}" if desc else ""))

def gobgp_state():
    text = sys.stdin.read().strip()
    s = json.loads(text).get("state", {}).get("session_state", 0) if text else 0
    names = ["Unknown", "Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established"]
    if isinstance(s, int):
        print(names[s] if 0 <= s < len(names) else s)
    else:
        print(STATES.get(str(s).lower(), s))

def gobgp_error(nbr):
    # gobgpd's JSON log: {"msg":"received notification","Code":6,"Subcode":2,"Data":BASE64,
    # "Communicated-Reason":"msg" (RFC 9003, for 6/2 and 6/4)}
    # then {"msg":"Peer Down","Reason":"notification-received code 6(cease) subcode
    # 2(administrative shutdown)"}.
    last, text = None, ""
    for line in sys.stdin:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("Key") != nbr:
            continue
        if r.get("msg") == "received notification":
            last, text = r, ""
        elif last and not text and r.get("msg") == "Peer Down":
            m = re.search(r"code \d+\(([^)]*)\) subcode \d+\(([^)]*)\)", r.get("Reason", ""))
            text = f"{m.group(1)}/{m.group(2)}" if m else ""
    if not last:
        return
    data = last.get("Data") or b""
    if isinstance(data, str):
        import base64
        data = base64.b64decode(data)
    elif isinstance(data, list):
        data = bytes(data)
    if data and data[0] == len(data) - 1:      # RFC 9003: a length, then UTF-8
        data = data[1:]
    msg = last.get("Communicated-Reason") or data.decode("utf-8", "replace")
    print(f"received {last.get('Code')}/{last.get('Subcode')} {text or 'notification'}" +
          (f": {msg}" if msg else ""))

cmd, args = sys.argv[1], sys.argv[2:]
{"bird-routes": lambda: bird_routes(args[0] == "1"),
 "frr-routes": lambda: frr_routes(args[0] == "1"),
 "frr-prefixes": frr_prefixes,
 "gobgp-routes": lambda: gobgp_routes(args[0] == "1"),
 "bird-state": bird_state, "bird-error": lambda: bird_error(args[0]),
 "frr-state": lambda: frr_state(args[0]), "frr-error": lambda: frr_error(args[0]),
 "gobgp-state": gobgp_state, "gobgp-error": lambda: gobgp_error(args[0])}[cmd]()
EOF
