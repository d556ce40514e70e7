/* SPDX-License-Identifier: GPL-2.0 */
/* memcpy(), memset() (kshim.h). */
#include <string.h>
