/* The module state (OGState), input checks, buffer reuse and the bind() entry.
   The profiling sections below are resolved by runtime_c.select_profile. */

typedef struct {
    PyObject *in_cells, *out_cells, *consts, *thunks, *cells, *on_error, *labels;
    PyObject *params_obj;
    const char *params;
    unsigned char *keep_mode;   /* per variable: 0 none, 1 keep buffer, 2 reuse output cell,
                                   3 keep the buffer when small (OG_KEEP_SMALL_BYTES) */
    PyObject **keep;            /* per variable: buffer kept from the previous call */
    Py_ssize_t nvars;
    /* the output cells a kept buffer may sit in only until this call replaces it: each
       cell once, and none that is also an input cell (a shared variable's state, an input
       returned as an output): a value there outlives the call, so it counts as a holder */
    PyObject **own_out;         /* borrowed from out_cells */
    Py_ssize_t n_own_out;
#ifdef OG_PROFILE
    PyObject *prof_obj;         /* float64 array (2, nodes): seconds, calls */
    double *prof;
#endif
} OGState;

static const char *og_dtype_name(int typenum) {
    PyArray_Descr *d = PyArray_DescrFromType(typenum);
    const char *name = d ? d->typeobj->tp_name : "?";
    Py_XDECREF(d);
    return name;
}

/* Check one value against (dtype, ndim, static shape); an unaligned array is
   refused (a graph input: the caller's argument) or replaced by an aligned copy
   (a value a Python thunk made).  Returns -1 with a Python exception set. */
static int og_check(PyObject **slot, int typenum, int nd, const npy_intp *shape,
                    PyObject *label, int refuse_unaligned) {
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
    if (!PyArray_ISALIGNED(a) && refuse_unaligned) {
        /* a function's argument: one rule for every type and mode (docs/modes.md) */
        PyErr_Format(PyExc_TypeError,
                     "%U: the array is not aligned (its data does not start at a multiple "
                     "of its item size); pass numpy.ascontiguousarray(value) or a copy",
                     label);
        return -1;
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
    /* owning its data and held by one slot only: no other input is x or a view of it */
    if (Py_REFCNT(x) == 1 && PyArray_BASE(x) == NULL) return 1;
    for (int i = 0; i < nin; i++) {
        if (i == k || !PyArray_Check((PyObject *)ins[i])) continue;
        if (og_overlaps(x, ins[i]) && !og_same_view(x, ins[i])) return 0;
    }
    return 1;
}

/* PyArray_NBYTES without its call into NumPy (the product of the dimensions). */
static npy_intp og_nbytes(PyArrayObject *a) {
    npy_intp n = PyArray_ITEMSIZE(a);
    for (int d = 0; d < PyArray_NDIM(a); d++) n *= PyArray_DIMS(a)[d];
    return n;
}

/* dst[...] = src for two arrays of one shape: a memmove when both are C-contiguous
   with the same dtype, else NumPy's assignment, whose casting and iterator
   set-up cost tens of nanoseconds (a scan step copies small rows often). */
static int og_copy_same(PyArrayObject *dst, PyArrayObject *src) {
    const npy_intp nb = og_nbytes(src);
    if (PyArray_TYPE(dst) == PyArray_TYPE(src) && PyArray_IS_C_CONTIGUOUS(dst) &&
        PyArray_IS_C_CONTIGUOUS(src) && PyArray_ISNOTSWAPPED(src) &&
        PyArray_ISNOTSWAPPED(dst) && og_nbytes(dst) == nb) {
        if (nb > 0) memmove(PyArray_DATA(dst), PyArray_DATA(src), nb);
        return 0;
    }
    return PyArray_CopyInto(dst, src);
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
    /* held by this node alone, o is neither an input nor under one: an input holds a
       reference to its array, and a view of o one to o (it owns its data) */
    if (Py_REFCNT(o) == 1) return 1;
    char *lo, *hi;
    og_extent(o, &lo, &hi);
    for (int i = 0; i < nin; i++) {
        if (!PyArray_Check((PyObject *)ins[i])) continue;
        char *l, *h;
        og_extent(ins[i], &l, &h);
        if (l < hi && lo < h) return 0;
    }
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
    if (mode == 1 || mode == 3 || mode == 4) {
        PyObject *o = st->keep[k];
        st->keep[k] = NULL;
        if (!o) return NULL;
        if (Py_REFCNT(o) == 1) return o;
        /* nobody else holds it (no live views): only this slot, and the output cells
           the previous call's result stays in until this call replaces it */
        Py_ssize_t held = 1;
        for (Py_ssize_t j = 0; j < st->n_own_out; j++)
            held += PyList_GET_ITEM(st->own_out[j], 0) == o;
        if (Py_REFCNT(o) == held) return o;
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
#ifdef OG_PROFILE
    Py_XDECREF(st->prof_obj);
#endif
    if (st->keep) for (Py_ssize_t k = 0; k < st->nvars; k++) Py_XDECREF(st->keep[k]);
    PyMem_Free(st->keep); PyMem_Free(st->keep_mode); PyMem_Free(st->own_out); PyMem_Free(st);
}

static PyObject *og_run(PyObject *cap, PyObject *unused);  /* fpenv.c */
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
#ifdef OG_PROFILE
    if (!PyArray_Check(prof) ||
        PyArray_TYPE((PyArrayObject *)prof) != NPY_DOUBLE ||
        PyArray_SIZE((PyArrayObject *)prof) != 2 * OG_NNODES ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)prof) ||
        !PyArray_ISWRITEABLE((PyArrayObject *)prof)) {
        PyErr_SetString(PyExc_TypeError, "bind: this module was built for profiling and needs "
                        "a writeable C-contiguous float64 array of shape (2, nodes) last");
        return NULL;
    }
#else
    if (prof != Py_None) {
        PyErr_SetString(PyExc_TypeError, "bind: this module was built without profiling");
        return NULL;
    }
#endif
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
    st->own_out = (PyObject **)PyMem_Calloc(OG_NOUT + 1, sizeof(PyObject *));
    if (!st->own_out) { PyMem_Free(st->keep); PyMem_Free(st->keep_mode); PyMem_Free(st);
                        return PyErr_NoMemory(); }
    for (Py_ssize_t j = 0; j < OG_NOUT; j++) {
        PyObject *cell = PyTuple_GET_ITEM(out_cells, j);
        int seen = 0;
        for (Py_ssize_t i = 0; i < OG_NIN && !seen; i++) seen = PyTuple_GET_ITEM(in_cells, i) == cell;
        for (Py_ssize_t i = 0; i < st->n_own_out && !seen; i++) seen = st->own_out[i] == cell;
        if (!seen) st->own_out[st->n_own_out++] = cell;
    }
    Py_INCREF(in_cells); st->in_cells = in_cells;
    Py_INCREF(out_cells); st->out_cells = out_cells;
    Py_INCREF(consts); st->consts = consts;
    Py_INCREF(thunks); st->thunks = thunks;
    Py_INCREF(cells); st->cells = cells;
    Py_INCREF(on_error); st->on_error = on_error;
    Py_INCREF(labels); st->labels = labels;
    Py_INCREF(params); st->params_obj = params; st->params = PyBytes_AS_STRING(params);
#ifdef OG_PROFILE
    Py_INCREF(prof); st->prof_obj = prof;
    st->prof = (double *)PyArray_DATA((PyArrayObject *)prof);
#endif
    PyObject *cap = PyCapsule_New(st, NULL, og_state_free);
    if (!cap) { og_state_free(NULL); return NULL; }
    PyObject *fn = PyCFunction_New(&og_run_def, cap);
    Py_DECREF(cap);
    return fn;
}
