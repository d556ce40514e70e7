/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev backend selection (select.c): the per-flow decision of one packet, in the packet
 * path (under RCU, bottom halves off).
 */
#ifndef _KMAGLEV_SELECT_H
#define _KMAGLEV_SELECT_H

#include <linux/types.h>

#include "stats.h"

struct kmg_backend;
struct kmg_conn;
struct kmg_net;
struct kmg_pkt;
struct kmg_service;
struct kmg_table;

/* select.c: the per-flow decision of one packet */
struct kmg_flow {
	struct kmg_conn *c;	/* the flow's entry, once looked up */
	bool looked_up;
	bool is_new;		/* the packet started a flow */
	u8 dscp;		/* for kmg_flow_decide(): a new flow's class (shed.c) */
	enum kmg_counter why;	/* no backend: the drop counter */
};

u64 kmg_flow_hash(const struct kmg_table *t, u32 mode, const struct kmg_pkt *p);
struct kmg_backend *kmg_flow_fast(struct kmg_net *kn, struct kmg_flow *f,
				  const struct kmg_pkt *p, struct kmg_service **svcp);
struct kmg_backend *kmg_flow_decide(struct kmg_net *kn, struct kmg_flow *f,
				    struct kmg_service *svc, const struct kmg_pkt *p);

#endif /* _KMAGLEV_SELECT_H */
