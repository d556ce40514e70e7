#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of fuzz_parse (fuzz/corpus/parse/): IPv4 and IPv6 packets spelled
out by hand from the RFC layouts, each behind fuzz_parse's control byte (bit 0: IPv6; bits 1-7:
linear bytes, 127 all). Run once; the outputs are committed.

    python3 fuzz/gen_corpus_parse.py [DIR]
"""
import struct

from seedwriter import write_seeds

VIP4 = bytes([192, 0, 2, 10])
CLI4 = bytes([198, 51, 100, 1])
RTR4 = bytes([203, 0, 113, 1])
VIP6 = bytes.fromhex("20010db8000000000000000000000010")
CLI6 = bytes.fromhex("20010db8000100000000000000000001")
RTR6 = bytes.fromhex("20010db8ffff00000000000000000001")
ALL = 127


def ctl(v6, linear=ALL):
    return bytes([(linear << 1) | int(v6)])


def ip4(proto, payload, src=CLI4, dst=VIP4, ttl=64, frag=0, opts=b"", tot=None):
    ihl = 5 + len(opts) // 4
    tot = 20 + len(opts) + len(payload) if tot is None else tot
    return struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot, 1, frag, ttl, proto, 0,
                       src, dst) + opts + payload


def tcp(sport=40000, dport=80, flags=0x02, doff=5):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, doff << 4, flags, 65535, 0, 0) + \
        bytes((doff - 5) * 4)


def udp(sport=40000, dport=53, payload=b"q"):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def icmp4(type_, code=0, rest=b"\x00\x00\x00\x00", payload=b""):
    return struct.pack("!BBH", type_, code, 0) + rest + payload


def ip6(nh, payload, src=CLI6, dst=VIP6, hlim=64):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, hlim, src, dst) + payload


def ext(nh, body=b"\x01\x04\x00\x00\x00\x00"):
    """An options header (hop-by-hop, destination): next header, length in 8 octets - 1."""
    assert (2 + len(body)) % 8 == 0
    return bytes([nh, (2 + len(body)) // 8 - 1]) + body


def rthdr(nh, segleft=0):
    return bytes([nh, 2, 4, segleft, 0, 0, 0, 0]) + VIP6       # type 4 (SRH), one segment


def frag6(nh, off=0, more=False):
    return struct.pack("!BBHI", nh, 0, (off << 3) | int(more), 7)


def ah(nh):
    return bytes([nh, 4, 0, 0]) + struct.pack("!II", 0x100, 1) + bytes(12)  # 24 octets


def icmp6(type_, code=0, rest=b"\x00\x00\x00\x00", payload=b""):
    return struct.pack("!BBH", type_, code, 0) + rest + payload


# the packet the VIP sent back to the client, as an ICMP error quotes it
Q4_TCP = ip4(6, tcp(80, 40000, 0x12), src=VIP4, dst=CLI4)[:28]
Q4_UDP = ip4(17, udp(53, 40000), src=VIP4, dst=CLI4)[:28]
Q6_TCP = ip6(6, tcp(80, 40000, 0x12), src=VIP6, dst=CLI6)[:48]
Q6_UDP = ip6(17, udp(53, 40000), src=VIP6, dst=CLI6)

SEEDS = {
    "v4_tcp_syn": ctl(0) + ip4(6, tcp()),
    "v4_tcp_opts": ctl(0) + ip4(6, tcp(flags=0x10, doff=8)),
    "v4_tcp_split": ctl(0, 20) + ip4(6, tcp(flags=0x11)),
    "v4_tcp_nolinear": ctl(0, 0) + ip4(6, tcp()),
    "v4_udp": ctl(0) + ip4(17, udp()),
    "v4_udp_ipopts": ctl(0, 22) + ip4(17, udp(), opts=bytes([0x94, 4, 0, 0])),  # router alert
    "v4_sctp": ctl(0) + ip4(132, bytes(12)),
    "v4_gre_to_vip": ctl(0) + ip4(47, b"\x00\x00\x08\x00" + ip4(6, tcp(), dst=VIP4)),
    "v4_ipip_to_vip": ctl(0) + ip4(4, ip4(17, udp())),
    "v4_ttl0": ctl(0) + ip4(6, tcp(), ttl=0),
    "v4_ttl1": ctl(0) + ip4(17, udp(), ttl=1),
    "v4_frag_first": ctl(0) + ip4(17, udp(), frag=0x2000),
    "v4_frag_later": ctl(0) + ip4(17, b"tail", frag=185),
    "v4_frag_tiny": ctl(0) + ip4(6, b"\x9c\x40", frag=0x2000),
    "v4_totlen_short": ctl(0) + ip4(6, tcp(), tot=19),
    "v4_totlen_long": ctl(0) + ip4(6, tcp(), tot=1500),
    "v4_ihl15": ctl(0) + ip4(6, tcp(), opts=bytes([1]) * 40),
    "v4_truncated_tcp": ctl(0) + ip4(6, tcp())[:30],
    "v4_icmp_echo": ctl(0) + ip4(1, icmp4(8, rest=b"\x12\x34\x00\x01", payload=b"ping")),
    "v4_icmp_echo_reply": ctl(0) + ip4(1, icmp4(0)),
    "v4_icmp_unreach_tcp": ctl(0) + ip4(1, icmp4(3, 4, b"\x00\x00\x05\xdc", Q4_TCP), src=RTR4),
    "v4_icmp_unreach_udp": ctl(0, 30) + ip4(1, icmp4(3, 3, payload=Q4_UDP), src=RTR4),
    "v4_icmp_timex_tcp": ctl(0) + ip4(1, icmp4(11, 0, payload=Q4_TCP), src=RTR4),
    "v4_icmp_paramprob": ctl(0) + ip4(1, icmp4(12, 0, b"\x14\x00\x00\x00", Q4_TCP), src=RTR4),
    "v4_icmp_quench": ctl(0) + ip4(1, icmp4(4, 0, payload=Q4_UDP), src=RTR4),
    "v4_icmp_quote_icmp": ctl(0) + ip4(1, icmp4(3, 1, payload=ip4(
        1, icmp4(3, 1, payload=Q4_TCP), src=VIP4, dst=CLI4)), src=RTR4),
    "v4_icmp_quote_spoofed": ctl(0) + ip4(1, icmp4(3, 1, payload=ip4(
        6, tcp(80, 40000), src=RTR4, dst=CLI4)[:28]), src=RTR4),
    "v4_icmp_quote_ports": ctl(0) + ip4(1, icmp4(3, 1, payload=Q4_TCP[:24]), src=RTR4),
    "v4_icmp_quote_short": ctl(0) + ip4(1, icmp4(3, 1, payload=Q4_TCP[:22]), src=RTR4),
    "v4_icmp_quote_opts": ctl(0) + ip4(1, icmp4(3, 1, payload=ip4(
        17, udp(53, 40000), src=VIP4, dst=CLI4, opts=bytes([1, 1, 1, 0]))[:32]), src=RTR4),
    "v4_icmp_quote_frag": ctl(0) + ip4(1, icmp4(3, 1, payload=ip4(
        17, udp(53, 40000), src=VIP4, dst=CLI4, frag=0x2000)[:28]), src=RTR4),
    "v6_tcp": ctl(1) + ip6(6, tcp()),
    "v6_tcp_nolinear": ctl(1, 0) + ip6(6, tcp()),
    "v6_udp": ctl(1, 40) + ip6(17, udp()),
    "v6_hop_dst_tcp": ctl(1) + ip6(0, ext(60, ext(6)[2:]) + ext(6) + tcp()),
    "v6_routing_udp": ctl(1, 48) + ip6(43, rthdr(17) + udp()),
    "v6_ah_tcp": ctl(1) + ip6(51, ah(6) + tcp()),
    "v6_esp": ctl(1) + ip6(50, bytes(16)),
    "v6_nonext": ctl(1) + ip6(59, b""),
    "v6_long_chain": ctl(1) + ip6(60, b"".join(ext(60) for _ in range(30)) + ext(17) + udp()),
    "v6_ext_overlong": ctl(1) + ip6(60, bytes([17, 40]) + bytes(6) + udp()),
    "v6_frag_first": ctl(1) + ip6(44, frag6(17, 0, True) + udp()),
    "v6_frag_later": ctl(1) + ip6(44, frag6(17, 185) + b"tail"),
    "v6_frag_later_ext": ctl(1) + ip6(44, frag6(60, 185) + ext(17)),
    "v6_frag_atomic": ctl(1) + ip6(44, frag6(6) + tcp()),
    "v6_frag_short": ctl(1) + ip6(44, frag6(17)[:3]),
    "v6_gre_to_vip": ctl(1) + ip6(47, b"\x00\x00\x86\xdd" + ip6(6, tcp())),
    "v6_ip6ip6": ctl(1) + ip6(41, ip6(17, udp())),
    "v6_hlim0": ctl(1) + ip6(6, tcp(), hlim=0),
    "v6_icmp_echo": ctl(1) + ip6(58, icmp6(128, rest=b"\x12\x34\x00\x01", payload=b"ping")),
    "v6_icmp_ns": ctl(1) + ip6(58, icmp6(135, payload=VIP6), dst=VIP6),
    "v6_icmp_unreach_tcp": ctl(1) + ip6(58, icmp6(1, 4, payload=Q6_TCP), src=RTR6),
    "v6_icmp_ptb_udp": ctl(1, 50) + ip6(58, icmp6(2, 0, b"\x00\x00\x05\x00", Q6_UDP), src=RTR6),
    "v6_icmp_timex_ext": ctl(1) + ip6(58, icmp6(3, 0, payload=ip6(
        60, ext(44) + frag6(6) + tcp(80, 40000), src=VIP6, dst=CLI6)), src=RTR6),
    "v6_icmp_quote_frag": ctl(1) + ip6(58, icmp6(1, 0, payload=ip6(
        44, frag6(17, 0, True) + udp(53, 40000), src=VIP6, dst=CLI6)), src=RTR6),
    "v6_icmp_quote_icmp": ctl(1) + ip6(58, icmp6(1, 0, payload=ip6(
        58, icmp6(1, 0, payload=Q6_TCP), src=VIP6, dst=CLI6)), src=RTR6),
    "v6_icmp_quote_spoofed": ctl(1) + ip6(58, icmp6(1, 0, payload=ip6(
        6, tcp(80, 40000), src=RTR6, dst=CLI6)), src=RTR6),
    "v6_icmp_quote_short": ctl(1) + ip6(58, icmp6(1, 0, payload=Q6_TCP[:42]), src=RTR6),
    "v6_icmp_quote_ah": ctl(1) + ip6(58, icmp6(4, 0, b"\x00\x00\x00\x28", ip6(
        51, ah(17) + udp(53, 40000), src=VIP6, dst=CLI6)), src=RTR6),
    "v6_icmp_quote_nonext": ctl(1) + ip6(58, icmp6(1, 0, payload=ip6(
        59, b"", src=VIP6, dst=CLI6)), src=RTR6),
    "v6_icmp_truncated": ctl(1) + ip6(58, icmp6(1)[:5]),
    "v6_short_header": ctl(1) + ip6(6, b"")[:39],
    "v4_as_v6": ctl(1) + ip4(6, tcp()) + bytes(20),
    "v6_as_v4": ctl(0) + ip6(6, tcp()),
}


def main():
    write_seeds(SEEDS, "parse")


if __name__ == "__main__":
    main()
