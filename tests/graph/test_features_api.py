"""Feature API at PyTensor's names: provides, callbacks, FullHistory, pickling, defaults."""

import pickle

import pytest
from toys import add, dbl, neg, var

from opgraph.graph.destroyhandler import DestroyHandler
from opgraph.graph.features import (
    Feature,
    FullHistory,
    History,
    ReplaceValidate,
    register_feature_callback,
)
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.rewriting.basic import node_rewriter
from opgraph.graph.utils import InconsistencyError


def graph():
    x, y = var("x"), var("y")
    out = add(neg(x), y)
    return FunctionGraph([x, y], [out], clone=False), x, y, out


def test_every_graph_can_checkpoint_revert_and_validate():
    fg, x, y, out = graph()
    assert [type(f) for f in fg.features] == [ReplaceValidate]
    chk = fg.checkpoint()
    fg.replace_validate(out, dbl(y))
    assert fg.outputs[0].owner.op == dbl
    fg.revert(chk)
    assert fg.outputs[0] is out
    assert fg.validate() is True and fg.consistent()
    # a user's ReplaceValidate is the one kept; the default is not added twice
    own = ReplaceValidate()
    fg2 = FunctionGraph([x, y], [out], features=[own], clone=False)
    assert fg2.features == [own]


def test_provides_and_callbacks_are_declared():
    assert set(ReplaceValidate.provides) >= {"checkpoint", "revert", "validate",
                                             "replace_all_validate"}
    assert set(DestroyHandler.provides) == {"destroyers", "has_destroyers"}
    assert "on_change_input" in History._feature_callbacks
    fg, *_ = graph()
    fg.attach_feature(DestroyHandler())
    for f in fg.features:
        for name in f.provides:
            assert callable(getattr(fg, name)), name

    class Custom(Feature):
        @register_feature_callback
        def ping(self, fgraph):
            return "pong"

    assert "ping" in Custom._feature_callbacks
    with pytest.raises(TypeError, match="appear in both `provides` and as callbacks"):

        class Bad(Feature):
            provides = ("on_validate",)

            @register_feature_callback
            def on_validate(self, fgraph):
                pass


def test_on_validate_callbacks_run_on_validate():
    fg, *_ = graph()

    class Refuse(Feature):
        def on_validate(self, fgraph):
            raise InconsistencyError("refused")

    fg.attach_feature(Refuse())
    with pytest.raises(InconsistencyError, match="refused"):
        fg.validate()
    assert not fg.consistent()


def test_collect_callbacks_passes_arguments_as_given():
    fg, *_ = graph()

    class Answer(Feature):
        def answer(self, a, b):
            return a + b

    f = Answer()
    fg.attach_feature(f)
    assert fg.collect_callbacks("answer", 40, 2) == {f: 42}


def test_callback_times_are_recorded():
    fg, _x, y, out = graph()
    fg.replace(out, dbl(y))
    assert any(t > 0 for t in fg.execute_callbacks_times.values())


def test_pickled_graph_keeps_working_features():
    fg, _x, y, out = graph()

    @node_rewriter(None)
    def local_rewriter(fgraph, node):
        return None

    fg.replace_all_validate([(out, dbl(y))], reason=local_rewriter)
    fg.attach_feature(DestroyHandler())
    fg2 = pickle.loads(pickle.dumps(fg))
    chk = fg2.checkpoint()
    fg2.replace_all_validate([(fg2.outputs[0], neg(fg2.inputs[1]))], reason="again")
    fg2.revert(chk)
    assert fg2.outputs[0].owner.op == dbl
    assert fg2.destroyers(fg2.inputs[0]) == [] and fg2.has_destroyers([fg2.inputs[0]]) is False
    rv = next(f for f in fg2.features if isinstance(f, ReplaceValidate))
    assert [e.reason for e in rv.history[fg2]] == ["local_rewriter"]


def test_full_history_replays_changes():
    fg, x, y, out = graph()
    history = FullHistory()
    fg.attach_feature(history)
    step1 = dbl(y)
    fg.replace(out, step1, reason="one")
    step2 = neg(step1)
    fg.replace(step1, step2, reason="two")
    assert fg.outputs[0] is step2
    assert history.start().outputs[0] is out
    fg.check_integrity()
    assert history.next().outputs[0] is step1
    assert history.end().outputs[0] is step2
    assert history.prev().outputs[0] is step1
    for _ in range(5):
        history.prev()
    assert fg.outputs[0] is out
    assert history.goto(2).outputs[0] is step2
    fg.check_integrity()
    # a new change after going back forgets the undone ones
    history.goto(1)
    fg.replace(step1, add(x, y), reason="three")
    assert len(history.changes) == 2 and history.pointer == 2


def test_verbose_replacement_messages(capsys):
    fg, _x, y, out = graph()
    fg.replace_all_validate([(out, y)], reason="test-reason", verbose=True)
    assert f"rewriting: rewrite test-reason replaces {out} of {out.owner} with y of None" in (
        capsys.readouterr().out
    )


def test_import_and_prune_reasons_are_recorded_on_nodes():
    fg, _x, y, out = graph()
    new = dbl(y)
    fg.import_var(new, reason="testing")
    assert new.owner.tag.imported_by == ["testing"]
    old = out.owner
    fg.replace(out, y, reason="gone")
    assert old.tag.removed_by == ["gone"]
