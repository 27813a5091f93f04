#ifndef RICHPUSH_CPNG_SHIM_H
#define RICHPUSH_CPNG_SHIM_H

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
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
 * Decodes the PNG in `data` to 8-bit RGBA. With `rgba` NULL it only validates. Returns 0 on success, 1 when the
 * pixel count exceeds `max_pixels` (width and height are still set), 2 when the data is not a valid PNG.
 */
static inline int rp_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, uint8_t *rgba, size_t rgba_capacity,
                                uint32_t *width, uint32_t *height, char *error, size_t error_capacity) {
    rp_png_source source = {data, size, 0, error, error_capacity};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, rp_png_fail, rp_png_warn);
    if (png == NULL) {
        snprintf(error, error_capacity, "out of memory");
        return 2;
    }
    png_infop info = png_create_info_struct(png);
    png_bytep row = NULL;
    volatile int result = 2;
    if (info == NULL) {
        snprintf(error, error_capacity, "out of memory");
        png_destroy_read_struct(&png, NULL, NULL);
        return 2;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_free(png, row);
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

    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t stride = (size_t)w * 4;
    if (rgba != NULL && rgba_capacity < stride * h) {
        snprintf(error, error_capacity, "the output buffer is too small");
        png_longjmp(png, 1);
    }
    if (rgba == NULL) {
        row = (png_bytep)png_malloc(png, png_get_rowbytes(png, info));
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < h; y++) {
            png_read_row(png, rgba != NULL ? rgba + stride * y : row, NULL);
        }
    }
    png_read_end(png, NULL);
    if (source.offset != source.size) {
        snprintf(error, error_capacity, "%zu bytes follow the end of the image", source.size - source.offset);
        png_longjmp(png, 1);
    }
    png_free(png, row);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

#endif
