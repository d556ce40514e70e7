/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi header (kshim.h). */
#ifndef KSHIM_LINUX_IN6_H
#define KSHIM_LINUX_IN6_H

#include_next <linux/in6.h>
#include "../kshim.h"

#endif
