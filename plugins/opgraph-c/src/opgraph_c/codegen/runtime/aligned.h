
/* a (new reference) when its elements can be read as C values, else an aligned copy. */
static PyArrayObject *og_aligned(PyArrayObject *a) {
    if (PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) { Py_INCREF(a); return a; }
    return (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
}
