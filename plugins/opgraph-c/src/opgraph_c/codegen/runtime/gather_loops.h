
static int og_gather_@DTYPE@_@INDEX_DTYPE@(PyArrayObject *out, PyArrayObject *x, PyArrayObject *idx) {
    const npy_intp m = PyArray_DIMS(idx)[0], n = PyArray_DIMS(x)[0];
    const npy_intp sx = PyArray_STRIDES(x)[0], si = PyArray_STRIDES(idx)[0];
    const char *bx = PyArray_BYTES(x), *bi = PyArray_BYTES(idx);
    @CTYPE@ *q = (@CTYPE@ *)PyArray_DATA(out);
    for (npy_intp k = 0; k < m; k++) {
        npy_intp j = (npy_intp)*(const @INDEX_CTYPE@ *)(bi + k * si);
        if (j < 0) j += n;
        if (j < 0 || j >= n) return og_index_error((npy_intp)*(const @INDEX_CTYPE@ *)(bi + k * si), n);
        q[k] = *(const @CTYPE@ *)(bx + j * sx);
    }
    return 0;
}
static int og_scatter_@DTYPE@_@INDEX_DTYPE@(PyArrayObject *b, PyArrayObject *y, PyArrayObject *idx,
                                int set) {
    const npy_intp m = PyArray_DIMS(idx)[0], n = PyArray_DIMS(b)[0];
    const npy_intp ny = PyArray_NDIM(y) ? PyArray_DIMS(y)[0] : 1;
    if (ny != m && ny != 1) {
        PyErr_Format(PyExc_ValueError, "cannot broadcast %ld values onto %ld indexed entries",
                     (long)ny, (long)m);
        return -1;
    }
    const npy_intp sb = PyArray_STRIDES(b)[0], si = PyArray_STRIDES(idx)[0];
    const npy_intp sy = ny == 1 ? 0 : PyArray_STRIDES(y)[0];
    char *bb = PyArray_BYTES(b);
    const char *by = PyArray_BYTES(y), *bi = PyArray_BYTES(idx);
    for (npy_intp k = 0; k < m; k++) {
        npy_intp j = (npy_intp)*(const @INDEX_CTYPE@ *)(bi + k * si);
        if (j < 0) j += n;
        if (j < 0 || j >= n) return og_index_error((npy_intp)*(const @INDEX_CTYPE@ *)(bi + k * si), n);
        if (set) *(@CTYPE@ *)(bb + j * sb) = *(const @CTYPE@ *)(by + k * sy);
        else *(@CTYPE@ *)(bb + j * sb) += *(const @CTYPE@ *)(by + k * sy);
    }
    return 0;
}
