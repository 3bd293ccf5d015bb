"""Debugging modes and tools: DebugMode, NanGuardMode, MonitorMode, profiling, dumps.

Each is a Mode (or helper) built on the core's public linker contract, so it
works whatever backend plugins are installed; DebugMode also uses the C
linker, through the mode registry, when one is usable.
"""
