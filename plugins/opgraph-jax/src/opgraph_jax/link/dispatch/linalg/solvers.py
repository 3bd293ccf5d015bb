"""PyTensor's ``link.jax.dispatch.linalg.solvers`` path."""

from opgraph.tensor.linalg import CholeskySolve, Solve, SolveSylvester, SolveTriangular

from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_ChoSolve", "jax_funcify_Solve", "jax_funcify_SolveSylvester",
           "jax_funcify_SolveTriangular"]

jax_funcify_ChoSolve = registered_translation(CholeskySolve)
jax_funcify_Solve = registered_translation(Solve)
jax_funcify_SolveSylvester = registered_translation(SolveSylvester)
jax_funcify_SolveTriangular = registered_translation(SolveTriangular)
