
static int og_index_error(npy_intp raw, npy_intp n) {
    PyErr_Format(PyExc_IndexError, "index %ld is out of bounds for axis 0 with size %ld",
                 (long)raw, (long)n);
    return -1;
}
