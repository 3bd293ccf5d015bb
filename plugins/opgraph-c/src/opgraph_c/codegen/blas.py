def emit_dot(node, ctx):
    return None
