
/* A view of x with the given dims/strides starting at data (x becomes its base). */
static PyArrayObject *og_view(PyArrayObject *x, int nd, npy_intp *dims, npy_intp *strides,
                              char *data) {
    PyArray_Descr *descr = PyArray_DESCR(x);
    Py_INCREF(descr);
    PyArrayObject *v = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, descr, nd, dims, strides, data, PyArray_FLAGS(x) & NPY_ARRAY_WRITEABLE,
        NULL);
    if (!v) return NULL;
    Py_INCREF(x);
    if (PyArray_SetBaseObject(v, (PyObject *)x) < 0) { Py_DECREF(v); return NULL; }
    return v;
}

/* The base a view of x gets: x, or the array x views (NumPy's own rule: stop at an
   array owning its data, at no base, or at another type). */
static PyObject *og_view_base(PyArrayObject *x) {
    PyObject *b = (PyObject *)x;
    while (Py_TYPE(b) == &PyArray_Type &&
           !(PyArray_FLAGS((PyArrayObject *)b) & NPY_ARRAY_OWNDATA)) {
        PyObject *up = PyArray_BASE((PyArrayObject *)b);
        if (up == NULL || Py_TYPE(up) != &PyArray_Type) break;
        b = up;
    }
    return b;
}

/* NumPy's contiguity and alignment flags of a re-pointed view, computed here (the same
   rules as PyArray_UpdateFlags: a length-0 array is contiguous, length-1 axes ignored). */
static void og_view_flags(PyArrayObject_fields *f) {
    const npy_intp item = PyDataType_ELSIZE(f->descr);
    int c = 1, fo = 1, empty = 0;
    npy_intp want = item;
    for (int d = f->nd - 1; d >= 0; d--) {
        if (f->dimensions[d] == 0) empty = 1;
        if (f->dimensions[d] != 1) {
            if (f->strides[d] != want) c = 0;
            want *= f->dimensions[d];
        }
    }
    want = item;
    for (int d = 0; d < f->nd; d++)
        if (f->dimensions[d] != 1) {
            if (f->strides[d] != want) fo = 0;
            want *= f->dimensions[d];
        }
    if (empty) c = fo = 1;
    const npy_uintp align = (npy_uintp)PyDataType_ALIGNMENT(f->descr);
    npy_uintp bits = (npy_uintp)f->data;
    for (int d = 0; d < f->nd; d++)
        if (f->dimensions[d] > 1) bits |= (npy_uintp)f->strides[d];
    int aligned = empty || align <= 1 || bits % align == 0;
    f->flags &= ~(NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    f->flags |= (c ? NPY_ARRAY_C_CONTIGUOUS : 0) | (fo ? NPY_ARRAY_F_CONTIGUOUS : 0) |
                (aligned ? NPY_ARRAY_ALIGNED : 0);
}

/* og_view, but re-pointing the previous call's view object prev (owned or NULL) when
   nothing else holds it: a view header is otherwise a Python object made and freed on
   every call, which costs more than the small arithmetic around it.  Returns a new
   reference, like og_view (OG_SET_OUT then drops prev's). */
static PyArrayObject *og_view_into(PyArrayObject *prev, PyArrayObject *x, int nd,
                                   npy_intp *dims, npy_intp *strides, char *data) {
    if (prev == NULL || Py_REFCNT(prev) != 1 || Py_TYPE(prev) != &PyArray_Type ||
        PyArray_NDIM(prev) != nd || PyArray_DESCR(prev) != PyArray_DESCR(x) ||
        (PyArray_FLAGS(prev) & (NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEBACKIFCOPY)))
        return og_view(x, nd, dims, strides, data);
    PyArrayObject_fields *f = (PyArrayObject_fields *)prev;
    for (int d = 0; d < nd; d++) { f->dimensions[d] = dims[d]; f->strides[d] = strides[d]; }
    f->data = data;
    PyObject *base = og_view_base(x), *old = f->base;
    Py_INCREF(base);
    f->base = base;
    Py_XDECREF(old);
    f->flags = (f->flags & ~NPY_ARRAY_WRITEABLE) | (PyArray_FLAGS(x) & NPY_ARRAY_WRITEABLE);
    og_view_flags(f);
    Py_INCREF(prev);
    return prev;
}

#define OG_SET_OUT(o, expr) do { PyArrayObject *og_new_ = (expr); Py_XDECREF(o); o = og_new_; \
                                 if (!o) goto fail; } while (0)
