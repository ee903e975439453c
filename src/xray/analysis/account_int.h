/* What the HTML report reads of account's matching (account.c), so that
 * it keeps no second stack of open calls per thread: threads can be
 * millions. */
#ifndef TK_XRAY_ACCOUNT_INT_H
#define TK_XRAY_ACCOUNT_INT_H

#include <tracekit/xray_account.h>

#include "xray/xray_int.h"

/* The open calls (with entry times) of the thread of the last call record
 * added. The call an exit just closed stays at index `depth` (and the
 * bottom call's entry at 0) until the thread's next entry. NULL before
 * any call record. */
const tk_xr_calls *tk_xa_last_calls(const tk_xray_account *a);
/* The open calls of thread `tid`, or NULL when it made no call record. */
const tk_xr_calls *tk_xa_calls_of(const tk_xray_account *a, uint32_t tid);
/* Threads with at least one matched entry (their call stacks grew). */
size_t tk_xa_calling_threads(const tk_xray_account *a);

#endif
