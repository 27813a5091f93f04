#ifndef RICHPUSH_CPNG_SHIM_H
#define RICHPUSH_CPNG_SHIM_H

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libpng reports errors by longjmp, which must never cross Swift frames. This decoder keeps setjmp and every
 * libpng call inside one C function and reports failures as a message in `error`.
 *
 * It decodes row by row, so validating an image needs one row of memory, and checks the pixel count from IHDR
 * before any pixel memory exists: a decompression bomb fails fast and small.
 */

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char *error;
    size_t error_capacity;
} rp_png_source;

static void rp_png_read(png_structp png, png_bytep out, size_t length) {
    rp_png_source *source = (rp_png_source *)png_get_io_ptr(png);
    if (source->size - source->offset < length) {
        png_error(png, "the data ends before the image does (truncated)");
    }
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

static void rp_png_fail(png_structp png, png_const_charp message) {
    rp_png_source *source = (rp_png_source *)png_get_error_ptr(png);
    snprintf(source->error, source->error_capacity, "%s", message);
    png_longjmp(png, 1);
}

static void rp_png_warn(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/*
 * Hands each decoded row to the caller, top to bottom: `y` counts from 0 and `row` holds width × channels bytes that
 * are valid until the call returns. The sink must not call libpng.
 */
typedef void (*rp_png_row_sink)(void *context, const uint8_t *row, uint32_t y, uint32_t width, uint32_t height,
                                uint32_t channels);

/*
 * Decodes the PNG in `data` to 8 bits per sample: RGBA, or RGB when `rgb_if_opaque` is set and the image carries no
 * alpha (no alpha channel, no tRNS chunk); each row reaches `sink` with its channel count. With `sink` NULL it only
 * validates, holding one row in memory; an interlaced image needs all its rows before the first is final, so it is
 * decoded whole first.
 * Returns 0 on success, 1 when the pixel count exceeds `max_pixels` (width and height are still set), 2 when the
 * data is not a valid PNG.
 */
static inline int rp_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int rgb_if_opaque,
                                rp_png_row_sink sink, void *context, uint32_t *width, uint32_t *height,
                                char *error, size_t error_capacity) {
    rp_png_source source = {data, size, 0, error, error_capacity};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, rp_png_fail, rp_png_warn);
    if (png == NULL) {
        snprintf(error, error_capacity, "out of memory");
        return 2;
    }
    png_infop info = png_create_info_struct(png);
    /* volatile: assigned after setjmp and freed by the longjmp path. */
    png_bytep volatile pixels = NULL;
    volatile int result = 2;
    if (info == NULL) {
        snprintf(error, error_capacity, "out of memory");
        png_destroy_read_struct(&png, NULL, NULL);
        return 2;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return result == 1 ? 1 : 2;
    }
    png_set_read_fn(png, &source, rp_png_read);
    /* A bad CRC in any chunk, critical or ancillary, is corruption. */
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_user_limits(png, 1000000, 1000000);
    png_set_chunk_malloc_max(png, 8 * 1024 * 1024);
    png_read_info(png, info);

    png_uint_32 w = png_get_image_width(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    *width = w;
    *height = h;
    if ((uint64_t)w * (uint64_t)h > max_pixels) {
        result = 1;
        snprintf(error, error_capacity, "the image has %u x %u pixels, more than the limit of %llu", w, h,
                 (unsigned long long)max_pixels);
        png_longjmp(png, 1);
    }

    int has_alpha = (png_get_color_type(png, info) & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    if (has_alpha || !rgb_if_opaque) {
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 channels = png_get_channels(png, info);

    size_t stride = png_get_rowbytes(png, info);
    /* Interlaced rows are refined pass by pass, so every row stays in memory; otherwise one row is reused. */
    size_t rows_kept = (passes > 1 && sink != NULL) ? h : 1;
    pixels = (png_bytep)malloc(stride * rows_kept);
    if (pixels == NULL) {
        png_error(png, "out of memory");
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < h; y++) {
            png_bytep row = pixels + (rows_kept > 1 ? stride * y : 0);
            png_read_row(png, row, NULL);
            if (sink != NULL && passes == 1) {
                sink(context, row, y, w, h, channels);
            }
        }
    }
    png_read_end(png, NULL);
    if (source.offset != source.size) {
        snprintf(error, error_capacity, "%zu bytes follow the end of the image", source.size - source.offset);
        png_longjmp(png, 1);
    }
    if (sink != NULL && passes > 1) {
        for (png_uint_32 y = 0; y < h; y++) {
            sink(context, pixels + stride * y, y, w, h, channels);
        }
    }
    free(pixels);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

#endif
