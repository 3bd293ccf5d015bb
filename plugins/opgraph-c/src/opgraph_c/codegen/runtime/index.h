
static npy_intp og_as_index(PyObject *o) {
    return (npy_intp)PyNumber_AsSsize_t(o, PyExc_IndexError);
}
