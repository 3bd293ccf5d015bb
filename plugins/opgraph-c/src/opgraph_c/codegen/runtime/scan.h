
/* A read-only view of row i of a (the row's own dimensions follow axis 0). */
static PyObject *og_scan_row(PyArrayObject *a, npy_intp i) {
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(a) - 1,
                                       PyArray_DIMS(a) + 1, PyArray_STRIDES(a) + 1,
                                       PyArray_BYTES(a) + i * PyArray_STRIDES(a)[0],
                                       NPY_ARRAY_ALIGNED, NULL);
    if (!v) return NULL;
    Py_INCREF(a);
    if (PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)a) < 0) { Py_DECREF(v); return NULL; }
    PyArray_UpdateFlags((PyArrayObject *)v, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS);
    PyArray_CLEARFLAGS((PyArrayObject *)v, NPY_ARRAY_WRITEABLE);
    return v;
}

/* Make *slot (a view of a row of a, from og_scan_row) look at row i.  Moving the
   data pointer of the same view object costs nothing per step, where a new view
   costs an allocation and a flags pass.  Values of a step are read within that
   step only (what outlives it is copied into the buffers), so moving is safe;
   a row stride that is not a multiple of the item size (alignment could change
   from row to row) gets a new view instead. */
static int og_scan_at(PyObject **slot, PyArrayObject *a, npy_intp i) {
    npy_intp s0 = PyArray_STRIDES(a)[0];
    if (*slot && s0 % PyArray_ITEMSIZE(a) == 0) {  /* *slot views a: only this sets it */
        ((PyArrayObject_fields *)*slot)->data = PyArray_BYTES(a) + i * s0;
        return 0;
    }
    Py_XSETREF(*slot, og_scan_row(a, i));
    return *slot ? 0 : -1;
}

/* Copy x into row i of buf (same dtype); the shapes must agree. */
static int og_scan_store(PyArrayObject *buf, npy_intp i, PyObject *xo, int out) {
    PyArrayObject *x = (PyArrayObject *)xo;
    int nd = PyArray_NDIM(buf) - 1;
    if (PyArray_NDIM(x) != nd) goto bad;
    for (int d = 0; d < nd; d++) if (PyArray_DIMS(x)[d] != PyArray_DIMS(buf)[d + 1]) goto bad;
    char *dst = PyArray_BYTES(buf) + i * PyArray_STRIDES(buf)[0];
    if (PyArray_TYPE(x) == PyArray_TYPE(buf) && PyArray_IS_C_CONTIGUOUS(x) &&
            PyArray_IS_C_CONTIGUOUS(buf)) {
        memcpy(dst, PyArray_BYTES(x), (size_t)og_nbytes(x));
        return 0;
    }
    {
        PyArray_Descr *d = PyArray_DESCR(buf);
        Py_INCREF(d);
        PyObject *row = PyArray_NewFromDescr(&PyArray_Type, d, nd, PyArray_DIMS(buf) + 1,
                                             PyArray_STRIDES(buf) + 1, dst, NPY_ARRAY_WRITEABLE,
                                             NULL);
        if (!row) return -1;
        Py_INCREF(buf);
        if (PyArray_SetBaseObject((PyArrayObject *)row, (PyObject *)buf) < 0) {
            Py_DECREF(row); return -1; }
        int rc = PyArray_CopyInto((PyArrayObject *)row, x);
        Py_DECREF(row);
        return rc;
    }
bad:
    PyErr_Format(PyExc_ValueError, "Scan: output %d has shape of %d dims at this step, but "
                 "its buffer holds rows of %d dims of other lengths; every step must return "
                 "the same shape", out, PyArray_NDIM(x), nd);
    return -1;
}

/* The first r rows of a (r <= its length), a new reference: a itself when that is all
   of it, else a view (a while loop that stopped early returns the rows it wrote). */
static PyObject *og_scan_head(PyArrayObject *a, npy_intp r) {
    if (PyArray_DIMS(a)[0] == r) { Py_INCREF(a); return (PyObject *)a; }
    npy_intp d[NPY_MAXDIMS];
    for (int k = 0; k < PyArray_NDIM(a); k++) d[k] = PyArray_DIMS(a)[k];
    d[0] = r;
    PyArray_Descr *dt = PyArray_DESCR(a);
    Py_INCREF(dt);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, dt, PyArray_NDIM(a), d,
                                       PyArray_STRIDES(a), PyArray_BYTES(a),
                                       NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE, NULL);
    if (!v) return NULL;
    Py_INCREF(a);
    if (PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)a) < 0) { Py_DECREF(v); return NULL; }
    PyArray_UpdateFlags((PyArrayObject *)v, NPY_ARRAY_UPDATE_ALL);
    return v;
}

/* Replace the owned reference *o by its first r rows (og_scan_head). */
static int og_scan_trim(PyArrayObject **o, npy_intp r) {
    PyObject *h = og_scan_head(*o, r);
    if (!h) return -1;
    Py_DECREF(*o);
    *o = (PyArrayObject *)h;
    return 0;
}

/* Whether a while loop's condition (the body's last output, one value) holds:
   1, 0, or -1 with an exception. */
static int og_scan_cond(PyObject *co) {
    PyArrayObject *c = (PyArrayObject *)co;
    if (og_nbytes(c) != PyArray_ITEMSIZE(c)) {
        PyErr_Format(PyExc_ValueError, "Scan: the until condition must be one value at every "
                     "step; got an array of %d dims", PyArray_NDIM(c));
        return -1;
    }
    const char *p = PyArray_BYTES(c);
    switch (PyArray_TYPE(c)) {
    case NPY_BOOL: return *(const npy_bool *)p != 0;
    case NPY_INT8: case NPY_UINT8: return *(const npy_uint8 *)p != 0;
    case NPY_INT32: case NPY_UINT32: return *(const npy_uint32 *)p != 0;
    case NPY_INT64: case NPY_UINT64: return *(const npy_uint64 *)p != 0;
    default: return PyObject_IsTrue(co);
    }
}

/* n_steps as a C integer (the outer input is an integer scalar array). */
static int og_scan_steps(PyArrayObject *a, npy_intp *n) {
    PyObject *t = PyArray_GETITEM(a, PyArray_DATA(a));
    if (!t) return -1;
    *n = PyLong_AsSsize_t(t);
    Py_DECREF(t);
    if (*n == -1 && PyErr_Occurred()) return -1;
    if (*n < 0) { PyErr_Format(PyExc_ValueError, "Scan: n_steps must be >= 0; got %zd", *n);
                  return -1; }
    return 0;
}

/* A matrix-vector product whose vector has subnormal entries (a gradient
   decaying through time reaches them) costs the CPU a microcode assist per
   multiplication by one: up to a hundred times the normal time.  When every
   entry is also below 2^-shift, og_scan_tiny_in gives the product the vector
   scaled by 2^shift instead (exact: a power of two, and no overflow), and
   og_scan_tiny_out scales the result back; the sum is then rounded once into
   the subnormal range, where the unscaled product rounds every partial sum
   there, so the result is the same to rounding (at least as accurate), never
   flushed to zero.  Anything else (no subnormal entry, a larger entry, inf,
   nan, an integer or complex dtype) is left alone. */
#define OG_TINY_SHIFT_D 600
#define OG_TINY_SHIFT_F 80

/* Whether the 1-D array a has a subnormal entry and every entry is below
   2^-shift in magnitude (so scaling by 2^shift is exact and cannot overflow):
   its exponent field is below bias - shift (nan and inf never are). */
static int og_scan_all_tiny(PyArrayObject *a) {
    npy_intp n = PyArray_DIMS(a)[0], s = PyArray_STRIDES(a)[0];
    const char *p = PyArray_BYTES(a);
    int any = 0;
    if (PyArray_TYPE(a) == NPY_DOUBLE) {
        for (npy_intp i = 0; i < n; i++) {
            npy_uint64 b;
            memcpy(&b, p + i * s, 8);
            npy_uint64 e = (b >> 52) & 0x7ff;
            if (e >= 1023 - OG_TINY_SHIFT_D) return 0;
            any |= e == 0 && (b & 0x000fffffffffffffULL) != 0;
        }
    } else if (PyArray_TYPE(a) == NPY_FLOAT) {
        for (npy_intp i = 0; i < n; i++) {
            npy_uint32 b;
            memcpy(&b, p + i * s, 4);
            npy_uint32 e = (b >> 23) & 0xff;
            if (e >= 127 - OG_TINY_SHIFT_F) return 0;
            any |= e == 0 && (b & 0x007fffffU) != 0;
        }
    } else {
        return 0;
    }
    return any;
}

/* When *x (a product's vector operand) is tiny (og_scan_all_tiny): *x becomes *scratch (a
   borrowed reference, reused between steps) holding it times 2^shift, and
   *shift says so; else *shift is 0 and *x is untouched. */
static int og_scan_tiny_in(PyObject **x, PyObject **scratch, int *shift) {
    PyArrayObject *a = (PyArrayObject *)*x;
    *shift = 0;
    if (PyArray_NDIM(a) != 1 || !og_scan_all_tiny(a)) return 0;
    npy_intp n = PyArray_DIMS(a)[0], s = PyArray_STRIDES(a)[0];
    int t = PyArray_TYPE(a);
    PyArrayObject *c = (PyArrayObject *)*scratch;
    if (!c || PyArray_DIMS(c)[0] != n || PyArray_TYPE(c) != t) {
        Py_XSETREF(*scratch, PyArray_EMPTY(1, &n, t, 0));
        if (!*scratch) return -1;
        c = (PyArrayObject *)*scratch;
    }
    const char *p = PyArray_BYTES(a);
    if (t == NPY_DOUBLE) {
        double *d = (double *)PyArray_DATA(c);
        for (npy_intp i = 0; i < n; i++) d[i] = ldexp(*(const double *)(p + i * s), OG_TINY_SHIFT_D);
        *shift = OG_TINY_SHIFT_D;
    } else {
        float *d = (float *)PyArray_DATA(c);
        for (npy_intp i = 0; i < n; i++) d[i] = ldexpf(*(const float *)(p + i * s), OG_TINY_SHIFT_F);
        *shift = OG_TINY_SHIFT_F;
    }
    *x = *scratch;
    return 0;
}

/* Undo og_scan_tiny_in's scaling on the product's result (its own buffer). */
static void og_scan_tiny_out(PyObject *yo, int shift) {
    PyArrayObject *y = (PyArrayObject *)yo;
    npy_intp n = PyArray_SIZE(y);
    int nd = PyArray_NDIM(y);
    npy_intp s = nd ? PyArray_STRIDES(y)[nd - 1] : 0;
    char *p = PyArray_BYTES(y);
    if (nd > 1) return;  /* a matrix-vector product has a 0-d or 1-d result */
    if (PyArray_TYPE(y) == NPY_DOUBLE)
        for (npy_intp i = 0; i < n; i++) *(double *)(p + i * s) = ldexp(*(double *)(p + i * s), -shift);
    else
        for (npy_intp i = 0; i < n; i++) *(float *)(p + i * s) = ldexpf(*(float *)(p + i * s), -shift);
}

/* A large matrix that every step reads (a non-sequence, such as the weights of a
   recurrence) is read from L2 at every step; on 4 KiB pages its physical
   placement decides whether it collides with itself in the cache (measured:
   the same 512 KiB matrix, 1000 steps, 4.7 ms in one process and 7.3 ms in
   another; a 128 KiB one, 0.43 and 0.60 ms per 200 steps).  For a loop of
   OG_PIN_MIN_STEPS steps or more (the copy costs about one step), og_scan_pin
   gives the body a copy in a 2 MiB aligned buffer marked for a transparent huge page (physically
   contiguous), in the matrix's own order; the copy's capsule gives the buffer
   back (og_pin_slot) or frees it.  Anything small, or a failed allocation,
   keeps the input itself.  A kept buffer that already holds the matrix's bytes
   (the weights did not change since the last call: compared with memcmp, which
   stops at the first differing byte) is not written again: the copy of a
   matrix read from L3 is a few percent of a short loop's call.  Returns a new
   reference. */
#define OG_PIN_MIN_BYTES ((size_t)64 << 10)
#define OG_PIN_MAX_BYTES ((size_t)4 << 20)
#define OG_PIN_MIN_STEPS 16

/* A buffer kept between calls (the huge page is faulted in once): taken by one
   copy at a time; a copy made while it is taken (another thread in the same
   loop) gets a buffer of its own. */
typedef struct { void *mem; size_t cap; int busy; size_t filled; } og_pin_slot;

static void og_scan_pin_free(PyObject *capsule) {
    void *p = PyCapsule_GetPointer(capsule, "og_scan_pin");
    og_pin_slot *slot = (og_pin_slot *)PyCapsule_GetContext(capsule);
    if (slot) slot->busy = 0; else free(p);
}

static void *og_scan_pin_mem(og_pin_slot *slot, size_t n, int *kept) {
    size_t al = (size_t)2 << 20;
    void *mem = NULL;
    n = (n + al - 1) & ~(al - 1);
    *kept = 0;
    if (!slot->busy && slot->mem && slot->cap >= n) { *kept = 1; return slot->mem; }
    if (posix_memalign(&mem, al, n)) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(mem, n, MADV_HUGEPAGE);
#endif
    if (!slot->busy) {  /* keep the larger buffer for the next calls */
        free(slot->mem);
        slot->mem = mem; slot->cap = n; slot->filled = 0; *kept = 1;
    }
    return mem;
}

static PyObject *og_scan_pin(PyArrayObject *a, npy_intp steps, og_pin_slot *slot) {
    size_t nb = (size_t)PyArray_NBYTES(a);
    int nd = PyArray_NDIM(a), kept = 0;
    void *mem = NULL;
    if (steps < OG_PIN_MIN_STEPS || nd < 2 || nb < OG_PIN_MIN_BYTES || nb > OG_PIN_MAX_BYTES ||
            !(mem = og_scan_pin_mem(slot, nb, &kept))) {
        Py_INCREF(a);
        return (PyObject *)a;
    }
    PyObject *cap = PyCapsule_New(mem, "og_scan_pin", og_scan_pin_free);
    if (!cap) { if (!kept) free(mem); return NULL; }
    if (kept) {
        slot->busy = 1;
        if (PyCapsule_SetContext(cap, slot) < 0) { Py_DECREF(cap); return NULL; }
    }
    npy_intp st[NPY_MAXDIMS], s = PyArray_ITEMSIZE(a);
    if (PyArray_IS_F_CONTIGUOUS(a) && !PyArray_IS_C_CONTIGUOUS(a))
        for (int d = 0; d < nd; d++) { st[d] = s; s *= PyArray_DIMS(a)[d]; }
    else
        for (int d = nd - 1; d >= 0; d--) { st[d] = s; s *= PyArray_DIMS(a)[d]; }
    PyArray_Descr *dt = PyArray_DESCR(a);
    Py_INCREF(dt);
    PyObject *c = PyArray_NewFromDescr(&PyArray_Type, dt, nd, PyArray_DIMS(a), st, mem,
                                       NPY_ARRAY_WRITEABLE, NULL);
    if (!c) { Py_DECREF(cap); return NULL; }
    if (PyArray_SetBaseObject((PyArrayObject *)c, cap) < 0) { Py_DECREF(c); Py_DECREF(cap); return NULL; }
    PyArray_UpdateFlags((PyArrayObject *)c, NPY_ARRAY_UPDATE_ALL);
    /* the buffer's layout is the source's when the source is contiguous in that order */
    int same = kept && slot->filled == nb &&
               (PyArray_IS_C_CONTIGUOUS(a) || PyArray_IS_F_CONTIGUOUS(a)) &&
               memcmp(mem, PyArray_DATA(a), nb) == 0;
    if (kept) slot->filled = 0;
    if (!same && PyArray_CopyInto((PyArrayObject *)c, a) < 0) { Py_DECREF(c); return NULL; }
    if (kept) slot->filled = nb;
    return c;
}
