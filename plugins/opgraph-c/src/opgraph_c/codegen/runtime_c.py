"""C text shared by every generated module: state, input checks, buffer reuse rules."""

from __future__ import annotations

__all__ = ["POOL", "PRELUDE", "PROFILE_SUPPORT", "RUNTIME", "runtime_source"]

#: Arrays of at least this many elements are allocated through the buffer pool.
POOL_MIN_ELEMS = 1 << 17
#: At most this many freed buffers, and this many bytes, wait in the pool for reuse.
POOL_SLOTS = 8
POOL_MAX_BYTES = 1 << 29

POOL = r"""
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
"""

PRELUDE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>
"""

RUNTIME = r"""
typedef struct {
    PyObject *in_cells, *out_cells, *consts, *thunks, *cells, *on_error, *labels;
    PyObject *params_obj;
    const char *params;
    unsigned char *keep_mode;   /* per variable: 0 none, 1 keep buffer, 2 reuse output cell */
    PyObject **keep;            /* per variable: buffer kept from the previous call */
    Py_ssize_t nvars;
/*@PROFILE_FIELDS@*/
} OGState;

static const char *og_dtype_name(int typenum) {
    PyArray_Descr *d = PyArray_DescrFromType(typenum);
    const char *name = d ? d->typeobj->tp_name : "?";
    Py_XDECREF(d);
    return name;
}

/* Check one value against (dtype, ndim, static shape); an unaligned array is
   replaced by an aligned copy.  Returns -1 with a Python exception set. */
static int og_check(PyObject **slot, int typenum, int nd, const npy_intp *shape,
                    PyObject *label) {
    PyObject *o = *slot;
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "%U: expected a numpy.ndarray of dtype %s with %d dimension(s), got %s",
                     label, og_dtype_name(typenum), nd, Py_TYPE(o)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)o;
    if (!PyArray_EquivTypenums(PyArray_TYPE(a), typenum) || !PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_TypeError, "%U: expected dtype %s, got an array of dtype %S",
                     label, og_dtype_name(typenum), (PyObject *)PyArray_DESCR(a));
        return -1;
    }
    if (PyArray_NDIM(a) != nd) {
        PyErr_Format(PyExc_TypeError, "%U: expected %d dimension(s), got an array with %d",
                     label, nd, PyArray_NDIM(a));
        return -1;
    }
    for (int d = 0; d < nd; d++) {
        if (shape[d] >= 0 && PyArray_DIMS(a)[d] != shape[d]) {
            PyErr_Format(PyExc_ValueError,
                         "%U: dimension %d has static length %ld in its type, got length %ld",
                         label, d, (long)shape[d], (long)PyArray_DIMS(a)[d]);
            return -1;
        }
    }
    if (!PyArray_ISALIGNED(a)) {
        PyObject *copy = PyArray_NewCopy(a, NPY_KEEPORDER);
        if (!copy) return -1;
        Py_DECREF(o);
        *slot = copy;
    }
    return 0;
}

/* Byte range [lo, hi) an array touches. */
static void og_extent(PyArrayObject *a, char **lo, char **hi) {
    char *l = PyArray_BYTES(a), *h = PyArray_BYTES(a);
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp n = PyArray_DIMS(a)[d], s = PyArray_STRIDES(a)[d];
        if (n == 0) { *lo = *hi = l; return; }
        if (s < 0) l += (n - 1) * s; else h += (n - 1) * s;
    }
    *lo = l; *hi = h + PyArray_ITEMSIZE(a);
}

static int og_overlaps(PyArrayObject *a, PyArrayObject *b) {
    char *al, *ah, *bl, *bh;
    og_extent(a, &al, &ah); og_extent(b, &bl, &bh);
    return al < bh && bl < ah;
}

static int og_same_view(PyArrayObject *a, PyArrayObject *b) {
    if (PyArray_BYTES(a) != PyArray_BYTES(b) || PyArray_NDIM(a) != PyArray_NDIM(b)) return 0;
    for (int d = 0; d < PyArray_NDIM(a); d++)
        if (PyArray_DIMS(a)[d] != PyArray_DIMS(b)[d] ||
            (PyArray_DIMS(a)[d] > 1 && PyArray_STRIDES(a)[d] != PyArray_STRIDES(b)[d])) return 0;
    return PyArray_ITEMSIZE(a) == PyArray_ITEMSIZE(b);
}

/* May input k be overwritten element by element?  Only when writeable, aligned
   and every other input either does not overlap it or is the very same view. */
static int og_can_inplace(PyArrayObject *x, int k, PyArrayObject **ins, int nin) {
    if (!PyArray_ISWRITEABLE(x) || !PyArray_ISALIGNED(x)) return 0;
    for (int i = 0; i < nin; i++) {
        if (i == k || !PyArray_Check((PyObject *)ins[i])) continue;
        if (og_overlaps(x, ins[i]) && !og_same_view(x, ins[i])) return 0;
    }
    return 1;
}

/* Is the previous output buffer usable for this call's result? */
static int og_reusable(PyArrayObject *o, int nd, const npy_intp *shp, int typenum,
                       PyArrayObject **ins, int nin) {
    if (o == NULL || !PyArray_Check((PyObject *)o)) return 0;
    if (PyArray_TYPE(o) != typenum || PyArray_NDIM(o) != nd) return 0;
    if (!PyArray_IS_C_CONTIGUOUS(o) || !PyArray_ISWRITEABLE(o) || !PyArray_ISALIGNED(o))
        return 0;
    if (PyArray_BASE(o) != NULL) return 0;
    for (int d = 0; d < nd; d++) if (PyArray_DIMS(o)[d] != shp[d]) return 0;
    for (int i = 0; i < nin; i++)
        if (PyArray_Check((PyObject *)ins[i]) && og_overlaps(o, ins[i])) return 0;
    return 1;
}

/* A new uninitialised C-contiguous array; large ones come from the buffer pool. */
static PyObject *og_empty(int nd, const npy_intp *shp, int typenum) {
    npy_intp n = 1;
    for (int d = 0; d < nd; d++) n *= shp[d];
    if (og_mem_handler == NULL || n < OG_POOL_MIN_ELEMS)
        return PyArray_EMPTY(nd, (npy_intp *)shp, typenum, 0);
    PyObject *old = PyDataMem_SetHandler(og_mem_handler);
    if (!old) return NULL;
    PyObject *a = PyArray_EMPTY(nd, (npy_intp *)shp, typenum, 0);
    PyObject *mine = PyDataMem_SetHandler(old);
    Py_DECREF(old);
    Py_XDECREF(mine);
    return a;
}

static PyObject *og_new_array(int nd, const npy_intp *shp, int typenum, PyArrayObject *prev,
                              PyArrayObject **ins, int nin) {
    if (og_reusable(prev, nd, shp, typenum, ins, nin)) { Py_INCREF(prev); return (PyObject *)prev; }
    return og_empty(nd, shp, typenum);
}

/* The previous value of variable k, when it may be written again (owned ref or NULL). */
static PyObject *og_take_prev(OGState *st, Py_ssize_t k, Py_ssize_t out_pos) {
    unsigned char mode = st->keep_mode[k];
    if (mode == 1) {
        PyObject *o = st->keep[k];
        st->keep[k] = NULL;
        if (o && Py_REFCNT(o) == 1) return o;   /* nobody else holds it (no live views) */
        Py_XDECREF(o);
        return NULL;
    }
    if (mode == 2) {
        PyObject *o = PyList_GET_ITEM(PyTuple_GET_ITEM(st->out_cells, out_pos), 0);
        if (o && PyArray_Check(o)) { Py_INCREF(o); return o; }
    }
    return NULL;
}

static void og_note_error(OGState *st, int node) {
    if (node < 0 || st->on_error == Py_None) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject *r = PyObject_CallFunction(st->on_error, "Oi", value ? value : Py_None, node);
    Py_XDECREF(r);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
}

static int og_call_thunk(OGState *st, int node) {
    PyObject *r = PyObject_CallNoArgs(PyTuple_GET_ITEM(st->thunks, node));
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static int og_set_cell(OGState *st, Py_ssize_t k, PyObject *value) {
    PyObject *cell = PyTuple_GET_ITEM(st->cells, k);
    Py_INCREF(value);
    return PyList_SetItem(cell, 0, value);
}

static PyObject *og_get_cell(OGState *st, Py_ssize_t k) {
    PyObject *v = PyList_GET_ITEM(PyTuple_GET_ITEM(st->cells, k), 0);
    Py_INCREF(v);
    return v;
}

static void og_state_free(PyObject *cap) {
    OGState *st = (OGState *)PyCapsule_GetPointer(cap, NULL);
    if (!st) return;
    Py_XDECREF(st->in_cells); Py_XDECREF(st->out_cells); Py_XDECREF(st->consts);
    Py_XDECREF(st->thunks); Py_XDECREF(st->cells); Py_XDECREF(st->on_error);
    Py_XDECREF(st->labels); Py_XDECREF(st->params_obj);
/*@PROFILE_FREE@*/
    if (st->keep) for (Py_ssize_t k = 0; k < st->nvars; k++) Py_XDECREF(st->keep[k]);
    PyMem_Free(st->keep); PyMem_Free(st->keep_mode); PyMem_Free(st);
}

static PyObject *og_run(PyObject *cap, PyObject *unused);
static PyMethodDef og_run_def = {"run", (PyCFunction)og_run, METH_NOARGS,
                                 "Run the graph: read the input cells, fill the output cells."};

static PyObject *og_bind(PyObject *self, PyObject *args) {
    PyObject *in_cells, *out_cells, *consts, *thunks, *cells, *on_error, *labels, *params, *modes;
    PyObject *handler = Py_None, *prof = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OO!SS|OO", &PyTuple_Type, &in_cells, &PyTuple_Type,
                          &out_cells, &PyTuple_Type, &consts, &PyTuple_Type, &thunks,
                          &PyTuple_Type, &cells, &on_error, &PyTuple_Type, &labels, &params,
                          &modes, &handler, &prof))
        return NULL;
/*@PROFILE_CHECK@*/
    if (handler != Py_None && og_mem_handler == NULL) {
        if (!PyCapsule_IsValid(handler, "mem_handler")) {
            PyErr_SetString(PyExc_TypeError, "bind: handler must be a 'mem_handler' capsule");
            return NULL;
        }
        Py_INCREF(handler);
        og_mem_handler = handler;   /* one process-wide pool, kept for the module's life */
    }
    if (PyTuple_GET_SIZE(in_cells) != OG_NIN || PyTuple_GET_SIZE(out_cells) != OG_NOUT ||
        PyTuple_GET_SIZE(consts) != OG_NCONST || PyTuple_GET_SIZE(thunks) != OG_NNODES ||
        PyTuple_GET_SIZE(cells) != OG_NVARS || PyBytes_GET_SIZE(modes) != OG_NVARS ||
        PyBytes_GET_SIZE(params) < OG_NPARAMS) {
        PyErr_SetString(PyExc_ValueError, "bind: arguments do not match this module's graph");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < OG_NIN; k++)
        if (!PyList_Check(PyTuple_GET_ITEM(in_cells, k)) ||
            PyList_GET_SIZE(PyTuple_GET_ITEM(in_cells, k)) != 1) {
            PyErr_SetString(PyExc_TypeError, "bind: input cells must be one-element lists");
            return NULL;
        }
    for (Py_ssize_t k = 0; k < OG_NOUT; k++)
        if (!PyList_Check(PyTuple_GET_ITEM(out_cells, k)) ||
            PyList_GET_SIZE(PyTuple_GET_ITEM(out_cells, k)) != 1) {
            PyErr_SetString(PyExc_TypeError, "bind: output cells must be one-element lists");
            return NULL;
        }
    OGState *st = (OGState *)PyMem_Calloc(1, sizeof(OGState));
    if (!st) return PyErr_NoMemory();
    st->nvars = OG_NVARS;
    st->keep = (PyObject **)PyMem_Calloc(OG_NVARS + 1, sizeof(PyObject *));
    st->keep_mode = (unsigned char *)PyMem_Calloc(OG_NVARS + 1, 1);
    if (!st->keep || !st->keep_mode) { PyMem_Free(st->keep); PyMem_Free(st->keep_mode);
                                       PyMem_Free(st); return PyErr_NoMemory(); }
    memcpy(st->keep_mode, PyBytes_AS_STRING(modes), OG_NVARS);
    Py_INCREF(in_cells); st->in_cells = in_cells;
    Py_INCREF(out_cells); st->out_cells = out_cells;
    Py_INCREF(consts); st->consts = consts;
    Py_INCREF(thunks); st->thunks = thunks;
    Py_INCREF(cells); st->cells = cells;
    Py_INCREF(on_error); st->on_error = on_error;
    Py_INCREF(labels); st->labels = labels;
    Py_INCREF(params); st->params_obj = params; st->params = PyBytes_AS_STRING(params);
/*@PROFILE_BIND@*/
    PyObject *cap = PyCapsule_New(st, NULL, og_state_free);
    if (!cap) { og_state_free(NULL); return NULL; }
    PyObject *fn = PyCFunction_New(&og_run_def, cap);
    Py_DECREF(cap);
    return fn;
}
"""


#: Only in modules built for profiling: the clock and the per-node accumulators.
PROFILE_SUPPORT = r"""
#include <time.h>
#define OG_PROFILE 1
/* Seconds on the monotonic clock (the one time.perf_counter reads on Linux). */
static inline double og_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* Node k ran since t0: add its time and one call (row 0 seconds, row 1 calls). */
static inline void og_prof_add(OGState *st, int k, double t0) {
    st->prof[k] += og_clock() - t0;
    st->prof[OG_NNODES + k] += 1.0;
}
"""

_PROFILE_PIECES = {
    "/*@PROFILE_FIELDS@*/": (
        "    PyObject *prof_obj;         /* float64 array (2, nodes): seconds, calls */\n"
        "    double *prof;"
    ),
    "/*@PROFILE_FREE@*/": "    Py_XDECREF(st->prof_obj);",
    "/*@PROFILE_CHECK@*/": r"""    if (!PyArray_Check(prof) ||
        PyArray_TYPE((PyArrayObject *)prof) != NPY_DOUBLE ||
        PyArray_SIZE((PyArrayObject *)prof) != 2 * OG_NNODES ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)prof) ||
        !PyArray_ISWRITEABLE((PyArrayObject *)prof)) {
        PyErr_SetString(PyExc_TypeError, "bind: this module was built for profiling and needs "
                        "a writeable C-contiguous float64 array of shape (2, nodes) last");
        return NULL;
    }""",
    "/*@PROFILE_BIND@*/": (
        "    Py_INCREF(prof); st->prof_obj = prof;\n"
        "    st->prof = (double *)PyArray_DATA((PyArrayObject *)prof);"
    ),
}

_PLAIN_PIECES = {
    "/*@PROFILE_FIELDS@*/": "",
    "/*@PROFILE_FREE@*/": "",
    "/*@PROFILE_CHECK@*/": r"""    if (prof != Py_None) {
        PyErr_SetString(PyExc_TypeError, "bind: this module was built without profiling");
        return NULL;
    }""",
    "/*@PROFILE_BIND@*/": "",
}


def runtime_source(profile: bool) -> str:
    """RUNTIME for a normal module, or with the profiling state (``profile``).

    A normal module's text holds no clock reads and no accumulators, so it pays
    nothing; the profiling text differs, so it is a different cache entry.
    """
    text = RUNTIME
    for marker, piece in (_PROFILE_PIECES if profile else _PLAIN_PIECES).items():
        text = text.replace(marker + "\n", piece + "\n" if piece else "")
    return text
