"""Loops over symbolic graphs: ``scan`` and the views built on it (PyTensor's ``pytensor.scan``)."""

from opgraph.scan.basic import scan
from opgraph.scan.checkpoints import scan_checkpoints
from opgraph.scan.op import Scan, ScanInfo
from opgraph.scan.utils import until
from opgraph.scan.views import foldl, foldr, map, reduce

__all__ = ["Scan", "ScanInfo", "foldl", "foldr", "map", "reduce", "scan", "scan_checkpoints",
           "until"]
