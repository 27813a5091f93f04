#ifndef RICHPUSH_CTURBOJPEG_SHIM_H
#define RICHPUSH_CTURBOJPEG_SHIM_H

/*
 * libjpeg-turbo through its TurboJPEG API: every call reports failure by its return value and a message on the
 * handle, never by longjmp, so Swift calls it directly.
 */
#include <turbojpeg.h>

#endif
