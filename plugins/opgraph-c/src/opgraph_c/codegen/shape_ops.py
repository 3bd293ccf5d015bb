"""placeholder"""
def emit_dimshuffle(node, ctx):
    return None
def table():
    return {}
