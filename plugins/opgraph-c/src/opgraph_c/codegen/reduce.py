def emit_careduce(node, ctx):
    return None
