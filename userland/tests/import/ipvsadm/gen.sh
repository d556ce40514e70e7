#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Makes the ipvsadm fixtures of test_import.c: real "ipvsadm-save -n" output from a kernel
# with IPVS, in a VM (Debian's 6.1 as installed: its ip_vs modules). Run from the top of the
# tree, as root:
#
#   selftests/vm/run --cpus 1 -- bash userland/tests/import/ipvsadm/gen.sh
#
# clean.save has only what maps to kmaglev; all.save has every kind of service and real
# server ipvsadm makes, mapped or not.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
for m in ip_vs ip_vs_rr ip_vs_wrr ip_vs_lc ip_vs_wlc ip_vs_sh ip_vs_mh ip_vs_dh ip_vs_pe_sip \
	 ip_vs_sed; do
	modprobe "$m"
done
ipvsadm --version

# What maps: tunnels (-i, ipip; GRE), TCP and UDP, IPv4 and IPv6, weights, persistence,
# source hashing. ipvsadm-save writes no thresholds (-x, -y): the -x given here is not in
# the output.
ipvsadm -C
ipvsadm -A -t 192.0.2.10:80 -s rr
ipvsadm -a -t 192.0.2.10:80 -r 10.0.0.11:80 -i -w 1
ipvsadm -a -t 192.0.2.10:80 -r 10.0.0.12:80 -i -w 2
ipvsadm -a -t 192.0.2.10:80 -r 10.0.0.13 -i -w 3 -x 1000
ipvsadm -A -u 192.0.2.10:53 -s mh -b mh-port
ipvsadm -a -u 192.0.2.10:53 -r 10.0.0.11:53 -i
ipvsadm -a -u 192.0.2.10:53 -r 10.0.0.12:53 -i -w 0
ipvsadm -A -t 192.0.2.11:443 -s wlc -p 300
ipvsadm -a -t 192.0.2.11:443 -r 10.0.0.21:443 -i -w 100
ipvsadm -a -t 192.0.2.11:443 -r 10.0.0.22:443 -i -w 100 --tun-type gre
ipvsadm -A -t [2001:db8::10]:443 -s sh
ipvsadm -a -t [2001:db8::10]:443 -r [2001:db8:1::1]:443 -i -w 5
ipvsadm -a -t [2001:db8::10]:443 -r 10.0.0.31:443 -i -w 5
ipvsadm -A -t 192.0.2.12:0 -s rr -p 600
ipvsadm -a -t 192.0.2.12:0 -r 10.0.0.41 -i
ipvsadm-save -n >"$dir/clean.save"

# And what does not (or maps by a note: DR): NAT with another port, fwmark services, netmask persistence, GUE,
# one-packet scheduling, SIP persistence, SCTP, thresholds' low end.
ipvsadm -A -t 192.0.2.20:80 -s wrr
ipvsadm -a -t 192.0.2.20:80 -r 10.0.1.1:80 -g -w 1
ipvsadm -a -t 192.0.2.20:80 -r 10.0.1.2:8080 -m -w 1
ipvsadm -a -t 192.0.2.20:80 -r 10.0.1.3:80 -i -w 1 -x 200 -y 100
ipvsadm -a -t 192.0.2.20:80 -r 10.0.1.4:80 -i --tun-type gue --tun-port 6080 --tun-nocsum
ipvsadm -A -f 1 -s rr
ipvsadm -a -f 1 -r 10.0.1.5:0 -g
ipvsadm -A -f 2 -6 -s lc -p 60
ipvsadm -a -f 2 -6 -r [2001:db8:1::5]:0 -i
ipvsadm -A -t 192.0.2.21:80 -s dh -p 120 -M 255.255.255.0
ipvsadm -a -t 192.0.2.21:80 -r 10.0.1.6:80 -i
ipvsadm -A -u 192.0.2.22:5060 -s sed -p 30 --pe sip -o
ipvsadm -a -u 192.0.2.22:5060 -r 10.0.1.7:5060 -i
ipvsadm -A -t [2001:db8::20]:80 -s sh -b sh-fallback,sh-port -p 300 -M 64
ipvsadm -a -t [2001:db8::20]:80 -r [2001:db8:1::7]:80 -g
ipvsadm -A --sctp-service 192.0.2.23:36412 -s rr
ipvsadm -a --sctp-service 192.0.2.23:36412 -r 10.0.1.8:36412 -i
ipvsadm-save -n >"$dir/all.save"
ipvsadm -Sn | cmp - "$dir/all.save" && echo "ipvsadm -Sn and ipvsadm-save -n agree"
ipvsadm -Ln
