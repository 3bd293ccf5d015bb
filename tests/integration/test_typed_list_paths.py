"""typed_list at PyTensor's paths, compiled (needs a linker plugin)."""

from __future__ import annotations


def test_typed_list_constant_and_pytensor_paths():
    import opgraph
    import opgraph.tensor as pt
    import opgraph.typed_list as tl
    from opgraph.graph.basic import Apply
    from opgraph.typed_list.type import TypedListType

    ltype = TypedListType(pt.dvector)
    const = ltype.make_constant([[1.0, 2.0], [3.0]])
    assert isinstance(const, tl.TypedListConstant) and const.type == ltype
    n, second = opgraph.function([], [tl.length(const), const[1]])()
    assert int(n) == 2 and second.tolist() == [3.0]
    assert tl.TypedListType is TypedListType and tl.Apply is Apply and tl.lscalar is pt.lscalar
