/* Run n Python-thunk nodes described by prog (see _PyProgram): set their input
   cells, call the thunk, read and check the outputs, free what is dead. */
static int og_run_py(OGState *st, PyObject **v, const int *prog, int n, int *node) {
    for (int c = 0; c < n; c++) {
        int k = *prog++;
        *node = k;
#ifdef OG_PROFILE
        double t0 = og_clock();
#endif
        int nin = *prog++;
        for (int i = 0; i < nin; i++, prog++)
            if (og_set_cell(st, *prog, v[*prog])) return -1;
        if (og_call_thunk(st, k)) return -1;
        int nout = *prog++;
        for (int j = 0; j < nout; j++, prog += 2) {
            int slot = prog[0], chk = prog[1];
            Py_XDECREF(v[slot]);
            v[slot] = og_get_cell(st, slot);
            if (chk >= 0) {
                const int *ck = og_py_chk + 4 * chk;
                if (og_check(&v[slot], ck[0], ck[1], og_py_shp + ck[3],
                             PyTuple_GET_ITEM(st->labels, ck[2]), 0)) return -1;
            }
        }
#ifdef OG_PROFILE
        og_prof_add(st, k, t0);
#endif
        int ndead = *prog++;
        for (int d = 0; d < ndead; d++, prog++) og_release(st, *prog, &v[*prog]);
    }
    return 0;
}
