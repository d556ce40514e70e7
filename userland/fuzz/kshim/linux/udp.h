/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi header (kshim.h). */
#ifndef KSHIM_LINUX_UDP_H
#define KSHIM_LINUX_UDP_H

#include_next <linux/udp.h>
#include "../kshim.h"

#endif
