
/* Drop this call's reference to variable k, keeping the buffer for the next
   call when the variable's mode says so: always (1), or (3) when it is a small
   array owning its data, so a small graph allocates no intermediates per call
   (large ones go back to the buffer pool or to the allocator).  Mode 4 keeps a view
   object nobody else holds, detached from the memory it viewed (no reference to the
   caller's input or to a kept buffer survives the call), for og_view_into. */
static void og_release(OGState *st, Py_ssize_t k, PyObject **slot) {
    PyObject *o = *slot;
    *slot = NULL;
    if (!o) return;
    const unsigned char mode = st->keep_mode[k];
    if ((mode == 1 || mode == 3) && st->keep[k] == NULL && PyArray_Check(o) &&
        (mode == 1 || (PyArray_BASE((PyArrayObject *)o) == NULL &&
                       og_nbytes((PyArrayObject *)o) <= OG_KEEP_SMALL_BYTES))) {
        st->keep[k] = o;
        return;
    }
    if (mode == 4 && st->keep[k] == NULL && Py_REFCNT(o) == 1 && Py_TYPE(o) == &PyArray_Type &&
        !(PyArray_FLAGS((PyArrayObject *)o) & (NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEBACKIFCOPY))) {
        PyArrayObject_fields *f = (PyArrayObject_fields *)o;
        PyObject *base = f->base;
        f->base = NULL;
        f->data = NULL;
        st->keep[k] = o;
        Py_XDECREF(base);
        return;
    }
    Py_DECREF(o);
}
