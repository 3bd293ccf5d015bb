
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
        memcpy(dst, PyArray_BYTES(x), (size_t)PyArray_NBYTES(x));
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
