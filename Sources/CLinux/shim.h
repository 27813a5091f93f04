#ifndef RICHPUSH_CLINUX_SHIM_H
#define RICHPUSH_CLINUX_SHIM_H

/*
 * Linux interfaces the daemon's loop uses that the Glibc module does not bring: eventfd, signalfd, thread names and
 * glibc's malloc_trim.
 */
#include <malloc.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

extern int pthread_setname_np(pthread_t thread, const char *name);

/* Names the calling thread (15 characters at most), as `top -H` and core dumps show it. */
static inline int rp_name_this_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

#endif
