
/* Drop this call's reference to variable k, keeping the buffer for the next
   call when the variable's mode says so: always (1), or (3) when it is a small
   array owning its data, so a small graph allocates no intermediates per call
   (large ones go back to the buffer pool or to the allocator). */
static void og_release(OGState *st, Py_ssize_t k, PyObject **slot) {
    PyObject *o = *slot;
    *slot = NULL;
    if (!o) return;
    const unsigned char mode = st->keep_mode[k];
    if ((mode == 1 || mode == 3) && st->keep[k] == NULL && PyArray_Check(o) &&
        (mode == 1 || (PyArray_BASE((PyArrayObject *)o) == NULL &&
                       PyArray_NBYTES((PyArrayObject *)o) <= OG_KEEP_SMALL_BYTES))) {
        st->keep[k] = o;
        return;
    }
    Py_DECREF(o);
}
