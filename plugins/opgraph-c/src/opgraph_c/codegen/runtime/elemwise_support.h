
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
    PyErr_Format(PyExc_ValueError,
                 "%U: input shapes %s cannot be broadcast together (Runtime broadcasting "
                 "not allowed: only dimensions of static length 1 broadcast)", op, buf);
}
