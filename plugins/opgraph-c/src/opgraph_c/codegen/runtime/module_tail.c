/* The module's methods and init function; the cache puts the module's name in. */
static PyMethodDef og_methods[] = {
    {"bind", (PyCFunction)og_bind, METH_VARARGS, "bind(cells...) -> run()"},
    {"pool_handler", (PyCFunction)og_pool_capsule, METH_NOARGS, "this module's buffer pool"},
    {"pool_release", (PyCFunction)og_pool_release, METH_NOARGS, "free the pooled buffers"},
    {NULL, NULL, 0, NULL}
};
static struct PyModuleDef og_module = {PyModuleDef_HEAD_INIT, "MODNAME", NULL, -1, og_methods};
PyMODINIT_FUNC PyInit_MODNAME(void) {
    import_array();
    return PyModule_Create(&og_module);
}
