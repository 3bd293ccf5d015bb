def register_rewrites(db):
    pass
