/* One 64-bit mixing step (the first half of MurmurHash3's finalizer), for
 * the open-addressing tables keyed by a pointer or a packed integer
 * (parents.c, nodememo.c, scopemap.c): their low bits index the slots, so
 * the high bits must reach them. */
#ifndef TL_HASH_H
#define TL_HASH_H

#include <stdint.h>

static inline uint32_t tl_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

static inline uint32_t tl_hash_ptr(const void *p)
{
	return tl_hash_mix((uint64_t)(uintptr_t)p);
}

#endif
