
static int og_incview_@DTYPE@(PyArrayObject *base, char *data, int nd,
                              const npy_intp *vdims, const npy_intp *vstrides,
                              PyArrayObject *y, int set) {
    const int ynd = PyArray_NDIM(y);
    if (!PyArray_Check((PyObject *)y) || PyArray_TYPE(y) != @TYPENUM@ ||
        PyArray_TYPE(base) != @TYPENUM@ || ynd > nd || nd > 16) return 0;
    if (!PyArray_ISALIGNED(y) || !PyArray_ISNOTSWAPPED(y) || !PyArray_ISALIGNED(base) ||
        !PyArray_ISWRITEABLE(base) || og_overlaps(base, y)) return 0;
    npy_intp dims[16], vs[16], ys[16], idx[16], n = 1;
    for (int d = 0; d < nd; d++) {
        dims[d] = vdims[d]; vs[d] = vstrides[d];
        ys[d] = 0; idx[d] = 0; n *= dims[d];
    }
    for (int d = 0; d < ynd; d++) {
        const int vd = d + nd - ynd;
        const npy_intp m = PyArray_DIMS(y)[d];
        if (m == dims[vd]) ys[vd] = PyArray_STRIDES(y)[d];
        else if (m != 1) return 0;
    }
    if (n == 0) return 1;
    char *pv = data;
    const char *py = PyArray_BYTES(y);
    if (nd == 0) {
        if (set) *(@CTYPE@ *)pv = *(const @CTYPE@ *)py;
        else *(@CTYPE@ *)pv += *(const @CTYPE@ *)py;
        return 1;
    }
    const npy_intp inner = dims[nd - 1], vsi = vs[nd - 1], ysi = ys[nd - 1];
    for (;;) {
        char *a = pv;
        const char *b = py;
        if (set) for (npy_intp k = 0; k < inner; k++, a += vsi, b += ysi)
            *(@CTYPE@ *)a = *(const @CTYPE@ *)b;
        else for (npy_intp k = 0; k < inner; k++, a += vsi, b += ysi)
            *(@CTYPE@ *)a += *(const @CTYPE@ *)b;
        int d = nd - 2;
        for (; d >= 0; d--) {
            pv += vs[d]; py += ys[d];
            if (++idx[d] < dims[d]) break;
            pv -= vs[d] * dims[d]; py -= ys[d] * dims[d]; idx[d] = 0;
        }
        if (d < 0) return 1;
    }
}
