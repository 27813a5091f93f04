#ifndef RICHPUSH_CWEBP_SHIM_H
#define RICHPUSH_CWEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <webp/decode.h>

/*
 * WebPGetFeatures is an inline function that passes the library's ABI version; this wrapper gives Swift the
 * features it needs as plain values. Returns 0, or the VP8StatusCode of a failure.
 */
static inline int rp_webp_features(const uint8_t *data, size_t size, int *width, int *height, int *has_alpha, int *has_animation) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) return (int)status;
    *width = features.width;
    *height = features.height;
    *has_alpha = features.has_alpha;
    *has_animation = features.has_animation;
    return 0;
}

#endif
