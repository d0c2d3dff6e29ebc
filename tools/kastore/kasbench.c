/* A two-function driver over the reference kastore C library, for the benchmark in
 * benches/benches/kastore.rs. Compiled with the library's own kastore.c into one shared
 * object by build_c_reference.py; the benchmark loads it with libloading.
 *
 * Keeping kastore_t on this side of the boundary means the Rust side needs no copy of
 * the struct layout: it passes a path and flags, and gets a status and a count back. */
#include <stdint.h>
#include <stddef.h>

#include "kastore.h"

/* Opens `path` with `flags` (0 or KAS_READ_ALL), gets every array by its key (each get
 * is a lookup followed, in lazy mode, by a seek and a read into a new buffer), and closes
 * the store. Returns 0 or the library's error code; `elements` receives the number of
 * elements of all arrays. */
int
kasbench_open_get_all(const char *path, int flags, uint64_t *elements)
{
    kastore_t store;
    uint64_t total = 0;
    size_t j, len;
    void *array;
    int type, err;
    int ret = kastore_open(&store, path, "r", flags);

    if (ret == 0) {
        for (j = 0; j < store.num_items; j++) {
            ret = kastore_get(&store, store.items[j].key, store.items[j].key_len, &array,
                &len, &type);
            if (ret != 0) {
                break;
            }
            total += len;
        }
    }
    err = kastore_close(&store);
    *elements = total;
    return ret != 0 ? ret : err;
}

/* Opens `path` with `flags`, gets the one array under `key` (`key_len` bytes) and closes
 * the store: what reading one column of a large file costs. Returns 0 or the library's
 * error code; `elements` receives the array's length. */
int
kasbench_open_get_one(
    const char *path, int flags, const char *key, size_t key_len, uint64_t *elements)
{
    kastore_t store;
    size_t len = 0;
    void *array;
    int type, err;
    int ret = kastore_open(&store, path, "r", flags);

    if (ret == 0) {
        ret = kastore_get(&store, key, key_len, &array, &len, &type);
    }
    err = kastore_close(&store);
    *elements = len;
    return ret != 0 ? ret : err;
}

/* The library version as major * 10000 + minor * 100 + patch. */
int
kasbench_version(void)
{
    kas_version_t v = kas_version();
    return v.major * 10000 + v.minor * 100 + v.patch;
}
