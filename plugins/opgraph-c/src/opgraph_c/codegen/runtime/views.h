
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
#define OG_SET_OUT(o, expr) do { PyArrayObject *og_new_ = (expr); Py_XDECREF(o); o = og_new_; \
                                 if (!o) goto fail; } while (0)
