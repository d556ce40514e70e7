/* SPDX-License-Identifier: GPL-2.0 */
/* kmaglev CLI: generic netlink transport over libmnl, with extended-ack error reporting. */
#ifndef KMAGLEV_NL_H
#define KMAGLEV_NL_H

#include <stdint.h>
#include <libmnl/libmnl.h>

struct kmg_nl {
	struct mnl_socket *sk;
	uint16_t family_id;
	uint8_t family_version;
	uint32_t events_group;		/* multicast group id, 0 if absent */
	unsigned int seq;
	char errmsg[256];		/* extack message of the last failed request */
	int erroff;			/* offset of the offending attribute, or -1 */
};

int kmg_nl_open(struct kmg_nl *nl, const char *family);
void kmg_nl_close(struct kmg_nl *nl);

/* Start a request for @cmd of the opened family in @buf (MNL_SOCKET_BUFFER_SIZE or larger). */
struct nlmsghdr *kmg_nl_msg(struct kmg_nl *nl, void *buf, uint8_t cmd, uint16_t flags);

/*
 * Send @nlh and process replies until the ack (or dump end). @cb runs for each data message.
 * Returns 0 or a negative errno; on error nl->errmsg holds the kernel's extack text, if any.
 */
int kmg_nl_talk(struct kmg_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

#endif
