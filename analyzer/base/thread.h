/* Threads with the stack every worker of the program gets: 8 MiB, glibc's
 * default, on every C library (musl, the static build, gives 128 KiB, too
 * little for the parser and the index on deep code).
 *
 * Owns: nothing; a helper around pthread_create. */
#ifndef TL_THREAD_H
#define TL_THREAD_H

#include <pthread.h>
#include <stddef.h>

/* The stack size of every thread the program starts. */
#define TL_THREAD_STACK ((size_t)8 << 20)

/* Initialises `attr` with a TL_THREAD_STACK stack (pthread_attr_destroy
 * it after use). Returns 0 or an error number, as pthread_attr_init. */
int tl_thread_attr_init(pthread_attr_t *attr);
/* Starts `fn(arg)` on a thread with a TL_THREAD_STACK stack. Returns 0 or
 * an error number, as pthread_create. */
int tl_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
