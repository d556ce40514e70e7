/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi header (kshim.h). */
#ifndef KSHIM_LINUX_SOCKET_H
#define KSHIM_LINUX_SOCKET_H

#include_next <linux/socket.h>
#include "../kshim.h"

#endif
