/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi header (kshim.h). */
#ifndef KSHIM_LINUX_ICMPV6_H
#define KSHIM_LINUX_ICMPV6_H

#include_next <linux/icmpv6.h>
#include "../kshim.h"

#endif
