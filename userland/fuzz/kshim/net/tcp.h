/* SPDX-License-Identifier: GPL-2.0 */
/* (kshim.h) */
#include <linux/tcp.h>
