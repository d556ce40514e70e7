/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi struct tcphdr, and tcp_flag_byte() (kshim.h). */
#ifndef KSHIM_LINUX_TCP_H
#define KSHIM_LINUX_TCP_H

#include_next <linux/tcp.h>
#include "../kshim.h"

#define tcp_flag_byte(th)	(((const u8 *)(th))[13])

#endif
