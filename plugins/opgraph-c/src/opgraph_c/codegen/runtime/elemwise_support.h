
static void og_shape_error(OGState *st, int node, PyArrayObject **ins, int nin) {
    PyObject *op = PyTuple_GET_ITEM(st->labels, OG_NIN + OG_NNODES + node);
    char buf[512]; int pos = 0;
    for (int i = 0; i < nin && pos < 400; i++) {
        pos += snprintf(buf + pos, sizeof(buf) - pos, "%s(", i ? ", " : "");
        for (int d = 0; d < PyArray_NDIM(ins[i]) && pos < 400; d++)
            pos += snprintf(buf + pos, sizeof(buf) - pos, "%s%ld", d ? "," : "",
                            (long)PyArray_DIMS(ins[i])[d]);
        pos += snprintf(buf + pos, sizeof(buf) - pos, ")");
    }
    /* Name the first clash as PyTensor does: input[i].shape[d] = a, input[j].shape[d] = b.
       Any input may be 0-d (a DimShuffle{x,..} of a scalar is elided): it broadcasts. */
    int ci = 0, cj = 0, cd = 0, found = 0, maxnd = 0; long ca = 0, cb = 0;
    for (int i = 0; i < nin; i++)
        if (PyArray_NDIM(ins[i]) > maxnd) maxnd = PyArray_NDIM(ins[i]);
    for (int d = 0; !found && d < maxnd; d++)
        for (int i = 0; !found && i < nin; i++)
            for (int j = 0; !found && j < nin; j++)
                if (d < PyArray_NDIM(ins[i]) && d < PyArray_NDIM(ins[j])
                    && PyArray_DIMS(ins[i])[d] != PyArray_DIMS(ins[j])[d]
                    && PyArray_DIMS(ins[i])[d] != 1) {
                    found = 1; ci = i; cj = j; cd = d;
                    ca = (long)PyArray_DIMS(ins[i])[d]; cb = (long)PyArray_DIMS(ins[j])[d];
                }
    PyErr_Format(PyExc_ValueError,
                 "%U: input shapes %s cannot be broadcast together (%s: (input[%d].shape[%d] = %ld, "
                 "input[%d].shape[%d] = %ld); only dimensions of static length 1 broadcast)", op, buf,
                 cb == 1 ? "Runtime broadcasting not allowed" : "Input dimension mismatch",
                 ci, cd, ca, cj, cd, cb);
}
