#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the bash completion, completion/kmaglev: for every object and command, written in
# full and as its shortest unique prefix, _kmaglev must offer exactly the expected words, and
# every word it offers must be one the parser takes there: each is run through ./kmaglev
# (with a sample value for a keyword) and must parse, i.e. succeed or fail only because
# kmaglev.ko is not loaded. No bash-completion helpers and no kernel module are needed:
# "kmaglev" is a shell function here, so the kernel's services and backends are what the test
# says. TAP output ("ok N - name"); the exit status is non-zero if a case failed.
#
#   bash tests/completion.sh            (from userland/; "make check" runs it)
set -u
cd "$(dirname "$0")/.." || exit 1

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	local l
	for l; do
		echo "# $l"
	done
	failed=1
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# The parser, to check candidates with. With kmaglev.ko loaded the commands would change
# this network namespace: then candidates are not run.
BIN=${KMAGLEV_BIN:-../build/kmaglev}
NOT_LOADED='netlink family "kmaglev" not found (is kmaglev.ko loaded?)'
# status and reload talk to the daemon: never to one that runs here
NO_DAEMON='cannot reach the kmaglev daemon at '
export KMAGLEV_SOCKET=/nonexistent/kmaglev-completion/daemon.sock
run_parser=1
if [[ ! -x $BIN ]]; then
	run_parser=0
	why_not="no ./kmaglev (make kmaglev)"
elif "$BIN" family show >/dev/null 2>&1; then
	run_parser=0
	why_not="kmaglev.ko is loaded"
fi

# Does "kmaglev WORDS..." parse?
ERRF=$(mktemp)
parses() {
	local err="" rc
	"$BIN" "$@" </dev/null >/dev/null 2>"$ERRF"
	rc=$?
	((rc == 0)) && return 0
	read -r -d '' err <"$ERRF"
	[[ $err == *"$NOT_LOADED"* || $err == *"$NO_DAEMON"* ]]
}

# A sample value for each keyword, alternatives separated by "|"; "-" for none.
declare -A SAMPLE=(
	[table-size]=251 [hash]=five-tuple [flags]=echo [seed]=00112233445566778899aabbccddeeff
	[ramp]=50 [ramp-time]=1s [window]=1s [max-conns]=1 [client-rate]=1
	[encap-src4]=192.0.2.100 [encap-src6]=2001:db8::100 [encap-src]="192.0.2.100|2001:db8::100"
	[backend]="10.0.0.99|add 10.0.0.99" [no-backends]=- [weight]=1 [state]=up
	[encap]="gre|ipip" [gre-key]="7|7 encap gre"
	[max-services]=1 [max-backends]=1 [conn-max]=1 [flood-rate]=1
	[hook]=prerouting [ingress-dev]=all [quota-rate]=100 [quota-burst]=0 [quota-prefix4]=24
	[quota-prefix6]=64 [quota-scope]=service [quota-action]=rst [quota-max]=65536
	[top]=10
	[criticality]=sheddable [overload]=on [dscp-map]=ef=critical-plus [shed-class]=sheddable
	[shed-conn-fill]=90 [shed-new-rate]=1000 [shed-load-high]=850 [shed-load-low]=700
	[timeout-tcp-syn]=30s [timeout-tcp-est]=30s [timeout-tcp-fin]=30s [timeout-udp]=30s
	[probe-mark-min]=0 [probe-mark-max]=4294967295 [then]=-
	[owner]=kmaglevd
	# import: an empty file is an empty configuration
	[keepalived]=/dev/null [--accept-losses]=/dev/null
	# simulate's changes, "backend OP ...": the sample lines have backend 10.0.0.1
	[add]=10.0.0.99 [del]=10.0.0.1 [set]="10.0.0.1 weight 2" [drain]=10.0.0.1
	# status and reload
	[-s]=/nonexistent/kmaglev-completion/daemon.sock
)

# Would the parser take candidate $1 after words "${@:2}" (without "kmaglev")? As it is, or
# with a sample value.
candidate_parses() {
	local cand=$1 alt
	shift
	parses "$@" "$cand" && return 0
	[[ -n ${SAMPLE[$cand]-} ]] || return 1
	local IFS='|'
	local -a alts
	read -ra alts <<<"${SAMPLE[$cand]}"
	IFS=$' \t\n'
	for alt in "${alts[@]}"; do
		[[ $alt == - ]] && continue
		# shellcheck disable=SC2086
		parses "$@" "$cand" $alt && return 0
	done
	return 1
}

# Completion of the words "$@": the last is the one being completed.
complete_words() {
	unset COMP_LINE COMP_POINT
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_kmaglev
}

# The words of LINE ("kmaglev" implied); a trailing space starts a new, empty word.
split_line() {
	read -ra WORDS <<<"$1"
	[[ $1 == *" " || -z $1 ]] && WORDS+=("")
}

# Are the words of arrays named $1 and $2 the same set? (No subshells: this runs a lot.)
same_set() {
	local -n a=$1 b=$2
	local -A in_a=() in_b=()
	local w
	for w in "${a[@]}"; do
		[[ -n $w ]] && in_a[$w]=1
	done
	for w in "${b[@]}"; do
		[[ -n $w ]] && in_b[$w]=1
	done
	((${#in_a[@]} == ${#in_b[@]})) || return 1
	for w in "${!in_a[@]}"; do
		[[ -n ${in_b[$w]-} ]] || return 1
	done
}

# check NAME LINE WANT [HOW]: the candidates for LINE are exactly WANT (a space-separated
# set), and each parses after the words before it, alone or with a sample value (HOW
# "novalidate": not run; "+WORDS": or with its sample value and WORDS after it, for candidates
# that need more to parse, such as "service set SERVICE", or "weight" before the "encap gre"
# that a gre-key needs).
check() {
	local name=$1 line=$2 want=$3 validate=${4:-validate} more=()
	local -a WORDS wants
	split_line "$line"
	complete_words kmaglev "${WORDS[@]}"
	local bad=() c
	local -a got=("${COMPREPLY[@]}")
	read -ra wants -d '' <<<"$want"
	if [[ $validate == +* ]]; then
		read -ra more <<<"${validate#+}"
		validate=validate
	fi
	if ! same_set got wants; then
		notok "$name" "kmaglev $line<TAB>" "want: ${wants[*]}" " got: ${got[*]}"
		return
	fi
	if [[ $validate == validate && $run_parser == 1 ]]; then
		for c in "${COMPREPLY[@]}"; do
			candidate_parses "$c" "${WORDS[@]:0:${#WORDS[@]}-1}" && continue
			if ((${#more[@]})); then
				local s=${SAMPLE[$c]-}
				s=${s%%|*}
				[[ $s == - ]] && s=""
				# shellcheck disable=SC2086
				parses "${WORDS[@]:0:${#WORDS[@]}-1}" "$c" $s "${more[@]}" && continue
			fi
			bad+=("$c")
		done
		if ((${#bad[@]})); then
			notok "$name" "kmaglev $line<TAB>" "the parser refuses: ${bad[*]}"
			return
		fi
	fi
	ok "$name"
}

# --- abbreviations -------------------------------------------------------------------------

OBJECTS="service backend stats table simulate monitor config quota save daemon import status reload graceful-restart family help bgp"
declare -A COMMANDS=(
	[service]="add set del show flush list" [backend]="add set del show drain list"
	[config]="show set list" [table]="show list" [family]="show" [stats]="show"
	[quota]="show list" [import]="keepalived ipvsadm"
)

# The shortest prefix of $1 that no other of "${@:2}" starts with, in SHORT.
shortest() {
	local w=$1 len other
	shift
	for ((len = 1; len < ${#w}; len++)); do
		for other; do
			[[ $other != "$w" && $other == "${w:0:len}"* ]] && continue 2
		done
		break
	done
	SHORT=${w:0:len}
}

# case NAME LINE WANT [novalidate]: check LINE as written and with its object, and its
# command if it has one, abbreviated to the shortest unique prefix.
case_() {
	local name=$1 line=$2 want=$3 v=${4:-validate}
	local -a w
	read -ra w <<<"$line"
	check "$name" "$line" "$want" "$v"
	[[ ${#w[@]} -ge 1 ]] || return
	local obj=${w[0]} rest=${line#"${w[0]}"}
	[[ " $OBJECTS " == *" $obj "* ]] || return
	# shellcheck disable=SC2086
	local o SHORT
	# shellcheck disable=SC2086
	shortest "$obj" $OBJECTS
	o=$SHORT
	[[ $obj == bgp ]] && o=$obj	# taken in full only
	[[ $o != "$obj" ]] && check "$name ($o)" "$o$rest" "$want" "$v"
	local cmds=${COMMANDS[$obj]-} cmd=${w[1]-}
	if [[ -n $cmds && -n $cmd && " $cmds " == *" $cmd "* && $line == "$obj $cmd "* ]]; then
		local c
		# shellcheck disable=SC2086
		shortest "$cmd" $cmds
		c=$SHORT
		[[ $c != "$cmd" ]] && check "$name ($o $c)" "$o $c${rest#" $cmd"}" "$want" "$v"
	fi
}

# The kernel, as far as completion asks it: "service show" and "backend show SERVICE".
SERVICES=()
KMAGLEV_CALLS=/tmp/kmaglev-completion-calls.$$
trap 'rm -f "$KMAGLEV_CALLS" "$ERRF"; rm -rf "$NETNS_DIR"' EXIT
# shellcheck disable=SC2317	# called by the completion
kmaglev() {
	echo "$*" >>"$KMAGLEV_CALLS"
	while [[ $1 == -* ]]; do
		[[ $1 == -n ]] && shift
		shift
	done
	case $1 in
	service)
		local s
		for s in "${SERVICES[@]}"; do
			echo "service $s id 1 table-size 251 hash five-tuple ramp 100 window 30s"
		done
		;;
	backend)
		((${#SERVICES[@]})) || return 1
		echo "service $2 id 1"
		echo "  backend 10.0.0.11 id 4 weight 1 state up encap ipip slots 125"
		echo "  backend 2001:db8:1::12 id 5 weight 1 state up encap ipip slots 126"
		;;
	*) return 1 ;;
	esac
}

run_cases() {
	SERVICES=()
	local SVC=192.0.2.1:80/tcp
	local SVCKW="table-size hash flags seed ramp ramp-time window max-conns client-rate"
	SVCKW+=" encap-src encap-src4 encap-src6 owner criticality overload"
	local CLASSES="critical-plus critical sheddable-plus sheddable"
	local DSCPS="cs0 le cs1 af11 af12 af13 cs2 af21 af22 af23 cs3 af31 af32 af33 cs4 af41 af42"
	DSCPS+=" af43 cs5 ef cs6 cs7"
	local BEKW="weight state encap gre-key max-conns"
	local TIMEOUTS="timeout-tcp-syn timeout-tcp-est timeout-tcp-fin"
	local QUOTAKW="quota-rate quota-burst quota-prefix4 quota-prefix6 quota-scope quota-action"
	QUOTAKW+=" quota-max"
	local CFGKW="max-services max-backends conn-max $TIMEOUTS timeout-udp flood-rate"
	local SHEDKW="dscp-map shed-class shed-conn-fill shed-new-rate shed-load-high shed-load-low"
	CFGKW+=" probe-mark-min probe-mark-max hook ingress-dev $QUOTAKW $SHEDKW"
	local OPTS="-j --json -p --pretty -b --batch -n --netns -t --timestamp --show-secrets"
	OPTS+=" -V --version -h --help"

	# options and objects
	check "options" "-" "$OPTS" novalidate
	check "objects" "" "$OBJECTS" novalidate
	check "objects after options" "-j -t --show-secrets " "$OBJECTS" novalidate
	check "objects after -n NETNS" "-n blue " "$OBJECTS" novalidate
	check "objects: ambiguous prefix" "s" "service stats simulate save status" novalidate
	check "objects: stat" "stat" "stats status" novalidate
	check "nothing after -b FILE" "-b lb.conf " ""
	check "-b completes files" "-b completion/kmag" "completion/kmaglev" novalidate
	check "-jb completes files" "-jb completion/kmag" "completion/kmaglev" novalidate
	check "-n: no /run/netns" "-n " "" novalidate
	_kmaglev_netns_dir=$NETNS_DIR
	check "-n completes netns names" "-n " "blue red" novalidate
	check "--netns completes netns names" "--netns r" "red" novalidate
	check "-n takes paths" "-n $NETNS_DIR/b" "$NETNS_DIR/blue" novalidate
	_kmaglev_netns_dir=/run/netns
	check "unknown object" "x " ""
	check "ambiguous object" "s " ""

	# service
	case_ "service commands" "service " "add set del show flush list help" novalidate
	case_ "service add: SERVICE" "service add " ""
	case_ "service add: options" "service add $SVC " "$SVCKW backend"
	case_ "service add: not id" "service add id 3 " ""
	case_ "service add: hash" "service add $SVC hash " \
		"five-tuple three-tuple src-addr 5tuple 3tuple src"
	case_ "service add: hash by prefix" "service add $SVC ha " \
		"five-tuple three-tuple src-addr 5tuple 3tuple src"
	case_ "service add: flags" "service add $SVC flags " "echo defrag resched none"
	case_ "service add: flags list" "service add $SVC flags echo," "echo,defrag echo,resched"
	case_ "service add: flags list, two" "service add $SVC flags echo,resched," \
		"echo,resched,defrag"
	case_ "service add: no none in a list" "service add $SVC flags none," ""
	case_ "service add: flags partial" "service add $SVC flags de" "defrag"
	case_ "service add: window" "service add $SVC window " "500ms 30s 5m 1h"
	case_ "service add: window units" "service add $SVC window 30" "30ms 30s 30m"
	case_ "service add: window unit started" "service add $SVC window 2m" "2m 2ms"
	case_ "service add: ramp-time by prefix" "service add $SVC ramp- 24" "24ms 24s 24m 24h"
	case_ "service add: ramp" "service add $SVC ramp " "0 50 100"
	case_ "service add: table-size" "service add $SVC table-size " "$_kmaglev_primes"
	case_ "service add: no value list" "service add $SVC seed " ""
	case_ "service add: each option once" \
		"service add $SVC table-size 251 hash src window 1s " \
		"flags seed ramp ramp-time max-conns client-rate encap-src encap-src4 encap-src6 owner
		 criticality overload backend"
	case_ "service add: prefixes count as given" "service add $SVC tab 251 h src " \
		"flags seed ramp ramp-time window max-conns client-rate encap-src encap-src4 encap-src6 owner
		 criticality overload backend"
	case_ "service add: encap-src IPv4" "service add $SVC encap-src 192.0.2.9 " \
		"table-size hash flags seed ramp ramp-time window max-conns client-rate encap-src encap-src6
		 owner criticality overload backend"
	case_ "service add: encap-src both" "service add $SVC encap-src 192.0.2.9 encap-src6 :: " \
		"table-size hash flags seed ramp ramp-time window max-conns client-rate owner criticality
		 overload backend"
	case_ "service add: criticality" "service add $SVC criticality " "$CLASSES"
	case_ "service add: criticality by prefix" "service add $SVC cr " "$CLASSES"
	case_ "service add: c is ambiguous" "service add $SVC c 1 " ""
	case_ "service add: overload" "service add $SVC overload " "on off"
	case_ "service add: overload by prefix" "service add $SVC ov " "on off"
	case_ "service add: criticality once" \
		"service add $SVC criticality sheddable overload on " \
		"table-size hash flags seed ramp ramp-time window max-conns client-rate encap-src
		 encap-src4 encap-src6 owner backend"
	case_ "service add: after an unknown word" "service add $SVC bogus 1 " ""
	case_ "service add: after an ambiguous word" "service add $SVC r 1 " ""
	case_ "service add: after a read-only field" "service add $SVC generation 1 " ""
	case_ "service add: backend options" "service add $SVC backend 10.0.0.1 " "$BEKW backend"
	case_ "service add: backend options, some given" \
		"service add $SVC backend 10.0.0.1 weight 2 st up " \
		"encap gre-key max-conns backend"
	case_ "service add: encap ipip, no gre-key" \
		"service add $SVC backend 10.0.0.1 encap ipip " "weight state max-conns backend"
	case_ "service add: gre-key, encap gre" \
		"service add $SVC backend 10.0.0.1 gre-key 7 encap " "gre"
	case_ "service add: state" "service add $SVC backend 10.0.0.1 state " "up drain down"
	case_ "service add: s is state in a backend" "service add $SVC backend 10.0.0.1 s " \
		"up drain down"
	case_ "service add: second backend" \
		"service add $SVC backend 10.0.0.1 weight 2 backend 10.0.0.2 " "$BEKW backend"
	case_ "service add: no service option after a backend" \
		"service add $SVC backend 10.0.0.1 window 1s " ""
	case_ "service set: SERVICE" "service set " ""
	case_ "service set: options" "service set $SVC " "$SVCKW backend no-backends"
	case_ "service set: id N" "service set id 3 " "$SVCKW backend no-backends"
	case_ "service set: after no-backends" "service set $SVC no-backends " "$SVCKW"
	case_ "service set: no no-backends after a backend" "service set $SVC backend 10.0.0.1 " \
		"$BEKW backend"
	case_ "service set: backends" "service set $SVC backend " ""
	case_ "service del" "service del " ""
	case_ "service del: nothing after" "service del $SVC " ""
	case_ "service show" "service show " ""
	case_ "service list" "service list " ""
	case_ "service flush" "service flush " ""
	case_ "service help" "service help " ""

	# backend
	case_ "backend commands" "backend " "add set del show drain list help" novalidate
	check "backend: ambiguous command" "backend d " ""
	case_ "backend add: options" "backend add $SVC 10.0.0.1 " "$BEKW"
	case_ "backend add: options, id N" "backend add id 3 10.0.0.1 " "$BEKW"
	case_ "backend add: encap ipip" "backend add $SVC 10.0.0.1 encap ipip " \
		"weight state max-conns"
	case_ "backend add: gre-key first" "backend add $SVC 10.0.0.1 gre-key 7 " \
		"weight state encap max-conns" "+encap gre"
	case_ "backend add: encap after gre-key" "backend add $SVC 10.0.0.1 gre-key 7 e" "encap"
	case_ "backend add: encap value after gre-key" \
		"backend add $SVC 10.0.0.1 gre-key 7 encap " "gre"
	case_ "backend add: encap" "backend add $SVC 10.0.0.1 encap " "ipip gre"
	case_ "backend add: state" "backend add $SVC 10.0.0.1 state " "up drain down"
	case_ "backend add: duplicate" "backend add $SVC 10.0.0.1 weight 1 weight 2 " ""
	case_ "backend add: read-only id" "backend add $SVC 10.0.0.1 id 2 " ""
	case_ "backend set: options" "backend set $SVC 10.0.0.1 " "$BEKW"
	case_ "backend set: by prefixes" "backend set $SVC 10.0.0.1 w 1 s drain " \
		"encap gre-key max-conns"
	case_ "backend drain: nothing after" "backend drain $SVC 10.0.0.1 " ""
	case_ "backend del: nothing after" "backend del $SVC 10.0.0.1 " ""
	case_ "backend show: nothing after" "backend show $SVC 10.0.0.1 " ""
	case_ "backend list" "backend list " ""

	# stats, table, config, family, save, help
	case_ "stats" "stats " "show help"
	case_ "stats show" "stats show " ""
	case_ "stats SERVICE: nothing after" "stats $SVC " ""
	case_ "table commands" "table " "show list help" novalidate
	case_ "table show" "table show " ""
	case_ "table list: nothing after SERVICE" "table list $SVC " ""
	case_ "config commands" "config " "show set list help" novalidate
	check "config: ambiguous command" "config s " ""
	case_ "config set" "config set " "$CFGKW"
	case_ "config set: each once" "config set conn-max 1 timeout-u 30s " \
		"max-services max-backends $TIMEOUTS flood-rate probe-mark-min probe-mark-max hook
		 ingress-dev $QUOTAKW $SHEDKW"
	case_ "config set: timeouts have no ms" "config set timeout-tcp-syn " "30s 5m 1h"
	case_ "config set: timeout units" "config set timeout-udp 90" "90s 90m 90h"
	case_ "config set: timeout range" "config set timeout-udp 200" "200s 200m"
	case_ "config set: never ms" "config set timeout-udp 5000" "5000s 5000m"
	case_ "config set: read-only" "config set conns 1 " ""
	case_ "config set: quotas is read-only" "config set quotas 1 " ""
	case_ "config set: quota keywords" "config set quota-" "$QUOTAKW" novalidate
	case_ "config set: quota-scope" "config set quota-scope " "netns service"
	case_ "config set: quota-scope by prefix" "config set quota-s " "netns service"
	case_ "config set: quota-action" "config set quota-rate 10 quota-action " "drop rst"
	case_ "config set: quota-prefix4" "config set quota-prefix4 " "32 24 16"
	case_ "config set: quota-prefix6" "config set quota-prefix6 " "128 64 56 48"
	case_ "config set: quota-rate takes a number" "config set quota-rate " ""
	case_ "config set: quota settings once" \
		"config set quota-rate 10 quota-prefix4 24 quota-a rst " \
		"max-services max-backends conn-max $TIMEOUTS timeout-udp flood-rate probe-mark-min
		 probe-mark-max hook ingress-dev quota-burst quota-prefix6 quota-scope quota-max $SHEDKW"
	case_ "config set: hook" "config set hook " "prerouting ingress"
	case_ "config set: ingress-dev" "config set hook ingress ingress-dev " "all"
	case_ "config set: shed keywords" "config set shed-" \
		"shed-class shed-conn-fill shed-new-rate shed-load-high shed-load-low" novalidate
	case_ "config set: shed-class" "config set shed-class " "$CLASSES"
	case_ "config set: shed-class by prefix" "config set shed-cl " "$CLASSES"
	case_ "config set: shed-conn-fill takes a number" "config set shed-conn-fill " ""
	case_ "config set: load is read-only" "config set load 1 " ""
	case_ "config set: shedding is read-only" "config set shedding none " ""
	case_ "config set: shed-transitions is read-only" "config set shed-transitions 1 " ""
	local want="none" d
	for d in $DSCPS; do
		want+=" $d="
	done
	# "ef=" alone does not parse: its class comes next
	case_ "config set: dscp-map" "config set dscp-map " "$want" novalidate
	case_ "config set: dscp-map by prefix" "config set dscp " "$want" novalidate
	case_ "config set: dscp-map DSCP" "config set dscp-map af4" "af41= af42= af43=" novalidate
	case_ "config set: dscp-map class" "config set dscp-map ef=" \
		"ef=critical-plus ef=critical ef=sheddable-plus ef=sheddable"
	case_ "config set: dscp-map class started" "config set dscp-map ef=sh" \
		"ef=sheddable-plus ef=sheddable"
	case_ "config set: dscp-map number" "config set dscp-map 10=critical-" "10=critical-plus"
	want=""
	for d in $DSCPS; do
		[[ $d == ef ]] || want+=" ef=critical,$d="
	done
	case_ "config set: dscp-map, no DSCP twice, no none" "config set dscp-map ef=critical," \
		"$want" novalidate
	case_ "config set: dscp-map second class" "config set dscp-map ef=critical,cs1=" \
		"ef=critical,cs1=critical-plus ef=critical,cs1=critical ef=critical,cs1=sheddable-plus
		 ef=critical,cs1=sheddable"
	case_ "config set: dscp-map, then the others" \
		"config set dscp-map ef=critical-plus shed-class sheddable " \
		"max-services max-backends conn-max $TIMEOUTS timeout-udp flood-rate probe-mark-min
		 probe-mark-max hook ingress-dev $QUOTAKW shed-conn-fill shed-new-rate shed-load-high
		 shed-load-low"
	case_ "config show: nothing after" "config show " ""
	case_ "quota commands" "quota " "show list help" novalidate
	case_ "quota show" "quota show " "top"
	case_ "quota list" "quota list " "top"
	case_ "quota show top: a number" "quota show top " ""
	case_ "quota show top N: nothing after" "quota show top 5 " ""
	case_ "quota: after an unknown word" "quota show x " ""
	case_ "family" "family " "show help"
	case_ "family show: nothing after" "family show " ""
	case_ "save" "save " "--yaml help"
	case_ "save: nothing after" "save help " ""
	case_ "save --yaml: nothing after" "save --yaml " ""
	case_ "help" "help " \
		"service backend stats table simulate monitor config quota save daemon import status reload graceful-restart family bgp"
	case_ "help: nothing after OBJECT" "help service " ""

	# daemon (not run through the parser: that would start a daemon)
	case_ "daemon" "daemon " "-c --check --flush help" novalidate
	case_ "daemon: after -c FILE" "daemon -c /x.yaml " "--check --flush" novalidate
	case_ "daemon: -c takes a file" "daemon -c completion/kmag" "completion/kmaglev" novalidate
	case_ "daemon: --check takes a file" "daemon --check completion/kmag" "completion/kmaglev" novalidate
	case_ "daemon: --flush and -c" "daemon --flush " "-c" novalidate

	# import (standard input and /dev/null: an empty configuration)
	case_ "import" "import " "keepalived ipvsadm help"
	case_ "import keepalived: a file" "import keepalived completion/kmag" "completion/kmaglev" novalidate
	case_ "import keepalived: the option" "import keepalived -" "--accept-losses"
	case_ "import ipvsadm: the option or stdin" "import ipvsadm -" "--accept-losses -"
	case_ "import: after the file" "import keepalived /dev/null " "--accept-losses"
	case_ "import: after the option and the file" "import ipvsadm --accept-losses - " ""
	case_ "import keepalived: no stdin" "import keepalived - " ""

	# status, reload: the daemon's control socket
	case_ "status" "status " "-j -p -s help"
	case_ "status: each option once" "status -j " "-p -s"
	case_ "status: -s takes a file" "status -s completion/kmag" "completion/kmaglev" novalidate
	case_ "status: after -s FILE" "status -s /x.sock -p " "-j"
	case_ "status: after an unknown word" "status x " ""
	case_ "reload" "reload " "-j -p -s help"
	case_ "reload: options" "reload -s /x.sock " "-j -p"
	case_ "bgp" "bgp " "-j -p -s show help"
	case_ "bgp show: options" "bgp show -j " "-p -s"
	case_ "graceful-restart" "graceful-restart " "-j -p -s help"
	case_ "reload help: nothing after" "reload help " ""

	# monitor
	case_ "monitor" "monitor " "all service backend table help"
	case_ "monitor: more objects" "monitor s " "all backend table"
	case_ "monitor: by prefixes" "monitor s b " "all table"
	case_ "monitor: after an unknown word" "monitor x " ""

	# simulate: live, then offline
	case_ "simulate" "simulate " "table-size seed backend then help"
	case_ "simulate live" "simulate $SVC " "seed then backend table-size"
	case_ "simulate live, id N" "simulate id 3 " "seed then backend table-size"
	case_ "simulate live: after then" "simulate $SVC then " "seed backend table-size"
	case_ "simulate live: change ops" "simulate $SVC backend " "add del set drain"
	case_ "simulate live: after a change, no then" "simulate $SVC table-size 4093 " \
		"seed backend table-size"
	case_ "simulate live: add takes weight, state" "simulate $SVC backend add 10.0.0.1 " \
		"weight state seed backend table-size"
	case_ "simulate live: set needs weight or state" "simulate $SVC backend set 10.0.0.1 " \
		"weight state"
	case_ "simulate live: set after weight" "simulate $SVC backend set 10.0.0.1 weight 2 " \
		"state seed backend table-size"
	case_ "simulate live: del takes nothing" "simulate $SVC backend del 10.0.0.1 " \
		"seed backend table-size"
	case_ "simulate live: drain takes nothing" \
		"simulate $SVC seed 00112233445566778899aabbccddeeff backend drain 10.0.0.1 " \
		"backend table-size"
	case_ "simulate live: no weight alone" "simulate $SVC weight 2 " ""
	case_ "simulate live: state" "simulate $SVC backend add 10.0.0.1 state " "up drain down"
	case_ "simulate offline: table-size" "simulate table-size 4093 " "seed then backend"
	case_ "simulate offline: table-size values" "simulate table-size " "$_kmaglev_primes"
	case_ "simulate offline: backend" "simulate backend 10.0.0.1 " \
		"weight state seed then backend table-size"
	case_ "simulate offline: backend weight given" "simulate backend 10.0.0.1 weight 2 " \
		"state seed then backend table-size"
	case_ "simulate offline: no weight after table-size" \
		"simulate backend 10.0.0.1 table-size 251 " "seed then backend"
	case_ "simulate offline: no change before then" "simulate backend add " ""
	case_ "simulate offline: after then" "simulate backend 10.0.0.1 then " \
		"seed backend table-size"
	case_ "simulate offline: change ops" "simulate backend 10.0.0.1 then backend " \
		"add del set drain"
	case_ "simulate offline: the backends there are" \
		"simulate backend 10.0.0.1 backend 10.0.0.2 then backend del " "10.0.0.1 10.0.0.2"
	case_ "simulate offline: set needs weight or state" \
		"simulate backend 10.0.0.1 then backend set 10.0.0.1 " "weight state"
	case_ "simulate offline: then once" "simulate then backend add 10.0.0.1 then " ""
	case_ "simulate: words are exact" "simulate tab 251 " ""

	# the kernel's services and backends
	SERVICES=(192.0.2.10:80/tcp "[2001:db8::1]:53/udp")
	: >"$KMAGLEV_CALLS"
	case_ "service show: services" "service show " "192.0.2.10:80/tcp [2001:db8::1]:53/udp"
	case_ "service add: no existing services" "service add " ""
	case_ "service set: services" "service set 192" "192.0.2.10:80/tcp" "+table-size 251"
	case_ "stats: show and services" "stats " "show help 192.0.2.10:80/tcp [2001:db8::1]:53/udp"
	case_ "simulate: services" "simulate [" "[2001:db8::1]:53/udp"
	case_ "backend del: backends" "backend del 192.0.2.10:80/tcp " "10.0.0.11 2001:db8:1::12"
	case_ "backend set: backends" "backend set id 1 " "10.0.0.11 2001:db8:1::12" "+weight 1"
	case_ "backend add: no existing backends" "backend add 192.0.2.10:80/tcp " ""
	case_ "service set: current backends" "service set 192.0.2.10:80/tcp backend " \
		"10.0.0.11 2001:db8:1::12"
	case_ "simulate live: the service's backends" "simulate 192.0.2.10:80/tcp backend del " \
		"10.0.0.11 2001:db8:1::12"
	check "-n NETNS is used for listings" "-n blue service del " \
		"192.0.2.10:80/tcp [2001:db8::1]:53/udp" novalidate
	if grep -qx -- "-n blue service show" "$KMAGLEV_CALLS"; then
		ok "listings run in the -n NETNS"
	else
		notok "listings run in the -n NETNS" "calls: $(tr '\n' ';' <"$KMAGLEV_CALLS")"
	fi

	# bash splits words at colons: COMP_LINE has the whole word, and only bash's word is
	# replaced
	COMP_LINE="kmaglev service del 192.0.2.10:8"
	COMP_POINT=${#COMP_LINE}
	COMP_WORDS=(kmaglev service del 192.0.2.10 : 8)
	COMP_CWORD=5
	COMPREPLY=()
	_kmaglev
	if [[ ${COMPREPLY[*]} == 80/tcp ]]; then
		ok "colon in the word being completed"
	else
		notok "colon in the word being completed" "got: ${COMPREPLY[*]}"
	fi
	COMP_LINE="kmaglev serv a 192.0.2.1:80 ha"
	COMP_POINT=${#COMP_LINE}
	COMP_WORDS=(kmaglev serv a 192.0.2.1 : 80 ha)
	COMP_CWORD=6
	COMPREPLY=()
	_kmaglev
	if [[ ${COMPREPLY[*]} == "hash" ]]; then
		ok "colon in an earlier word"
	else
		notok "colon in an earlier word" "got: ${COMPREPLY[*]}"
	fi
	# "=" breaks words as ":" does: bash's word is what follows the last one
	COMP_LINE="kmaglev config set dscp-map cs1=sheddable,ef=cr"
	COMP_POINT=${#COMP_LINE}
	COMP_WORDS=(kmaglev config set dscp-map cs1 = sheddable,ef = cr)
	COMP_CWORD=8
	COMPREPLY=()
	_kmaglev
	if [[ ${COMPREPLY[*]} == "critical-plus critical" ]]; then
		ok "equals sign in the word being completed"
	else
		notok "equals sign in the word being completed" "got: ${COMPREPLY[*]}"
	fi
	COMP_LINE="kmaglev config set dscp-map cs1=sheddable,a"
	COMP_POINT=${#COMP_LINE}
	COMP_WORDS=(kmaglev config set dscp-map cs1 = sheddable,a)
	COMP_CWORD=6
	COMPREPLY=()
	_kmaglev
	if [[ ${COMPREPLY[*]} == "sheddable,af11= sheddable,af12= sheddable,af13= sheddable,af21= sheddable,af22= sheddable,af23= sheddable,af31= sheddable,af32= sheddable,af33= sheddable,af41= sheddable,af42= sheddable,af43=" ]]; then
		ok "equals sign in an earlier entry"
	else
		notok "equals sign in an earlier entry" "got: ${COMPREPLY[*]}"
	fi
	unset COMP_LINE COMP_POINT
	SERVICES=()
}

NETNS_DIR=$(mktemp -d)
touch "$NETNS_DIR/blue" "$NETNS_DIR/red"

# shellcheck source=../completion/kmaglev
source completion/kmaglev
if declare -F _get_comp_words_by_ref >/dev/null || declare -F _comp_get_words >/dev/null; then
	notok "without bash-completion helpers" "they are defined in this shell"
else
	ok "without bash-completion helpers"
fi
if complete -p kmaglev 2>/dev/null | grep -q -- '-F _kmaglev'; then
	ok "registered for kmaglev"
else
	notok "registered for kmaglev"
fi
((run_parser)) || skip "candidates run through the parser" "$why_not"
run_cases

# The same with bash-completion loaded, where it is installed: nothing may depend on it.
BC=/usr/share/bash-completion/bash_completion
if [[ -r $BC ]]; then
	# shellcheck disable=SC1090
	if (source "$BC" >/dev/null 2>&1 && declare -F _get_comp_words_by_ref >/dev/null); then
		source "$BC" >/dev/null 2>&1
		source completion/kmaglev
		run_parser_saved=$run_parser
		run_parser=0	# the candidates were run above
		before=$failed
		out=$(run_cases)
		echo "$out" | sed -n 's/^not ok [0-9]* - /# with bash-completion: /p'
		if grep -q '^not ok' <<<"$out"; then
			notok "the same with bash-completion loaded"
		else
			ok "the same with bash-completion loaded"
		fi
		run_parser=$run_parser_saved
		[[ $failed != "$before" ]] && failed=1
	fi
fi

echo "1..$n"
exit $failed
