"""The Feature side of a FunctionGraph: attaching Features and running their callbacks.

``FeatureHost`` is a base class of ``FunctionGraph``; it keeps, per callback
name, the bound methods of the Features that really implement it, so a change
to the graph only calls the Features that listen.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from opgraph.graph.features import AlreadyThere, Feature

__all__ = ["FeatureHost"]


class FeatureHost:
    """Feature attach/detach, callback dispatch and pickling for a graph.

    The graph provides ``_features``, ``_callbacks``, ``_order_features`` and
    ``execute_callbacks_times``.
    """

    _features: list[Any]
    _callbacks: dict[str, list]
    _order_features: list[Any]
    execute_callbacks_times: dict[Any, float]

    def attach_feature(self, feature: Any) -> bool:
        """Attach ``feature`` and run its ``on_attach``; False if it refused.

        Attaching the same instance twice raises AlreadyThere; a Feature whose
        ``on_attach`` raises AlreadyThere (an equivalent one is attached) is
        quietly refused, as rewriters rely on.
        """
        if any(f is feature for f in self._features):
            raise AlreadyThere(
                f"{type(feature).__name__} instance {feature!r:.80} is already attached to "
                "this FunctionGraph; attach a new instance or check fgraph._features first"
            )
        attach = getattr(feature, "on_attach", None)
        if attach is not None:
            try:
                attach(self)
            except AlreadyThere:
                return False
        self.execute_callbacks_times.setdefault(feature, 0.0)
        self._features.append(feature)
        self._refresh_callbacks()
        return True

    def remove_feature(self, feature: Any) -> None:
        """Detach ``feature`` and run its ``on_detach``."""
        for k, f in enumerate(self._features):
            if f is feature:
                del self._features[k]
                break
        else:
            return
        self._refresh_callbacks()
        detach = getattr(feature, "on_detach", None)
        if detach is not None:
            detach(self)

    def _refresh_callbacks(self) -> None:
        self._callbacks = {}
        self._order_features = [
            f
            for f in self._features
            if callable(getattr(f, "orderings", None))
            and not (isinstance(f, Feature) and type(f).orderings is Feature.orderings)
        ]
        # _topo_cache holds the order without Feature orderings (those take the
        # _toposort_with path), so attaching or removing a Feature keeps it valid.

    def _callbacks_for(self, name: str) -> list:
        """Bound callbacks of Features that really implement ``name`` (cached)."""
        cbs = self._callbacks.get(name)
        if cbs is None:
            cbs = []
            for f in self._features:
                fn = getattr(f, name, None)
                if fn is None or not callable(fn):
                    continue
                base = getattr(Feature, name, None)
                if isinstance(f, Feature) and base is not None and getattr(type(f), name) is base:
                    continue  # the Feature default does nothing
                cbs.append(fn)
            self._callbacks[name] = cbs
        return cbs

    def execute_callbacks(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Call ``feature.<name>(self, *args, **kwargs)`` on every Feature that has it.

        The time each Feature spends is added up in ``execute_callbacks_times``.
        """
        cbs = self._callbacks_for(name)
        if not cbs:
            return
        times = self.execute_callbacks_times
        for fn in cbs:
            t0 = perf_counter()
            fn(self, *args, **kwargs)
            feature = getattr(fn, "__self__", fn)
            times[feature] = times.get(feature, 0.0) + perf_counter() - t0

    def collect_callbacks(self, name: str, *args: Any) -> dict[Any, Any]:
        """``{feature: feature.<name>(*args)}`` for every Feature that has it."""
        d = {}
        for f in self._features:
            fn = getattr(f, name, None)
            if callable(fn):
                d[f] = fn(*args)
        return d

    def __getstate__(self) -> dict[str, Any]:
        """The graph and its Features; the methods Features installed are re-made on load."""
        d = self.__dict__.copy()
        for f in self._features:
            for name in (*getattr(f, "pickle_rm_attr", ()), *getattr(f, "provides", ())):
                if name in d and getattr(f, "unpickle", None) is not None:
                    del d[name]
        d["_callbacks"] = {}
        return d

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for f in self._features:
            unpickle = getattr(f, "unpickle", None)
            if unpickle is not None:
                unpickle(self)
