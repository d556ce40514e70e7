#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of fuzz_bgp (fuzz/corpus/bgp/): BGP messages spelled out by hand
from the RFC layouts, not made by the encoder under test. Run once; the outputs are committed.

    python3 fuzz/gen_corpus.py [DIR]
"""
from seedwriter import write_seeds

MARKER = b"\xff" * 16


def msg(type_, body):
    return MARKER + (19 + len(body)).to_bytes(2, "big") + bytes([type_]) + body


def attr(flags, type_, value):
    if len(value) > 255:
        return bytes([flags | 0x10, type_]) + len(value).to_bytes(2, "big") + value
    return bytes([flags, type_, len(value)]) + value


def update(withdrawn=b"", attrs=b"", nlri=b""):
    return msg(2, len(withdrawn).to_bytes(2, "big") + withdrawn +
               len(attrs).to_bytes(2, "big") + attrs + nlri)


def open_(my_as, hold, bgp_id, opt, optlen=None):
    return msg(1, bytes([4]) + my_as.to_bytes(2, "big") + hold.to_bytes(2, "big") +
               bytes(bgp_id) + bytes([len(opt) if optlen is None else optlen]) + opt)


CAPS = (bytes([1, 4, 0, 1, 0, 1]) +              # MP IPv4 unicast
        bytes([1, 4, 0, 2, 0, 1]) +              # MP IPv6 unicast
        bytes([2, 0]) +                          # route refresh
        bytes([64, 10, 0x80, 120, 0, 1, 1, 0x80, 0, 2, 1, 0]) +  # GR, R, 120 s, v4 fwd, v6
        bytes([65, 4]) + (4200000001).to_bytes(4, "big"))        # 4-octet AS

ORIGIN = attr(0x40, 1, b"\x00")
ASP_EMPTY = attr(0x40, 2, b"")
ASP_4 = attr(0x40, 2, b"\x02\x01" + (4200000001).to_bytes(4, "big"))
NH = attr(0x40, 3, bytes([192, 0, 2, 1]))
MED = attr(0x80, 4, (10).to_bytes(4, "big"))
LP = attr(0x40, 5, (100).to_bytes(4, "big"))
COMM = attr(0xc0, 8, bytes.fromhex("ffff0000fde90064"))
LARGE = attr(0xc0, 32, bytes.fromhex("fa56ea01" "00000001" "00000002"))
V6_NH = bytes.fromhex("20010db8000000000000000000000001")
V6_LL = bytes.fromhex("fe800000000000000000000000000001")
V6_PFX = bytes([48]) + bytes.fromhex("20010db80001") + bytes([128]) + bytes(15) + b"\x10"

SEEDS = {
    "keepalive": msg(4, b""),
    "open_caps": open_(23456, 90, [192, 0, 2, 1], bytes([2, len(CAPS)]) + CAPS),
    "open_bare": open_(65001, 0, [10, 0, 0, 1], b""),
    # RFC 9072: Non-Ext OP Len 255, Non-Ext OP Type 255, 2-octet lengths
    "open_ext": open_(65001, 180, [10, 0, 0, 2],
                      b"\xff" + (3 + len(CAPS)).to_bytes(2, "big") + b"\x02" +
                      len(CAPS).to_bytes(2, "big") + CAPS, optlen=255),
    "update_v4_ibgp": update(attrs=ORIGIN + ASP_EMPTY + NH + LP,
                             nlri=bytes([32, 192, 0, 2, 10, 24, 198, 51, 100])),
    "update_v4_ebgp": update(attrs=ORIGIN + ASP_4 + NH + MED + COMM + LARGE,
                             nlri=bytes([25, 203, 0, 113, 128])),
    "update_v4_withdraw": update(withdrawn=bytes([32, 192, 0, 2, 10, 8, 10])),
    "update_v6_nh16": update(attrs=ORIGIN + ASP_EMPTY + LP +
                             attr(0x80, 14, b"\x00\x02\x01\x10" + V6_NH + b"\x00" + V6_PFX)),
    "update_v6_nh32": update(attrs=ORIGIN + ASP_4 + MED + COMM +
                             attr(0x80, 14, b"\x00\x02\x01\x20" + V6_NH + V6_LL + b"\x00" +
                                  V6_PFX) + LARGE),
    "update_v6_withdraw": update(attrs=attr(0x80, 15, b"\x00\x02\x01" + V6_PFX)),
    "update_aggregator": update(attrs=ORIGIN + ASP_4 + NH + attr(0x40, 6, b"") +
                                attr(0xc0, 7, bytes.fromhex("0000fde90a000001")) +
                                attr(0xc0, 99, b"\x01"), nlri=bytes([0])),
    "eor_v4": update(),
    "eor_v6": update(attrs=attr(0x80, 15, b"\x00\x02\x01")),
    "notification_hold": msg(3, b"\x04\x00"),
    "notification_cease": msg(3, b"\x06\x02\x0bmaintenance"),
    "route_refresh": msg(5, b"\x00\x02\x00\x01"),
}
# a stream: OPEN, KEEPALIVE, UPDATEs, EoR, NOTIFICATION back to back
SEEDS["stream"] = b"".join(SEEDS[k] for k in ("open_caps", "keepalive", "update_v4_ebgp",
                                              "update_v6_nh32", "eor_v4", "eor_v6",
                                              "route_refresh", "notification_cease"))


def main():
    write_seeds(SEEDS, "bgp")


if __name__ == "__main__":
    main()
