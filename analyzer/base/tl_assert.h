/* Defensive branches, after sqlite's ALWAYS()/NEVER(): a condition that the
 * code believes can never (or always) hold. Debug builds (TL_DEBUG) abort
 * when the belief is wrong; release builds take the graceful branch. */
#ifndef TL_ASSERT_H
#define TL_ASSERT_H

#ifdef TL_DEBUG
#include <assert.h>
#define TL_ALWAYS(x) (assert(x), 1)
#define TL_NEVER(x) (assert(!(x)), 0)
#else
#define TL_ALWAYS(x) (x)
#define TL_NEVER(x) (x)
#endif

#endif
