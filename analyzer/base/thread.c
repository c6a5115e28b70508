#include "base/thread.h"

int tl_thread_attr_init(pthread_attr_t *attr)
{
	int rc = pthread_attr_init(attr);
	if (rc == 0)
		rc = pthread_attr_setstacksize(attr, TL_THREAD_STACK);
	return rc;
}

int tl_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = tl_thread_attr_init(&attr);
	if (rc != 0)
		return rc;
	rc = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}
