/*
 * libjpeg's virtual block arrays, kept by us so that one larger than the
 * working-memory limit spills to a temporary file instead of being refused.
 *
 * A progressive JPEG (and a multi-scan baseline one) is decoded into a
 * whole-image coefficient buffer, 128 bytes for every 8×8 block of every
 * component, whatever the DCT scale: 486 MB for a 9000×9000 4:4:4 file. The
 * distribution builds of libjpeg-turbo have no backing store (jmemnobs.c), so
 * these hooks replace the memory manager's request/realize/access methods for
 * block arrays. When every array fits under the limit beside what libjpeg
 * already holds, each lives whole in memory, as libjpeg would keep it. When
 * not, each keeps a window of rows in memory (enough for libjpeg's widest
 * access, at most CT_JPEG_SPILL_WINDOW_BYTES) and the rest in one unlinked file
 * in $TMPDIR (or /tmp), with libjpeg's own window policy (jmemmgr.c): every
 * scan sweeps the array top to bottom once, so the file is read and written
 * sequentially, once per scan that touches the array.
 *
 * libjpeg only supports image-lifetime virtual arrays, so the arrays, the
 * windows (counted like every other allocation) and the file all go when the
 * image pool is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ct_jpeg.h"

/*
 * Most bytes of a spilled array's window (a few rows of blocks; never fewer
 * rows than libjpeg's widest access). Every scan moves through the file
 * sequentially whatever the window's size, so a larger one saves only calls.
 */
#define CT_JPEG_SPILL_WINDOW_BYTES (1u << 20)

/* Completes jpeglib.h's opaque type: only these functions ever look inside. */
struct jvirt_barray_control {
    JBLOCKARRAY window;            /* rows [window_start, window_start + window_rows) */
    JDIMENSION rows;               /* of the whole array */
    JDIMENSION blocks_per_row;
    JDIMENSION max_access;         /* most rows one access asks for */
    JDIMENSION window_rows;
    JDIMENSION window_start;
    JDIMENSION first_undefined;    /* rows from here on were never written */
    boolean pre_zero;
    boolean dirty;                 /* the window holds rows the file does not */
    boolean spilled;
    uint64_t file_offset;          /* of row 0 in the spill file */
    struct jvirt_barray_control *next;
};

static ct_jpeg_memory *ct_jpeg_memory_of(j_common_ptr cinfo) { return (ct_jpeg_memory *)cinfo->client_data; }

static size_t ct_jpeg_row_bytes(const struct jvirt_barray_control *array) {
    return (size_t)array->blocks_per_row * sizeof(JBLOCK);
}

jvirt_barray_ptr ct_jpeg_spill_request(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                       JDIMENSION rows, JDIMENSION max_access) {
    if (pool_id != JPOOL_IMAGE) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    struct jvirt_barray_control *array = (*cinfo->mem->alloc_small)(cinfo, pool_id, sizeof *array);
    memset(array, 0, sizeof *array);
    array->rows = rows;
    array->blocks_per_row = blocks_per_row;
    array->max_access = max_access;
    array->pre_zero = pre_zero;
    ct_jpeg_memory *memory = ct_jpeg_memory_of(cinfo);
    array->next = memory->arrays;
    memory->arrays = array;
    return array;
}

/* An unlinked file in $TMPDIR (or /tmp) that only this decode can reach; -1 when none can be made. */
static int ct_jpeg_spill_open(void) {
    const char *directory = getenv("TMPDIR");
    if (directory == NULL || directory[0] == '\0') directory = "/tmp";
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    /* A file system without O_TMPFILE: a named file, unlinked at once. */
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/thumbnailer-jpeg-XXXXXX", directory) >= sizeof path) return -1;
    fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

void ct_jpeg_spill_realize(j_common_ptr cinfo) {
    ct_jpeg_memory *memory = ct_jpeg_memory_of(cinfo);
    memory->realize_virt_arrays(cinfo); /* the library's own: virtual sample arrays */
    uint64_t whole = 0, count = 0;
    for (struct jvirt_barray_control *array = memory->arrays; array != NULL; array = array->next) {
        if (array->window != NULL) continue;
        whole += (uint64_t)array->rows * ct_jpeg_row_bytes(array);
        count++;
    }
    uint64_t held = ct_jpeg_memory_held(memory);
    int spill = memory->limit != 0 && (whole > memory->limit || held > memory->limit - whole);
    /* Windows take at most half of what is left: the output stages allocate after them. */
    uint64_t room = memory->limit > held ? memory->limit - held : 0;
    uint64_t window_bytes = count == 0 ? 0 : room / (2 * count);
    if (window_bytes > CT_JPEG_SPILL_WINDOW_BYTES) window_bytes = CT_JPEG_SPILL_WINDOW_BYTES;
    for (struct jvirt_barray_control *array = memory->arrays; array != NULL; array = array->next) {
        if (array->window != NULL) continue;
        JDIMENSION window_rows = array->rows;
        if (spill) {
            JDIMENSION least = array->max_access < array->rows ? array->max_access : array->rows;
            size_t row_bytes = ct_jpeg_row_bytes(array);
            uint64_t fitting = row_bytes == 0 ? array->rows : window_bytes / row_bytes;
            if (fitting < array->rows) window_rows = fitting > least ? (JDIMENSION)fitting : least;
            array->spilled = window_rows < array->rows;
        }
        if (array->spilled) {
            array->file_offset = memory->spill_bytes;
            memory->spill_bytes += (uint64_t)array->rows * ct_jpeg_row_bytes(array);
        }
        /* Through the counting hook: a window that still does not fit is refused there. */
        array->window = (*cinfo->mem->alloc_barray)(cinfo, JPOOL_IMAGE, array->blocks_per_row, window_rows);
        array->window_rows = window_rows;
    }
    if (memory->spill_bytes > 0 && memory->spill_fd < 0) {
        memory->spill_fd = ct_jpeg_spill_open();
        if (memory->spill_fd < 0)
            ct_jpeg_raise(cinfo, CT_IO_ERROR, "cannot create a temporary file for %llu bytes of coefficients (%s)",
                          (unsigned long long)memory->spill_bytes, strerror(errno));
    }
}

/* Reads (writing == 0) or writes the window's rows that are defined, one row at a time. */
static void ct_jpeg_spill_move(j_common_ptr cinfo, struct jvirt_barray_control *array, int writing) {
    ct_jpeg_memory *memory = ct_jpeg_memory_of(cinfo);
    size_t row_bytes = ct_jpeg_row_bytes(array);
    for (JDIMENSION i = 0; i < array->window_rows; i++) {
        JDIMENSION row = array->window_start + i;
        if (row >= array->first_undefined || row >= array->rows) break;
        off_t offset = (off_t)(array->file_offset + (uint64_t)row * row_bytes);
        uint8_t *bytes = (uint8_t *)array->window[i];
        size_t done = 0;
        while (done < row_bytes) {
            ssize_t moved = writing ? pwrite(memory->spill_fd, bytes + done, row_bytes - done, offset + (off_t)done)
                                    : pread(memory->spill_fd, bytes + done, row_bytes - done, offset + (off_t)done);
            if (moved < 0 && errno == EINTR) continue;
            if (moved <= 0)
                ct_jpeg_raise(cinfo, CT_IO_ERROR, "cannot %s the temporary coefficient file (%s)",
                              writing ? "write" : "read", moved < 0 ? strerror(errno) : "it is shorter than written");
            done += (size_t)moved;
        }
    }
}

/* jmemmgr.c's access_virt_barray, with the file above as its backing store. */
JBLOCKARRAY ct_jpeg_spill_access(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row,
                                 JDIMENSION num_rows, boolean writable) {
    JDIMENSION end_row = start_row + num_rows;
    if (end_row > array->rows || end_row < start_row || num_rows > array->max_access || array->window == NULL)
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    if (start_row < array->window_start || end_row > array->window_start + array->window_rows) {
        if (!array->spilled) ERREXIT(cinfo, JERR_VIRTUAL_BUG);
        if (array->dirty) {
            ct_jpeg_spill_move(cinfo, array, 1);
            array->dirty = FALSE;
        }
        /* Forward: the window starts at the rows asked for; backward: it ends with them. */
        if (start_row > array->window_start)
            array->window_start = start_row;
        else
            array->window_start = end_row > array->window_rows ? end_row - array->window_rows : 0;
        ct_jpeg_spill_move(cinfo, array, 0);
    }
    if (array->first_undefined < end_row) {
        JDIMENSION undefined = array->first_undefined;
        if (undefined < start_row) {
            if (writable) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS); /* a writer skipped rows */
            undefined = start_row;
        }
        if (writable) array->first_undefined = end_row;
        if (array->pre_zero) {
            for (JDIMENSION row = undefined; row < end_row; row++)
                memset(array->window[row - array->window_start], 0, ct_jpeg_row_bytes(array));
        } else if (!writable) {
            ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS); /* a reader looking at rows never written */
        }
    }
    if (writable) array->dirty = TRUE;
    return array->window + (start_row - array->window_start);
}

void ct_jpeg_spill_close(ct_jpeg_memory *memory) {
    memory->arrays = NULL; /* allocated in the image pool, which goes with them */
    memory->spill_bytes = 0;
    if (memory->spill_fd >= 0) close(memory->spill_fd);
    memory->spill_fd = -1;
}
