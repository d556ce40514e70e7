/* SPDX-License-Identifier: GPL-2.0 */
/* (kshim.h) */
#define EXPORT_SYMBOL_IF_KUNIT(sym)
