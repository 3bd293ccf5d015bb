/* The buffer pool: a NumPy memory handler (NEP 49) used for large arrays.
   Freed large buffers wait here (at most OG_POOL_SLOTS, OG_POOL_MAX_BYTES)
   and are handed out again for a request of the same size (up to 1/8
   larger), so a function called in a loop reuses pages already mapped
   instead of page-faulting fresh ones; arrays the caller still holds are
   never in the pool.  New large buffers are 2 MiB aligned and marked for
   transparent huge pages.  One handler serves the whole process. */
typedef struct { void *p; size_t n; unsigned long age; } og_blk;
static og_blk og_pool[OG_POOL_SLOTS];
static size_t og_pool_bytes = 0;
static unsigned long og_pool_clock = 0;
static pthread_mutex_t og_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static PyObject *og_mem_handler = NULL;

static void *og_pool_take(size_t n) {
    void *p = NULL;
    int best = -1;
    pthread_mutex_lock(&og_pool_mu);
    for (int k = 0; k < OG_POOL_SLOTS; k++)
        if (og_pool[k].p && og_pool[k].n >= n && og_pool[k].n - n <= n / 8 &&
            (best < 0 || og_pool[k].n < og_pool[best].n)) best = k;
    if (best >= 0) {
        p = og_pool[best].p; og_pool_bytes -= og_pool[best].n; og_pool[best].p = NULL;
    }
    pthread_mutex_unlock(&og_pool_mu);
    return p;
}

static void *og_pool_fresh(size_t n) {
    void *p = NULL;
    if (n >= ((size_t)4 << 20)) {
        if (posix_memalign(&p, (size_t)2 << 20, n)) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, n & ~(((size_t)2 << 20) - 1), MADV_HUGEPAGE);
#endif
        return p;
    }
    return malloc(n ? n : 1);
}

static void *og_pool_malloc(void *ctx, size_t n) {
    (void)ctx;
    void *p = og_pool_take(n);
    return p ? p : og_pool_fresh(n);
}

static void *og_pool_calloc(void *ctx, size_t nelem, size_t elsize) {
    (void)ctx;
    size_t n = nelem * elsize;
    if (elsize && n / elsize != nelem) return NULL;
    void *p = og_pool_take(n);
    if (p) { memset(p, 0, n); return p; }
    if (n < ((size_t)4 << 20)) return calloc(nelem ? nelem : 1, elsize ? elsize : 1);
    p = og_pool_fresh(n);
    if (p) memset(p, 0, n);
    return p;
}

static void *og_pool_realloc(void *ctx, void *p, size_t n) {
    (void)ctx;
    return realloc(p, n ? n : 1);
}

static void og_pool_free(void *ctx, void *p, size_t n) {
    (void)ctx;
    if (!p) return;
    if (n >= (size_t)OG_POOL_MIN_ELEMS && n <= (size_t)OG_POOL_MAX_BYTES) {
        pthread_mutex_lock(&og_pool_mu);
        int slot = -1;
        for (int k = 0; k < OG_POOL_SLOTS; k++) if (!og_pool[k].p) { slot = k; break; }
        while (slot < 0 || og_pool_bytes + n > (size_t)OG_POOL_MAX_BYTES) {
            int old = -1;   /* evict the longest-waiting buffer */
            for (int k = 0; k < OG_POOL_SLOTS; k++)
                if (og_pool[k].p && (old < 0 || og_pool[k].age < og_pool[old].age)) old = k;
            if (old < 0) break;
            free(og_pool[old].p); og_pool_bytes -= og_pool[old].n; og_pool[old].p = NULL;
            if (slot < 0) slot = old;
        }
        if (slot >= 0 && og_pool_bytes + n <= (size_t)OG_POOL_MAX_BYTES) {
            og_pool[slot].p = p; og_pool[slot].n = n; og_pool[slot].age = ++og_pool_clock;
            og_pool_bytes += n;
            p = NULL;
        }
        pthread_mutex_unlock(&og_pool_mu);
    }
    free(p);
}

static PyDataMem_Handler og_pool_handler = {
    "opgraph_c_pool", 1,
    {NULL, og_pool_malloc, og_pool_calloc, og_pool_realloc, og_pool_free}
};

/* pool_handler(): a new capsule for this module's pool (the linker keeps the first). */
static PyObject *og_pool_capsule(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    return PyCapsule_New(&og_pool_handler, "mem_handler", NULL);
}

/* pool_release(): free every waiting buffer; returns the bytes released. */
static PyObject *og_pool_release(PyObject *self, PyObject *unused) {
    (void)self; (void)unused;
    size_t total = 0;
    pthread_mutex_lock(&og_pool_mu);
    for (int k = 0; k < OG_POOL_SLOTS; k++)
        if (og_pool[k].p) { free(og_pool[k].p); total += og_pool[k].n; og_pool[k].p = NULL; }
    og_pool_bytes = 0;
    pthread_mutex_unlock(&og_pool_mu);
    return PyLong_FromSize_t(total);
}
