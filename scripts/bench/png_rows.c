/*
 * png_rows: the PNG floor of scripts/bench.sh. Decodes each PNG named on the
 * command line with libpng, row by row, and throws the rows away: no
 * resampling, no output. Transforms: png_set_expand (palette, low bit depths,
 * tRNS) and png_set_scale_16 (16-bit -> 8-bit, rounded), the least a
 * thumbnailer must ask libpng for. Adam7 files get png_set_interlace_handling
 * and png_read_row for every row of every pass into one row buffer (libpng
 * "sparkles" each pass into it; the pixels are wrong but the work is all done).
 *
 * Build: cc -O2 -o png_rows png_rows.c -lpng16
 * Exit status 0 when every file decoded, 1 otherwise (one line on stderr each).
 */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static int decode(const char *path, unsigned long *checksum)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep volatile row = NULL;
    if (!png || !info) {
        fprintf(stderr, "%s: out of memory\n", path);
        fclose(f);
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "%s: libpng error\n", path);
        free(row);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(f);
        return 1;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_scale_16(png);
    int passes = png_set_interlace_handling(png); /* 1 unless Adam7 */
    png_read_update_info(png, info);

    png_uint_32 height = png_get_image_height(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    row = malloc(rowbytes);
    if (!row) png_error(png, "out of memory");
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < height; y++)
            png_read_row(png, row, NULL);
    *checksum += row[rowbytes / 2];
    png_read_end(png, NULL);

    free(row);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.png...\n", argv[0]);
        return 2;
    }
    int failed = 0;
    unsigned long checksum = 0;
    for (int i = 1; i < argc; i++)
        failed |= decode(argv[i], &checksum);
    /* Keep the last byte of each decode observable. */
    if (getenv("PNG_ROWS_VERBOSE")) printf("checksum %lu\n", checksum);
    return failed;
}
