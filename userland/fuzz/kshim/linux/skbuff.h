/* SPDX-License-Identifier: GPL-2.0 */
/* The socket buffer model (kshim.h). */
#include "../kshim.h"
