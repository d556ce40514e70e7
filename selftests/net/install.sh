#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The install path, on a distribution kernel (the stock VM): DKMS and `make install`, each
# followed by `modprobe kmaglev` (its dependencies from modules.dep, not insmod), a service
# that forwards, `modprobe -r` and the removal, after which nothing of the install is left.
#
# The builds happen on the host first, as root (building in a TCG guest takes minutes):
#
#   selftests/install-prep.sh      then   selftests/vm/run --kernel stock -- \
#                                                selftests/net/run_tests.sh install
#
# install-prep.sh runs `dkms add` and `dkms build kmaglev/VERSION -k KVER` in a private mount
# namespace (its /var/lib/dkms and its layer over /usr/src are under build/install/dkms/) and
# builds kmaglev.ko and the CLI for KVER in a copy of the tree (build/install/src). This test
# runs only the install steps, on a writable overlay: the guest sees the host root read-only,
# so /lib/modules, /usr/local, /etc and /usr/src get an overlay each with its upper layer in
# the guest's tmpfs (/usr/src's stacked on the prepared layer), and /var (a tmpfs) gets a copy
# of the prepared DKMS tree. Nothing reaches the host.
#
#   DKMS:          dkms install kmaglev/VERSION -k KVER (the prepared build), modinfo, modprobe,
#                  the module's dependency loaded, a service forwarding HTTP through kmaglev,
#                  modprobe -r, dkms remove --all: the module's file and DKMS's record gone,
#                  /lib/modules/KVER as before
#   make install:  the module under updates/, the CLI, man page, completion, unit and
#                  example configuration; `kmaglev family` loading the module by itself (the
#                  genetlink family's alias), modprobe, the installed CLI configuring a service
#                  that forwards, modprobe -r; then make uninstall: /lib/modules/KVER, /usr/local
#                  and /etc as before
# "As before": the overlays' upper layers, compared with the host's tree below them, show the
# same differences as before the install (none, but for /usr/local/share/man: see below) --
# no file or directory added, removed or changed; depmod's files rewritten with the same
# content.
source "$(dirname "$0")/lib.sh"

KVER=$(uname -r)
PREP=$KMG_TOP/build/install
N_TESTS=22

kmg_require_root
kmg_require_cmd dkms modprobe depmod modinfo make mount
# A kernel with no tree of its own in /lib/modules (the test and debug kernels, built in
# .cache) has nothing to install into.
[[ -d /lib/modules/$KVER/kernel ]] || ktap_skip_all "not a distribution kernel: no /lib/modules/$KVER/kernel"
ktap_print_header
ktap_set_plan $N_TESTS

# Every remaining test fails (a missing prerequisite) and the script ends.
fail_rest() {
	while [[ $__ktap_n -lt $N_TESTS ]]; do ktap_test_fail "$1"; done
	ktap_finished
}
if [[ $(cat "$PREP/KVER" 2>/dev/null) != "$KVER" ]]; then
	ktap_print_msg "no install build for $KVER: run selftests/install-prep.sh as root on the host first"
	fail_rest "prepared on the host (selftests/install-prep.sh $KVER)"
fi
VERSION=$(cat "$PREP/src/VERSION")
source "$(dirname "$0")/dp_lib.sh"

# --- the overlays -------------------------------------------------------------------------------
OVL=$(mktemp -d /tmp/kmaglev-install.XXXXXX)
MOUNTS=()	# the overlays' mount points
UMOUNTS=()	# every mount, in order
# ovl DIR [LOWER...]: an overlay over DIR (its real path: /lib is a symlink to /usr/lib), its
# upper layer in the guest's tmpfs; LOWER layers go above DIR's own, which stays visible (a
# bind mount) in $OVL/NAME/lower for changes().
ovl() {
	local dir lower name
	dir=$(readlink -f "$1")
	shift
	name=$(tr / _ <<<"$dir")
	mkdir -p "$OVL/$name/upper" "$OVL/$name/work" "$OVL/$name/lower"
	mount --bind "$dir" "$OVL/$name/lower" || return 1
	UMOUNTS+=("$OVL/$name/lower")
	lower=$OVL/$name/lower
	[[ $# -eq 0 ]] || lower=$(IFS=:; echo "$*"):$lower
	if ! mount -t overlay overlay -o "lowerdir=$lower,upperdir=$OVL/$name/upper,workdir=$OVL/$name/work" \
		"$dir"; then
		dmesg | tail -n 3
		return 1
	fi
	MOUNTS+=("$dir")
	UMOUNTS+=("$dir")
}
cleanup() {
	local i
	dp_cleanup
	modprobe -r kmaglev 2>/dev/null
	for ((i = ${#UMOUNTS[@]} - 1; i >= 0; i--)); do umount "${UMOUNTS[i]}"; done
	rm -rf "$OVL" /var/lib/dkms
}
trap cleanup EXIT

setup() {
	# dkms uses <(...), which needs /dev/fd (udev makes it on a real host; the guest's devtmpfs
	# has none, and `dkms remove --all` then finds no kernel and removes nothing, exit 0)
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd || return 1
	modprobe overlay || return 1
	ovl /lib/modules && ovl /usr/local && ovl /etc && ovl /usr/src "$PREP/dkms/usr-src" || return 1
	mkdir -p /var/lib/dkms && cp -a "$PREP/dkms/var-lib-dkms/." /var/lib/dkms/ || return 1
	# writable now, and the host's untouched: a file made here is in the upper layer only
	touch /lib/modules/"$KVER"/.kmaglev-rw /usr/local/.kmaglev-rw /etc/.kmaglev-rw || return 1
	[[ -f $OVL/_usr_lib_modules/upper/$KVER/.kmaglev-rw ]] || return 1
	rm -f /lib/modules/"$KVER"/.kmaglev-rw /usr/local/.kmaglev-rw /etc/.kmaglev-rw
	[[ -d /usr/src/kmaglev-$VERSION && ! -d /sys/module/kmaglev ]]
}
# (not in a subshell: MOUNTS and UMOUNTS are for later)
if ! setup >"$OVL/setup.log" 2>&1; then
	sed 's/^/# /' "$OVL/setup.log"
	fail_rest "writable overlays over /lib/modules, /usr/local, /etc, /usr/src"
fi
ktap_test_pass "writable overlays over /lib/modules, /usr/local, /etc, /usr/src; DKMS's tree in /var/lib/dkms"

# changes: every difference between the overlaid directories and the host's, one line each:
# "added file|symlink|dir PATH", "removed PATH" (a whiteout), "replaced dir PATH" (opaque),
# "changed PATH" (content, target or mode). Everything written is in an upper layer, so this
# reads only those (the host's /usr/local alone holds gigabytes): a directory copied up
# because something was made in it, or a file rewritten with the same content (depmod's), is
# no difference.
changes() {
	python3 - "$OVL" "${MOUNTS[@]}" <<'PY'
import filecmp, os, stat, sys
ovl = sys.argv[1]
for d in sys.argv[2:]:
    name = d.replace('/', '_')
    up, lo = f'{ovl}/{name}/upper', f'{ovl}/{name}/lower'
    for root, dirs, files in os.walk(up):
        dirs.sort()
        for n in sorted(dirs + files):
            p = os.path.join(root, n)
            rel = os.path.relpath(p, up)
            show = os.path.join(d, rel)
            st = os.lstat(p)
            try:
                lst = os.lstat(os.path.join(lo, rel))
            except FileNotFoundError:
                lst = None
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                print('removed', show)
            elif lst is None:
                kind = 'dir' if stat.S_ISDIR(st.st_mode) else \
                    'symlink' if stat.S_ISLNK(st.st_mode) else 'file'
                print('added', kind, show)
            elif stat.S_IFMT(st.st_mode) != stat.S_IFMT(lst.st_mode) or st.st_mode != lst.st_mode:
                print('changed', show)
            elif stat.S_ISDIR(st.st_mode):
                try:
                    opaque = os.getxattr(p, 'trusted.overlay.opaque', follow_symlinks=False)
                except OSError:
                    opaque = b''
                if opaque == b'y':
                    print('replaced dir', show)
            elif stat.S_ISLNK(st.st_mode):
                if os.readlink(p) != os.readlink(os.path.join(lo, rel)):
                    print('changed', show)
            elif not filecmp.cmp(p, os.path.join(lo, rel), shallow=False):
                print('changed', show)
PY
}
# same_as FILE: changes() prints what FILE holds, or the differences are printed.
same_as() {
	changes >"$OVL/changes.now" || return 1
	diff -u "$1" "$OVL/changes.now" | grep '^[-+][^-+]'
	cmp -s "$1" "$OVL/changes.now"
}
# modprobe kmaglev with its dependencies (nf_defrag_ipv6, nf_reject_ipv4/6: `modinfo -F
# depends`) unloaded first, so that it is modprobe that loads them.
load() {
	local deps m
	local -a pat=()
	deps=$(modinfo -F depends kmaglev) || return 1
	[[ -n $deps ]] || { echo "no depends in modinfo"; return 1; }
	for m in ${deps//,/ }; do pat+=(-e "^$m "); done
	modprobe -r -q -a ${deps//,/ }
	! grep -q "${pat[@]}" /proc/modules || { echo "$deps still loaded"; return 1; }
	modprobe kmaglev || return 1
	grep "^kmaglev " /proc/modules && [[ $(grep -c "${pat[@]}" /proc/modules) == "${#pat[@]}" ]]
}
# forward CLI: a service on VIP 192.0.2.10:80/tcp in the LB, configured with CLI, and HTTP
# through it to backend b1.
forward() {
	local cli=$1 out
	ip netns exec "${DP_LB[1]}" "$cli" service add 192.0.2.10:80/tcp || return 1
	ip netns exec "${DP_LB[1]}" "$cli" backend add 192.0.2.10:80/tcp "$(dp_be4 1)" || return 1
	ip netns exec "${DP_LB[1]}" "$cli" service show | grep -F 192.0.2.10:80 || return 1
	out=$(dp_http 192.0.2.10 --count 3) || { echo "$out"; return 1; }
	echo "$out"
	[[ $(awk '$2 == "b1"' <<<"$out" | wc -l) -eq 3 ]] || return 1
	ip netns exec "${DP_LB[1]}" "$cli" service del 192.0.2.10:80/tcp
}
unload() {
	modprobe -r kmaglev && [[ ! -d /sys/module/kmaglev ]]
}
# logged NAME CMD...: CMD's output kept in $OVL/NAME.log (shown by gone() on its failure).
logged() {
	local name=$1; shift
	"$@" >"$OVL/$name.log" 2>&1 || { cat "$OVL/$name.log"; return 1; }
}
# gone LOG: no kmaglev.ko left for KVER (else LOG, what removed it, is shown).
gone() {
	if modinfo -n kmaglev 2>/dev/null || find "/lib/modules/$KVER/" -name 'kmaglev.ko*' | grep .; then
		sed 's/^/  /' "$OVL/$1.log"
		return 1
	fi
}

# Debian's base-files makes /usr/local/share/man (FHS's /usr/local hierarchy); this host's image
# lacks it. With it, the comparisons below are exact: uninstall leaves such directories alone.
mkdir -p /usr/local/share/man
changes >"$OVL/changes.before"
sed 's/^/# before: /' "$OVL/changes.before"
# The LB's topology (client, router, LB, backend b1), for traffic through both installs.
# (not in $(...): the namespaces' anchor processes would hold its pipe open)
if ! dp_topo 1 1 >"$OVL/topo.log" 2>&1; then
	sed 's/^/# /' "$OVL/topo.log"
	fail_rest "topology: client, router, 1 LB, 1 backend"
fi
ktap_test_pass "topology: client, router, 1 LB, 1 backend (${SECONDS}s)"

# --- DKMS -----------------------------------------------------------------------------------------
ktap_print_msg "DKMS: kmaglev/$VERSION, built on the host for $KVER"
ktap_test_result "dkms status: kmaglev/$VERSION built for $KVER" \
	bash -c "dkms status kmaglev/$VERSION -k $KVER | grep -F ': built'"
ktap_test_result "dkms install kmaglev/$VERSION -k $KVER" logged dkms-install dkms install "kmaglev/$VERSION" -k "$KVER"
ktap_test_result "modinfo: kmaglev $VERSION in /lib/modules/$KVER/updates/dkms" bash -c "
	[[ \$(modinfo -n kmaglev) == /lib/modules/$KVER/updates/dkms/kmaglev.ko* ]] &&
	[[ \$(modinfo -F version kmaglev) == $VERSION ]] &&
	dkms status kmaglev/$VERSION -k $KVER | grep -F ': installed'"
ktap_test_result "modprobe kmaglev loads it and its dependencies" load
ktap_test_result "a service forwards (HTTP through kmaglev to b1)" forward "$KMAGLEV"
ktap_test_result "modprobe -r kmaglev" unload
ktap_test_result "dkms remove kmaglev/$VERSION --all" logged dkms-remove dkms remove "kmaglev/$VERSION" --all
ktap_test_result "the module is gone: no modinfo, no file, no DKMS record" bash -c "
	$(declare -f gone); OVL=$OVL KVER=$KVER gone dkms-remove && [[ ! -e /var/lib/dkms/kmaglev ]]"
ktap_test_result "/lib/modules/$KVER, /usr/local, /etc as before dkms install" same_as "$OVL/changes.before"

# --- make install, make uninstall -----------------------------------------------------------------
ktap_print_msg "make install in a copy of the tree built on the host for $KVER"
SRC=$PREP/src
ktap_test_result "make install" logged make-install make -C "$SRC" install
ktap_test_result "installed: module, CLI, daemon, man page, completion, unit, example configuration" bash -c "
	[[ \$(modinfo -n kmaglev) == /lib/modules/$KVER/updates/kmod/kmaglev.ko ]] &&
	[[ -x /usr/local/sbin/kmaglev && -x /usr/local/sbin/kmaglevd ]] &&
	[[ -f /usr/local/share/man/man8/kmaglev.8 ]] &&
	[[ -f /usr/local/share/bash-completion/completions/kmaglev ]] &&
	grep -qx 'ExecStart=/usr/local/sbin/kmaglev daemon' /usr/local/lib/systemd/system/kmaglev.service &&
	cmp $SRC/Documentation/examples/kmaglev.yaml /etc/kmaglev/kmaglev.yaml.example &&
	/usr/local/sbin/kmaglev --version | grep -F 'kmaglev $VERSION ' &&
	/usr/local/sbin/kmaglevd --version | grep -F 'kmaglev $VERSION ' &&
	/usr/local/sbin/kmaglev daemon --check /etc/kmaglev/kmaglev.yaml.example"
ktap_test_result "the installed CLI loads the module by itself (genetlink family alias)" bash -c "
	/usr/local/sbin/kmaglev family && [[ -d /sys/module/kmaglev ]]"
ktap_test_result "modprobe -r kmaglev" unload
ktap_test_result "modprobe kmaglev loads it and its dependencies" load
ktap_test_result "a service forwards, configured by the installed CLI" forward /usr/local/sbin/kmaglev
ktap_test_result "modprobe -r kmaglev" unload
ktap_test_result "make uninstall" logged make-uninstall make -C "$SRC" uninstall
ktap_test_result "the module is gone: no modinfo, no file" bash -c "
	$(declare -f gone); OVL=$OVL KVER=$KVER gone make-uninstall"
ktap_test_result "/lib/modules/$KVER, /usr/local, /etc as before make install" same_as "$OVL/changes.before"
# An edited example configuration is the operator's: uninstall keeps it. (The userland half in
# a staging DESTDIR: no depmod, which takes minutes here.)
keep_edited() {
	local st=$OVL/stage
	make -C "$SRC" -s install-userland DESTDIR="$st" >/dev/null &&
		echo "# edited" >>"$st/etc/kmaglev/kmaglev.yaml.example" &&
		make -C "$SRC" -s uninstall-userland DESTDIR="$st" &&
		[[ -f $st/etc/kmaglev/kmaglev.yaml.example && ! -e $st/usr/local/sbin/kmaglev ]] &&
		[[ ! -e $st/usr/local/sbin/kmaglevd ]] &&
		[[ -z $(find "$st" -mindepth 1 ! -path "$st/etc" ! -path "$st/etc/kmaglev*" \
			! -path "$st/usr" ! -path "$st/usr/local" ! -path "$st/usr/local/sbin" \
			! -path "$st/usr/local/share" ! -path "$st/usr/local/share/man" \
			! -path "$st/usr/local/lib" | tee /dev/stderr) ]]
}
ktap_test_result "make uninstall keeps an edited example configuration, removes the rest" keep_edited
ktap_finished
