/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi header (kshim.h). */
#ifndef KSHIM_LINUX_ICMP_H
#define KSHIM_LINUX_ICMP_H

#include_next <linux/icmp.h>
#include "../kshim.h"

#endif
