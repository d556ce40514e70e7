/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev route flush (route_flush.c): the backends' cached routes released when a device of
 * their netns goes away, so that none pins it.
 */
#ifndef _KMAGLEV_ROUTE_FLUSH_H
#define _KMAGLEV_ROUTE_FLUSH_H

struct kmg_net;

/* route_flush.c */
void kmg_route_flush_net_init(struct kmg_net *kn);
void kmg_route_flush_net_exit(struct kmg_net *kn);
int kmg_route_flush_init(void);
void kmg_route_flush_exit(void);

#endif /* _KMAGLEV_ROUTE_FLUSH_H */
