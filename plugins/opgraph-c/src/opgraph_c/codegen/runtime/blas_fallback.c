/* No BLAS: NumPy's product (a scalar for two vectors: made an array). */
PyObject *r0 = PyArray_MatrixProduct2((PyObject *)i0, (PyObject *)i1, NULL);
if (!r0) goto fail;
PyObject *r = PyArray_FROM_O(r0);
Py_DECREF(r0);
if (!r) goto fail;
if (PyArray_TYPE((PyArrayObject *)r) != @OUT_TYPENUM@) {
    PyObject *c = PyArray_Cast((PyArrayObject *)r, @OUT_TYPENUM@);
    Py_DECREF(r);
    if (!c) goto fail;
    r = c;
}
Py_XDECREF(o0);
o0 = (PyArrayObject *)r;
